/* SPDX-License-Identifier: Apache-2.0 */
/* The NVML source: the machine's driver, or the simulated one under --sim. */
#include "sources/source.h"

#include "sources/sim_libs.h"
#include "core/clock.h"
#include "sources/host/hostinfo.h"
#include "sources/net/net_collect.h"
#include "sources/pcie/pcie_collect.h"
#include "nvml_backend.h"
#include "nvml_events.h"
#include "scenario/scenario.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct nvml_source {
    gd_nvml_session s;
    gd_nvml_watch watch; /* Xid events, re-read counters, GPM */
    bool open, simulated, watching;
    gd_scenario *net_sc; /* the scenario, kept where it gives NICs: their counters at the window's end */
    double net_t; /* scenario time of the counters in f->net */
} nvml_source;

/* Validates the scenario (clear message, exit 3), points the simulated
 * libraries at it and fills what the scenario says of the host. */
static int prepare_sim(const gd_ctx *ctx, const char *scenario, gd_facts *f, gd_roots *roots, char *lib, size_t liblen,
                       char *abs, size_t abslen, gd_scenario **net_sc, char *err, size_t errlen)
{
    /* gd_scenario_load refuses what is not a regular file: the simulated
     * NVML library opens the scenario again by its path. */
    gd_scenario *sc = gd_scenario_load(scenario, err, errlen);
    if (!sc)
        return -1;
    if (gd_net_scenario_check(sc, err, errlen) != 0) {
        gd_scenario_free(sc);
        return -1;
    }
    if (sc->host.numa_nodes.present)
        f->host.numa_nodes = (int)sc->host.numa_nodes.value;
    if (sc->host.cpus.present)
        f->host.cpus = (int)sc->host.cpus.value;
    snprintf(f->host.hostname, sizeof f->host.hostname, "%s", sc->host.hostname ? sc->host.hostname : "");
    snprintf(f->host.kernel, sizeof f->host.kernel, "%s", sc->host.kernel ? sc->host.kernel : "");
    /* The scenario's own host, never this machine's. */
    snprintf(roots->sys, sizeof roots->sys, "%s", sc->host.sysfs ? sc->host.sysfs : "");
    snprintf(roots->kernel_log, sizeof roots->kernel_log, "%s", sc->host.kernel_log ? sc->host.kernel_log : "");
    /* The scenario's processes live in its own /proc, or nowhere: never this machine's. */
    snprintf(roots->proc, sizeof roots->proc, "%s", sc->host.proc ? sc->host.proc : "");
    /* Its network too ("nics", "network"), its counters at time 0. */
    f->net = gd_net_from_scenario(sc, scenario);
    if (f->net && sc->net.nic_count)
        *net_sc = sc;
    else
        gd_scenario_free(sc);

    char full[PATH_MAX];
    if (!realpath(scenario, full)) {
        snprintf(err, errlen, "%s: %s", scenario, strerror(errno));
        return -1;
    }
    snprintf(abs, abslen, "%s", full);
    char dir[PATH_MAX];
    if (gd_sim_dir(ctx, dir, sizeof dir) != 0) {
        snprintf(err, errlen, "cannot find the directory of the simulated libraries (set GPUDOCTOR_SIM_DIR)");
        return -1;
    }
    snprintf(lib, liblen, "%s/libnvidia-ml.so.1", dir);
    if (access(lib, R_OK) != 0) {
        snprintf(err, errlen, "simulated NVML library not found at %s (run 'make' first)", lib);
        return -1;
    }
    f->simulated = true;
    snprintf(f->source, sizeof f->source, "sim:%s", scenario);
    return 0;
}

