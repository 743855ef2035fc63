/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gpudoctor trace: the reader, HTA's definitions worked out by hand on small
 * traces, and each finding firing and staying quiet on synthetic loops.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "analysis/trace/trace.h"
#include "formats/trace/trace_read.h"
#include "checks/trace_checks.h"
#include "trace_synth.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#define EV_CPU(name, cat, ts, dur, corr)                                                                               \
    "{\"ph\":\"X\",\"cat\":\"" cat "\",\"name\":\"" name "\",\"pid\":1,\"tid\":1,\"ts\":" #ts ",\"dur\":" #dur         \
    ",\"args\":{\"correlation\":" #corr "}}"
#define EV_GPU(name, cat, stream, ts, dur, corr)                                                                       \
    "{\"ph\":\"X\",\"cat\":\"" cat "\",\"name\":\"" name "\",\"pid\":0,\"tid\":7,\"ts\":" #ts ",\"dur\":" #dur         \
    ",\"args\":{\"stream\":" #stream ",\"correlation\":" #corr ",\"bytes\":1000000}}"

/* Worked by hand (docs/trace.md): three steps, the third left out. */
static const char hand_trace[] =
    "{\"traceEvents\":[" EV_CPU("ProfilerStep#1", "user_annotation", 0, 100, -1) "," EV_CPU("ProfilerStep#2", "user_annotation", 100, 100, -1) "," EV_CPU(
        "ProfilerStep#3", "user_annotation", 200,
        100,
        -1) "," EV_CPU("cudaLaunchKernel", "cuda_runtime", 0, 5,
                       1) "," EV_GPU("sgemm_kernel", "kernel", 7, 10, 20,
                                     1) "," EV_CPU("cudaLaunchKernel", "cuda_runtime", 40, 5,
                                                   2) "," EV_GPU("relu_kernel", "kernel", 7, 50, 10,
                                                                 2) "," EV_CPU("cudaLaunchKernel", "cuda_runtime", 45,
                                                                               5,
                                                                               3) "," EV_GPU("add_kernel", "kernel", 7,
                                                                                             65, 10,
                                                                                             3) "," EV_CPU("cudaMemcpyA"
                                                                                                           "sync",
                                                                                                           "cuda_"
                                                                                                           "runtime",
                                                                                                           50, 5,
                                                                                                           4) "," EV_GPU("Memcpy HtoD (Pageable -> Device)",
                                                                                                                         "gpu_memcpy",
                                                                                                                         7,
                                                                                                                         120,
                                                                                                                         30,
                                                                                                                         4) "," EV_CPU("cudaLaunchKernel",
                                                                                                                                       "cuda_runtime",
                                                                                                                                       150,
                                                                                                                                       5,
                                                                                                                                       5) "," EV_GPU("ncclKernel_AllReduce_RING_LL_Sum_float",
                                                                                                                                                     "kernel",
                                                                                                                                                     20,
                                                                                                                                                     140,
                                                                                                                                                     20,
                                                                                                                                                     5) "," EV_CPU("cudaLaunchKernel",
                                                                                                                                                                   "cuda_runtime",
                                                                                                                                                                   210,
                                                                                                                                                                   5,
                                                                                                                                                                   6) "," EV_GPU("late_kernel",
                                                                                                                                                                                 "kernel",
                                                                                                                                                                                 7,
                                                                                                                                                                                 220,
                                                                                                                                                                                 50,
                                                                                                                                                                                 6) "]}";

static void hta_temporal_by_hand(void **state)
{
    (void)state;
    analyzed *a = ta_analyze(hand_trace);
    assert_int_equal(a->rc, 0);
    const gd_trace_result *r = &a->r;
    /* Kept: corr 1-5 (launched before the last step's start); span 10..160. */
    assert_int_equal(r->gpu_events, 5);
    assert_true(r->last_step_dropped);
    assert_int_equal(r->nsteps, 2);
    assert_int_equal(r->steps_in_trace, 3);
    assert_float_equal(r->span_us, 150, 1e-9);
    /* Union: [10,30] [50,60] [65,75] [120,160] = 80 busy. */
    assert_float_equal(r->idle_us, 70, 1e-9);
    assert_float_equal(r->compute_us, 40, 1e-9);
    assert_float_equal(r->non_compute_us, 40, 1e-9);
    assert_float_equal(r->idle_pct, 100.0 * 70 / 150, 1e-9);
    /* Communication 140..160 overlaps no compute. */
    assert_float_equal(r->comm_overlap_pct, 0, 1e-9);
    ta_done(a);
}

