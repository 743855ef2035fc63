/* SPDX-License-Identifier: Apache-2.0 */
/* The runs of `gpudoctor bench`: what each measures, which checks judge it, how it is shown. */
#include "cli.h"
#include "cli_bench.h"
#include "core/pcie_util.h"
#include "gpudoctor/bench.h"
#include "gpudoctor/checks.h"
#include "gpudoctor/pcie.h"
#include "gpudoctor/stack.h"
#include "probes/gemm_bench.h"
#include "probes/membw_bench.h"
#include "probes/nccl_bench.h"
#include "probes/p2p_bench.h"
#include "probes/pcie_bandwidth.h"
#include "report/bench_gpu_report.h"
#include "report/pcie_report.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Under --sim, paced, a copy is a timed sleep: sizes that keep each one long
 * enough (milliseconds) that wake-up latency stays near 1 %. pcie: 160 MiB,
 * above the simulator's 64 MiB of real memory per buffer, so no real memmove
 * adds to the timing; membw: 8 GiB of virtual memory (2 x 8 GiB / 2900 GB/s
 * = 6 ms). Under the fast clock the simulated GPUs keep virtual time, exact
 * at any size: pcie's host buffers (which are filled for real) shrink to
 * 16 MiB. */
#define SIM_PCIE_MIB 160
#define SIM_PCIE_VIRTUAL_MIB 16
#define SIM_MEMBW_MIB 8192
#define SIM_GEMM_SECONDS 0.25

/* The site-packages of the Python environments the snapshot found (and
 * --python's), where NVIDIA's wheels put cuBLASLt and NCCL. */
static size_t python_sites(const gd_facts *f, const char **sites, size_t cap)
{
    size_t n = 0;
    for (size_t i = 0; f->stack && i < f->stack->python_count && n < cap; i++)
        if (f->stack->pythons[i].site_packages[0])
            sites[n++] = f->stack->pythons[i].site_packages;
    return n;
}

/* Where a CUDA library is looked for: the simulated one under --sim; else
 * the user's choice, the Python environments the snapshot found, the
 * toolkit. */
static void library_search(const gd_bench_cli *o, const gd_facts *f, const char *sim_path, const char *user_path,
                           gd_lib_where *s, const char **sites, size_t cap)
{
    memset(s, 0, sizeof *s);
    if (o->sim) {
        s->path = sim_path;
        return;
    }
    s->path = user_path;
    s->toolkit = o->ctx->cuda_home;
    s->site_packages = sites;
    s->site_count = python_sites(f, sites, cap);
}

static void cublaslt_search(const gd_bench_cli *o, const gd_facts *f, gd_cublaslt_search *s, const char **sites,
                            size_t cap)
{
    library_search(o, f, o->sim_cublaslt, o->ctx->cublaslt_library, s, sites, cap);
}

/* The NCCL_* settings in this environment that restrict NCCL's transports
 * or algorithms (the library reads the same environment), "" when none:
 * the evidence of bench.nccl_low. */
static void nccl_env(char *buf, size_t len)
{
    static const char *const names[] = {"NCCL_P2P_DISABLE", "NCCL_SHM_DISABLE", "NCCL_P2P_LEVEL",
                                        "NCCL_ALGO",        "NCCL_PROTO",       "NCCL_MAX_NCHANNELS"};
    gd_cli_env_settings(names, sizeof names / sizeof names[0], 2, buf, len);
}

void gd_cli_bench_nccl_opts(const gd_bench_cli *o, const gd_facts *f, gd_cli_nccl_opts *out)
{
    library_search(o, f, o->sim_nccl, o->ctx->nccl_library, &out->search, out->sites, 16);
    nccl_env(out->env, sizeof out->env);
    size_t one = o->size > 0 ? (size_t)(o->size * (1 << 20)) : 0;
    out->opts = (gd_nccl_bench_opts){.rt = {.cuda_library = o->sim ? o->sim_cuda : o->ctx->cuda_library,
                                            .sim_scenario = o->sim ? o->scenario : NULL},
                                     .nccl = &out->search,
                                     .min_bytes = one,
                                     .max_bytes = one,
                                     .iters = (int)o->reps,
                                     .env = out->env,
                                     .stop = &gd_cli_stop};
}

/* bench nccl into the bench facts. 0, or -1 with a message (nothing could run). */
static int run_nccl(const gd_bench_cli *o, const gd_facts *f, gd_bench_facts *b, char *err, size_t errlen)
{
    gd_cli_nccl_opts no;
    gd_cli_bench_nccl_opts(o, f, &no);
    return gd_nccl_bench_run(&no.opts, f, b, err, errlen);
}

