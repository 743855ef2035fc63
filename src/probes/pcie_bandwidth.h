/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Host-device bandwidth through the CUDA driver API (`gpudoctor bench
 * pcie`): host-to-device and device-to-host copies, pinned and pageable, for
 * each GPU alone and for all GPUs at once.
 */
#ifndef GD_PCIE_BANDWIDTH_H
#define GD_PCIE_BANDWIDTH_H

#include "gpudoctor/pcie.h"

#include <signal.h>
#include <stddef.h>

typedef struct gd_pcie_bench_opts {
    const char *cuda_library; /* NULL: libcuda.so.1 */
    const char *sim_scenario; /* the simulated libcuda's scenario (--sim), or NULL */
    size_t bytes; /* per copy; 0: 256 MiB */
    int reps; /* timed copies per figure; 0: 5 */
    bool concurrent; /* also measure all GPUs at once (when more than one) */
    /* Set by a stop signal: each figure then takes the timed copies done
     * (one at least) and the GPUs are not measured at once; NULL: none. */
    const volatile sig_atomic_t *stop;
} gd_pcie_bench_opts;

/*
 * Measures every CUDA device and maps it to f's GPUs by PCI bus id. Fills
 * *out (the caller frees out->gpus). A device that fails keeps NAN figures
 * and says why in its error. Returns 0, or -1 with a message when CUDA
 * cannot be used at all (no library, cuInit fails, no device) or when no
 * device gave a single figure (every one failed: the message gives why).
 */
int gd_pcie_bench_run(const gd_pcie_bench_opts *o, const gd_facts *f, gd_pcie_bench *out, char *err, size_t errlen);

#endif
