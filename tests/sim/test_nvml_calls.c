/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What a sample asks the driver, counted by the simulated NVML
 * (sim/nvml/sim_count.c; bench/nvml_calls.c runs the session): at most 10
 * calls per GPU per sample at check's interval, on the 8x H100 node and on
 * a board whose getters answer NOT_SUPPORTED (each call is an ioctl on a
 * real driver). A getter the GPU cannot answer is asked again only on the
 * health cadence (GD_HEALTH_REREAD_S), its "not supported" holding in
 * between; a transient error is asked again every sample, and a lost GPU is
 * still noticed at once. Counts are deterministic: a correctness test.
 */
#include "nvml_calls.h"

#include "gpudoctor/abi/nvml_api.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#define BUDGET 10.0 /* NVML calls per GPU per sample */
#define INTERVAL_S 0.1 /* check's */
#define WINDOW_S 30.0

static char dir[] = "/tmp/gd-nvml-calls-XXXXXX";

static int make_dir(void **state)
{
    (void)state;
    return mkdtemp(dir) ? 0 : -1;
}

static int remove_dir(void **state)
{
    (void)state;
    char path[64];
    for (const char *const *n = (const char *const[]){"fan.json", "unknown.json", "link.json", NULL}; *n; n++) {
        snprintf(path, sizeof path, "%s/%s", dir, *n);
        unlink(path);
    }
    return rmdir(dir);
}

static const char *write_scenario(const char *name, const char *json)
{
    static char path[64];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(json, f);
    assert_int_equal(fclose(f), 0);
    return path;
}

static void count_at(const char *scenario, double interval_s, nvml_calls *c, gd_facts *f)
{
    char err[512];
    if (nvml_calls_count(GD_SIM_DIR, scenario, WINDOW_S, interval_s, c, f, err, sizeof err) != 0)
        fail_msg("%s: %s", scenario, err);
    assert_int_equal(c->samples, (size_t)(WINDOW_S / interval_s + 0.5) + 1);
}

static void count(const char *scenario, nvml_calls *c, gd_facts *f)
{
    count_at(scenario, INTERVAL_S, c, f);
}

static void within_budget_at(const char *example, double interval_s)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", GD_EXAMPLES_DIR, example);
    nvml_calls c;
    count_at(path, interval_s, &c, NULL);
    if (c.per_gpu_sample > BUDGET) {
        for (size_t i = 0; i < c.n; i++)
            print_message("%10llu %s\n", c.fn[i].calls, c.fn[i].name);
        fail_msg("%s: %.2f NVML calls per GPU per sample, above the budget of %.0f", example, c.per_gpu_sample, BUDGET);
    }
}

static void within_budget(const char *example)
{
    within_budget_at(example, INTERVAL_S);
}

static void the_h100_node_stays_within_ten_calls_per_gpu(void **state)
{
    (void)state;
    within_budget("h100x8-training.json");
}

/* At watch's and export's 1 s too: a "cannot" holds 50 samples there (it
 * was re-asked every 5 s, 10.6 calls a sample on the H100 node). */
static void at_one_second_both_stay_within_ten(void **state)
{
    (void)state;
    within_budget_at("h100x8-training.json", 1.0);
    within_budget_at("a100x4-pcie-no-fan-no-memtemp.json", 1.0);
}

static void a_board_without_fan_and_memory_temperature_stays_within_ten(void **state)
{
    (void)state;
    within_budget("a100x4-pcie-no-fan-no-memtemp.json");
}

/* Fan speed: "not supported" on every GPU of the passively cooled A100s,
 * asked at the first sample and once each GD_HEALTH_REREAD_S after (it was
 * asked every sample: 1204 calls), and still "not supported" in every
 * sample, as before. */
