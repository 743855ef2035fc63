/* SPDX-License-Identifier: Apache-2.0 */
/* The session loop (include/gpudoctor/session.h): sources, clock, sinks. */
#include "gpudoctor/session.h"

#include "analysis/window_acc.h"
#include "core/clock.h"
#include "gpudoctor/job.h"
#include "gpudoctor/pcie.h"
#include "gpudoctor/stack.h"
#include "source.h"
#include "sources/net/net_collect.h"
#include "sources/stack/stack_collect.h"
#include "sources/pcie/pcie_collect.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/vfs.h>

#define GD_PROC_SUPER_MAGIC 0x9fa0 /* statfs f_type of a mounted procfs (linux/magic.h) */

/* Is the job's /proc this machine's live one (not a fixture tree)? Then its
 * samples are real processes' CPU time per wall second. */
static bool live_proc(const char *root)
{
    struct statfs st;
    return root[0] && statfs(root, &st) == 0 && st.f_type == GD_PROC_SUPER_MAGIC;
}

#define MAX_SINKS 8
#define GD_SIDE_SOURCES 3
#define JOB 0 /* side_sources[JOB]: the job's /proc */

struct gd_session {
    gd_session_opts o;
    gd_facts *f;
    const gd_source_ops *ops;
    void *self;
    bool sampling;
    bool gpus_sampled; /* the source samples GPUs (else only a live job is, on the wall clock) */
    void *side[GD_SIDE_SOURCES]; /* each side source's state (side_sources[]), or NULL */
    gd_clock clock;
    size_t k; /* samples taken */
    gd_roots roots; /* where host facts are read (settings, never facts) */
    bool net_live; /* f->net is this machine's (sysfs): its counters are read again */
    double net_t; /* when they were last read, session seconds */
    gd_sink sinks[MAX_SINKS];
    size_t nsinks;
};

/* The job's /proc beside the GPUs, with --pid on a machine or a scenario
 * (not --from). A job that cannot be read is no error: f->job says why. */
static int open_job(gd_session *s, void *self, char *err, size_t errlen)
{
    const gd_session_opts *o = &s->o;
    if (o->pid <= 0 || o->from_count)
        return 1;
    if (o->job_live) /* a real process watched while a scenario plays the GPUs */
        snprintf(s->roots.proc, sizeof s->roots.proc, "%s", o->ctx && o->ctx->proc_root ? o->ctx->proc_root : "/proc");
    int rc = gd_source_proc.open(self, o, s->f, &s->roots, err, errlen);
    if (rc >= 0 && s->f->job)
        s->f->job->started_in_window = o->job_live; /* run started it: it begins with the window */
    return rc < 0 ? -1 : 0;
}

/* The host's CPU, pressure and swap, wherever a /proc is known. */
static int open_host(gd_session *s, void *self, char *err, size_t errlen)
{
    if (!s->roots.proc[0])
        return 1;
    return gd_source_host.open(self, &s->o, s->f, &s->roots, err, errlen) != 0 ? 1 : 0;
}

/* New kernel log lines, where the log can be followed. */
static int open_kernel_log(gd_session *s, void *self, char *err, size_t errlen)
{
    return gd_source_kernel_log.open(self, &s->o, s->f, &s->roots, err, errlen) != 0 ? 1 : 0;
}

/* The side sources: each samples into its own part of the facts beside the
 * GPUs, in this order. The job is opened with the snapshot (a `run` on a
 * machine without GPUs still samples its job, and an error opening it ends
 * the session); the others once the series exist, and are left out when
 * they have nothing to give. A new side source is one row here
 * (tests/unit/test_architecture_tables.c holds every gd_source_ops to it). */
typedef struct side_source {
    const gd_source_ops *ops;
    bool with_snapshot;
    int (*open)(gd_session *s, void *self, char *err, size_t errlen); /* 0, 1 (not used), -1 */
} side_source;

static const side_source side_sources[GD_SIDE_SOURCES] = {
    [JOB] = {&gd_source_proc, true, open_job},
    {&gd_source_host, false, open_host},
    {&gd_source_kernel_log, false, open_kernel_log},
};

const gd_source_ops *gd_session_side_source(size_t k)
{
    return k < GD_SIDE_SOURCES ? side_sources[k].ops : NULL;
}

/* Opens the side sources of one phase; -1 only for one whose error ends the session. */
static int open_sides(gd_session *s, bool with_snapshot, char *err, size_t errlen)
{
    for (size_t k = 0; k < GD_SIDE_SOURCES; k++) {
        const side_source *x = &side_sources[k];
        if (x->with_snapshot != with_snapshot)
            continue;
        void *self = calloc(1, x->ops->size);
        if (!self) {
            if (!with_snapshot)
                continue;
            snprintf(err, errlen, "out of memory");
            return -1;
        }
        int rc = x->open(s, self, err, errlen);
        if (rc == 0 && (with_snapshot || x->ops->samples(self))) {
            s->side[k] = self;
            continue;
        }
        /* Released as its source releases what it tried: a job that failed
         * to open, a host or kernel log left out. */
        if (x->ops->close && (!with_snapshot || rc < 0))
            x->ops->close(self);
        free(self);
        if (rc < 0 && with_snapshot)
            return -1;
    }
    return 0;
}

