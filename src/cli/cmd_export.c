/* SPDX-License-Identifier: Apache-2.0 */
/* gpudoctor export: a Prometheus exporter that dcgm-exporter users can drop in. */
#include "analysis/window_acc.h"
#include "cli.h"
#include "export_http.h"
#include "export_k8s.h"
#include "gpudoctor/checks.h"
#include "gpudoctor/session.h"
#include "sources/host/job_map.h"
#include "report/prom_report.h"

#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char gd_export_help[] = "usage: gpudoctor export [--listen ADDR:PORT] [--interval MS] [--window SEC]\n"
                              "                        [--duration SEC] [--hpc-job-mapping-dir DIR] [--sim SCENARIO]\n"
                              "                        [--kubernetes] [--kubernetes-socket PATH]\n"
                              "                        [--kubernetes-refresh SEC]\n"
                              "\n"
                              "Serves Prometheus metrics on http://ADDR:PORT/metrics until Ctrl-C or SIGTERM:\n"
                              "dcgm-exporter's metric names and labels for what both measure (DCGM_FI_DEV_GPU_TEMP,\n"
                              "DCGM_FI_DEV_SM_CLOCK, ... with gpu, UUID, pci_bus_id, device, modelName, Hostname),\n"
                              "so existing dashboards and alerts keep working, and what dcgm-exporter lacks: the\n"
                              "diagnosis. gpudoctor_finding{id,severity,gpu} is 1 while a finding holds over the\n"
                              "last window and disappears when it clears; gpudoctor_impact_ratio, clock-event\n"
                              "seconds per reason, lost GPUs. Read-only: it changes no GPU setting. Scrapes are\n"
                              "served from the newest sample and never wait for the driver. docs/exporter.md has\n"
                              "the metric table and example alerting rules.\n"
                              "\n"
                              "  --listen ADDR:PORT  where to listen (default 127.0.0.1:9400, loopback only;\n"
                              "                      0.0.0.0:9400 for a Prometheus on another machine)\n"
                              "  --interval MS       time between samples (default 1000)\n"
                              "  --window SEC        findings are judged over the last SEC seconds (default 60)\n"
                              "  --duration SEC      stop after SEC seconds (default: run until stopped)\n"
                              "  --hpc-job-mapping-dir DIR\n"
                              "                      label each GPU's series with the Slurm job ids in DIR/INDEX\n"
                              "                      (or DIR/INDEX.GPU_INSTANCE for a MIG device), one per line,\n"
                              "                      as hpc_job=\"ID\" (dcgm-exporter's HPC job mapping; default\n"
                              "                      $DCGM_HPC_JOB_MAPPING_DIR); re-read every second. The prolog\n"
                              "                      scripts/slurm/gpudoctor-job-map writes it\n"
                              "  --sim SCENARIO      export a simulated machine (examples/*.json), one scenario\n"
                              "                      second per second unless GPUDOCTOR_SIM_TIMESCALE says otherwise\n"
                              "  --kubernetes        pod, namespace and container labels on the GPUs that pods hold,\n"
                              "                      from the kubelet's pod-resources socket (default: where\n"
                              "                      " GD_K8S_DEFAULT_SOCKET " exists,\n"
                              "                      asked every 10 s; never under --sim)\n"
                              "  --kubernetes-socket PATH  the same from the socket at PATH\n"
                              "  --kubernetes-refresh SEC  ask the kubelet every SEC seconds (default 10)\n"
                              "\n"
                              "Other routes: / (a short page), /healthz (liveness: 200 while the exporter\n"
                              "answers), /readyz (readiness: 200 once there are metrics to serve),\n"
                              "/health/driver (200 while samples keep coming from the driver; also the metric\n"
                              "gpudoctor_driver_answering) and /health (the current findings and the session's\n"
                              "health events, as JSON).\n"
                              "Hostname is $NODE_NAME where set (the Kubernetes DaemonSet passes the node's name).\n"
                              "A GPU in MIG mode gives its series once per MIG device, with GPU_I_PROFILE and\n"
                              "GPU_I_ID (its memory is the instance's), as dcgm-exporter does.\n";

