/* SPDX-License-Identifier: Apache-2.0 */
/*
 * NCCL's INFO log (NCCL_DEBUG=INFO) as captured evidence: recognised by its
 * "host:pid:tid [dev] NCCL INFO" lines behind any launcher's prefix, read
 * into f->net->nccl; several files (one per rank or node) join one log.
 */
#include "capture_formats.h"
#include "import.h"
#include "formats/nccl_log/nccl_line.h"
#include "formats/nccl_log/nccl_log_read.h"
#include "gpudoctor/net.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

long gd_detect_nccl_log(const gd_capture_view *v)
{
    if (v->shape != GD_VIEW_LINES)
        return -1;
    long banner = -1;
    for (size_t i = v->first; i < v->nlines; i++) {
        gd_nccl_prefix p;
        /* A prefixed line; the bare version banner only where nothing else
         * claims the file: nccl-tests prints it above its table. Never a
         * bare word "NCCL" in prose. */
        if (!gd_nccl_line_split(v->lines[i].text, &p))
            continue;
        if (p.pid >= 0)
            return (long)i;
        if (p.level == GD_NCCL_LINE_VERSION && banner < 0)
            banner = (long)i;
    }
    return banner >= 0 && gd_detect_nccl_tests(v) < 0 ? banner : -1;
}

/* f->net->nccl, made on first use. NULL when out of memory. */
static struct gd_nccl_log *log_of(gd_facts *f)
{
    if (!f->net && !(f->net = calloc(1, sizeof *f->net)))
        return NULL;
    if (!f->net->nccl) {
        f->net->nccl = gd_nccl_log_new();
        f->net->nccl_free = gd_nccl_log_free;
    }
    return f->net->nccl;
}

int gd_import_nccl_log(const char *name, const char *text, size_t len, gd_facts *f, char *err, size_t errlen)
{
    struct gd_nccl_log *log = log_of(f);
    if (!log) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    return gd_nccl_log_add(log, name, text, len, err, errlen);
}
