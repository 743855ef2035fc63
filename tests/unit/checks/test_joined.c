/* SPDX-License-Identifier: Apache-2.0 */
/*
 * run --profile's joined report (checks/joined.c): findings of the GPUs, the
 * job and the trace become causes ranked by the time each could win back; a
 * cause seen by several sources is one; causes inside the GPU idle time share
 * it; symptoms are evidence, not causes; a healthy run has none. And the
 * trace's side of it: .item() calls in a trace without GPU operations (a CPU
 * run, torch without Kineto), and the hook's status file.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "analysis/profile.h"
#include "formats/trace/profile_read.h"
#include "checks/joined.h"
#include "facts_fixture.h"
#include "trace_synth.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void add(gd_findings *fs, const char *id, gd_severity sev, int gpu, double impact)
{
    json_t *ev = json_object();
    json_object_set_new(ev, "source", json_string("test"));
    gd_finding_add(fs, id, sev, gpu, ev, impact, "fix it", "%s seen", id);
}

static const gd_cause *find(const gd_causes *c, const char *key)
{
    for (size_t i = 0; i < c->n; i++)
        if (strcmp(c->v[i].key, key) == 0)
            return &c->v[i];
    return NULL;
}

static size_t sources(const gd_cause *c, const char *src)
{
    size_t n = 0, i;
    json_t *e;
    json_array_foreach(c->evidence, i, e) n += strcmp(json_string_value(json_object_get(e, "source")), src) == 0;
    return n;
}

/* The DataLoader seen by the trace, the job and the GPUs is one cause; the
 * GPUs' idle time (70 %) bounds it; a throttled GPU wins back only on the
 * time it works. */
static void one_cause_from_three_sources(void **state)
{
    (void)state;
    gd_facts f;
    fx_facts(&f, 2, 20);
    fx_set(&f, 0, GD_M_UTIL_GPU_PCT, 0, 20, 30);
    fx_set(&f, 1, GD_M_UTIL_GPU_PCT, 0, 20, 30);
    gd_findings machine = {0}, trace = {0};
    add(&machine, "input.single_thread", GD_SEV_WARNING, GD_NO_GPU, NAN);
    add(&machine, "gpu.underutilized", GD_SEV_WARNING, 0, NAN);
    add(&machine, "gpu.underutilized", GD_SEV_WARNING, 1, NAN);
    add(&machine, "thermal.throttling", GD_SEV_WARNING, 1, 20);
    add(&machine, "driver.missing", GD_SEV_CRITICAL, GD_NO_GPU, NAN); /* no cause of a wait */
    add(&trace, "trace.dataloader", GD_SEV_CRITICAL, GD_NO_GPU, 85);
    add(&trace, "trace.pageable_memcpy", GD_SEV_INFO, GD_NO_GPU, 0.5); /* info: no cause */
    gd_profile p = {.first = 10, .last = 14};
    gd_causes c;
    gd_join_causes(&f, &machine, &p, &trace, &c);
    assert_int_equal(c.n, 2);
    assert_string_equal(c.idle_source, "gpus");
    assert_float_equal(c.idle_pct, 70, 1e-9);
    const gd_cause *dl = &c.v[0];
    assert_string_equal(dl->key, "dataloader");
    assert_int_equal(dl->kind, GD_CAUSE_JOB);
    assert_float_equal(dl->seen_pct, 85, 1e-9);
    assert_float_equal(dl->win_pct, 70, 1e-9); /* never more than the idle time it is */
    assert_non_null(strstr(dl->overlap, "IS the GPU idle time"));
    assert_int_equal(sources(dl, "trace"), 1);
    assert_int_equal(sources(dl, "job"), 1);
    assert_int_equal(sources(dl, "gpus"), 1); /* gpu.underutilized once, for both GPUs */
    assert_int_equal(dl->severity, GD_SEV_CRITICAL);
    const gd_cause *hot = &c.v[1];
    assert_string_equal(hot->key, "thermal.throttling");
    assert_int_equal(hot->kind, GD_CAUSE_HARDWARE);
    assert_float_equal(hot->win_pct, 6, 1e-9); /* 20 % of the 30 % the GPUs work */
    assert_null(find(&c, "driver.missing"));
    assert_null(find(&c, "gpu_idle"));
    gd_causes_free(&c);
    gd_findings_free(&machine);
    gd_findings_free(&trace);
    gd_facts_free(&f);
}

