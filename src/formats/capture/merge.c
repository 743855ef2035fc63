/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Several captures of one machine (an XML dump, a dmon log, lspci) become
 * one set of facts. GPUs are matched by bus id, else UUID, else index (dmon
 * names nothing else). A value one file could not give is taken from
 * another; the longest series sets the time axis, and shorter ones (a -q
 * snapshot) fill its last samples, as they were taken at the end.
 *
 * Files of different machines are refused rather than merged: different
 * host names or driver versions, or a bus id or GPU index that names
 * another GPU (its UUID or name differs) cannot be one machine.
 */
#include "import.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static long match(const gd_facts *f, const gd_gpu *p)
{
    for (size_t g = 0; g < f->gpu_count; g++) {
        const gd_gpu *q = &f->gpus[g];
        if (p->pci_bus_id[0] && q->pci_bus_id[0]) {
            if (strcmp(p->pci_bus_id, q->pci_bus_id) == 0)
                return (long)g;
            continue;
        }
        if (p->uuid[0] && q->uuid[0]) {
            if (strcasecmp(p->uuid, q->uuid) == 0)
                return (long)g;
            continue;
        }
        if (p->index == q->index)
            return (long)g;
    }
    return -1;
}

static void take_text(char *dst, const char *src, size_t len)
{
    if (!dst[0] && src[0])
        snprintf(dst, len, "%s", src);
}

/* Whether the second of two readings is the better: a valid one, else the more telling status. */
static bool second_better(gd_value first, gd_value second)
{
    if (gd_ok(first))
        return false;
    return gd_ok(second) || first.status == GD_ST_UNREAD;
}

static gd_value pick(gd_value first, gd_value second)
{
    return second_better(first, second) ? second : first;
}

static const char *file_name(const gd_facts *f, unsigned file)
{
    return file < f->capture_file_count ? f->capture_files[file] : "an earlier file";
}

/* Two texts that both say something and say different things. */
static bool differ(const char *a, const char *b)
{
    return a[0] && b[0] && strcasecmp(a, b) != 0;
}

/* What makes GPU q (already read) and p (of the new file) two GPUs at one
 * place: "" when nothing does. */
static void gpu_clash(const gd_gpu *q, const gd_gpu *p, char *why, size_t len)
{
    why[0] = '\0';
    if (differ(q->uuid, p->uuid))
        snprintf(why, len, "%s in the first and %s in the second", q->uuid, p->uuid);
    else if (differ(q->name, p->name))
        snprintf(why, len, "'%s' in the first and '%s' in the second", q->name, p->name);
}

/* -1 with a message naming both files when part cannot be f's machine. */
static int same_machine(const gd_facts *f, const gd_facts *part, char *err, size_t errlen)
{
    const char *mine = file_name(part, 0);
    if (differ(f->host.hostname, part->host.hostname)) {
        snprintf(err, errlen,
                 "%s and %s are captures of different machines: host '%s' and host '%s'; give one machine's files",
                 file_name(f, f->hostname_file), mine, f->host.hostname, part->host.hostname);
        return -1;
    }
    if (differ(f->driver_version, part->driver_version)) {
        snprintf(err, errlen,
                 "%s and %s are captures of different machines: driver %s and driver %s; give one machine's files",
                 file_name(f, f->driver_file), mine, f->driver_version, part->driver_version);
        return -1;
    }
    for (size_t i = 0; i < part->gpu_count; i++)
        for (size_t g = 0; g < f->gpu_count; g++) {
            const gd_gpu *p = &part->gpus[i], *q = &f->gpus[g];
            bool same_bus = p->pci_bus_id[0] && strcmp(p->pci_bus_id, q->pci_bus_id) == 0;
            bool same_index = p->index == q->index;
            if (!same_bus && !same_index)
                continue;
            char why[256];
            gpu_clash(q, p, why, sizeof why);
            if (!why[0])
                continue;
            char where[64];
            if (same_bus)
                snprintf(where, sizeof where, "bus id %s", p->pci_bus_id);
            else
                snprintf(where, sizeof where, "GPU index %d", p->index);
            snprintf(err, errlen, "%s and %s are captures of different machines: %s is %s; give one machine's files",
                     file_name(f, q->capture_file), mine, where, why);
            return -1;
        }
    return 0;
}

/* Place of part's file in f's list (GD_CAPTURE_NO_FILE beyond it). */
static uint8_t add_file(gd_facts *f, const gd_facts *part)
{
    if (f->capture_file_count >= GD_CAPTURE_FILES - 1 || part->capture_file_count == 0)
        return GD_CAPTURE_NO_FILE;
    size_t k = f->capture_file_count++;
    memcpy(f->capture_files[k], part->capture_files[0], sizeof f->capture_files[k]);
    return (uint8_t)k;
}

/* part's GPUs cite file, their place in f's list. */
static void renumber_files(gd_facts *part, uint8_t file)
{
    for (size_t i = 0; i < part->gpu_count; i++) {
        gd_gpu *p = &part->gpus[i];
        p->capture_file = file;
        for (size_t k = 0; k < GD_GPU_READINGS; k++)
            p->origin[k].file = file;
        for (size_t m = 0; m < GD_M_COUNT; m++)
            p->metric_origin[m].file = file;
    }
}