static void hta_idle_by_hand(void **state)
{
    (void)state;
    analyzed *a = ta_analyze(hand_trace);
    const gd_trace_result *r = &a->r;
    assert_int_equal(r->nstreams, 2);
    const gd_trace_stream *s7 = &r->streams[0];
    assert_int_equal(s7->stream, 7);
    /* 30->50: launched at 40 > 30, host wait 20; 60->65: launched at 45, 5 < 30 us, kernel wait;
     * 75->120: launched at 50, 45 >= 30 us, other. */
    assert_float_equal(s7->host_wait_us, 20, 1e-9);
    assert_float_equal(s7->kernel_wait_us, 5, 1e-9);
    assert_float_equal(s7->other_us, 45, 1e-9);
    assert_float_equal(s7->idle_us, 70, 1e-9);
    assert_float_equal(r->streams[1].idle_us, 0, 1e-9); /* one event: no gap */
    /* Copies: the pageable one, 1 MB in 30 us. */
    assert_int_equal(r->copies[GD_COPY_H2D_PAGEABLE].count, 1);
    assert_float_equal(r->copies[GD_COPY_H2D_PAGEABLE].gbps, 1e6 / 30e3, 1e-9);
    /* Kernel classes. */
    assert_int_equal(r->class_count[GD_K_COMPUTE], 3);
    assert_int_equal(r->class_count[GD_K_COMM], 1);
    assert_int_equal(r->class_count[GD_K_MEMORY], 1);
    ta_done(a);
}

static void include_last_step_and_steps_option(void **state)
{
    (void)state;
    gd_trace_opts o;
    gd_trace_opts_default(&o);
    o.include_last_step = true;
    analyzed *a = ta_analyze_opts(hand_trace, strlen(hand_trace), &o);
    assert_int_equal(a->r.gpu_events, 6);
    assert_int_equal(a->r.nsteps, 3);
    ta_done(a);
    gd_trace_opts_default(&o);
    o.step_first = o.step_last = 2;
    a = ta_analyze_opts(hand_trace, strlen(hand_trace), &o);
    assert_int_equal(a->r.nsteps, 1);
    assert_int_equal(a->r.steps[0].number, 2);
    assert_int_equal(a->r.gpu_events, 1); /* corr 5, launched at 150 */
    ta_done(a);
}

static void kernel_classes_follow_hta(void **state)
{
    (void)state;
    assert_int_equal(gd_trace_kernel_class("ncclDevKernel_AllGather"), GD_K_COMM);
    assert_int_equal(gd_trace_kernel_class("void ncclKernel_x"), GD_K_COMM);
    assert_int_equal(gd_trace_kernel_class("hipMemcpy"), GD_K_COMM); /* HTA matches ^hip first */
    assert_int_equal(gd_trace_kernel_class("Memcpy DtoD (Device -> Device)"), GD_K_MEMORY);
    assert_int_equal(gd_trace_kernel_class("Memset (Device)"), GD_K_MEMORY);
    assert_int_equal(gd_trace_kernel_class("Stream Sync"), GD_K_OTHER);
    assert_int_equal(gd_trace_kernel_class("volta_sgemm_128x64_nn"), GD_K_COMPUTE);
}

static void ns_resolution_is_kept(void **state)
{
    (void)state;
    /* ts 10.5, dur 20.2: the span is 20.2 us, not 19 (ts rounded up, the end down) nor 20. */
    static const char t[] =
        "{\"traceEvents\":["
        "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"ts\":1.25,\"dur\":2,"
        "\"args\":{\"correlation\":1}},"
        "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"ts\":10.5,\"dur\":20.2,"
        "\"args\":{\"stream\":7,\"correlation\":1}}]}";
    analyzed *a = ta_analyze(t);
    assert_int_equal(a->rc, 0);
    assert_float_equal(a->r.span_us, 20.2, 1e-9);
    assert_float_equal(a->r.compute_us, 20.2, 1e-9);
    ta_done(a);
}