/* Causes inside the trace's GPU idle time (40 %) share it in rank order. */
static void causes_in_the_idle_time_share_it(void **state)
{
    (void)state;
    gd_facts f;
    fx_facts(&f, 1, 5);
    gd_trace_step step = {.number = 1, .dur_us = 1000, .idle_us = 400};
    gd_trace_result r = {.has_gpu = true, .nsteps = 1, .steps = &step, .step_total_us = 1000};
    gd_profile p = {.ranks = &r, .nranks = 1};
    gd_findings machine = {0}, trace = {0};
    add(&trace, "trace.dataloader", GD_SEV_WARNING, GD_NO_GPU, 30);
    add(&trace, "trace.item_sync", GD_SEV_WARNING, GD_NO_GPU, 25);
    add(&trace, "trace.sync", GD_SEV_WARNING, GD_NO_GPU, 5);
    add(&trace, "trace.step_memcpy", GD_SEV_WARNING, GD_NO_GPU, 8); /* not in the idle time */
    add(&trace, "trace.gpu_idle", GD_SEV_CRITICAL, GD_NO_GPU, 40);
    gd_causes c;
    gd_join_causes(&f, &machine, &p, &trace, &c);
    assert_string_equal(c.idle_source, "trace");
    assert_float_equal(c.idle_pct, 40, 1e-9);
    assert_int_equal(c.n, 4);
    const gd_cause *dl = find(&c, "dataloader"), *reads = find(&c, "host_reads"), *sync = find(&c, "host_sync"),
                   *copies = find(&c, "copies");
    assert_non_null(dl);
    assert_non_null(reads);
    assert_non_null(sync);
    assert_non_null(copies);
    assert_float_equal(dl->win_pct, 30, 1e-9);
    assert_float_equal(reads->win_pct, 10, 1e-9); /* 40 - 30 */
    assert_float_equal(sync->win_pct, 0, 1e-9);
    assert_non_null(strstr(reads->overlap, "counted once"));
    assert_float_equal(copies->win_pct, 8, 1e-9);
    assert_int_equal(sources(dl, "trace"), 2); /* its own and trace.gpu_idle: the same time */
    assert_string_equal(c.v[0].key, "dataloader");
    assert_string_equal(c.v[1].key, "host_reads");
    assert_string_equal(c.v[2].key, "copies");
    double sum = 0;
    for (size_t i = 0; i < c.n; i++)
        sum += c.v[i].win_pct;
    assert_true(sum <= 40 + 8 + 1e-9);
    gd_causes_free(&c);
    /* Idle time that no cause explains is a cause of its own. */
    gd_findings only = {0};
    add(&only, "trace.gpu_idle", GD_SEV_CRITICAL, GD_NO_GPU, 40);
    gd_join_causes(&f, &machine, &p, &only, &c);
    assert_int_equal(c.n, 1);
    assert_string_equal(c.v[0].key, "gpu_idle");
    assert_float_equal(c.v[0].win_pct, 40, 1e-9);
    gd_causes_free(&c);
    gd_findings_free(&only);
    gd_findings_free(&trace);
    gd_facts_free(&f);
}

static void a_healthy_run_has_no_cause(void **state)
{
    (void)state;
    gd_facts f;
    fx_facts(&f, 2, 10);
    gd_findings machine = {0}, trace = {0};
    add(&machine, "driver.missing", GD_SEV_CRITICAL, GD_NO_GPU, NAN);
    add(&trace, "trace.item_sync", GD_SEV_INFO, GD_NO_GPU, 0.4);
    gd_profile p = {0};
    gd_causes c;
    gd_join_causes(&f, &machine, &p, &trace, &c);
    assert_int_equal(c.n, 0);
    gd_causes_free(&c);
    gd_findings_free(&machine);
    gd_findings_free(&trace);
    gd_facts_free(&f);
}