gd_session *gd_session_open(const gd_session_opts *o, gd_facts *f, char *err, size_t errlen)
{
    memset(f, 0, sizeof *f);
    if (gd_stack_root_check(o->ctx ? o->ctx->fs_root : NULL, err, errlen) != 0) /* before a window is spent */
        return NULL;
    gd_session *s = calloc(1, sizeof *s);
    const gd_source_ops *ops = o->from_count ? &gd_source_capture : &gd_source_nvml;
    void *self = s ? calloc(1, ops->size) : NULL;
    if (!self) {
        free(s);
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    *s = (gd_session){.o = *o, .f = f, .ops = ops, .self = self};
    f->window_s = o->duration_s;
    f->interval_s = o->interval_s;
    f->pid = o->pid;
    const gd_ctx *ctx = o->ctx;
    snprintf(s->roots.sys, sizeof s->roots.sys, "%s", ctx && ctx->sys_root ? ctx->sys_root : "/sys");
    snprintf(s->roots.proc, sizeof s->roots.proc, "%s", ctx && ctx->proc_root ? ctx->proc_root : "/proc");
    snprintf(s->roots.kernel_log, sizeof s->roots.kernel_log, "%s", ctx && ctx->kernel_log ? ctx->kernel_log : "");
    int rc = ops->open(self, o, f, &s->roots, err, errlen);
    if (rc < 0) {
        if (ops->close)
            ops->close(self);
        free(self);
        free(s);
        return NULL;
    }
    s->gpus_sampled = s->sampling = rc == 0 && ops->samples(self);
    /* The training network, where the host is this machine (a scenario
     * brings its own, a capture its own). */
    if (ops != &gd_source_capture && !f->simulated && !f->net) {
        f->net = gd_net_sysfs_read(&s->roots, !(ctx && ctx->sys_root));
        s->net_live = f->net != NULL;
    }
    if (open_sides(s, true, err, errlen) != 0) {
        gd_session_close(s, NULL, 0);
        return NULL;
    }
    /* `run` on a machine without GPUs still watches its job (its CPU, its threads). */
    if (!s->sampling && o->job_live && s->side[JOB] && gd_source_proc.samples(s->side[JOB]))
        s->sampling = true;
    if (s->sampling) {
        if (gd_series_init(&f->series, f->gpu_count) != 0) {
            snprintf(err, errlen, "out of memory");
            gd_session_close(s, NULL, 0);
            return NULL;
        }
        /* Bounded: the window's samples, at most GD_RETENTION_S worth. */
        double span = o->duration_s < GD_RETENTION_S ? o->duration_s : GD_RETENTION_S;
        if (o->retain_s > 0 && o->retain_s < span)
            span = o->retain_s;
        gd_series_set_limit(&f->series, (size_t)(span / o->interval_s + 1.5));
        /* The judged window's running statistics, beside the series, for a
         * command that judges at every tick; one judged once at the end
         * (check, run) gets them built then, from the series (close): its
         * ticks pay for the sampling alone. */
        if (o->judge_s > 0) {
            if (!(f->acc = gd_window_acc_new(f->gpu_count, o->judge_s < span ? o->judge_s : 0))) {
                snprintf(err, errlen, "out of memory");
                gd_session_close(s, NULL, 0);
                return NULL;
            }
            f->acc_free = gd_window_acc_free;
        }
        if (f->job)
            f->job->limit = f->series.limit;
        /* The host at one sample a second over the same span. */
        f->host_series.limit = (size_t)(span + 2.5);
        open_sides(s, false, err, errlen);
        int mode = GD_CLOCK_WALL;
        double pace = 0;
        if (s->gpus_sampled)
            ops->clock(self, o, &mode, &pace);
        if (mode != GD_CLOCK_WALL && f->job && f->job->read && live_proc(s->roots.proc)) {
            /* A real process's CPU time runs on the wall clock: a scenario played
             * faster or slower would read the job at a fraction of its CPU. */
            if (pace != 1 && pace > 0 && ctx && ctx->log) {
                char msg[300];
                snprintf(msg, sizeof msg,
                         "the scenario plays at wall speed, not at %g scenario seconds per second: the job is a live "
                         "process read from /proc",
                         pace);
                ctx->log(ctx->log_ud, msg);
            }
            mode = GD_CLOCK_PACED;
            pace = 1;
            f->job->wall_paced = true;
        }
        gd_clock_start(&s->clock, (gd_clock_mode)mode, pace);
    }
    return s;
}

const gd_roots *gd_session_roots(const gd_session *s)
{
    return &s->roots;
}

int gd_session_add_sink(gd_session *s, const gd_sink *sink)
{
    if (s->nsinks == MAX_SINKS)
        return -1;
    s->sinks[s->nsinks++] = *sink;
    if (sink->on_snapshot)
        sink->on_snapshot(sink->ud, s->f);
    return 0;
}

int gd_session_step(gd_session *s, char *err, size_t errlen)
{
    const gd_session_opts *o = &s->o;
    if (!s->sampling || (s->f->job && s->f->job->ended)) /* a job that ends ends the watch */
        return 0;
    double due = (double)s->k * o->interval_s;
    bool stop = o->stop && *o->stop;
    if (s->k > 0 && (o->duration_s <= 0 || due > o->duration_s + 1e-9 || stop))
        return 0;
    gd_clock_wait_until(&s->clock, due);
    if (s->k > 0 && o->stop && *o->stop)
        return 0;
    /* The time the sample is read, not the time it was due: a loop that
     * falls behind shows it in its sample times. */
    double t = gd_clock_now(&s->clock);
    gd_series *series = &s->f->series;
    if (series->limit && series->n == series->limit) /* the ring drops its oldest: so does the window */
        gd_window_acc_forget(s->f->acc, s->f, (uint64_t)series->dropped + 1);
    long i = gd_series_push(series, t);
    if (i < 0) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    if (s->gpus_sampled) {
        s->ops->sample(s->self, s->f, (size_t)i, t);
        if (s->ops->spent)
            gd_clock_spend(&s->clock, s->ops->spent(s->self));
    }
    for (size_t k = 0; k < GD_SIDE_SOURCES; k++)
        if (s->side[k] && side_sources[k].ops->samples(s->side[k]))
            side_sources[k].ops->sample(s->side[k], s->f, (size_t)i, t);
    if (s->net_live && t - s->net_t >= GD_NET_REREAD_S) { /* a few hundred small files: not every tick */
        gd_net_sysfs_reread(s->f->net, &s->roots, t);
        s->net_t = t;
    }
    s->k++;
    if (s->f->acc && gd_window_acc_add(s->f->acc, s->f, (size_t)i) != 0) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    for (size_t k = 0; k < s->nsinks; k++)
        if (s->sinks[k].on_sample)
            s->sinks[k].on_sample(s->sinks[k].ud, s->f, (size_t)i);
    return 1;
}

/* The areas read from the host rather than the source: PCIe links while the
 * GPUs are still loaded, the software stack. Captures carry their own. */
static int host_areas(const gd_session_opts *o, const gd_roots *roots, gd_facts *f, char *err, size_t errlen)
{
    if (gd_pcie_collect(f, roots) != 0) {
        snprintf(err, errlen, "cannot read the PCIe facts");
        return -1;
    }
    gd_stack_opts so = {.python = o->python,
                        .python_count = o->python_count,
                        .root = o->ctx ? o->ctx->fs_root : NULL,
                        .proc_root = roots->proc,
                        .kernel_log = roots->kernel_log};
    if (gd_stack_collect(f, &so) != 0) {
        snprintf(err, errlen, "cannot read the software stack facts");
        return -1;
    }
    return 0;
}

int gd_session_close(gd_session *s, char *err, size_t errlen)
{
    if (!s)
        return 0;
    if (s->gpus_sampled && s->f->series.n && s->ops->finish)
        s->ops->finish(s->self, s->f, gd_series_t(&s->f->series, s->f->series.n - 1));
    /* The NIC counters as the window ends (one reading for a snapshot). */
    if (s->net_live && s->f->series.n && s->o.duration_s > 0)
        gd_net_sysfs_reread(s->f->net, &s->roots, gd_series_t(&s->f->series, s->f->series.n - 1));
    if (s->ops->close)
        s->ops->close(s->self);
    for (size_t k = 0; k < GD_SIDE_SOURCES; k++)
        if (s->side[k] && side_sources[k].ops->close)
            side_sources[k].ops->close(s->side[k]);
    int rc = 0;
    if (err && s->ops != &gd_source_capture)
        rc = host_areas(&s->o, &s->roots, s->f, err, errlen);
    /* What is judged at the end is the whole series: a capture's, or a
     * live one kept for a shorter window at every tick. */
    if (rc == 0 && err && gd_window_acc_attach(s->f) != 0) {
        snprintf(err, errlen, "out of memory");
        rc = -1;
    }
    for (size_t k = 0; rc == 0 && k < s->nsinks; k++)
        if (s->sinks[k].on_end)
            s->sinks[k].on_end(s->sinks[k].ud, s->f);
    free(s->self);
    for (size_t k = 0; k < GD_SIDE_SOURCES; k++)
        free(s->side[k]);
    free(s);
    return rc;
}
