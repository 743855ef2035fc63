/* SPDX-License-Identifier: Apache-2.0 */
/* Shaded intervals: held-back clocks and downgraded links over the window. */
#include "report_spans.h"

#include "analysis/window.h"

#include <stdio.h>
#include <string.h>

typedef unsigned long long (*state_fn)(const gd_facts *f, size_t i, size_t g);

static unsigned long long reasons_at(const gd_facts *f, size_t i, size_t g)
{
    gd_value r = gd_series_at(&f->series, i, g, GD_M_EVENT_REASONS);
    if (!gd_ok(r))
        return 0;
    return (unsigned long long)r.v & ~gd_reason_bit("gpu_idle");
}

static unsigned long long link_at(const gd_facts *f, size_t i, size_t g)
{
    const gd_gpu *gpu = &f->gpus[g];
    gd_value gen = gd_series_at(&f->series, i, g, GD_M_PCIE_GEN);
    gd_value width = gd_series_at(&f->series, i, g, GD_M_PCIE_WIDTH);
    if (!gd_ok(gen) || !gd_ok(width) || !gd_ok(gpu->pcie_gen_max) || !gd_ok(gpu->pcie_width_max) ||
        !gd_loaded_at(f, i, g))
        return 0;
    if (gen.v >= gpu->pcie_gen_max.v && width.v >= gpu->pcie_width_max.v)
        return 0;
    return (unsigned long long)gen.v * 100 + (unsigned long long)width.v;
}

static void reasons_label(const gd_facts *f, size_t g, gd_report_span *s)
{
    (void)f;
    (void)g;
    size_t used = 0;
    s->label[0] = 0;
    s->cls = -1;
    for (size_t k = 0; k < gd_reason_names_count && used < sizeof s->label; k++) {
        if (!(s->key & gd_reason_names[k].bit))
            continue;
        if (s->cls < 0)
            s->cls = (int)k % 8;
        used += (size_t)snprintf(s->label + used, sizeof s->label - used, "%s%s", used ? ", " : "",
                                 gd_reason_names[k].name);
    }
    if (!s->label[0])
        snprintf(s->label, sizeof s->label, "reasons 0x%llx", s->key);
    if (s->cls < 0)
        s->cls = 0;
}

static void link_label(const gd_facts *f, size_t g, gd_report_span *s)
{
    const gd_gpu *gpu = &f->gpus[g];
    snprintf(s->label, sizeof s->label, "PCIe Gen%llu x%llu (max Gen%.0f x%.0f)", s->key / 100, s->key % 100,
             gpu->pcie_gen_max.v, gpu->pcie_width_max.v);
    s->cls = 5;
}

static size_t spans_of(const gd_facts *f, size_t g, double merge_s, gd_report_span *out, size_t cap, state_fn state,
                       void (*label)(const gd_facts *, size_t, gd_report_span *))
{
    const gd_series *se = &f->series;
    size_t n = 0;
    for (size_t i = 0; i < se->n && cap > 0;) {
        unsigned long long key = state(f, i, g);
        if (!key) {
            i++;
            continue;
        }
        size_t j = i;
        while (j + 1 < se->n && state(f, j + 1, g) == key)
            j++;
        double t0 = gd_series_t(se, i), t1 = gd_series_t(se, j + 1 < se->n ? j + 1 : j);
        /* The same state again a moment after the last span with it: one band. */
        if (n > 0 && out[n - 1].key == key && t0 - out[n - 1].t1 <= merge_s) {
            out[n - 1].t1 = t1;
        } else if (n < cap) {
            out[n] = (gd_report_span){.t0 = t0, .t1 = t1, .key = key};
            label(f, g, &out[n]);
            n++;
        }
        i = j + 1;
    }
    return n;
}

size_t gd_reason_spans(const gd_facts *f, size_t g, double merge_s, gd_report_span *out, size_t cap)
{
    return spans_of(f, g, merge_s, out, cap, reasons_at, reasons_label);
}

size_t gd_pcie_spans(const gd_facts *f, size_t g, double merge_s, gd_report_span *out, size_t cap)
{
    return spans_of(f, g, merge_s, out, cap, link_at, link_label);
}