static gd_gemm_bench_opts gemm_opts(const gd_bench_cli *o, const gd_cublaslt_search *lt, double seconds)
{
    return (gd_gemm_bench_opts){
        .rt = {.cuda_library = o->sim ? o->sim_cuda : o->ctx->cuda_library,
               .sim_scenario = o->sim ? o->scenario : NULL,
               .cublaslt = lt},
        .dtype = o->dtype,
        .size = o->size > 0 ? (int)o->size : 0,
        .seconds = seconds,
        .concurrent = o->concurrent,
    };
}

/* The findings of the checks in these groups (the caller sorts). */
static void judge(const gd_facts *f, gd_findings *fs, const char *const *groups, size_t ngroups)
{
    for (size_t i = 0; i < gd_checks_count; i++)
        for (size_t k = 0; k < ngroups; k++)
            if (strcmp(gd_checks[i].group, groups[k]) == 0)
                gd_check_run(&gd_checks[i], f, fs);
}

int gd_cli_bench_finish(const gd_bench_cli *o, const gd_facts *f, gd_findings *fs)
{
    int code = GD_EXIT_OK;
    bool pcie_only = strcmp(o->what, "pcie") == 0;
    if (o->json) {
        json_t *j = pcie_only ? gd_bench_pcie_json(f, fs) : gd_bench_gpu_json(f, fs, o->what);
        if (gd_cli_print_json(j) != 0)
            code = GD_EXIT_ERROR;
        json_decref(j);
    } else if (pcie_only) {
        gd_text_style st = gd_cli_text_style();
        gd_bench_verdict_text(stdout, f, fs, o->what, &st);
        gd_bench_pcie_text(stdout, f, fs, &st);
    } else {
        gd_text_style st = gd_cli_text_style();
        gd_bench_verdict_text(stdout, f, fs, o->what, &st);
        gd_bench_gpu_text(stdout, f, fs, o->what, &st);
    }
    if (code == GD_EXIT_OK && o->report && gd_cli_html_report(o->report, f, fs) != 0)
        code = GD_EXIT_ERROR;
    if (code == GD_EXIT_OK && o->exit_findings)
        code = gd_cli_exit_code(fs, GD_SEV_WARNING);
    return code;
}

