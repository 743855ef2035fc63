/* SPDX-License-Identifier: Apache-2.0 */
/* End to end: each thermal / power / clock scenario yields exactly its findings. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "run_tool.h"

#include <stdbool.h>
#include <string.h>

static const char *const fast[] = {"GPUDOCTOR_SIM_TIMESCALE=", "NO_COLOR=", NULL}; /* the fast scenario clock */

typedef struct expect {
    const char *scenario;
    int exit_code;
    const char *ids[4]; /* "id@gpu" ("id@-1" for host-wide), NULL-terminated */
} expect;

static const expect cases[] = {
    {"h100x8-training.json", 0, {NULL}},
    {"h100x8-idle.json", 0, {NULL}},
    {"a100x4-pcie-no-fan-no-memtemp.json", 0, {NULL}},
    {"h100x8-power-capped-normal.json", 0, {"power.capped@-1", NULL}},
    {"h100x8-thermal-throttling.json", 2, {"thermal.throttling@2", NULL}},
    {"h100x8-hw-thermal-slowdown.json", 2, {"thermal.throttling@6", NULL}},
    {"h100x8-hbm-hot.json", 2, {"thermal.throttling@3", NULL}},
    {"h100x8-power-limit-lowered.json", 2, {"power.limit_lowered@1", NULL}},
    {"h100x8-power-brake.json", 2, {"power.brake@4", NULL}},
    {"h100x8-hw-slowdown.json", 2, {"power.hw_slowdown@7", NULL}},
    {"h100x8-clocks-locked.json", 2, {"clocks.locked@0", NULL}}, /* 29 % impact */
    {"h100x8-clocks-low.json", 2, {"clocks.low@1", NULL}}, /* 39 % impact */
    {"h100x8-one-gpu-hotter.json", 1, {"thermal.outlier@5", NULL}},
    {"demo.json", 2, {"thermal.hot@5", "power.limit_lowered@2", NULL}},
};

static void each_scenario_yields_exactly_its_findings(void **state)
{
    (void)state;
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        const expect *x = &cases[c];
        tool_result r = run_tool((const char *[]){"check", "--json", "--duration", "10", "--interval", "1000", "--sim",
                                                  example(x->scenario), NULL},
                                 fast);
        assert_exact_findings(x->scenario, &r, x->exit_code, x->ids);
        tool_result_free(&r);
    }
}

static void throttling_report_carries_evidence_and_timeline(void **state)
{
    (void)state;
    tool_result r = run_tool((const char *[]){"check", "--json", "--duration", "10", "--sim",
                                              example("h100x8-thermal-throttling.json"), NULL},
                             fast);
    json_t *f = json_array_get(json_object_get(r.json, "findings"), 0);
    json_t *ev = json_object_get(f, "evidence");
    assert_int_equal(json_integer_value(json_object_get(ev, "max_temp_c")), 87);
    assert_int_equal(json_integer_value(json_object_get(ev, "sm_clock_mhz_median")), 1410);
    assert_int_equal(json_integer_value(json_object_get(ev, "sm_clock_max_mhz")), 1980);
    double impact = json_number_value(json_object_get(f, "impact_pct"));
    assert_true(impact > 10 && impact < 25); /* ~60 % of the time x 29 % clock deficit */
    assert_non_null(strstr(json_string_value(json_object_get(f, "timeline")), "thermal slowdown with the GPU at 87 C"));
    /* Time in state per GPU: from the samples and from the violation counters. */
    json_t *w2 = json_object_get(json_array_get(json_object_get(r.json, "gpus"), 2), "window");
    double sampled =
        json_number_value(json_object_get(json_object_get(w2, "reasons_pct_of_loaded"), "sw_thermal_slowdown"));
    double counted = json_number_value(json_object_get(json_object_get(w2, "violation_pct_of_window"), "thermal"));
    assert_true(sampled > 45 && sampled < 80);
    assert_true(counted > 45 && counted < 80);
    assert_true(json_is_null(json_object_get(json_object_get(w2, "violation_pct_of_window"), "board_limit")));
    json_t *w0 = json_object_get(json_array_get(json_object_get(r.json, "gpus"), 0), "window");
    assert_int_equal(json_object_size(json_object_get(w0, "reasons_pct_of_loaded")), 0);
    assert_true(json_number_value(json_object_get(json_object_get(w0, "violation_pct_of_window"), "thermal")) == 0);
    tool_result_free(&r);

    r = run_tool(
        (const char *[]){"check", "--duration", "10", "--sim", example("h100x8-thermal-throttling.json"), NULL}, fast);
    assert_int_equal(r.exit_code, 2);
    assert_non_null(strstr(r.out, "timeline from"));
    assert_non_null(strstr(r.out, "GPU 2 thermally throttled"));
    tool_result_free(&r);
}

/* The text report with its wrapped lines joined: "\n    " becomes " ". */
static void unwrap(char *s)
{
    char *w = s;
    for (const char *r = s; *r; r++) {
        if (*r == '\n' && r[1] == ' ') {
            while (r[1] == ' ')
                r++;
            *w++ = ' ';
        } else {
            *w++ = *r;
        }
    }
    *w = '\0';
}

