/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libFuzzer target for profiler traces: the streaming JSON reader, the
 * gzip path (inputs that start with gzip's magic are inflated first, as a
 * .json.gz file is), the analysis and the findings. None may crash, hang,
 * read out of bounds or leak, whatever the bytes.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "analysis/trace/trace.h"
#include "formats/trace/trace_read.h"
#include "checks/trace_checks.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    gd_trace_acc *acc = gd_trace_acc_new();
    if (!acc)
        return 0;
    gd_trace_meta meta;
    char err[256];
    if (gd_trace_read_mem(data, size, acc, &meta, err, sizeof err) == 0) {
        gd_trace_opts o;
        gd_trace_opts_default(&o);
        o.include_last_step = size % 2; /* both ways of choosing the window */
        gd_trace_result r;
        if (gd_trace_analyze(acc, &meta, &o, &r, err, sizeof err) == 0) {
            gd_findings fs = {0};
            gd_trace_checks_run(&r, 1, &fs);
            gd_findings_free(&fs);
        }
        gd_trace_result_free(&r);
    } else {
        (void)strlen(err);
    }
    gd_trace_acc_free(acc);
    return 0;
}
