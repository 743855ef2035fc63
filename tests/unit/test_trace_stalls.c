/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gpudoctor trace: host reads of GPU values (.item(), .cpu()) and exposed
 * host-to-device copies inside the step, on synthetic loops; trace.item_sync
 * and trace.step_memcpy fire and stay quiet, and do not count again what
 * trace.sync and trace.pageable_memcpy count.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "trace_synth.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static analyzed *run(const synth *s)
{
    analyzed *a = ta_run_synth(s);
    assert_int_equal(a->rc, 0);
    return a;
}

/* loss.item() after the launches: the host waits for the whole step's kernels. */
static void item_sync_fires_when_the_read_waits_in_the_copy(void **state)
{
    (void)state;
    synth s = synth_healthy();
    s.reads = 1;
    analyzed *a = run(&s);
    const gd_trace_result *r = &a->r;
    assert_int_equal(r->reads, 5); /* one per analyzed step */
    assert_int_equal(r->reads_item, 5);
    assert_int_equal(r->item_calls, 5);
    assert_true(r->read_blocked_pct > 50);
    assert_float_equal(r->read_bytes_median, 4, 1e-9);
    assert_int_equal(r->steps[0].reads, 1);
    const gd_finding *f = ta_finding(a, "trace.item_sync");
    assert_non_null(f);
    assert_true(strstr(f->title, ".item()") != NULL);
    assert_true(f->impact_pct > 0 && f->impact_pct <= r->read_blocked_pct + 1e-9);
    assert_false(ta_has(a, "trace.sync"));
    ta_done(a);
}

/* .cpu() whose wait falls in cudaStreamSynchronize: trace.sync saw it before;
 * now it is the read's, and trace.sync stays quiet. */
static void item_sync_takes_the_sync_after_a_read_from_trace_sync(void **state)
{
    (void)state;
    synth s = synth_healthy();
    s.reads = 1;
    s.read_in_sync = true;
    s.read_via_cpu = true;
    analyzed *a = run(&s);
    const gd_trace_result *r = &a->r;
    assert_true(r->sync_pct > 50); /* the number stays the total */
    assert_float_equal(r->read_sync_us, r->sync_us, 1e-9);
    assert_int_equal(r->reads_item, 0);
    const gd_finding *f = ta_finding(a, "trace.item_sync");
    assert_non_null(f);
    assert_true(strstr(f->title, ".cpu()") != NULL);
    assert_false(ta_has(a, "trace.sync"));
    ta_done(a);
    /* A sync that follows no read is trace.sync's still. */
    s = synth_healthy();
    s.sync_us = 2000;
    s.step_us = 12500;
    a = run(&s);
    assert_true(ta_has(a, "trace.sync"));
    assert_false(ta_has(a, "trace.item_sync"));
    ta_done(a);
}

static void item_sync_stays_quiet(void **state)
{
    (void)state;
    synth s = synth_healthy();
    analyzed *a = run(&s);
    assert_int_equal(a->r.reads, 0);
    assert_false(ta_has(a, "trace.item_sync"));
    ta_done(a);
    /* A read when the GPU has finished already costs nothing. */
    s.kernels = 20;
    s.kernel_us = 5;
    s.reads = 2;
    a = run(&s);
    assert_int_equal(a->r.reads, 10);
    assert_true(a->r.read_blocked_pct < 1);
    assert_false(ta_has(a, "trace.item_sync"));
    ta_done(a);
}

/* One pinned copy of 5 MB per step ahead of the kernels, on their stream:
 * 500 us of 10 ms with no compute beside it. */
static void step_memcpy_fires_and_stays_quiet(void **state)
{
    (void)state;
    synth s = synth_healthy();
    s.copy_bytes = 5e6;
    analyzed *a = run(&s);
    const gd_trace_result *r = &a->r;
    assert_int_equal(r->step_copies, 5);
    assert_float_equal(r->step_copy_exposed_us, 5 * 500, 1e-9);
    assert_float_equal(r->step_copy_exposed_pct, 5.0, 1e-9);
    assert_float_equal(r->steps[1].copy_exposed_us, 500, 1e-9);
    const gd_finding *f = ta_finding(a, "trace.step_memcpy");
    assert_non_null(f);
    assert_float_equal(f->impact_pct, 5.0, 1e-9);
    ta_done(a);
    s = synth_healthy(); /* 100 us of 10 ms */
    a = run(&s);
    assert_false(ta_has(a, "trace.step_memcpy"));
    ta_done(a);
    /* Pageable copies are trace.pageable_memcpy's, not counted again. */
    s.copy_bytes = 5e6;
    s.copy_pageable = true;
    a = run(&s);
    assert_int_equal(a->r.step_copies, 0);
    assert_true(ta_has(a, "trace.pageable_memcpy"));
    assert_false(ta_has(a, "trace.step_memcpy"));
    ta_done(a);
}

/* A copy that runs beside a compute kernel (a side stream) is hidden. */
static void step_memcpy_counts_only_time_without_compute(void **state)
{
    (void)state;
    static const char t[] =
        "{\"traceEvents\":["
        "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#1\",\"ts\":0,\"dur\":1000},"
        "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#2\",\"ts\":1000,\"dur\":1000},"
        "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"ts\":10,\"dur\":5,"
        "\"args\":{\"correlation\":1}},"
        "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"gemm\",\"ts\":20,\"dur\":600,"
        "\"args\":{\"stream\":7,\"correlation\":1}},"
        "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaMemcpyAsync\",\"ts\":30,\"dur\":5,"
        "\"args\":{\"correlation\":2}},"
        "{\"ph\":\"X\",\"cat\":\"gpu_memcpy\",\"name\":\"Memcpy HtoD (Pinned -> Device)\",\"ts\":500,\"dur\":200,"
        "\"args\":{\"stream\":20,\"correlation\":2,\"bytes\":4000000}}]}";
    analyzed *a = ta_analyze(t);
    assert_int_equal(a->rc, 0);
    assert_int_equal(a->r.step_copies, 1);
    assert_float_equal(a->r.step_copy_exposed_us, 80, 1e-9); /* 620..700 */
    assert_int_equal(a->r.step_copies_waited, 0);
    assert_true(ta_has(a, "trace.step_memcpy")); /* 8 % of the step */
    ta_done(a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(item_sync_fires_when_the_read_waits_in_the_copy),
        cmocka_unit_test(item_sync_takes_the_sync_after_a_read_from_trace_sync),
        cmocka_unit_test(item_sync_stays_quiet),
        cmocka_unit_test(step_memcpy_fires_and_stays_quiet),
        cmocka_unit_test(step_memcpy_counts_only_time_without_compute),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
