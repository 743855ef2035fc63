/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Judging `bench gemm`, `bench membw` and `bench stress`:
 *   bench.gemm_low / bench.membw_low: a GPU below the best of its peers
 *     (same product, same node) by more than gpu-fryer's 10 %, or below the
 *     SKU floor: DCGM's 0.95 target ratio of an expected figure, taken as
 *     GD_BENCH_EXPECTED_RATIO of the dense datasheet peak;
 *   bench.failed: a GPU whose multiply or copy failed to run, or returned
 *     wrong results: never a figure, never "OK".
 */
#include "checks_internal.h"
#include "gpudoctor/bench.h"

#include <string.h>

typedef double (*figure_fn)(const gd_bench_gpu *g, int mode);

static double gemm_figure(const gd_bench_gpu *g, int mode)
{
    return mode == 0 ? g->gemm_single_tflops : mode == 1 ? g->gemm_concurrent_tflops : g->stress_tflops;
}

/* The better of the copy engine and the kernel: what the memory delivers. */
static double membw_figure(const gd_bench_gpu *g, int mode)
{
    return mode == 0 ? gd_bench_membw_best(g) : NAN;
}

static const char *const mode_names[3] = {"alone", "with all GPUs at once", "under sustained stress"};

/* The best figure in this mode among the GPUs of the same product. */
static double best_peer(const gd_facts *f, const gd_bench_facts *b, const char *name, figure_fn fig, int mode,
                        size_t *peers)
{
    double best = NAN;
    *peers = 0;
    for (size_t i = 0; i < b->gpu_count; i++) {
        double v = fig(&b->gpus[i], mode);
        if (isnan(v) || strcmp(gd_bench_product(f, &b->gpus[i]), name) != 0)
            continue;
        (*peers)++;
        best = isnan(best) || v > best ? v : best;
    }
    return best;
}

