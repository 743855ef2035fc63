/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The host as a source: its CPU busy and iowait shares (/proc/stat),
 * pressure stall information (/proc/pressure) and swap traffic
 * (/proc/vmstat), once a second on the session's clock, into
 * f->host_series. Read through the session's proc root: this machine's
 * /proc, the scenario's host.proc under --sim, none for captures.
 */
#include "hostinfo.h"
#include "sources/source.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* PSI's "avg10" is a 10-second average and /proc/stat counts 10 ms ticks:
 * a second between samples keeps the shares meaningful and the cost flat. */
#define GD_HOST_SAMPLE_S 1.0

typedef struct host_counters {
    gd_cpu_times cpu; /* clock ticks, all CPUs */
    double pswpin, pswpout;
    bool ok, vm_ok;
} host_counters;

typedef struct host_source {
    char root[512];
    double last_t; /* NAN before the first sample */
    host_counters was;
    gd_proc_file stat, vmstat, psi[3]; /* psi: cpu, io, memory */
    bool files; /* initialised (open ran): closed at close */
} host_source;

static const char *const psi_names[3] = {"pressure/cpu", "pressure/io", "pressure/memory"};

static int host_open(void *self, const gd_session_opts *o, gd_facts *f, gd_roots *roots, char *err, size_t errlen)
{
    (void)o;
    (void)err;
    (void)errlen;
    (void)f;
    host_source *h = self;
    snprintf(h->root, sizeof h->root, "%s", roots->proc);
    h->last_t = NAN;
    gd_proc_file_init(&h->stat, h->root, "stat");
    gd_proc_file_init(&h->vmstat, h->root, "vmstat");
    for (size_t k = 0; k < 3; k++)
        gd_proc_file_init(&h->psi[k], h->root, psi_names[k]);
    h->files = true;
    return h->root[0] ? 0 : 1;
}

static bool host_samples(const void *self)
{
    return ((const host_source *)self)->root[0] != '\0';
}

static void host_clock(const void *self, const gd_session_opts *o, int *mode, double *pace)
{
    (void)self;
    (void)o;
    *mode = 0; /* the session's clock is the GPUs' */
    *pace = 0;
}

static double psi_some_avg10(gd_proc_file *pf)
{
    char buf[512];
    if (gd_proc_file_read(pf, buf, sizeof buf) <= 0)
        return NAN;
    const char *p = strstr(buf, "some avg10=");
    return p ? strtod(p + strlen("some avg10="), NULL) : NAN;
}

static void host_sample(void *self, gd_facts *f, size_t i, double t)
{
    (void)i;
    host_source *h = self;
    if (!isnan(h->last_t) && t - h->last_t < GD_HOST_SAMPLE_S - 1e-9)
        return;
    double dt = isnan(h->last_t) ? 0 : t - h->last_t;
    h->last_t = t;
    gd_host_sample *s = gd_host_push(&f->host_series, t);
    if (!s)
        return;
    s->busy = s->iowait = s->swap_in_ps = s->swap_out_ps = NAN;
    char buf[8192];
    host_counters now = {0};
    now.ok = gd_proc_file_read(&h->stat, buf, sizeof buf) > 0 && gd_cpu_times_parse(buf, &now.cpu);
    if (gd_proc_file_read(&h->vmstat, buf, sizeof buf) > 0) {
        now.pswpin = gd_proc_field_after(buf, "pswpin ");
        now.pswpout = gd_proc_field_after(buf, "pswpout ");
        now.vm_ok = !isnan(now.pswpin) && !isnan(now.pswpout);
    }
    const host_counters *was = &h->was;
    double span = now.cpu.total - was->cpu.total;
    if (now.ok && was->ok && span > 0) {
        s->busy = (now.cpu.busy - was->cpu.busy) / span;
        s->iowait = (now.cpu.iowait - was->cpu.iowait) / span;
    }
    if (now.vm_ok && was->vm_ok && dt > 0) {
        s->swap_in_ps = (now.pswpin - was->pswpin) / dt;
        s->swap_out_ps = (now.pswpout - was->pswpout) / dt;
    }
    h->was = now;
    s->psi_cpu = psi_some_avg10(&h->psi[0]);
    s->psi_io = psi_some_avg10(&h->psi[1]);
    s->psi_mem = psi_some_avg10(&h->psi[2]);
}

static void host_close(void *self)
{
    host_source *h = self;
    if (!h->files)
        return;
    gd_proc_file_close(&h->stat);
    gd_proc_file_close(&h->vmstat);
    for (size_t k = 0; k < 3; k++)
        gd_proc_file_close(&h->psi[k]);
}

const gd_source_ops gd_source_host = {
    .name = "host",
    .size = sizeof(host_source),
    .open = host_open,
    .samples = host_samples,
    .clock = host_clock,
    .sample = host_sample,
    .close = host_close,
};