static void legacy_array_gives_the_dataloader_share(void **state)
{
    (void)state;
    static const char t[] =
        "[{\"name\":\"ProfilerStep#1\",\"ph\":\"X\",\"ts\":0,\"dur\":100,\"tid\":1,\"pid\":\"CPU "
        "functions\",\"args\":{}},"
        "{\"name\":\"enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__\",\"ph\":\"X\",\"ts\":1,\"dur\":90,"
        "\"tid\":1,\"pid\":\"CPU functions\",\"args\":{}},"
        "{\"name\":\"aten::mm\",\"ph\":\"X\",\"ts\":92,\"dur\":5,\"tid\":1,\"pid\":\"CPU functions\",\"args\":{}}]";
    analyzed *a = ta_analyze(t);
    assert_int_equal(a->rc, 0);
    assert_true(a->r.legacy);
    assert_false(a->r.has_gpu);
    assert_int_equal(a->r.nsteps, 1);
    assert_float_equal(a->r.dataloader_pct, 90, 1e-9);
    assert_true(ta_has(a, "trace.dataloader"));
    assert_false(ta_has(a, "trace.gpu_idle"));
    ta_done(a);
}

/* ---- each finding fires, and stays quiet ---- */

static void healthy_loop_is_quiet(void **state)
{
    (void)state;
    synth s = synth_healthy();
    analyzed *a = ta_run_synth(&s);
    assert_true(a->r.idle_pct < 20);
    for (size_t i = 0; i < a->fs.n; i++)
        print_message("unexpected: %s %s\n", a->fs.v[i].id, a->fs.v[i].title);
    assert_int_equal(a->fs.n, 0);
    ta_done(a);
}

static void gpu_idle_fires(void **state)
{
    (void)state;
    synth s = synth_healthy();
    s.kernels = 50; /* a quarter of the step's launches: the GPU idles the rest */
    analyzed *a = ta_run_synth(&s);
    assert_true(ta_has(a, "trace.gpu_idle"));
    ta_done(a);
}

/* A rank of fewer than GD_TRACE_MIN_STEPS steps is too short to judge: its
 * findings say so and are warnings at most; from 3 steps it is judged. */
static void too_short_a_trace_is_said_and_not_critical(void **state)
{
    (void)state;
    for (int steps = 2; steps <= 4; steps++) {
        synth s = synth_healthy();
        s.kernels = 10; /* the GPU idles most of the step */
        s.steps = steps; /* the last one left out: 1 to 3 analyzed */
        analyzed *a = ta_run_synth(&s);
        const gd_finding *f = ta_finding(a, "trace.gpu_idle");
        assert_non_null(f);
        bool short_ = a->r.nsteps < GD_TRACE_MIN_STEPS;
        assert_int_equal(a->r.nsteps, (size_t)steps - 1);
        assert_int_equal(json_object_get(f->evidence, GD_TRACE_TOO_SHORT) != NULL, short_);
        assert_int_equal(strstr(f->title, "too short to judge") != NULL, short_);
        if (short_)
            assert_true(f->severity <= GD_SEV_WARNING);
        else
            assert_int_equal(f->severity, GD_SEV_CRITICAL);
        ta_done(a);
    }
}

static void dataloader_fires_and_stays_quiet(void **state)
{
    (void)state;
    synth s = synth_healthy();
    s.loader_us = 4000;
    s.loader_workers = false;
    s.step_us = 14000;
    analyzed *a = ta_run_synth(&s);
    assert_true(ta_has(a, "trace.dataloader"));
    assert_float_equal(a->r.dataloader_pct, 100.0 * 4000 / 14000, 1e-6);
    ta_done(a);
    s = synth_healthy(); /* 50 us of 10 ms: 0.5% */
    a = ta_run_synth(&s);
    assert_false(ta_has(a, "trace.dataloader"));
    ta_done(a);
}

static void pageable_memcpy_fires_and_stays_quiet(void **state)
{
    (void)state;
    synth s = synth_healthy();
    s.copy_bytes = 8e6;
    s.copy_pageable = true;
    analyzed *a = ta_run_synth(&s);
    assert_true(ta_has(a, "trace.pageable_memcpy"));
    ta_done(a);
    s.copy_pageable = false;
    a = ta_run_synth(&s);
    assert_false(ta_has(a, "trace.pageable_memcpy"));
    ta_done(a);
}