const struct option gd_export_options[] = {
    {"listen", required_argument, NULL, 'l'},
    {"interval", required_argument, NULL, 'i'},
    {"window", required_argument, NULL, 'w'},
    {"duration", required_argument, NULL, 'd'},
    {"sim", required_argument, NULL, 's'},
    {"kubernetes", no_argument, NULL, 'k'},
    {"kubernetes-socket", required_argument, NULL, 'K'},
    {"kubernetes-refresh", required_argument, NULL, 'R'},
    {"hpc-job-mapping-dir", required_argument, NULL, 'j'},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

typedef struct export_opts {
    const char *listen, *sim;
    const char *job_map_dir; /* NULL: no hpc_job label */
    const char *k8s_socket; /* --kubernetes-socket */
    bool k8s; /* --kubernetes */
    double k8s_refresh_s; /* --kubernetes-refresh */
    double interval_ms, window_s, duration_s; /* duration 0: until stopped */
} export_opts;

static volatile sig_atomic_t stop_requested;

static void on_stop(int sig)
{
    (void)sig;
    stop_requested = 1;
}

static int parse(int argc, char **argv, export_opts *o)
{
    *o = (export_opts){.listen = "127.0.0.1:9400", .interval_ms = 1000, .window_s = 60};
    optind = 1;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, "+:h", gd_export_options, NULL)) != -1) {
        switch (c) {
        case 'l': o->listen = optarg; break;
        case 'i':
            if (gd_cli_interval(optarg, &o->interval_ms) != 0)
                return GD_EXIT_ERROR;
            break;
        case 'w':
            if (gd_cli_duration(optarg, 1, 1, 3600, &o->window_s) != 0)
                return gd_cli_error("--window wants seconds from 1 to 3600 (60, 5m), not '%s'", optarg);
            break;
        case 'd':
            if (gd_cli_duration(optarg, 1, 0.001, 1e9, &o->duration_s) != 0)
                return gd_cli_error("--duration wants seconds (30, 10m, 2h), not '%s'", optarg);
            break;
        case 's': o->sim = gd_cli_scenario(optarg); break;
        case 'j': o->job_map_dir = optarg; break;
        case 'k': o->k8s = true; break;
        case 'K': o->k8s_socket = optarg; break;
        case 'R':
            if (gd_cli_duration(optarg, 1, 1, 3600, &o->k8s_refresh_s) != 0)
                return gd_cli_error("--kubernetes-refresh wants seconds from 1 to 3600, not '%s'", optarg);
            break;
        case 'h': gd_cli_help_print(stdout, gd_export_help); return -1;
        case ':': return gd_cli_error("%s needs a value (see 'gpudoctor export --help')", argv[optind - 1]);
        default: return gd_cli_error("unknown option '%s' (see 'gpudoctor export --help')", argv[optind - 1]);
        }
    }
    if (optind < argc)
        return gd_cli_error("unexpected argument '%s' (see 'gpudoctor export --help')", argv[optind]);
    const char *env_dir = getenv("DCGM_HPC_JOB_MAPPING_DIR");
    if (!o->job_map_dir && env_dir && *env_dir)
        o->job_map_dir = env_dir;
    return 0;
}

/* The exporter as a sink: each sample is accounted, the last window judged
 * (at most once a second of session time, and at once on a health event)
 * and the exposition published. */
typedef struct exporter {
    gd_export_http *http;
    gd_prom_counters counters;
    gd_k8s_pods *k8s; /* NULL: no pod labels */
    gd_prom_pod *pods; /* [gpus * GD_PROM_POD_SLOTS], what counters.pods points to */
    double window_s;
    bool failed; /* out of memory once: said once */
    size_t samples;
    gd_findings findings; /* the last judgement */
    double judged_t; /* session time of the last judgement; NAN before the first */
    size_t judged_events; /* f->events.total then */
    const char *job_map_dir; /* the HPC job mapping, or NULL */
    double job_map_t; /* session time it was last read; NAN before */
    bool job_map_failed; /* said once */
    gd_gpu_jobs *jobs;
} exporter;

/* Re-reads the job mapping at most once a second of session time: a job's
 * prolog writes it as the job starts. An unreadable directory is said once;
 * its labels are then absent. */
