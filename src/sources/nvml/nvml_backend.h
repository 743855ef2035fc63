/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The NVML source: reads facts and samples from NVML into the collection model.
 * Every call goes through one helper that keeps the function name and its
 * return code; NOT_SUPPORTED and NO_PERMISSION are data, not failures.
 */
#ifndef GD_NVML_BACKEND_H
#define GD_NVML_BACKEND_H

#include "gpudoctor/model.h"
#include "loaders/nvml_loader.h"

/* Where one GPU's PCIe throughput comes from between samples. */
typedef struct gd_nvml_pcie {
    /* The driver's byte counters (field values 197/198), when they answer:
     * the rate is their growth between two samples, and costs nothing. */
    bool counters;
    double last_t; /* session seconds of the previous counter read; < 0 none */
    unsigned long long last_tx, last_rx;
    /* Else nvmlDeviceGetPcieThroughput, which samples for 20 ms per call:
     * read off the sampling path at most once a second per GPU
     * (nvml_pcie_poll.c), its answers held until the next read. With a
     * thread, these are under its lock; times are on the reader's clock
     * (the thread's monotonic one, else session seconds). */
    bool wanted; /* the byte counters do not answer: the call is needed */
    bool read; /* read at least once */
    double next_t; /* from when it may be read again */
    double read_t; /* when it was last read */
    nvmlReturn_t rc_tx, rc_rx;
    unsigned tx, rx;
} gd_nvml_pcie;

typedef struct gd_pcie_poller gd_pcie_poller;

/* A getter of the samples, whatever its type: the key of what a GPU cannot answer. */
typedef void (*gd_nvml_fn)(void);

/* A getter that answered "cannot" (NOT_SUPPORTED, DEPRECATED,
 * FUNCTION_NOT_FOUND, ARGUMENT_VERSION_MISMATCH): the answer stands until
 * `until`, and the getter is not asked before (nvml_reader.c's gd_nvml_ask). */
typedef struct gd_nvml_cannot {
    gd_nvml_fn fn; /* its entry in the API table */
    int arg; /* the argument that picks the reading: a clock, a policy; else 0 */
    nvmlReturn_t rc;
    double until; /* session seconds */
} gd_nvml_cannot;

#define GD_NVML_CANNOT_MAX 24 /* more than the samples' getters */

/* What the samples remember of one GPU between two of them (nvml_sample.c). */
typedef struct gd_nvml_memo {
    gd_nvml_cannot cannot[GD_NVML_CANNOT_MAX];
    size_t cannot_count;
    /* The readings that move with the performance state (the memory clock,
     * the PCIe link's generation and width), as last read, with the P-state
     * and the idle clock event reason seen then. */
    bool slow_read;
    double slow_t; /* session seconds of that read */
    gd_value pstate, idle, mem_clock, pcie_gen, pcie_width;
} gd_nvml_memo;

typedef struct gd_nvml_session {
    gd_nvml_api api;
    bool initialised;
    size_t count;
    nvmlDevice_t *devices;
    gd_nvml_pcie *pcie; /* [count] */
    gd_nvml_memo *memo; /* [count] */
    size_t pcie_next_gpu; /* round robin of the throughput reads */
    bool pcie_thread; /* read the throughput on a thread of its own (a machine's wall clock) */
    gd_pcie_poller *poller; /* that thread, once started; NULL: read between samples */
    size_t pcie_reads, pcie_reads_told; /* throughput reads made, and told to the facts */
    double pcie_every_s; /* the shortest spacing between two reads of one GPU */
    /* What runs beside the session and calls NVML (the throughput thread)
     * registers its stop here; gd_nvml_close calls it before the shutdown. */
    void (*on_close)(struct gd_nvml_session *s);
    double interval_s; /* the session's interval: picks the instant power field for short windows */
    bool one_shot; /* a single snapshot (info, --duration 0): every GPU's throughput is read, once */
} gd_nvml_session;

/*
 * Loads NVML (path may be NULL), initialises it and enumerates the GPUs.
 * Returns 0; or -1 with a reason in err, the session then being closed.
 * When the library is the simulator, its own message is used.
 */
int gd_nvml_open(gd_nvml_session *s, const char *path, const char *sim_scenario, char *err, size_t errlen);
void gd_nvml_close(gd_nvml_session *s);

/* Fills f's driver fields and f->gpus (static facts); process names and
 * owners come from proc_root ("": not read). Returns 0 or -1 (allocation). */
int gd_nvml_snapshot(gd_nvml_session *s, gd_facts *f, const char *proc_root);

/*
 * Reads every dynamic metric of every GPU into sample row i of f->series,
 * and the NVLink data counters with them. A GPU answering
 * NVML_ERROR_GPU_IS_LOST is marked lost (with the call and time) and is not
 * asked again; a getter it cannot answer is asked again only every
 * GD_HEALTH_REREAD_S.
 */
void gd_nvml_sample(gd_nvml_session *s, gd_facts *f, size_t i);

/* NVML's text for a return code; nvmlErrorString may be missing or answer
 * NULL (nvml.h promises neither): then "NVML error N" in buf. */
const char *gd_nvml_error_text(const gd_nvml_session *s, nvmlReturn_t rc, char *buf, size_t len);
/* Reads GPU g's ECC, retired-page and row-remapping counters again into
 * *out (a copy of its gd_gpu: the caller compares, nvml_events.c). */
void gd_nvml_reread_memory_health(gd_nvml_session *s, size_t g, gd_gpu *out, double t_s);

#endif