/* Every slowdown names, in the text report, when it began, at what temperature and clock, for how long. */
static void each_slowdown_has_a_timeline_in_the_text_report(void **state)
{
    (void)state;
    static const struct {
        const char *scenario, *line;
    } slowdowns[] = {
        {"h100x8-thermal-throttling.json", "timeline from 4.0 s"}, /* the scenario's t=4 */
        {"h100x8-hw-thermal-slowdown.json", ": hardware thermal slowdown with the GPU at 9"},
        {"h100x8-hbm-hot.json", ": thermal slowdown driven by the memory (HBM, up to 96 C) with the GPU at 78 C"},
        {"h100x8-power-brake.json", ": power brake slowdown with the GPU at "},
        {"h100x8-hw-slowdown.json", ": hardware slowdown with the GPU at "},
        {"h100x8-power-limit-lowered.json", ": power cap with the GPU at "},
        {"h100x8-clocks-locked.json", ": application clock limit with the GPU at "},
        {"h100x8-clocks-low.json", "with no event reason"},
    };
    for (size_t c = 0; c < sizeof slowdowns / sizeof slowdowns[0]; c++) {
        tool_result r = run_tool((const char *[]){"check", "--duration", "10", "--interval", "1000", "--sim",
                                                  example(slowdowns[c].scenario), NULL},
                                 fast);
        unwrap(r.out);
        char *tl = strstr(r.out, " timeline from ");
        char *end = tl ? strstr(tl, " fix ") : NULL; /* the timeline alone (impact may follow) */
        if (end)
            *end = '\0';
        if (!tl || !strstr(r.out, slowdowns[c].line) || !strstr(tl, " MHz") || !strstr(tl, "% of the loaded time"))
            fail_msg("%s: no timeline with start, clock and duration in:\n%s", slowdowns[c].scenario, r.out);
        tool_result_free(&r);
    }
}

static void power_limit_fix_names_the_command(void **state)
{
    (void)state;
    tool_result r = run_tool((const char *[]){"check", "--json", "--duration", "10", "--sim",
                                              example("h100x8-power-limit-lowered.json"), NULL},
                             fast);
    json_t *f = json_array_get(json_object_get(r.json, "findings"), 0);
    assert_non_null(strstr(json_string_value(json_object_get(f, "fix")), "nvidia-smi -i 1 -pl 700"));
    assert_int_equal(json_integer_value(json_object_get(json_object_get(f, "evidence"), "power_limit_w")), 450);
    tool_result_free(&r);
}

static void absent_fan_and_memory_temperature_are_null_not_zero(void **state)
{
    (void)state;
    tool_result r = run_tool(
        (const char *[]){"info", "--json", "--sim", example("a100x4-pcie-no-fan-no-memtemp.json"), NULL}, fast);
    assert_int_equal(r.exit_code, 0);
    json_t *g0 = json_array_get(json_object_get(r.json, "gpus"), 0);
    json_t *st = json_object_get(g0, "state");
    assert_true(json_is_null(json_object_get(st, "fan_pct")));
    assert_true(json_is_null(json_object_get(st, "mem_temp_c")));
    assert_true(json_is_null(json_object_get(g0, "temp_mem_max_c")));
    assert_true(json_is_integer(json_object_get(st, "temp_c")));
    tool_result_free(&r);
}

/* The HBM-hot scenario (issue 39: read as "thermal slowdown at 78 C" with
 * generic fan advice): the memory is named as the cause with its own
 * limit, and info says what each limit does. */
static void hbm_heat_is_named_as_the_memory(void **state)
{
    (void)state;
    tool_result r = run_tool((const char *[]){"check", "--json", "--sim", example("h100x8-hbm-hot.json"), NULL}, fast);
    assert_int_equal(count_findings(r.json, "thermal.throttling", 3), 1);
    json_t *f = json_array_get(json_object_get(r.json, "findings"), 0);
    assert_string_equal(json_string_value(json_object_get(f, "id")), "thermal.throttling");
    json_t *ev = json_object_get(f, "evidence");
    assert_string_equal(json_string_value(json_object_get(ev, "driven_by")), "memory");
    assert_int_equal(json_integer_value(json_object_get(ev, "max_mem_temp_c")), 96);
    assert_int_equal(json_integer_value(json_object_get(ev, "mem_max_operating_c")), 95);
    assert_non_null(strstr(json_string_value(json_object_get(f, "title")), "its memory (HBM) reached 96 C"));
    assert_non_null(strstr(json_string_value(json_object_get(f, "timeline")), "driven by the memory (HBM"));
    assert_non_null(strstr(json_string_value(json_object_get(f, "fix")), "HBM"));
    tool_result_free(&r);
    r = run_tool((const char *[]){"info", "--details", "--sim", example("h100x8-hbm-hot.json"), NULL}, fast);
    unwrap(r.out);
    assert_non_null(strstr(r.out, "limits: GPU 87 C max operating (software slowdown), 89 C hardware slowdown"));
    tool_result_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(each_scenario_yields_exactly_its_findings),
        cmocka_unit_test(throttling_report_carries_evidence_and_timeline),
        cmocka_unit_test(each_slowdown_has_a_timeline_in_the_text_report),
        cmocka_unit_test(power_limit_fix_names_the_command),
        cmocka_unit_test(absent_fan_and_memory_temperature_are_null_not_zero),
        cmocka_unit_test(hbm_heat_is_named_as_the_memory),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