/* src_leads: src's series is the longer, so its samples win (merge_series). */
static void merge_gpu(gd_gpu *dst, gd_gpu *src, bool src_leads)
{
    take_text(dst->name, src->name, sizeof dst->name);
    take_text(dst->uuid, src->uuid, sizeof dst->uuid);
    take_text(dst->pci_bus_id, src->pci_bus_id, sizeof dst->pci_bus_id);
    take_text(dst->serial, src->serial, sizeof dst->serial);
    take_text(dst->vbios, src->vbios, sizeof dst->vbios);
    take_text(dst->pcie_max_source, src->pcie_max_source, sizeof dst->pcie_max_source);
    /* Every gd_value from cc_major to remap_failure: one run in gd_gpu. */
    _Static_assert((offsetof(gd_gpu, remap_failure) - offsetof(gd_gpu, cc_major)) % sizeof(gd_value) == 0,
                   "gd_gpu's readings from cc_major to remap_failure must stay one run of gd_value");
    _Static_assert((offsetof(gd_gpu, remap_failure) - offsetof(gd_gpu, cc_major)) / sizeof(gd_value) < GD_GPU_READINGS,
                   "gd_gpu.origin needs a place for every reading");
    gd_value *a = &dst->cc_major, *b = &src->cc_major;
    size_t n = (size_t)(&dst->remap_failure - &dst->cc_major) + 1;
    for (size_t i = 0; i < n; i++)
        if (second_better(a[i], b[i])) {
            a[i] = b[i];
            dst->origin[i] = src->origin[i];
        }
    for (size_t m = 0; m < GD_M_COUNT; m++)
        if (!dst->metric_origin[m].key || (src_leads && src->metric_origin[m].key))
            dst->metric_origin[m] = src->metric_origin[m];
    if (!gd_ok(dst->processes_status) && gd_ok(src->processes_status)) {
        free(dst->processes);
        dst->processes = src->processes;
        dst->process_count = src->process_count;
        dst->processes_status = src->processes_status;
        src->processes = NULL;
        src->process_count = 0;
    }
    if (dst->nvlink_count == 0 && src->nvlink_count) {
        memcpy(dst->nvlink, src->nvlink, sizeof dst->nvlink);
        dst->nvlink_count = src->nvlink_count;
    }
}

/* Sample i of a series of n, aligned at the end with a series of total, or -1. */
static long aligned(size_t i, size_t n, size_t total)
{
    size_t shift = total - n;
    return i >= shift ? (long)(i - shift) : -1;
}

static gd_value at(const gd_series *s, long i, long g, int m)
{
    if (i < 0 || g < 0 || (size_t)g >= s->gpus)
        return gd_missing(GD_ST_UNREAD);
    return gd_series_at(s, (size_t)i, (size_t)g, (gd_metric)m);
}

static int merge_series(gd_facts *f, gd_facts *part, const long *part_of)
{
    gd_series *a = &f->series, *b = &part->series, out;
    bool b_longer = b->n > a->n;
    const gd_series *lng = b_longer ? b : a;
    size_t n = lng->n;
    if (gd_series_init(&out, f->gpu_count) != 0)
        return -1;
    for (size_t i = 0; i < n; i++)
        if (gd_series_push(&out, gd_series_t(lng, i)) < 0) {
            gd_series_free(&out);
            return -1;
        }
    for (size_t i = 0; i < n; i++)
        for (size_t g = 0; g < f->gpu_count; g++) {
            gd_value *slot = gd_series_slot(&out, i, g);
            long ia = aligned(i, a->n, n), ib = aligned(i, b->n, n);
            for (int m = 0; m < GD_M_COUNT; m++) {
                gd_value va = at(a, ia, (long)g, m), vb = at(b, ib, part_of[g], m);
                slot[m] = b_longer ? pick(vb, va) : pick(va, vb);
            }
        }
    if (b_longer)
        f->capture_untimed = part->capture_untimed;
    gd_series_free(a);
    *a = out;
    return 0;
}

int gd_import_merge(gd_facts *f, gd_facts *part, char *err, size_t errlen)
{
    if (same_machine(f, part, err, errlen) != 0) {
        gd_facts_free(part);
        return -1;
    }
    uint8_t file = add_file(f, part);
    renumber_files(part, file);
    gd_import_notes_take(f, part);
    if (!f->driver_version[0] && part->driver_version[0])
        f->driver_file = file;
    if (!f->host.hostname[0] && part->host.hostname[0])
        f->hostname_file = file;
    take_text(f->driver_version, part->driver_version, sizeof f->driver_version);
    take_text(f->host.hostname, part->host.hostname, sizeof f->host.hostname);
    f->cuda_driver_version = pick(f->cuda_driver_version, part->cuda_driver_version);
    size_t total = f->gpu_count + part->gpu_count;
    long *part_of = malloc((total ? total : 1) * sizeof *part_of);
    gd_gpu *grown = realloc(f->gpus, (total ? total : 1) * sizeof *grown);
    if (!part_of || !grown) {
        free(part_of);
        if (grown)
            f->gpus = grown;
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    f->gpus = grown;
    for (size_t g = 0; g < total; g++)
        part_of[g] = -1;
    for (size_t p = 0; p < part->gpu_count; p++) {
        gd_gpu *src = &part->gpus[p];
        long g = match(f, src);
        if (g < 0) {
            g = (long)f->gpu_count++;
            f->gpus[g] = *src;
            src->processes = NULL;
            src->process_count = 0;
        } else {
            merge_gpu(&f->gpus[g], src, part->series.n > f->series.n);
        }
        part_of[g] = (long)p;
    }
    int rc = merge_series(f, part, part_of);
    free(part_of);
    gd_facts_free(part);
    if (rc != 0)
        snprintf(err, errlen, "out of memory");
    return rc;
}