static void sync_fires_and_stays_quiet(void **state)
{
    (void)state;
    synth s = synth_healthy();
    s.sync_us = 2000;
    s.step_us = 12500;
    analyzed *a = ta_run_synth(&s);
    assert_true(ta_has(a, "trace.sync"));
    assert_true(a->r.sync_pct > 5);
    ta_done(a);
    s = synth_healthy();
    s.kernel_us = 8; /* the GPU keeps up: the sync finds it done */
    s.sync_us = 10;
    a = ta_run_synth(&s);
    assert_false(ta_has(a, "trace.sync"));
    ta_done(a);
}

static void small_kernels_fire_and_stay_quiet(void **state)
{
    (void)state;
    synth s = synth_healthy();
    s.kernel_us = 3; /* kernels of 3 us behind launches of 9 us */
    analyzed *a = ta_run_synth(&s);
    assert_true(ta_has(a, "trace.small_kernels"));
    ta_done(a);
    s = synth_healthy();
    a = ta_run_synth(&s);
    assert_false(ta_has(a, "trace.small_kernels"));
    ta_done(a);
}

/* ---- bad input ---- */

/* FP32 SIMT GEMMs on sm_80: no tensor cores; bf16 or TF32 GEMMs, or an
 * older GPU without TF32, stay quiet. */
static void fp32_gemm_fires_and_stays_quiet(void **state)
{
    (void)state;
    synth s = synth_healthy();
    s.gemm = "ampere_sgemm_128x64_nn";
    analyzed *a = ta_run_synth(&s);
    assert_true(ta_has(a, "trace.fp32_gemm"));
    ta_done(a);
    s.gemm = "ampere_s16816gemm_128x128_nn"; /* TF32 tensor cores */
    a = ta_run_synth(&s);
    assert_false(ta_has(a, "trace.fp32_gemm"));
    ta_done(a);
    s = synth_healthy(); /* bf16 */
    a = ta_run_synth(&s);
    assert_false(ta_has(a, "trace.fp32_gemm"));
    ta_done(a);
    s.gemm = "volta_sgemm_128x64_nn";
    char *t = synth_trace(&s);
    char *cm = strstr(t, "\"computeMajor\":8");
    assert_non_null(cm);
    cm[strlen("\"computeMajor\":")] = '7'; /* a V100: no TF32 to switch on */
    a = ta_analyze(t);
    free(t);
    assert_false(ta_has(a, "trace.fp32_gemm"));
    ta_done(a);
}

/* A rank's numbers with only its step time set (no GPU, no steps analysed). */
static gd_trace_result rank_with_step(int rank, double median_us)
{
    gd_trace_result r;
    memset(&r, 0, sizeof r);
    r.rank = rank;
    r.step_median_us = median_us;
    r.dataloader_pct = r.sync_pct = r.comm_overlap_pct = r.read_blocked_pct = NAN;
    r.step_copy_exposed_pct = r.item_pct = r.step_idle_pct = r.step_idle_us = NAN;
    r.step_p90_us = r.step_max_us = median_us;
    r.launch_cpu_median_us = r.launch_delay_median_us = r.kernel_median_us = r.read_bytes_median = NAN;
    return r;
}

static size_t count_id(const gd_findings *fs, const char *id, int rank)
{
    size_t n = 0;
    for (size_t i = 0; i < fs->n; i++)
        n += strcmp(fs->v[i].id, id) == 0 &&
             json_integer_value(json_object_get(fs->v[i].evidence, "rank")) == (json_int_t)rank;
    return n;
}

/* Two ranks have no spread: the rule for three or more (the median rank's and
 * 3 MADs) can never fire there. The slower of two is a straggler at 1.2x. */
