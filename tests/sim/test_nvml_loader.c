/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The NVML loader and reader against bare libraries (nvml_stub.c): versioned
 * names win over plain ones, plain ones are the fallback, a missing optional
 * function makes its metric "unavailable" (never a crash), and a missing
 * required one is named.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "sources/nvml/nvml_backend.h"
#include "gpudoctor/checks.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What nvml_stub.c's versioned and plain enumeration functions answer. */
#define V2_GPUS 2
#define LEGACY_GPUS 3

static void v2_only_library_loads_without_its_optional_functions(void **state)
{
    (void)state;
    gd_nvml_api api;
    char err[512] = "";
    assert_int_equal(gd_nvml_load(&api, NVML_STUB_V2, err, sizeof err), 0);
    assert_non_null(api.Init);
    assert_non_null(api.DeviceGetCount);
    assert_non_null(api.DeviceGetHandleByIndex);
    assert_null(api.DeviceGetTemperature);
    assert_null(api.DeviceGetCurrentClocksEventReasons);
    assert_null(api.ErrorString);
    /* Everything but the four required functions (and the simulator's hook). */
    assert_true(gd_nvml_missing_count(&api) > 40);
    gd_nvml_unload(&api);
    assert_null(api.lib.handle);
}

/* The library reads no environment (the command line fills the context
 * from GPUDOCTOR_NVML_LIBRARY): the path given is the one loaded. */
static void library_comes_from_the_environment_variable(void **state)
{
    (void)state;
    gd_nvml_api api;
    char err[512] = "";
    setenv("GPUDOCTOR_NVML_LIBRARY", "/nonexistent/libnvidia-ml.so.1", 1);
    int rc = gd_nvml_load(&api, NVML_STUB_LEGACY, err, sizeof err);
    unsetenv("GPUDOCTOR_NVML_LIBRARY");
    assert_int_equal(rc, 0);
    assert_string_equal(api.lib.path, NVML_STUB_LEGACY);
    gd_nvml_unload(&api);
}

static size_t gpus_of(const char *lib)
{
    gd_nvml_session s;
    char err[512] = "";
    if (gd_nvml_open(&s, lib, NULL, err, sizeof err) != 0)
        fail_msg("%s: %s", lib, err);
    size_t n = s.count;
    gd_nvml_close(&s);
    return n;
}

static void versioned_names_first_plain_names_as_fallback(void **state)
{
    (void)state;
    assert_int_equal(gpus_of(NVML_STUB_V2), V2_GPUS);
    assert_int_equal(gpus_of(NVML_STUB_LEGACY), LEGACY_GPUS); /* an old driver */
    assert_int_equal(gpus_of(NVML_STUB_BOTH), V2_GPUS); /* _v2 wins */
}

/* The bus id that gd_nvml_snapshot reads for GPU g of lib. */
static void bus_id_of(const char *lib, size_t g, char *out, size_t len)
{
    gd_nvml_session s;
    char err[512] = "";
    if (gd_nvml_open(&s, lib, NULL, err, sizeof err) != 0)
        fail_msg("%s: %s", lib, err);
    gd_facts f;
    memset(&f, 0, sizeof f);
    assert_int_equal(gd_nvml_snapshot(&s, &f, ""), 0);
    gd_nvml_close(&s);
    assert_true(g < f.gpu_count);
    snprintf(out, len, "%s", f.gpus[g].pci_bus_id);
    gd_facts_free(&f);
}

static void old_driver_bus_id_comes_from_the_legacy_field(void **state)
{
    (void)state;
    char id[64];
    /* Only the v1 nvmlDeviceGetPciInfo: busIdLegacy, in the v3 form. */
    bus_id_of(NVML_STUB_LEGACY, 1, id, sizeof id);
    assert_string_equal(id, "00000000:3C:00.0");
    bus_id_of(NVML_STUB_V2, 1, id, sizeof id);
    assert_string_equal(id, "00000000:1C:00.0");
    bus_id_of(NVML_STUB_BOTH, 0, id, sizeof id); /* _v3 wins */
    assert_string_equal(id, "00000000:1B:00.0");
}

