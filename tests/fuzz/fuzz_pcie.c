/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libFuzzer target for the PCIe capture importers, lspci -vv and
 * nvidia-smi topo -m (src/formats/capture/lspci.c, topo.c), built once per
 * parser with FUZZ_PARSER naming it:
 * any bytes give PCIe facts or a message, never a crash, a leak or undefined
 * behaviour. Parsed facts also go through the topology derivation and the
 * checks that read them, so odd paths and matrices reach those too.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "formats/capture/import.h"
#include "gpudoctor/checks.h"
#include "gpudoctor/pcie.h"
#include "analysis/topology.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    gd_facts f;
    memset(&f, 0, sizeof f);
    f.pid = -1;
    char err[512] = "";
    if (FUZZ_PARSER("fuzz.txt", (const char *)data, size, &f, err, sizeof err) != 0) {
        if (err[0] == '\0')
            __builtin_trap(); /* every failure must explain itself */
    } else if (f.pcie) {
        if (f.pcie->gpu_count && !f.pcie->matrix)
            (void)gd_topo_derive(f.pcie, &f);
        gd_findings fs = {0};
        for (size_t i = 0; i < gd_checks_count; i++)
            if (strncmp(gd_checks[i].id, "pcie.", 5) == 0 || strncmp(gd_checks[i].id, "topology.", 9) == 0)
                gd_check_run(&gd_checks[i], &f, &fs);
        gd_findings_free(&fs);
    }
    gd_facts_free(&f);
    return 0;
}