static int run_pcie(const gd_bench_cli *o, const gd_collect_opts *co, gd_facts *f, char *err, size_t errlen)
{
    size_t sim_mib = o->ctx->sim_pace > 0 ? SIM_PCIE_MIB : SIM_PCIE_VIRTUAL_MIB;
    gd_pcie_bench_opts bo = {.bytes = (size_t)(o->size > 0 ? o->size
                                               : o->sim    ? sim_mib
                                                           : 256)
                                      << 20,
                             .reps = (int)o->reps,
                             .concurrent = o->concurrent,
                             .stop = &gd_cli_stop,
                             .cuda_library = o->sim ? o->sim_cuda : o->ctx->cuda_library,
                             .sim_scenario = o->sim ? o->scenario : NULL};
    gd_pcie_bench *b = calloc(1, sizeof *b);
    gd_pcie_facts *p = b ? gd_pcie_facts_get(f) : NULL;
    if (!p) {
        free(b);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    if (gd_pcie_bench_run(&bo, f, b, err, errlen) != 0) {
        free(b);
        return -1;
    }
    p->bench = b;
    /* The link that carried the copies: one sample read at once, before an
     * idle GPU trains it down (the snapshot was taken idle). Only the
     * sample: closing without an error buffer skips the host areas. */
    gd_facts after;
    char why[256];
    for (size_t i = 0; i < b->gpu_count; i++)
        b->gpus[i].link_gen = b->gpus[i].link_width = gd_missing(GD_ST_UNREAD);
    gd_session *s = gd_session_open(co, &after, why, sizeof why);
    bool sampled = s && gd_session_step(s, why, sizeof why) > 0;
    gd_session_close(s, NULL, 0);
    if (sampled && after.series.n > 0)
        for (size_t i = 0; i < b->gpu_count; i++)
            for (size_t g = 0; g < after.gpu_count; g++)
                if (b->gpus[i].gpu >= 0 && after.gpus[g].index == b->gpus[i].gpu) {
                    b->gpus[i].link_gen = gd_series_at(&after.series, 0, g, GD_M_PCIE_GEN);
                    b->gpus[i].link_width = gd_series_at(&after.series, 0, g, GD_M_PCIE_WIDTH);
                }
    gd_facts_free(&after);
    return 0;
}

/* bench all, before each benchmark: whether a stop signal came (said on
 * stderr once); the caller then leaves out the benchmarks not yet run. The
 * flags of those that ran stay set: their checks and figures are the
 * report's. */
static bool stop_here(bool all)
{
    static bool said;
    if (!all || !gd_cli_stop)
        return false;
    if (!said)
        fprintf(stderr, "gpudoctor: bench all stopped (signal %d): the report has the benchmarks that ran\n",
                (int)gd_cli_stop_signal);
    said = true;
    return true;
}

int gd_cli_bench_measure(const gd_bench_cli *o, const gd_collect_opts *co, gd_facts *f)
{
    char err[1536];
    bool all = strcmp(o->what, "all") == 0;
    bool pcie = all || strcmp(o->what, "pcie") == 0, gemm = all || strcmp(o->what, "gemm") == 0,
         membw = all || strcmp(o->what, "membw") == 0;
    /* bench all measures GPU pairs where there are some. */
    bool p2p = strcmp(o->what, "p2p") == 0 || (all && f->gpu_count >= 2);
    /* bench all: NCCL where there is a ring to measure. */
    bool nccl = strcmp(o->what, "nccl") == 0 || (all && f->gpu_count >= 2);
    const char *sites[16];
    gd_cublaslt_search lt;
    cublaslt_search(o, f, &lt, sites, 16);
    /* bench all: Ctrl-C, SIGTERM or SIGHUP ends it after the benchmark in
     * progress; the report has those that ran. */
    if (stop_here(all))
        pcie = gemm = membw = p2p = nccl = false;
    if (pcie) {
        if (all)
            fprintf(stderr, "gpudoctor: bench pcie...\n");
        if (run_pcie(o, co, f, err, sizeof err) != 0)
            return gd_cli_error("bench pcie: %s", err);
    }
    gd_bench_facts *b = (gemm || membw || p2p || nccl) ? gd_bench_facts_get(f) : NULL;
    if ((gemm || membw || p2p || nccl) && !b)
        return gd_cli_error("out of memory");
    if (stop_here(all))
        gemm = membw = p2p = nccl = false;
    if (gemm) {
        if (all)
            fprintf(stderr, "gpudoctor: bench gemm...\n");
        gd_gemm_bench_opts go = gemm_opts(o, &lt, o->seconds > 0 ? o->seconds : o->sim ? SIM_GEMM_SECONDS : 0);
        go.stop = &gd_cli_stop;
        if (gd_gemm_bench_run(&go, f, b, err, sizeof err) != 0)
            return gd_cli_error("bench gemm: %s", err);
    }
    if (stop_here(all))
        membw = p2p = nccl = false;
    if (membw) {
        if (all)
            fprintf(stderr, "gpudoctor: bench membw...\n");
        gd_membw_bench_opts mo = {
            .rt = {.cuda_library = o->sim ? o->sim_cuda : o->ctx->cuda_library,
                   .sim_scenario = o->sim ? o->scenario : NULL},
            .bytes = (size_t)(o->size > 0 ? o->size
                              : o->sim    ? SIM_MEMBW_MIB
                                          : 0)
                     << 20,
            .reps = (int)o->reps,
            .stop = &gd_cli_stop,
        };
        if (gd_membw_bench_run(&mo, f, b, err, sizeof err) != 0)
            return gd_cli_error("bench membw: %s", err);
    }
    if (stop_here(all))
        p2p = nccl = false;
    if (p2p) {
        if (all)
            fprintf(stderr, "gpudoctor: bench p2p...\n");
        gd_p2p_bench_opts po = {
            .rt = {.cuda_library = o->sim ? o->sim_cuda : o->ctx->cuda_library,
                   .sim_scenario = o->sim ? o->scenario : NULL},
            .bytes = (size_t)(o->size > 0 ? o->size : 0) << 20,
            .reps = (int)o->reps,
            .stop = &gd_cli_stop,
        };
        if (gd_p2p_bench_run(&po, f, b, err, sizeof err) != 0)
            return gd_cli_error("bench p2p: %s", err);
    }
    if (stop_here(all))
        nccl = false;
    if (nccl) {
        if (all)
            fprintf(stderr, "gpudoctor: bench nccl...\n");
        int nrc = run_nccl(o, f, b, err, sizeof err);
        /* One GPU: nothing to measure, an answer as bench p2p gives it
         * (under bench all, where NVML counts more GPUs than CUDA shows,
         * the report says why). */
        if (nrc == 0 && !all && b->nccl->skipped[0])
            return gd_cli_error("bench nccl: %s", b->nccl->skipped);
        if (nrc != 0) {
            if (!all)
                return gd_cli_error("bench nccl: %s", err);
            /* bench all goes on without it: the other figures stand. */
            fprintf(stderr, "gpudoctor: bench nccl not run: %s\n", err);
            free(b->nccl);
            b->nccl = NULL;
            nccl = false;
        }
    }
    gd_findings fs = {.where = GD_AT_BENCH};
    if (pcie)
        gd_check_run(gd_check_find("pcie.bandwidth_low"), f, &fs);
    if (p2p) {
        gd_check_run(gd_check_find("p2p.unsupported"), f, &fs);
        gd_check_run(gd_check_find("p2p.slow_pair"), f, &fs);
        gd_check_run(gd_check_find("p2p.sys_route"), f, &fs);
    }
    if (gemm || membw || p2p)
        gd_check_run(gd_check_find("bench.failed"), f, &fs);
    if (gemm || membw)
        gd_check_run(gd_check_find("bench.above_datasheet"), f, &fs);
    if (gemm)
        gd_check_run(gd_check_find("bench.gemm_low"), f, &fs);
    if (membw)
        gd_check_run(gd_check_find("bench.membw_low"), f, &fs);
    if (nccl) {
        gd_check_run(gd_check_find("bench.nccl_failed"), f, &fs);
        gd_check_run(gd_check_find("bench.nccl_low"), f, &fs);
    }
    if (gd_cli_stop && !all) /* bench all said so before the benchmark it left out */
        fprintf(stderr, "gpudoctor: bench %s stopped (signal %d): the report has what it measured until then\n",
                o->what, (int)gd_cli_stop_signal);
    gd_findings_sort(&fs);
    int code = gd_cli_bench_finish(o, f, &fs);
    gd_findings_free(&fs);
    return code;
}

/* bench stress's progress on stderr: each GPU's throughput, temperature and
 * SM clock about every tenth of the window (and at its end). */
typedef struct stress_progress {
    double every_s, next_s, total_s;
    gd_text_style st;
} stress_progress;

static void show_progress(void *ud, const gd_facts *window, const gd_bench_facts *b, double t)
{
    stress_progress *p = ud;
    if (t + 1e-9 < p->next_s && t + 1e-9 < p->total_s)
        return;
    p->next_s = t + p->every_s;
    gd_bench_stress_progress_text(stderr, window, b, t, p->total_s, &p->st);
}

int gd_cli_bench_stress(const gd_bench_cli *o, const gd_collect_opts *co, const gd_facts *f)
{
    char err[1536];
    const char *sites[16];
    gd_cublaslt_search lt;
    cublaslt_search(o, f, &lt, sites, 16);
    gd_ctx ctx = *o->ctx;
    gd_session_opts so = *co;
    so.ctx = &ctx;
    so.stop = &gd_cli_stop; /* Ctrl-C or SIGTERM: the report and the page of what ran until then */
    so.duration_s = o->seconds > 0 ? o->seconds : 300;
    so.interval_s = (o->interval_ms > 0 ? o->interval_ms : 1000) / 1000.0;
    gd_gemm_bench_opts go = gemm_opts(o, &lt, 0);
    /* Under --sim's fast clock the simulated GPUs keep virtual time in step
     * with the scenario's (exact figures, whatever the host's load; the
     * window plays as fast as check's); paced or real, wall time. */
    go.lockstep = o->sim && ctx.sim_pace <= 0;
    /* Progress counted about 20 times per sample interval (GPU time). */
    go.batch_s = so.interval_s / (o->sim && !go.lockstep ? ctx.sim_pace : 1) / 20;
    stress_progress pr = {.every_s = fmax(so.duration_s / 10, so.interval_s),
                          .next_s = fmax(so.duration_s / 10, so.interval_s),
                          .total_s = so.duration_s,
                          .st = gd_cli_text_style()};
    pr.st.color = false; /* stderr */
    go.progress = show_progress;
    go.progress_ud = &pr;
    fprintf(stderr, "gpudoctor: bench stress: %s GEMM on every GPU for %.0f s%s...\n", gd_gemm_dtype_name(o->dtype),
            so.duration_s, o->sim ? " (scenario seconds)" : "");
    gd_facts win;
    if (gd_stress_run(&go, &so, f, &win, err, sizeof err) != 0) {
        gd_facts_free(&win);
        return gd_cli_error("bench stress: %s", err);
    }
    /* The window under load, judged as check judges any window. */
    static const char *const groups[] = {"thermal", "power", "clocks", "health"};
    gd_findings fs = {.where = GD_AT_BENCH};
    judge(&win, &fs, groups, sizeof groups / sizeof groups[0]);
    gd_check_run(gd_check_find("bench.failed"), &win, &fs);
    gd_check_run(gd_check_find("bench.gemm_low"), &win, &fs);
    gd_check_run(gd_check_find("bench.above_datasheet"), &win, &fs);
    gd_findings_sort(&fs);
    int code = gd_cli_bench_finish(o, &win, &fs);
    gd_findings_free(&fs);
    gd_facts_free(&win);
    return code;
}
