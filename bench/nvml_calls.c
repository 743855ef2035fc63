/* SPDX-License-Identifier: Apache-2.0 */
/* What a session's samples cost the driver, counted (nvml_calls.h). */
#include "nvml_calls.h"

#include "gpudoctor/session.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The health re-read's calls (src/sources/nvml/nvml_events.c): the memory
 * and NVLink error counters, read every GD_HEALTH_REREAD_S on a cadence of
 * their own, not by a sample. */
static const char *const reread_calls[] = {"nvmlDeviceGetTotalEccErrors", "nvmlDeviceGetRetiredPages",
                                           "nvmlDeviceGetRetiredPagesPendingStatus", "nvmlDeviceGetRemappedRows",
                                           "nvmlDeviceGetNvLinkErrorCounter"};

typedef const char *(*calls_fn)(size_t i, unsigned long long *calls);

/* The simulator's counts now, by its table's order (which only grows). */
static size_t snapshot(calls_fn fn, const char **names, unsigned long long *counts)
{
    size_t n = 0;
    while (n < NVML_CALLS_MAX_FUNCTIONS && (names[n] = fn(n, &counts[n])) != NULL)
        n++;
    return n;
}

static bool is_reread(const char *name)
{
    for (size_t k = 0; k < sizeof reread_calls / sizeof reread_calls[0]; k++)
        if (strcmp(name, reread_calls[k]) == 0)
            return true;
    return false;
}

static int most_first(const void *a, const void *b)
{
    const nvml_fn_calls *x = a, *y = b;
    return (x->calls < y->calls) - (x->calls > y->calls);
}

/* The calls between two snapshots into out. */
static void tally(nvml_calls *out, const char **names, const unsigned long long *before, size_t n_before,
                  const unsigned long long *after, size_t n_after)
{
    out->n = 0;
    out->total = out->reread = 0;
    for (size_t i = 0; i < n_after; i++) {
        unsigned long long d = after[i] - (i < n_before ? before[i] : 0);
        if (!d)
            continue;
        /* The names are the library's: copied, since it is unloaded at the end. */
        snprintf(out->fn[out->n].name, sizeof out->fn[out->n].name, "%s", names[i]);
        out->fn[out->n++].calls = d;
        out->total += d;
        if (is_reread(names[i]))
            out->reread += d;
    }
    qsort(out->fn, out->n, sizeof out->fn[0], most_first);
    double gs = (double)out->gpus * (double)out->samples;
    out->per_gpu_sample = gs > 0 ? (double)(out->total - out->reread) / gs : 0;
    out->all_per_gpu_sample = gs > 0 ? (double)out->total / gs : 0;
    out->reread_per_gpu = out->rereads > 0 && out->gpus ? (double)out->reread / out->rereads / (double)out->gpus : 0;
}

int nvml_calls_count(const char *sim_dir, const char *scenario, double duration_s, double interval_s, nvml_calls *out,
                     gd_facts *keep, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    gd_ctx ctx = {.sim_dir = sim_dir};
    gd_session_opts o = {
        .ctx = &ctx, .sim_scenario = scenario, .duration_s = duration_s, .interval_s = interval_s, .pid = -1};
    gd_facts f;
    gd_session *s = gd_session_open(&o, &f, err, errlen);
    if (!s)
        return -1;
    /* The library the session opened, by the same path: the same object. */
    char lib[1024];
    snprintf(lib, sizeof lib, "%s/libnvidia-ml.so.1", sim_dir);
    void *h = dlopen(lib, RTLD_NOW | RTLD_NOLOAD);
    calls_fn fn = h ? (calls_fn)dlsym(h, "gdsim_nvml_calls") : NULL;
    if (!fn) {
        snprintf(err, errlen, "%s: not the counting simulated NVML (no gdsim_nvml_calls)", lib);
        if (h)
            dlclose(h);
        gd_session_close(s, NULL, 0);
        gd_facts_free(&f);
        return -1;
    }
    const char *names[NVML_CALLS_MAX_FUNCTIONS];
    unsigned long long before[NVML_CALLS_MAX_FUNCTIONS], after[NVML_CALLS_MAX_FUNCTIONS];
    size_t n_before = snapshot(fn, names, before);
    int reads_before = f.events.counter_reads;
    int rc;
    while ((rc = gd_session_step(s, err, errlen)) > 0)
        out->samples++;
    size_t n_after = snapshot(fn, names, after);
    out->gpus = f.gpu_count;
    out->rereads = f.events.counter_reads - reads_before;
    tally(out, names, before, n_before, after, n_after);
    dlclose(h);
    if (gd_session_close(s, rc < 0 ? NULL : err, errlen) != 0)
        rc = -1;
    if (keep && rc >= 0)
        *keep = f;
    else
        gd_facts_free(&f);
    return rc < 0 ? -1 : 0;
}

unsigned long long nvml_calls_of(const nvml_calls *c, const char *name)
{
    for (size_t i = 0; i < c->n; i++)
        if (strcmp(c->fn[i].name, name) == 0)
            return c->fn[i].calls;
    return 0;
}
