/* SPDX-License-Identifier: Apache-2.0 */
/* Shared by the --from fuzz targets. */
#include "fuzz_import_common.h"

#include "gpudoctor/stack.h"

#include <stdlib.h>
#include <string.h>

void fuzz_import_check(const gd_facts *f)
{
    if (f->series.gpus != f->gpu_count)
        __builtin_trap();
    for (size_t i = 1; i < f->series.n; i++)
        if (!(gd_series_t(&f->series, i) >= gd_series_t(&f->series, i - 1)))
            __builtin_trap(); /* time runs forward */
    for (size_t i = 0; i < f->series.n; i++)
        for (size_t g = 0; g < f->gpu_count; g++)
            for (int m = 0; m < GD_M_COUNT; m++) {
                gd_value v = gd_series_at(&f->series, i, g, (gd_metric)m);
                if (gd_ok(v) && !(v.v == v.v && v.v < 1e19 && v.v > -1e19))
                    __builtin_trap(); /* no NaN, no infinity, nothing absurd */
            }
    for (size_t g = 0; g < f->gpu_count; g++)
        if (strlen(f->gpus[g].name) >= sizeof f->gpus[g].name)
            __builtin_trap();
    const gd_stack_facts *s = f->stack;
    if (s && ((!s->kernel_log_read && s->xid_group_count + s->aer_device_count + s->gpu_fatal_count > 0) ||
              s->xid_group_count > GD_STACK_MAX_XID_GROUPS || s->aer_device_count > GD_STACK_MAX_AER_DEVICES ||
              s->gpu_fatal_count > GD_STACK_MAX_GPU_FATAL))
        __builtin_trap(); /* Xid, lost-GPU and AER events from a kernel log read, within its bounds */
    size_t counted = 0;
    for (size_t i = 0; s && i < s->xid_group_count; i++) {
        if (s->xid_groups[i].example_count > GD_XID_EXAMPLES || s->xid_groups[i].example_count == 0 ||
            s->xid_groups[i].count < s->xid_groups[i].example_count)
            __builtin_trap(); /* every pair keeps its newest events */
        if (s->xid_groups[i].lines < s->xid_groups[i].count)
            __builtin_trap(); /* an event is at least one line */
        counted += s->xid_groups[i].lines;
    }
    if (s && counted + s->xid_dropped != s->xid_total)
        __builtin_trap(); /* every Xid line counted once */
}

void fuzz_import_run(fuzz_parser parse, const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    if (!text)
        return;
    memcpy(text, data, size);
    text[size] = '\0';
    char err[512] = "";
    gd_facts f;
    memset(&f, 0, sizeof f);
    if (parse("fuzz", text, size, &f, err, sizeof err) == 0)
        fuzz_import_check(&f);
    else if (err[0] == '\0' || strlen(err) >= sizeof err)
        __builtin_trap(); /* every failure must explain itself */
    gd_facts_free(&f);
    free(text);
}
