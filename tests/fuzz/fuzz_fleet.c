/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libFuzzer target for the reader of `gpudoctor fleet` (a node's check
 * report, or a `bench nccl --nodes` report's nodes): any bytes give nodes or a message, never a crash, a leak or
 * undefined behaviour; an accepted node is compared against copies of itself
 * and a changed copy, so the statistics see what the reader lets through.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/fleet.h"
#include "formats/fleet/fleet_read.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char err[1024];
    /* A run across nodes' report first: its nodes, then the same bytes as a check report. */
    gd_fleet run = {0};
    if (gd_fleet_parse_run((const char *)data, size, "fuzz.json", &run.nodes, &run.n, err, sizeof err) == 0) {
        gd_fleet_result rr;
        if (gd_fleet_analyze(&run, &rr) == 0)
            gd_fleet_result_free(&rr);
        gd_fleet_free(&run);
    }
    gd_fleet f = {0, calloc(4, sizeof(gd_fleet_node))};
    for (size_t k = 0; f.nodes && k < 4; k++) {
        if (gd_fleet_parse_report((const char *)data, size, "fuzz.json", &f.nodes[k], err, sizeof err) != 0)
            break;
        f.n++;
        if (k == 3)
            for (size_t g = 0; g < f.nodes[k].ngpus; g++)
                f.nodes[k].gpus[g].sm_clock_mhz *= 0.5;
    }
    if (f.n) {
        gd_fleet_result r;
        if (gd_fleet_analyze(&f, &r) == 0)
            gd_fleet_result_free(&r);
    }
    gd_fleet_free(&f);
    return 0;
}