static void read_job_map(exporter *x, const gd_facts *f, double t)
{
    if (!x->job_map_dir || (!isnan(x->job_map_t) && t - x->job_map_t < 1.0 - 1e-9))
        return;
    x->job_map_t = t;
    char err[512];
    gd_gpu_jobs *jobs;
    size_t n, nwant = 0;
    /* The files of the GPUs there are: each by its index and each of its
     * MIG instances by index and GPU instance id. */
    gd_job_map_want *want = calloc(f->gpu_count * (1 + GD_MAX_MIG_DEVICES) + 1, sizeof *want);
    for (size_t g = 0; want && g < f->gpu_count; g++) {
        want[nwant++] = (gd_job_map_want){f->gpus[g].index, -1};
        for (size_t m = 0; m < f->gpus[g].mig_device_count && m < GD_MAX_MIG_DEVICES; m++)
            want[nwant++] = (gd_job_map_want){f->gpus[g].index, (int)f->gpus[g].mig_devices[m].gpu_instance_id};
    }
    int rc = gd_job_map_read(x->job_map_dir, want, nwant, &jobs, &n, err, sizeof err);
    free(want);
    if (rc != 0) {
        if (!x->job_map_failed)
            fprintf(stderr, "gpudoctor export: the job mapping cannot be read (no hpc_job labels): %s\n", err);
        x->job_map_failed = true;
        jobs = NULL;
        n = 0;
    } else if (x->job_map_failed) {
        fprintf(stderr, "gpudoctor export: the job mapping is readable again: %s\n", x->job_map_dir);
        x->job_map_failed = false;
    }
    free(x->jobs);
    x->jobs = jobs;
    x->counters.jobs = jobs;
    x->counters.job_count = n;
}

/* Publishes the exposition of f with the last judgement's findings;
 * sampled: f holds a new sample of the driver. */
static void publish(exporter *x, const gd_facts *f, const gd_facts *judged, bool health_too, bool sampled)
{
    size_t len;
    char *text = gd_prom_render(f, &x->findings, &x->counters, &len);
    size_t hlen = 0;
    char *health = health_too ? gd_health_json(judged, &x->findings, &hlen) : NULL;
    bool ok = text && (!health_too || health) && gd_export_http_publish(x->http, text, len, sampled) == 0 &&
              (!health_too || gd_export_http_publish_health(x->http, health, hlen) == 0);
    free(health);
    if (!ok) {
        if (!x->failed)
            fprintf(stderr, "gpudoctor export: out of memory: scrapes serve an older sample\n");
        x->failed = true;
    }
    free(text);
}

static void judge(exporter *x, const gd_facts *judged)
{
    gd_findings_free(&x->findings);
    x->findings = (gd_findings){.where = GD_AT_EXPORT};
    gd_checks_run_all(judged, &x->findings);
}

static void on_sample(void *ud, const gd_facts *f, size_t i)
{
    exporter *x = ud;
    x->samples++;
    gd_prom_counters_add(&x->counters, f, i);
    read_job_map(x, f, gd_series_t(&f->series, i));
    gd_facts w = gd_window_acc_upto(f, i, x->window_s);
    double t = gd_series_t(&f->series, i);
    bool now = isnan(x->judged_t) || t - x->judged_t >= 1.0 - 1e-9 || f->events.total != x->judged_events;
    if (now) {
        judge(x, &w);
        x->judged_t = t;
        x->judged_events = f->events.total;
    }
    if (x->k8s)
        gd_export_k8s_fill(x->k8s, f, x->pods, x->counters.gpus);
    /* /metrics and /health are rendered with each judgement: at most once a
     * second of samples (and at once on a health event), so a scrape sees
     * data at most a second old while a 10 Hz exporter renders a tenth of
     * its samples (issue 40: the rendering cost more than all the rest). */
    if (now)
        publish(x, f, &w, true, true);
}