static void judge_low(const gd_facts *f, gd_findings *out, const char *id, figure_fn fig, bool is_gemm)
{
    const gd_bench_facts *b = f->bench;
    bool ran = b && (is_gemm ? b->gemm || b->stress : b->membw);
    if (!b)
        return; /* check: the report says the group was not run (report/checked.c) */
    if (!ran) {
        gd_skip_add(out, id, GD_NO_GPU, "measured by 'gpudoctor bench %s', which did not run",
                    is_gemm ? "gemm' or 'bench stress" : "membw");
        return;
    }
    const char *unit = is_gemm ? "TFLOP/s" : "GB/s";
    for (size_t i = 0; i < b->gpu_count; i++) {
        const gd_bench_gpu *g = &b->gpus[i];
        int gpu = g->gpu >= 0 ? g->gpu : GD_NO_GPU;
        const char *name = gd_bench_product(f, g);
        gd_gpu_peak peak;
        bool have_peak = gd_gpu_peak_find(name, &peak);
        double sheet = have_peak ? (is_gemm ? peak.tflops[b->dtype] : peak.membw_gbps) : NAN;
        double expected = GD_BENCH_EXPECTED_RATIO * sheet, floor = GD_BENCH_TARGET_RATIO * expected;
        /* The worst shortfall over the modes measured: against the peers, then the floor. */
        double worst = 1, v_worst = NAN, ref_worst = NAN, best_worst = NAN;
        int mode_worst = 0;
        bool by_floor = false, measured = false;
        for (int mode = 0; mode < 3; mode++) {
            double v = fig(g, mode);
            if (isnan(v))
                continue;
            measured = true;
            size_t peers;
            double best = best_peer(f, b, name, fig, mode, &peers);
            if (peers >= 2 && v < GD_BENCH_PEER_RATIO * best && v / best < worst) {
                worst = v / best;
                v_worst = v;
                ref_worst = best;
                best_worst = best;
                mode_worst = mode;
                by_floor = false;
            }
            if (!isnan(floor) && v < floor && v / expected < worst) {
                worst = v / expected;
                v_worst = v;
                ref_worst = expected;
                best_worst = peers >= 2 ? best : NAN;
                mode_worst = mode;
                by_floor = true;
            }
        }
        if (!measured) {
            const char *why = is_gemm ? g->gemm_error : g->membw_error;
            gd_skip_add(out, id, gpu, "GPU %d not measured: %s", gpu, why[0] ? why : "no figure");
            continue;
        }
        if (isnan(v_worst))
            continue;
        double loss = 100 * (1 - worst);
        json_t *ev = json_object();
        json_object_set_new(ev, is_gemm ? "tflops" : "gbps", gd_json_number(round(v_worst * 10) / 10));
        json_object_set_new(ev, "mode", json_string(mode_names[mode_worst]));
        if (is_gemm)
            json_object_set_new(ev, "dtype", json_string(gd_gemm_dtype_name(b->dtype)));
        /* Each figure with its unit in its name. */
        char key[32];
        const char *u = is_gemm ? "tflops" : "gbps";
        snprintf(key, sizeof key, "best_peer_%s", u);
        json_object_set_new(ev, key, isnan(best_worst) ? json_null() : gd_json_number(round(best_worst * 10) / 10));
        snprintf(key, sizeof key, "datasheet_%s", u);
        json_object_set_new(ev, key, isnan(sheet) ? json_null() : gd_json_number(sheet));
        snprintf(key, sizeof key, "expected_%s", u);
        json_object_set_new(ev, key, isnan(expected) ? json_null() : gd_json_number(round(expected * 10) / 10));
        snprintf(key, sizeof key, "sku_floor_%s", u);
        json_object_set_new(ev, key, isnan(floor) ? json_null() : gd_json_number(round(floor * 10) / 10));
        json_object_set_new(ev, "sku", have_peak ? json_string(peak.label) : json_null());
        json_object_set_new(ev, "source",
                            json_string(is_gemm ? "cublasLt:cublasLtMatmul timed by CUDA events"
                                                : "cuda:cuMemcpyDtoDAsync and the membw kernel, timed by CUDA events"));
        char fix[768];
        snprintf(fix, sizeof fix,
                 "Look for what holds this GPU back while it works: 'gpudoctor bench stress --seconds 300' shows "
                 "its clocks, temperature, power and throttle reasons under load (thermal.throttling, "
                 "power.limit_lowered, clocks.locked), and 'gpudoctor check' its ECC, row remapping and PCIe "
                 "state. A GPU that stays %s with none of those is a hardware case: reseat or replace it%s.",
                 by_floor ? "below its datasheet" : "behind its peers",
                 is_gemm ? ""
                         : " (memory below its datasheet also follows a lowered memory clock: nvidia-smi -q -d CLOCK)");
        if (by_floor)
            gd_finding_add(
                out, id, loss >= GD_IMPACT_CRITICAL_PCT ? GD_SEV_CRITICAL : GD_SEV_WARNING, gpu, ev, loss, fix,
                "GPU %d %s %.1f %s %s, %.0f%% of the %.0f %s expected of %s %s (%.0f%% of its datasheet)", gpu,
                is_gemm ? gd_gemm_dtype_name(b->dtype) : "memory bandwidth", v_worst, unit, mode_names[mode_worst],
                100 * worst, ref_worst, unit, "an", peak.label, 100 * v_worst / sheet);
        else
            gd_finding_add(out, id, loss >= GD_IMPACT_CRITICAL_PCT ? GD_SEV_CRITICAL : GD_SEV_WARNING, gpu, ev, loss,
                           fix, "GPU %d %s %.1f %s %s, %.0f%% below the best of its peers (%.1f %s)", gpu,
                           is_gemm ? gd_gemm_dtype_name(b->dtype) : "memory bandwidth", v_worst, unit,
                           mode_names[mode_worst], loss, ref_worst, unit);
    }
}