static void straggler_of_two_ranks(void **state)
{
    (void)state;
    gd_trace_result two[2] = {rank_with_step(0, 100e3), rank_with_step(1, 155e3)}; /* 55 % slower */
    gd_findings fs = {0};
    gd_trace_checks_run(two, 2, &fs);
    assert_int_equal(count_id(&fs, "trace.straggler", 1), 1);
    assert_int_equal(count_id(&fs, "trace.straggler", 0), 0);
    gd_findings_free(&fs);
    two[1].step_median_us = 100e3; /* equal: quiet */
    gd_trace_checks_run(two, 2, &fs);
    assert_int_equal(fs.n, 0);
    gd_findings_free(&fs);
    two[1].step_median_us = 115e3; /* 15 % slower: under the bar */
    gd_trace_checks_run(two, 2, &fs);
    assert_int_equal(count_id(&fs, "trace.straggler", 1), 0);
    gd_findings_free(&fs);
    /* Three or more keep the robust rule: one far off the others fires. */
    gd_trace_result four[4] = {rank_with_step(0, 100e3), rank_with_step(1, 101e3), rank_with_step(2, 99e3),
                               rank_with_step(3, 150e3)};
    gd_trace_checks_run(four, 4, &fs);
    assert_int_equal(count_id(&fs, "trace.straggler", 3), 1);
    assert_int_equal(fs.n, 1);
    gd_findings_free(&fs);
}

/* Gains out of the same idle time of one rank say so; others do not. */
static void shared_gains_are_marked(void **state)
{
    (void)state;
    gd_findings fs = {0};
    static const struct {
        const char *id;
        int rank;
    } f[] = {{"trace.gpu_idle", 0}, {"trace.dataloader", 0}, {"trace.fp32_gemm", 0}, {"trace.dataloader", 1}};
    for (size_t i = 0; i < 4; i++) {
        json_t *ev = json_object();
        json_object_set_new(ev, "rank", json_integer(f[i].rank));
        gd_finding_add(&fs, f[i].id, GD_SEV_WARNING, GD_NO_GPU, ev, 10, "fix", "%s", f[i].id);
    }
    gd_trace_mark_shared_gains(&fs);
    const char *shared[4];
    for (size_t i = 0; i < 4; i++)
        shared[i] = json_string_value(json_object_get(fs.v[i].evidence, GD_TRACE_GAIN_SHARED));
    assert_string_equal(shared[0], "trace.dataloader");
    assert_string_equal(shared[1], "trace.gpu_idle");
    assert_null(shared[2]);
    assert_null(shared[3]);
    gd_findings_free(&fs);
}

static void *gzip_of(const char *s, size_t *len)
{
    z_stream z = {0};
    size_t cap = strlen(s) + 1024;
    unsigned char *out = malloc(cap);
    assert_int_equal(deflateInit2(&z, 6, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY), Z_OK);
    z.next_in = (unsigned char *)s;
    z.avail_in = (uInt)strlen(s);
    z.next_out = out;
    z.avail_out = (uInt)cap;
    assert_int_equal(deflate(&z, Z_FINISH), Z_STREAM_END);
    *len = z.total_out;
    deflateEnd(&z);
    return out;
}

static void gzip_reads_like_plain(void **state)
{
    (void)state;
    size_t n;
    void *gz = gzip_of(hand_trace, &n);
    gd_trace_opts o;
    gd_trace_opts_default(&o);
    analyzed *a = ta_analyze_opts(gz, n, &o);
    assert_int_equal(a->rc, 0);
    assert_float_equal(a->r.idle_us, 70, 1e-9);
    ta_done(a);
    /* Corrupt: a flipped byte in the deflate data, and a cut-off stream. */
    ((unsigned char *)gz)[n / 2] ^= 0x55;
    a = ta_analyze_opts(gz, n, &o);
    assert_true(a->rc != 0 || a->meta.truncated);
    ta_done(a);
    ((unsigned char *)gz)[n / 2] ^= 0x55;
    a = ta_analyze_opts(gz, n / 2, &o);
    assert_true(a->rc != 0 || a->meta.truncated);
    ta_done(a);
    free(gz);
}