static void a_getter_that_cannot_answer_is_asked_on_the_health_cadence(void **state)
{
    (void)state;
    nvml_calls c;
    gd_facts f;
    count(GD_EXAMPLES_DIR "/a100x4-pcie-no-fan-no-memtemp.json", &c, &f);
    unsigned long long fan = nvml_calls_of(&c, "nvmlDeviceGetFanSpeed");
    assert_true(fan > 0);
    assert_true(fan <= c.gpus * (size_t)(WINDOW_S / GD_HEALTH_REREAD_S + 1));
    for (size_t i = 0; i < f.series.n; i++)
        for (size_t g = 0; g < f.gpu_count; g++) {
            gd_value v = gd_series_at(&f.series, i, g, GD_M_FAN_PCT);
            assert_int_equal(v.status, GD_ST_NOT_SUPPORTED);
            assert_int_equal(v.raw, NVML_ERROR_NOT_SUPPORTED);
        }
    gd_facts_free(&f);
}

#define GPU(fan_from_0, later)                                                                                         \
    "{\"driver_version\": \"550.54.15\", \"gpus\": [{\"name\": \"NVIDIA H100 80GB HBM3\", \"uuid\": \"GPU-1\", "       \
    "\"timeline\": [{\"t\": 0, \"temp_c\": 50, \"util_gpu_pct\": 90, \"fan_pct\": " fan_from_0 "}, " later "]}]}"

/* A fan that starts to answer at t=12 is asked again at t=15 (0, 5, 10,
 * 15): "not supported" holds until then, its speed from then on. */
static void a_getter_that_starts_to_answer_is_read_from_the_next_retry(void **state)
{
    (void)state;
    nvml_calls c;
    gd_facts f;
    count(write_scenario("fan.json", GPU("null", "{\"t\": 12, \"fan_pct\": 40}")), &c, &f);
    for (size_t i = 0; i < f.series.n; i++) {
        double t = gd_series_t(&f.series, i);
        gd_value v = gd_series_at(&f.series, i, 0, GD_M_FAN_PCT);
        if (t < GD_HEALTH_REREAD_S * 3 - 0.05) {
            assert_int_equal(v.status, GD_ST_NOT_SUPPORTED);
        } else if (t > GD_HEALTH_REREAD_S * 3 + 0.05) {
            assert_true(gd_ok(v));
            assert_true(v.v == 40);
        }
    }
    /* 0, 5, 10 and every sample from 15 s on. */
    size_t from_15 = (size_t)((WINDOW_S - 15) / INTERVAL_S + 0.5) + 1;
    assert_int_equal(nvml_calls_of(&c, "nvmlDeviceGetFanSpeed"), 3 + from_15);
    gd_facts_free(&f);
}

/* An error that may pass (UNKNOWN) is never remembered: asked every sample. */
static void a_transient_error_is_asked_every_sample(void **state)
{
    (void)state;
    nvml_calls c;
    gd_facts f;
    count(write_scenario("unknown.json",
                         GPU("30", "{\"t\": 10, \"errors\": {\"nvmlDeviceGetFanSpeed\": \"NVML_ERROR_UNKNOWN\"}}")),
          &c, &f);
    assert_int_equal(nvml_calls_of(&c, "nvmlDeviceGetFanSpeed"), c.samples);
    gd_value last = gd_series_at(&f.series, f.series.n - 1, 0, GD_M_FAN_PCT);
    assert_int_equal(last.status, GD_ST_ERROR);
    assert_int_equal(last.raw, NVML_ERROR_UNKNOWN);
    gd_facts_free(&f);
}

/* The link's generation and width (and the memory clock) are read when the
 * P-state moves, and every GD_HEALTH_REREAD_S else: a link that narrows at
 * t=11 under the same load shows at the read of t=15 (its last reading
 * holds until then); the idle GPU's link at Gen1 from t=20 shows at once. */