static int nvml_open(void *self, const gd_session_opts *o, gd_facts *f, gd_roots *roots, char *err, size_t errlen)
{
    nvml_source *n = self;
    char lib[PATH_MAX + 32] = "", scenario[PATH_MAX] = "";
    if (o->sim_scenario) {
        if (prepare_sim(o->ctx, o->sim_scenario, f, roots, lib, sizeof lib, scenario, sizeof scenario, &n->net_sc, err,
                        errlen) != 0)
            return -1;
        n->simulated = true;
    } else {
        gd_host_read(roots->sys, &f->host);
        snprintf(f->source, sizeof f->source, "nvml");
    }
    char why[512];
    const char *path = lib[0] ? lib : o->ctx ? o->ctx->nvml_library : NULL;
    if (gd_nvml_open(&n->s, path, scenario[0] ? scenario : NULL, why, sizeof why) != 0) {
        if (o->sim_scenario) { /* the simulator always loads: this is a scenario problem */
            snprintf(err, errlen, "%s", why);
            return -1;
        }
        f->driver_loaded = false;
        snprintf(f->driver_error, sizeof f->driver_error, "%s", why);
        /* A machine without an NVIDIA GPU needs no driver: count them on the bus. */
        f->pci_nvidia_gpus = gd_pcie_count_nvidia_gpus(roots->sys);
        return 1;
    }
    n->open = true;
    n->s.interval_s = o->interval_s;
    n->s.one_shot = o->duration_s <= 0;
    /* On the wall clock the PCIe throughput call (20 ms) gets a thread of its
     * own; a simulated clock is the session's, read between samples. */
    n->s.pcie_thread = !n->simulated && !n->s.one_shot;
    if (n->simulated && n->s.api.SimClockSet)
        n->s.api.SimClockSet(0); /* the snapshot is taken at scenario time 0 */
    if (gd_nvml_snapshot(&n->s, f, roots->proc) != 0 || gd_nvml_watch_open(&n->watch, &n->s, f) != 0) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    n->watching = true;
    return 0;
}

static bool nvml_samples(const void *self)
{
    return ((const nvml_source *)self)->open;
}

/* A simulated machine runs on scenario time: as fast as the CPU allows, or
 * paced (GPUDOCTOR_SIM_TIMESCALE, docs/scenarios.md). */
static void nvml_clock(const void *self, const gd_session_opts *o, int *mode, double *pace)
{
    const nvml_source *n = self;
    *pace = o->ctx ? o->ctx->sim_pace : 0;
    *mode = !n->simulated ? GD_CLOCK_WALL : *pace > 0 ? GD_CLOCK_PACED : GD_CLOCK_FAST;
}

static void nvml_sample(void *self, gd_facts *f, size_t i, double t)
{
    nvml_source *n = self;
    if (n->simulated && n->s.api.SimClockSet)
        n->s.api.SimClockSet(t);
    gd_nvml_sample(&n->s, f, i);
    gd_nvml_watch_sample(&n->watch, &n->s, f, i, t);
    if (n->net_sc && t - n->net_t >= GD_NET_REREAD_S) { /* as often as a live node's are read */
        gd_net_scenario_at(f->net, n->net_sc, t);
        n->net_t = t;
    }
}

/* The counters re-read at the last sample's time: their rises in the
 * window's last seconds (after the last 5 s re-read) are events of it. */
static void nvml_finish(void *self, gd_facts *f, double t)
{
    nvml_source *n = self;
    gd_net_scenario_at(f->net, n->net_sc, t);
    if (!n->watching)
        return;
    if (n->simulated && n->s.api.SimClockSet)
        n->s.api.SimClockSet(t);
    gd_nvml_watch_finish(&n->watch, &n->s, f, t);
}

static double nvml_spent(void *self)
{
    nvml_source *n = self;
    return n->simulated && n->s.api.SimClockSpent ? n->s.api.SimClockSpent() : 0;
}

static void nvml_close(void *self)
{
    nvml_source *n = self;
    if (n->watching)
        gd_nvml_watch_close(&n->watch, &n->s);
    n->watching = false;
    if (n->open)
        gd_nvml_close(&n->s);
    n->open = false;
    gd_scenario_free(n->net_sc);
    n->net_sc = NULL;
}

const gd_source_ops gd_source_nvml = {
    .name = "nvml",
    .size = sizeof(nvml_source),
    .open = nvml_open,
    .samples = nvml_samples,
    .clock = nvml_clock,
    .sample = nvml_sample,
    .spent = nvml_spent,
    .finish = nvml_finish,
    .close = nvml_close,
};