static void bad_input_is_a_message(void **state)
{
    (void)state;
    static const char *const bad[] = {"",
                                      "hello",
                                      "{\"traceEvents\": 5}",
                                      "{\"traceEvents\":[{\"ph\" 1}]}",
                                      "{\"a\":[1,2}",
                                      "[1,2,3] x",
                                      "{\"traceEvents\":[",
                                      "\x1f\x8b\x08\x00garbage"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        gd_trace_opts o;
        gd_trace_opts_default(&o);
        size_t len = strlen(bad[i]);
        analyzed *a = ta_analyze_opts(bad[i], len, &o);
        if (a->rc == 0)
            fail_msg("input %zu was accepted", i);
        assert_true(strlen(a->err) > 5);
        ta_done(a);
    }
    /* Nesting deeper than the reader allows. */
    char deep[2000];
    memset(deep, '[', sizeof deep - 1);
    deep[sizeof deep - 1] = 0;
    memcpy(deep, "{\"x\":", 5);
    analyzed *a = ta_analyze(deep);
    assert_int_not_equal(a->rc, 0);
    assert_non_null(strstr(a->err, "nested"));
    ta_done(a);
}

static void truncated_trace_is_a_partial_result(void **state)
{
    (void)state;
    size_t cut = strlen(hand_trace) * 2 / 3;
    gd_trace_opts o;
    gd_trace_opts_default(&o);
    analyzed *a = ta_analyze_opts(hand_trace, cut, &o);
    assert_int_equal(a->rc, 0);
    assert_true(a->meta.truncated);
    assert_non_null(strstr(a->r.note, "ends early"));
    ta_done(a);
}

static void odd_fields_are_left_out(void **state)
{
    (void)state;
    static const char t[] =
        "{\"traceEvents\":[5, \"x\", {\"ph\":\"X\",\"ts\":\"soon\",\"dur\":1e400,\"name\":\"a\\u00e9\\\"b\"},"
        "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"ts\":99999999999999999999,\"dur\":1,"
        "\"args\":{\"stream\":\"0x0\",\"correlation\":null}},"
        "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"ts\":-5,\"dur\":-1,\"args\":{}},"
        "{}],\"deviceProperties\":{\"x\":1},\"distributedInfo\":{\"rank\":\"7\"}}";
    analyzed *a = ta_analyze(t);
    assert_int_equal(a->rc, 0);
    assert_int_equal(a->meta.events, 6);
    assert_int_equal(a->meta.skipped, 2);
    assert_int_equal(a->meta.rank, 7);
    assert_false(a->r.has_gpu);
    ta_done(a);
}

static void huge_value_is_refused(void **state)
{
    (void)state;
    size_t n = GD_TRACE_MAX_ITEM + (2u << 20);
    char *t = malloc(n + 64);
    strcpy(t, "{\"traceEvents\":[{\"name\":\"");
    size_t off = strlen(t);
    memset(t + off, 'a', n - off);
    strcpy(t + n, "\"}]}");
    gd_trace_opts o;
    gd_trace_opts_default(&o);
    analyzed *a = ta_analyze_opts(t, strlen(t), &o);
    assert_int_not_equal(a->rc, 0);
    assert_non_null(strstr(a->err, "larger than"));
    ta_done(a);
    free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(hta_temporal_by_hand),
        cmocka_unit_test(hta_idle_by_hand),
        cmocka_unit_test(include_last_step_and_steps_option),
        cmocka_unit_test(kernel_classes_follow_hta),
        cmocka_unit_test(ns_resolution_is_kept),
        cmocka_unit_test(legacy_array_gives_the_dataloader_share),
        cmocka_unit_test(healthy_loop_is_quiet),
        cmocka_unit_test(gpu_idle_fires),
        cmocka_unit_test(too_short_a_trace_is_said_and_not_critical),
        cmocka_unit_test(dataloader_fires_and_stays_quiet),
        cmocka_unit_test(pageable_memcpy_fires_and_stays_quiet),
        cmocka_unit_test(sync_fires_and_stays_quiet),
        cmocka_unit_test(small_kernels_fire_and_stay_quiet),
        cmocka_unit_test(fp32_gemm_fires_and_stays_quiet),
        cmocka_unit_test(straggler_of_two_ranks),
        cmocka_unit_test(shared_gains_are_marked),
        cmocka_unit_test(gzip_reads_like_plain),
        cmocka_unit_test(bad_input_is_a_message),
        cmocka_unit_test(truncated_trace_is_a_partial_result),
        cmocka_unit_test(odd_fields_are_left_out),
        cmocka_unit_test(huge_value_is_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