int gd_cmd_export(int argc, char **argv)
{
    export_opts o;
    int rc = parse(argc, argv, &o);
    if (rc != 0)
        return rc < 0 ? GD_EXIT_OK : rc;
    gd_ctx ctx;
    if ((rc = gd_cli_context(&ctx)) != 0)
        return rc;
    if (o.sim && ctx.sim_pace <= 0)
        ctx.sim_pace = 1; /* a scraped machine lives in real time */
    double interval_s = o.interval_ms / 1000.0;
    char err[1024];
    /* Stale after three missed samples (and never under 5 s). */
    double stale = 3 * interval_s > 5 ? 3 * interval_s : 5;
    gd_export_http *http = gd_export_http_start(o.listen, stale, err, sizeof err);
    if (!http)
        return gd_cli_error("%s", err);
    gd_session_opts so = {
        .ctx = &ctx,
        .sim_scenario = o.sim,
        .duration_s = o.duration_s > 0 ? o.duration_s : 1e12,
        .interval_s = interval_s,
        /* The series keep what is judged (the window) and a sample more:
         * memory stays flat at any interval (dcgm-exporter keeps the latest
         * values only). */
        .retain_s = o.window_s + interval_s,
        .judge_s = o.window_s,
        .stop = &stop_requested,
        .pid = -1,
    };
    struct sigaction old[GD_CLI_STOP_SIGNALS];
    gd_cli_stop_signals(on_stop, old);
    gd_facts f;
    gd_session *s = gd_session_open(&so, &f, err, sizeof err);
    if (!s) {
        gd_cli_restore_signals(old);
        gd_export_http_stop(http);
        gd_facts_free(&f);
        return gd_cli_error("%s", err);
    }
    exporter x = {
        .http = http, .window_s = o.window_s, .judged_t = NAN, .job_map_dir = o.job_map_dir, .job_map_t = NAN};
    int crc = gd_prom_counters_init(&x.counters, f.gpu_count);
    /* dcgm-exporter's Hostname: the node's name where the DaemonSet passes it
     * (in a pod, gethostname() is the pod's name). */
    const char *node = getenv("NODE_NAME");
    x.counters.hostname = node && *node ? node : NULL;
    x.pods = crc == 0 ? calloc(f.gpu_count * GD_PROM_POD_SLOTS + 1, sizeof *x.pods) : NULL;
    x.counters.pods = x.pods;
    if (crc != 0 || !x.pods) {
        gd_prom_counters_free(&x.counters);
        gd_session_close(s, NULL, 0);
        gd_cli_restore_signals(old);
        gd_export_http_stop(http);
        gd_facts_free(&f);
        return gd_cli_error("out of memory");
    }
    const char *colon = strrchr(o.listen, ':');
    fprintf(stderr,
            "gpudoctor export: serving http://%.*s:%u/metrics: %zu GPU%s%s, a sample every %g s, findings over the "
            "last %g s\n",
            (int)(colon - o.listen), o.listen, gd_export_http_port(http), f.gpu_count, f.gpu_count == 1 ? "" : "s",
            f.driver_loaded ? "" : " (no driver: the findings say why)", interval_s, o.window_s);
    x.k8s = gd_export_k8s_start(o.k8s_socket, o.k8s, o.k8s_refresh_s, o.sim != NULL);
    gd_sink sink = {.on_sample = on_sample, .ud = &x};
    int step = gd_session_add_sink(s, &sink) == 0 ? 1 : -1;
    while (step > 0)
        step = gd_session_step(s, err, sizeof err);
    if (!f.driver_loaded || f.series.n == 0) {
        /* No samples (no driver): serve the snapshot's findings until stopped. */
        read_job_map(&x, &f, 0);
        judge(&x, &f);
        publish(&x, &f, &f, true, false);
        for (double waited = 0; !stop_requested && (o.duration_s <= 0 || waited < o.duration_s); waited += 0.1)
            usleep(100000);
    }
    gd_cli_restore_signals(old);
    fprintf(stderr,
            "gpudoctor export: stopped after %zu samples and %lu scrapes (%lu connections cut for being too slow)\n",
            x.samples, gd_export_http_scrapes(http), gd_export_http_cut(http));
    gd_export_http_stop(http);
    gd_k8s_pods_stop(x.k8s);
    gd_session_close(s, NULL, 0);
    gd_prom_counters_free(&x.counters);
    free(x.jobs);
    free(x.pods);
    gd_findings_free(&x.findings);
    gd_facts_free(&f);
    if (step < 0)
        return gd_cli_error("%s", err);
    return GD_EXIT_OK;
}