void gd_check_bench_gemm_low(const gd_check *self, const gd_facts *f, gd_findings *out)
{
    (void)self;
    judge_low(f, out, "bench.gemm_low", gemm_figure, true);
}

void gd_check_bench_membw_low(const gd_check *self, const gd_facts *f, gd_findings *out)
{
    (void)self;
    judge_low(f, out, "bench.membw_low", membw_figure, false);
}

/* The best figure of a GPU's table: GEMM over its modes, memory bandwidth. */
static double best_figure(const gd_bench_gpu *g, bool is_gemm)
{
    double best = NAN;
    for (int mode = 0; mode < 3; mode++) {
        double v = is_gemm ? gemm_figure(g, mode) : membw_figure(g, mode);
        best = !isnan(v) && (isnan(best) || v > best) ? v : best;
    }
    return best;
}

/* A GPU cannot beat its datasheet: a figure above it says the timing is
 * wrong (a clock, a copy that did not happen) or the GPU is not the SKU
 * whose row matched, never that the GPU is fast. */
static void judge_above(const gd_facts *f, gd_findings *out, bool is_gemm)
{
    const gd_bench_facts *b = f->bench;
    const char *what = is_gemm ? "GEMM" : "memory bandwidth", *unit = is_gemm ? "TFLOP/s" : "GB/s";
    for (size_t i = 0; i < b->gpu_count; i++) {
        const gd_bench_gpu *g = &b->gpus[i];
        int gpu = g->gpu >= 0 ? g->gpu : GD_NO_GPU;
        double v = best_figure(g, is_gemm);
        if (isnan(v))
            continue;
        const char *name = gd_bench_product(f, g);
        gd_gpu_peak peak;
        double sheet = !gd_gpu_peak_find(name, &peak) ? NAN : is_gemm ? peak.tflops[b->dtype] : peak.membw_gbps;
        if (isnan(sheet)) {
            gd_skip_add(out, "bench.above_datasheet", gpu, "GPU %d's %s: no datasheet figure for %s%s%s", gpu, what,
                        name[0] ? name : "this GPU", is_gemm ? " in " : "",
                        is_gemm ? gd_gemm_dtype_name(b->dtype) : "");
            continue;
        }
        if (v <= sheet)
            continue;
        json_t *ev = json_object();
        json_object_set_new(ev, "what", json_string(what));
        json_object_set_new(ev, is_gemm ? "tflops" : "gbps", gd_json_number(round(v * 10) / 10));
        if (is_gemm)
            json_object_set_new(ev, "dtype", json_string(gd_gemm_dtype_name(b->dtype)));
        json_object_set_new(ev, is_gemm ? "datasheet_tflops" : "datasheet_gbps", gd_json_number(sheet));
        json_object_set_new(ev, "of_datasheet_pct", gd_json_number(round(1000 * v / sheet) / 10));
        json_object_set_new(ev, "sku", json_string(peak.label));
        json_object_set_new(ev, "product", json_string(name));
        json_object_set_new(ev, "source",
                            json_string("data/gpu-peaks.tsv (the datasheet row matched by the product "
                                        "name); the figure timed by CUDA events"));
        gd_finding_add(out, "bench.above_datasheet", GD_SEV_WARNING, gpu, ev, NAN, NULL,
                       "GPU %d %s %.1f %s is %.0f%% of the %s's datasheet (%.4g %s): no GPU beats its datasheet, so "
                       "the measurement or the GPU's identification is wrong",
                       gpu, is_gemm ? gd_gemm_dtype_name(b->dtype) : "memory bandwidth", v, unit, 100 * v / sheet,
                       peak.label, sheet, unit);
    }
}

void gd_check_bench_above_datasheet(const gd_check *self, const gd_facts *f, gd_findings *out)
{
    (void)self;
    const gd_bench_facts *b = f->bench;
    if (!b)
        return; /* check: the report says the group was not run (report/checked.c) */
    if (b->gemm || b->stress)
        judge_above(f, out, true);
    if (b->membw)
        judge_above(f, out, false);
}