/* A legacy (no Kineto) CPU trace: 4 steps of 10 ms with 200 .item() calls of
 * 10 us each: 20 % of the step on the host. */
static char *legacy_item_trace(int calls, double call_us)
{
    size_t cap = 1 << 20, len = 0;
    char *b = malloc(cap);
    len += (size_t)snprintf(b + len, cap - len, "[");
    for (int s = 1; s <= 4; s++) {
        double t0 = (s - 1) * 10000.0;
        len += (size_t)snprintf(b + len, cap - len,
                                "%s{\"name\":\"ProfilerStep#%d\",\"ph\":\"X\",\"ts\":%.0f,\"dur\":10000,\"tid\":1,"
                                "\"pid\":\"CPU functions\",\"args\":{}}",
                                s > 1 ? "," : "", s, t0);
        for (int k = 0; k < calls; k++)
            len += (size_t)snprintf(b + len, cap - len,
                                    ",{\"name\":\"aten::item\",\"ph\":\"X\",\"ts\":%.0f,\"dur\":%.0f,\"tid\":1,"
                                    "\"pid\":\"CPU functions\",\"args\":{}}",
                                    t0 + 100 + k * 40.0, call_us);
    }
    snprintf(b + len, cap - len, "]");
    return b;
}

static void item_calls_in_a_cpu_trace(void **state)
{
    (void)state;
    char *json = legacy_item_trace(200, 10);
    analyzed *a = ta_analyze(json);
    assert_int_equal(a->rc, 0);
    assert_false(a->r.has_gpu);
    assert_int_equal(a->r.item_calls, 600); /* 3 steps analyzed */
    assert_float_equal(a->r.item_pct, 20, 1e-6);
    const gd_finding *x = ta_finding(a, "trace.item_sync");
    assert_non_null(x);
    assert_float_equal(x->impact_pct, 20, 1e-9);
    assert_non_null(strstr(x->title, "no GPU in the trace"));
    ta_done(a);
    free(json);
    /* A few quick calls: nothing. */
    json = legacy_item_trace(2, 10);
    a = ta_analyze(json);
    assert_int_equal(a->r.item_calls, 6);
    assert_false(ta_has(a, "trace.item_sync"));
    ta_done(a);
    free(json);
}

static void hook_status_parses(void **state)
{
    (void)state;
    const char *ok = "{\"pid\": 42, \"rank\": 1, \"world_size\": 2, \"torch\": \"1.13.1\", \"tensorflow\": false, "
                     "\"mode\": \"batch\", \"steps\": 30, \"trace\": \"rank1-pid42.pt.trace.json\", \"error\": null, "
                     "\"step_s_unprofiled\": 0.02, \"step_s_profiled\": 0.025, \"unprofiled_steps\": 10, "
                     "\"export_s\": 0.01, \"profiled_steps\": [[10, 1700000000.5, 0.025], [11, 1700000000.6, 0.02], "
                     "[\"x\", 1, 2], [12]]}";
    gd_profile_proc q;
    assert_int_equal(gd_profile_parse_status(ok, strlen(ok), &q), 0);
    assert_int_equal(q.pid, 42);
    assert_int_equal(q.rank, 1);
    assert_string_equal(q.torch, "1.13.1");
    assert_string_equal(q.mode, "batch");
    assert_int_equal(q.steps, 30);
    assert_string_equal(q.trace, "rank1-pid42.pt.trace.json");
    assert_int_equal(q.nsteps, 2);
    assert_int_equal(q.steps_wall[1].number, 11);
    assert_int_equal(q.result, -1);
    /* A trace name that leaves the folder is no trace. */
    const char *escape = "{\"pid\": 7, \"trace\": \"../../etc/passwd\"}";
    assert_int_equal(gd_profile_parse_status(escape, strlen(escape), &q), 0);
    assert_string_equal(q.trace, "");
    assert_true(isnan(q.step_s_profiled));
    assert_int_equal(gd_profile_parse_status("[1]", 3, &q), -1);
    assert_int_equal(gd_profile_parse_status("{\"pid\": \"x\"}", 12, &q), -1);
    assert_int_equal(gd_profile_parse_status("{", 1, &q), -1);
}