static void missing_required_function_is_named(void **state)
{
    (void)state;
    gd_nvml_api api;
    char err[512] = "";
    assert_int_equal(gd_nvml_load(&api, NVML_STUB_NOCOUNT, err, sizeof err), -ENOSYS);
    assert_non_null(strstr(err, "nvmlDeviceGetCount_v2"));
    assert_non_null(strstr(err, NVML_STUB_NOCOUNT));
    assert_null(api.lib.handle);
}

static void missing_library_is_named(void **state)
{
    (void)state;
    gd_nvml_api api;
    char err[512] = "";
    const char *path = "/nonexistent/gpudoctor/libnvidia-ml.so.1";
    assert_int_equal(gd_nvml_load(&api, path, err, sizeof err), -ENOENT);
    assert_non_null(strstr(err, "cannot load the NVML library"));
    assert_non_null(strstr(err, path));
    assert_null(api.lib.handle);
    assert_null(api.Init);
}

static void missing_functions_read_as_unavailable_and_checks_stay_quiet(void **state)
{
    (void)state;
    gd_nvml_session s;
    char err[512] = "";
    assert_int_equal(gd_nvml_open(&s, NVML_STUB_V2, NULL, err, sizeof err), 0);
    gd_facts f;
    memset(&f, 0, sizeof f);
    assert_int_equal(gd_nvml_snapshot(&s, &f, ""), 0);
    assert_int_equal(gd_series_init(&f.series, f.gpu_count), 0);
    for (int k = 0; k < 3; k++) {
        long i = gd_series_push(&f.series, k * 0.1);
        assert_true(i >= 0);
        gd_nvml_sample(&s, &f, (size_t)i);
    }
    gd_nvml_close(&s);

    assert_int_equal(f.gpu_count, V2_GPUS);
    assert_true(f.driver_loaded);
    assert_string_equal(f.driver_version, "");
    assert_int_equal(f.cuda_driver_version.status, GD_ST_UNAVAILABLE);
    for (size_t g = 0; g < f.gpu_count; g++) {
        const gd_gpu *gpu = &f.gpus[g];
        assert_false(gpu->lost);
        assert_int_equal(gpu->power_limit_w.status, GD_ST_UNAVAILABLE);
        assert_int_equal(gpu->temp_slowdown_c.status, GD_ST_UNAVAILABLE);
        assert_int_equal(gpu->clock_max_sm_mhz.status, GD_ST_UNAVAILABLE);
        assert_int_equal(gpu->mem_total_mib.status, GD_ST_UNAVAILABLE);
        assert_int_equal(gpu->processes_status.status, GD_ST_UNAVAILABLE);
        assert_int_equal(gpu->nvlink_count, 0);
        for (size_t i = 0; i < f.series.n; i++)
            for (int m = 0; m < GD_M_COUNT; m++)
                assert_int_equal(gd_series_at(&f.series, i, g, (gd_metric)m).status, GD_ST_UNAVAILABLE);
    }

    /* Nothing to judge is no problem found, and it says what it could not check. */
    gd_findings fs;
    memset(&fs, 0, sizeof fs);
    gd_checks_run_all(&f, &fs);
    assert_int_equal(gd_findings_exit_code(&fs), 0);
    bool thermal_skipped = false;
    for (size_t i = 0; i < fs.nskips; i++)
        thermal_skipped |= strcmp(fs.skips[i].check, "thermal.hot") == 0;
    assert_true(thermal_skipped);
    gd_findings_free(&fs);
    gd_facts_free(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(v2_only_library_loads_without_its_optional_functions),
        cmocka_unit_test(library_comes_from_the_environment_variable),
        cmocka_unit_test(versioned_names_first_plain_names_as_fallback),
        cmocka_unit_test(missing_required_function_is_named),
        cmocka_unit_test(missing_library_is_named),
        cmocka_unit_test(old_driver_bus_id_comes_from_the_legacy_field),
        cmocka_unit_test(missing_functions_read_as_unavailable_and_checks_stay_quiet),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