/* CUresult and cuBLAS names of a kernel the driver could not load for this
 * GPU: the driver's PTX JIT or the build's architectures, not the GPU. */
static bool not_loaded(const char *why)
{
    static const char *const names[] = {
        "CUDA_ERROR_INVALID_PTX",       "CUDA_ERROR_UNSUPPORTED_PTX_VERSION", "CUDA_ERROR_JIT_COMPILER_NOT_FOUND",
        "CUDA_ERROR_NO_BINARY_FOR_GPU", "CUDA_ERROR_INVALID_IMAGE",           "CUBLAS_STATUS_ARCH_MISMATCH"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strstr(why, names[i]))
            return true;
    return false;
}

/* Wrong results are the GPU's (the registry's template says what to do);
 * a kernel that did not load is the driver's; another failure is told by
 * what else the GPU shows. */
static const char fix_not_loaded[] =
    "The driver could not load the benchmark's kernel for this GPU: a software fault, not the GPU's. gpudoctor's "
    "memory kernel is PTX that the driver's JIT compiler (libnvidia-ptxjitcompiler, part of the driver) compiles "
    "for the GPU: INVALID_PTX or UNSUPPORTED_PTX_VERSION means a JIT that is missing or older than the PTX. Check "
    "that the driver's libraries match its kernel module ('cat /proc/driver/nvidia/version' against libcuda.so's "
    "version; in a container the NVIDIA container toolkit mounts them) and update the driver. A job's own kernels "
    "need no JIT when built for the GPU's architecture (TORCH_CUDA_ARCH_LIST, nvcc -gencode).";
static const char fix_run_failed[] =
    "The GPU's work failed to run (the error above). Where 'gpudoctor check' shows a fault on this GPU "
    "(health.xid, health.ecc_uncorrectable, health.gpu_lost), treat it as that; out of memory means another "
    "process holds the GPU ('nvidia-smi'), a refused context a compute mode or MIG setting (config.compute_mode, "
    "config.mig_enabled). Where nothing explains it, run 'dcgmi diag -r 3' before the GPU takes jobs again.";

static void add_failure(gd_findings *out, const gd_bench_gpu *g, const char *what, const char *why, bool wrong)
{
    int gpu = g->gpu >= 0 ? g->gpu : GD_NO_GPU;
    json_t *ev = json_object();
    json_object_set_new(ev, "what", json_string(what));
    json_object_set_new(ev, "detail", json_string(why));
    json_object_set_new(ev, "cuda_device", json_integer(g->cuda_device));
    json_object_set_new(ev, "source", json_string("gpudoctor bench: results read back and compared on the host"));
    const char *fix = wrong ? NULL : not_loaded(why) ? fix_not_loaded : fix_run_failed;
    gd_finding_add(out, "bench.failed", GD_SEV_CRITICAL, gpu, ev, NAN, fix, "GPU %d: %s: %s", gpu, what, why);
}

void gd_check_bench_failed(const gd_check *self, const gd_facts *f, gd_findings *out)
{
    (void)self;
    const gd_bench_facts *b = f->bench;
    if (!b)
        return; /* check: the report says the group was not run (report/checked.c) */
    for (size_t i = 0; i < b->gpu_count; i++) {
        const gd_bench_gpu *g = &b->gpus[i];
        if (g->gemm_verdict == GD_VERIFY_WRONG)
            add_failure(out, g, "the GEMM returned wrong results", g->gemm_detail, true);
        else if (g->gemm_failed)
            add_failure(out, g, "the GEMM failed to run", g->gemm_error, false);
        if (g->membw_verdict == GD_VERIFY_WRONG)
            add_failure(out, g, "a device memory copy returned wrong bytes", g->membw_detail, true);
        else if (g->membw_failed)
            add_failure(out, g, "the memory kernel failed", g->membw_error, false);
    }
}