static void the_link_is_read_when_the_state_moves_and_on_the_health_cadence(void **state)
{
    (void)state;
    nvml_calls c;
    gd_facts f;
    count(write_scenario("link.json",
                         "{\"driver_version\": \"550.54.15\", \"gpus\": [{\"name\": \"NVIDIA H100 80GB HBM3\", "
                         "\"uuid\": \"GPU-1\", \"timeline\": [{\"t\": 0, \"temp_c\": 50, \"util_gpu_pct\": 90, "
                         "\"pcie_gen\": 5, \"pcie_width\": 16, \"mem_clock_mhz\": 2619}, {\"t\": 11, \"pcie_width\": "
                         "8}, {\"t\": 20, \"util_gpu_pct\": 0, \"pcie_gen\": 1, \"mem_clock_mhz\": 1593}]}]}"),
          &c, &f);
    for (size_t i = 0; i < f.series.n; i++) {
        double t = gd_series_t(&f.series, i);
        gd_value gen = gd_series_at(&f.series, i, 0, GD_M_PCIE_GEN);
        gd_value width = gd_series_at(&f.series, i, 0, GD_M_PCIE_WIDTH);
        gd_value mem = gd_series_at(&f.series, i, 0, GD_M_MEM_CLOCK_MHZ);
        assert_true(gd_ok(gen) && gd_ok(width) && gd_ok(mem));
        assert_true(width.v == (t < 15 - 0.05 ? 16 : 8));
        assert_true(gen.v == (t < 20 - 0.05 ? 5 : 1));
        assert_true(mem.v == (t < 20 - 0.05 ? 2619 : 1593));
    }
    /* Reads at 0, 5, 10, 15, 20 (the P-state moved) and 25, 30. */
    assert_int_equal(nvml_calls_of(&c, "nvmlDeviceGetCurrPcieLinkWidth"), 7);
    gd_facts_free(&f);
}

/* GPU 3 of the example falls off the bus at t=6 (GPU_IS_LOST to every
 * call), while its fan (not supported) is no longer asked: it is lost at
 * its first sample from 6 s, every later sample says so, and the other
 * GPUs are read as before. */
static void a_lost_gpu_is_still_noticed_at_once(void **state)
{
    (void)state;
    nvml_calls c;
    gd_facts f;
    count(GD_EXAMPLES_DIR "/h100x8-gpu-lost.json", &c, &f);
    const gd_gpu *lost = &f.gpus[3];
    assert_true(lost->lost);
    assert_true(lost->lost_at_s >= 6.0 - 1e-6 && lost->lost_at_s < 6.0 + INTERVAL_S - 1e-6);
    assert_int_equal(lost->lost_code, NVML_ERROR_GPU_IS_LOST);
    assert_string_equal(lost->lost_call, "nvmlDeviceGetTemperatureV");
    for (size_t i = 0; i < f.series.n; i++) {
        double t = gd_series_t(&f.series, i);
        gd_value temp = gd_series_at(&f.series, i, 3, GD_M_TEMP_C);
        assert_int_equal(temp.status, t >= lost->lost_at_s ? GD_ST_GPU_LOST : GD_ST_OK);
        assert_true(gd_ok(gd_series_at(&f.series, i, 2, GD_M_TEMP_C)));
    }
    for (size_t g = 0; g < f.gpu_count; g++)
        assert_true(g == 3 || !f.gpus[g].lost);
    gd_facts_free(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(the_h100_node_stays_within_ten_calls_per_gpu),
        cmocka_unit_test(a_board_without_fan_and_memory_temperature_stays_within_ten),
        cmocka_unit_test(at_one_second_both_stay_within_ten),
        cmocka_unit_test(a_getter_that_cannot_answer_is_asked_on_the_health_cadence),
        cmocka_unit_test(a_getter_that_starts_to_answer_is_read_from_the_next_retry),
        cmocka_unit_test(a_transient_error_is_asked_every_sample),
        cmocka_unit_test(the_link_is_read_when_the_state_moves_and_on_the_health_cadence),
        cmocka_unit_test(a_lost_gpu_is_still_noticed_at_once),
    };
    return cmocka_run_group_tests(tests, make_dir, remove_dir);
}
