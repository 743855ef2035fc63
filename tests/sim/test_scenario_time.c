/* SPDX-License-Identifier: Apache-2.0 */
/* gdscenario: step-held values at the edges, error injection over time, integrals. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "gpudoctor/abi/nvml_api.h"
#include "scenario.h"

#define J(...) #__VA_ARGS__

static const char *story = J({
    "errors" : {"nvmlSystemGetDriverVersion" : "NVML_ERROR_NO_PERMISSION"},
    "gpus" : [
        {
            "errors" : {"nvmlDeviceGetFanSpeed" : "NVML_ERROR_NOT_SUPPORTED"},
            "timeline" : [
                {"t" : 5, "temp_c" : 40, "power_w" : 100, "fan_pct" : null, "event_reasons" : ["gpu_idle"]}, {
                    "t" : 10,
                    "temp_c" : 80,
                    "sm_clock_mhz" : 1400,
                    "fan_pct" : 70,
                    "event_reasons" : ["sw_power_cap"],
                    "errors" : {"nvmlDeviceGetTemperature_v2" : "NVML_ERROR_TIMEOUT"}
                },
                {
                    "t" : 20,
                    "power_w" : 300,
                    "fan_pct" : null,
                    "event_reasons" : [ "hw_thermal_slowdown", "sw_power_cap" ],
                    "errors" : {"nvmlDeviceGetCount" : "NVML_ERROR_GPU_IS_LOST"}
                },
                {
                    "t" : 30,
                    "power_w" : null,
                    "event_reasons" : [],
                    "errors" : {"nvmlDeviceGetTemperature" : "NVML_SUCCESS"}
                }
            ]
        },
        {"name" : "no timeline"}
    ]
});

static int setup(void **state)
{
    char err[512];
    *state = gd_scenario_load_buffer(story, strlen(story), "story.json", err, sizeof err);
    if (!*state)
        print_error("%s\n", err);
    return *state ? 0 : -1;
}

static int teardown(void **state)
{
    gd_scenario_free(*state);
    return 0;
}

static double at(const gd_scenario *sc, gd_scenario_field f, double t)
{
    gd_scenario_value v = gd_scenario_value_at(&sc->gpus[0], f, t);
    assert_int_equal(v.status, GD_SCENARIO_SET);
    return v.value;
}

static gd_scenario_status status_at(const gd_scenario *sc, gd_scenario_field f, double t)
{
    return gd_scenario_value_at(&sc->gpus[0], f, t).status;
}

static void test_step_held(void **state)
{
    const gd_scenario *sc = *state;
    /* Before the first point, the first point's values hold. */
    assert_true(at(sc, GD_SCENARIO_TEMP_C, 0) == 40);
    assert_true(at(sc, GD_SCENARIO_TEMP_C, 4.999) == 40);
    /* Each point holds until the next; at its exact t the new value applies. */
    assert_true(at(sc, GD_SCENARIO_TEMP_C, 9.999) == 40);
    assert_true(at(sc, GD_SCENARIO_TEMP_C, 10) == 80);
    /* A field missing from a point keeps its previous value... */
    assert_true(at(sc, GD_SCENARIO_TEMP_C, 25) == 80);
    assert_true(at(sc, GD_SCENARIO_POWER_W, 15) == 100);
    /* ...and after the last point the last values hold. */
    assert_true(at(sc, GD_SCENARIO_TEMP_C, 1e9) == 80);
    /* A field first written later holds that first value before it. */
    assert_true(at(sc, GD_SCENARIO_SM_CLOCK_MHZ, 0) == 1400);
    assert_true(at(sc, GD_SCENARIO_SM_CLOCK_MHZ, 31) == 1400);
    /* null: not reported at that time; absent everywhere: not reported at all. */
    assert_int_equal(status_at(sc, GD_SCENARIO_FAN_PCT, 7), GD_SCENARIO_NULL);
    assert_true(at(sc, GD_SCENARIO_FAN_PCT, 12) == 70);
    assert_int_equal(status_at(sc, GD_SCENARIO_FAN_PCT, 21), GD_SCENARIO_NULL);
    assert_int_equal(status_at(sc, GD_SCENARIO_POWER_W, 30), GD_SCENARIO_NULL);
    assert_int_equal(status_at(sc, GD_SCENARIO_MEM_TEMP_C, 12), GD_SCENARIO_ABSENT);
    /* A GPU without a timeline reports nothing. */
    assert_null(gd_scenario_state_at(&sc->gpus[1], 3));
    assert_int_equal(gd_scenario_value_at(&sc->gpus[1], GD_SCENARIO_TEMP_C, 3).status, GD_SCENARIO_ABSENT);

    unsigned long long bits;
    assert_int_equal(gd_scenario_reasons_at(&sc->gpus[0], 0, &bits), GD_SCENARIO_SET);
    assert_int_equal(bits, nvmlClocksThrottleReasonGpuIdle);
    assert_int_equal(gd_scenario_reasons_at(&sc->gpus[0], 35, &bits), GD_SCENARIO_SET);
    assert_int_equal(bits, 0);
    assert_int_equal(gd_scenario_reasons_at(&sc->gpus[1], 35, &bits), GD_SCENARIO_ABSENT);
    assert_string_equal(gd_scenario_field_name(GD_SCENARIO_PCIE_RX_KBPS), "pcie_rx_kbps");
}

