/* SPDX-License-Identifier: Apache-2.0 */
/* gpu.underutilized: fires on a held, mostly idle GPU; quiet at its edges. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "checks/thresholds.h"
#include "analysis/window.h"
#include "facts_fixture.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void hold(gd_facts *f, size_t g, unsigned pid, double mib)
{
    gd_gpu *gpu = &f->gpus[g];
    free(gpu->processes);
    gpu->processes = calloc(1, sizeof *gpu->processes);
    gpu->process_count = 1;
    gpu->processes_status = gd_val(1);
    gpu->processes[0].pid = pid;
    gpu->processes[0].used_mib = gd_val(mib);
    snprintf(gpu->processes[0].name, sizeof gpu->processes[0].name, "python");
    fx_set(f, g, GD_M_MEM_USED_MIB, 0, f->series.n, mib);
}

/* GPU g alternates between hi and lo percent busy. */
static void alternate(gd_facts *f, size_t g, double hi, double lo)
{
    for (size_t i = 0; i < f->series.n; i++)
        fx_set(f, g, GD_M_UTIL_GPU_PCT, i, i + 1, i % 2 ? lo : hi);
}

/* How many gpu.underutilized findings (on gpu, or any with -2) the check gives. */
static size_t fired(const gd_facts *f, int gpu)
{
    gd_findings fs;
    fx_run(f, "gpu.underutilized", &fs);
    size_t n = fx_count(&fs, "gpu.underutilized", gpu);
    gd_findings_free(&fs);
    return n;
}

static void held_and_mostly_idle_fires_with_its_evidence(void **state)
{
    (void)state;
    gd_facts f;
    fx_facts(&f, 2, 20);
    hold(&f, 0, 4242, 61000);
    hold(&f, 1, 4243, 61000);
    alternate(&f, 0, 35, 5);
    gd_findings fs;
    fx_run(&f, "gpu.underutilized", &fs);
    assert_int_equal(fx_count(&fs, "gpu.underutilized", 0), 1);
    assert_int_equal(fx_count(&fs, "gpu.underutilized", 1), 0); /* busy 98 %: quiet */
    json_t *ev = fs.v[0].evidence;
    assert_int_equal(json_integer_value(json_object_get(ev, "pid")), 4242);
    assert_true(json_number_value(json_object_get(ev, "busy_pct_mean")) > 19 &&
                json_number_value(json_object_get(ev, "busy_pct_mean")) < 21);
    assert_int_equal(fs.v[0].severity, GD_SEV_WARNING);
    assert_non_null(strstr(fs.v[0].fix, "--pid"));
    assert_non_null(strstr(fs.v[0].fix, "gpudoctor run"));
    assert_non_null(strstr(fs.v[0].fix, "gpudoctor trace"));
    gd_findings_free(&fs);
    gd_facts_free(&f);
}

static void idle_without_process_or_with_a_context_only_is_quiet(void **state)
{
    (void)state;
    gd_facts f;
    fx_facts(&f, 2, 20);
    fx_set(&f, 0, GD_M_UTIL_GPU_PCT, 0, 20, 0); /* no process at all */
    fx_set(&f, 0, GD_M_MEM_USED_MIB, 0, 20, 0);
    f.gpus[0].processes_status = gd_val(0);
    hold(&f, 1, 7, GD_UNDERUSED_MIN_MIB - 600); /* a CUDA context, no model */
    fx_set(&f, 1, GD_M_UTIL_GPU_PCT, 0, 20, 0);
    assert_int_equal(fired(&f, -2), 0);
    gd_facts_free(&f);
}

static void idle_less_than_most_of_the_window_is_quiet(void **state)
{
    (void)state;
    gd_facts f;
    fx_facts(&f, 1, 20);
    hold(&f, 0, 1, 61000);
    /* an evaluation pause: low in 55 % of the samples */
    fx_set(&f, 0, GD_M_UTIL_GPU_PCT, 0, 11, 5);
    assert_int_equal(fired(&f, -2), 0);
    /* low in 60 %: the edge fires */
    fx_set(&f, 0, GD_M_UTIL_GPU_PCT, 0, 12, 5);
    assert_int_equal(fired(&f, 0), 1);
    gd_facts_free(&f);
}

static void a_snapshot_judges_nothing(void **state)
{
    (void)state;
    gd_facts f;
    fx_facts(&f, 1, 3);
    hold(&f, 0, 1, 61000);
    fx_set(&f, 0, GD_M_UTIL_GPU_PCT, 0, 3, 5);
    assert_int_equal(fired(&f, -2), 0);
    gd_facts_free(&f);
}

/* The fix fits where it is read: inside `run` or `check --pid` it never
 * sends the reader to the command that printed it, inside `run --profile`
 * it points at the causes ranked above (issue 39). */
static void fix_fits_where_it_is_read(void **state)
{
    (void)state;
    gd_facts f;
    fx_facts(&f, 1, 20);
    hold(&f, 0, 4242, 61000);
    alternate(&f, 0, 35, 5);
    static const struct {
        long pid;
        gd_where where;
        const char *has, *lacks[3];
    } cases[] = {
        {-1, GD_AT_CHECK, "'gpudoctor check --pid PID'", {NULL}},
        {-1, GD_AT_WATCH, "'gpudoctor check --pid PID'", {NULL}},
        {4242, GD_AT_CHECK, "input.*", {"check --pid", "gpudoctor run -- python", NULL}},
        {4242, GD_AT_RUN, "input.*", {"check --pid", "gpudoctor run -- python", NULL}},
        {4242,
         GD_AT_PROFILE,
         "another cause ranked under the verdict",
         {"check --pid", "gpudoctor run", "--profile --"}},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        f.pid = cases[k].pid;
        gd_findings fs;
        fx_run_at(&f, "gpu.underutilized", cases[k].where, &fs);
        const gd_finding *x = fx_only(&fs, "gpu.underutilized");
        if (!strstr(x->fix, cases[k].has))
            fail_msg("case %zu: no '%s' in: %s", k, cases[k].has, x->fix);
        for (size_t i = 0; i < 3 && cases[k].lacks[i]; i++)
            if (strstr(x->fix, cases[k].lacks[i]))
                fail_msg("case %zu: '%s' in: %s", k, cases[k].lacks[i], x->fix);
        assert_true(strlen(x->fix) + 1 < sizeof x->fix); /* whole, not cut */
        gd_findings_free(&fs);
    }
    gd_facts_free(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(held_and_mostly_idle_fires_with_its_evidence),
        cmocka_unit_test(idle_without_process_or_with_a_context_only_is_quiet),
        cmocka_unit_test(idle_less_than_most_of_the_window_is_quiet),
        cmocka_unit_test(a_snapshot_judges_nothing),
        cmocka_unit_test(fix_fits_where_it_is_read),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