/* A process of torch `torch` that counted no step (mode, GPUDOCTOR_PROFILE_STEP asked): why, in words. */
static void never_stepped(gd_profile *p, const char *torch, const char *mode, const char *asked, const char *says)
{
    snprintf(p->procs[0].torch, sizeof p->procs[0].torch, "%s", torch);
    snprintf(p->procs[0].mode, sizeof p->procs[0].mode, "%s", mode);
    snprintf(p->procs[0].step_asked, sizeof p->procs[0].step_asked, "%s", asked);
    gd_profile_explain(p);
    if (!strstr(p->not_profiled, says))
        fail_msg("torch %s, %s, asked %s: %s", torch, mode, asked, p->not_profiled);
}

/* Why nothing was profiled, from what the processes said. */
static void not_profiled_says_why(void **state)
{
    (void)state;
    gd_profile p = {.first = 10, .last = 14};
    gd_profile_explain(&p);
    assert_non_null(strstr(p.not_profiled, "no Python process"));
    p.nprocs = 1;
    p.procs[0] = (gd_profile_proc){.pid = 5, .result = -1};
    gd_profile_explain(&p);
    assert_non_null(strstr(p.not_profiled, "never imported torch"));
    p.procs[0].tensorflow = true;
    gd_profile_explain(&p);
    assert_non_null(strstr(p.not_profiled, "TensorFlow"));
    never_stepped(&p, "2.3.0", "optimizer", "auto", "never stepped (torch 2.3.0: no optimizer step counted)");
    /* No global optimizer hook (torch < 1.13): steps are DataLoader batches, and a job without one has none. */
    never_stepped(&p, "1.12.1", "batch", "auto", "torch 1.12.1 has no global optimizer step hook");
    never_stepped(&p, "1.12.1", "batch", "batch", "GPUDOCTOR_PROFILE_STEP=batch");
    p.procs[0].steps = 6;
    gd_profile_explain(&p);
    assert_non_null(strstr(p.not_profiled, "ended after 6 steps"));
    assert_non_null(strstr(p.not_profiled, "--profile-steps 2:5")); /* steps that fit */
    p.procs[0].steps = 1;
    gd_profile_explain(&p);
    assert_non_null(strstr(p.not_profiled, "needs two steps"));
    p.procs[0].steps = 6;
    snprintf(p.procs[0].error, sizeof p.procs[0].error, "boom");
    gd_profile_explain(&p);
    assert_non_null(strstr(p.not_profiled, "boom"));
    /* The hook stepped aside (the job ran its own profiler): that, and why, before any error. */
    snprintf(p.procs[0].stepped_aside, sizeof p.procs[0].stepped_aside, "the job started its own profiler");
    gd_profile_explain(&p);
    assert_non_null(strstr(p.not_profiled, "stepped aside in PID 5"));
    assert_non_null(strstr(p.not_profiled, "its own profiler"));
    gd_profile_proc q;
    const char *st = "{\"pid\": 7, \"stepped_aside\": \"the job's own profiler was running\"}";
    assert_int_equal(gd_profile_parse_status(st, strlen(st), &q), 0);
    assert_string_equal(q.stepped_aside, "the job's own profiler was running");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(one_cause_from_three_sources), cmocka_unit_test(causes_in_the_idle_time_share_it),
        cmocka_unit_test(a_healthy_run_has_no_cause),   cmocka_unit_test(item_calls_in_a_cpu_trace),
        cmocka_unit_test(hook_status_parses),           cmocka_unit_test(not_profiled_says_why),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