static void test_errors_over_time(void **state)
{
    const gd_scenario *sc = *state;
    const gd_scenario_errors *e = &sc->gpus[0].errors;
    /* GPU-level entries apply always, whatever the version suffix of the call. */
    assert_int_equal(gd_scenario_error_at(e, "nvmlDeviceGetFanSpeed", 0), NVML_ERROR_NOT_SUPPORTED);
    assert_int_equal(gd_scenario_error_at(e, "nvmlDeviceGetFanSpeed_v2", 0), NVML_ERROR_NOT_SUPPORTED);
    assert_int_equal(gd_scenario_error_at(e, "nvmlDeviceGetFanSpeedX", 0), 0);
    /* Timeline entries apply from their point on, and accumulate. */
    assert_int_equal(gd_scenario_error_at(e, "nvmlDeviceGetTemperature", 9.99), 0);
    assert_int_equal(gd_scenario_error_at(e, "nvmlDeviceGetTemperature", 10), NVML_ERROR_TIMEOUT);
    assert_int_equal(gd_scenario_error_at(e, "nvmlDeviceGetTemperature", 25), NVML_ERROR_TIMEOUT);
    assert_int_equal(gd_scenario_error_at(e, "nvmlDeviceGetCount_v2", 25), NVML_ERROR_GPU_IS_LOST);
    assert_int_equal(gd_scenario_error_at(e, "nvmlDeviceGetFanSpeed", 25), NVML_ERROR_NOT_SUPPORTED);
    /* A later entry for the same function overrides an earlier one. */
    assert_int_equal(gd_scenario_error_at(e, "nvmlDeviceGetTemperature", 30), 0);
    assert_false(gd_scenario_code_active(e, NVML_ERROR_GPU_IS_LOST, 19.9));
    assert_true(gd_scenario_code_active(e, NVML_ERROR_GPU_IS_LOST, 20));
    assert_false(gd_scenario_code_active(e, NVML_ERROR_TIMEOUT, 30));
    assert_int_equal(gd_scenario_error_at(&sc->errors, "nvmlSystemGetDriverVersion", 0), NVML_ERROR_NO_PERMISSION);
    assert_int_equal(gd_scenario_error_at(&sc->gpus[1].errors, "nvmlDeviceGetFanSpeed", 0), 0);
}

static void test_integrals(void **state)
{
    const gd_scenario *sc = *state;
    const gd_scenario_gpu *g = &sc->gpus[0];
    double mj, ns;
    /* 100 W from 0 (the first point's values hold before it) to 20, 300 W to 30, null after. */
    assert_true(gd_scenario_energy_mj(g, 0, &mj) && mj == 0);
    assert_true(gd_scenario_energy_mj(g, 5, &mj) && fabs(mj - 500e3) < 1e-6);
    assert_true(gd_scenario_energy_mj(g, 25, &mj) && fabs(mj - (2000e3 + 1500e3)) < 1e-6);
    assert_true(gd_scenario_energy_mj(g, 100, &mj) && fabs(mj - (2000e3 + 3000e3)) < 1e-6);
    assert_false(gd_scenario_energy_mj(&sc->gpus[1], 100, &mj));
    /* sw_power_cap from 10 to 30; thermal from 20 to 30. */
    assert_true(gd_scenario_reason_time_ns(g, nvmlClocksThrottleReasonSwPowerCap, 15, &ns) && fabs(ns - 5e9) < 1);
    assert_true(gd_scenario_reason_time_ns(g, nvmlClocksThrottleReasonSwPowerCap, 50, &ns) && fabs(ns - 20e9) < 1);
    assert_true(gd_scenario_reason_time_ns(g, nvmlClocksThrottleReasonHwThermalSlowdown, 50, &ns) &&
                fabs(ns - 10e9) < 1);
    assert_true(gd_scenario_reason_time_ns(g, nvmlClocksThrottleReasonGpuIdle, 50, &ns) && fabs(ns - 10e9) < 1);
    assert_false(gd_scenario_reason_time_ns(&sc->gpus[1], 1, 50, &ns));
}

static void test_bus_ids(void **state)
{
    (void)state;
    unsigned d, b, dev, fn;
    assert_true(gd_scenario_parse_bus_id("00000000:1B:00.0", &d, &b, &dev, &fn));
    assert_int_equal(b, 0x1b);
    assert_true(gd_scenario_parse_bus_id("0001:c3:1f.7", &d, &b, &dev, &fn));
    assert_int_equal(d, 1);
    assert_int_equal(dev, 0x1f);
    assert_int_equal(fn, 7);
    assert_false(gd_scenario_parse_bus_id("", NULL, NULL, NULL, NULL));
    assert_false(gd_scenario_parse_bus_id("000000000:1B:00.0", NULL, NULL, NULL, NULL));
    assert_false(gd_scenario_parse_bus_id("0000:1B:00.0 ", NULL, NULL, NULL, NULL));
    assert_false(gd_scenario_parse_bus_id("-1:1B:00.0", NULL, NULL, NULL, NULL));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_step_held, setup, teardown),
        cmocka_unit_test_setup_teardown(test_errors_over_time, setup, teardown),
        cmocka_unit_test_setup_teardown(test_integrals, setup, teardown),
        cmocka_unit_test(test_bus_ids),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
