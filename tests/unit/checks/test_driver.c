/* SPDX-License-Identifier: Apache-2.0 */
/* driver.missing and gpu.none (src/checks/driver.c): fire without a driver or a GPU. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "checks/checks_internal.h"
#include "facts_fixture.h"

#include <string.h>

static void driver_missing_fires_without_driver(void **state)
{
    (void)state;
    gd_facts f;
    memset(&f, 0, sizeof f);
    snprintf(f.driver_error, sizeof f.driver_error, "cannot load libnvidia-ml.so.1");
    gd_findings fs = {0};
    gd_checks_run_all(&f, &fs);
    assert_int_equal(fs.n, 1);
    assert_string_equal(fs.v[0].id, "driver.missing");
    assert_int_equal(fs.v[0].severity, GD_SEV_CRITICAL);
    assert_int_equal(fs.v[0].gpu, GD_NO_GPU);
    assert_string_equal(json_string_value(json_object_get(fs.v[0].evidence, "error")), "cannot load libnvidia-ml.so.1");
    assert_int_equal(gd_findings_exit_code(&fs), 2);
    gd_findings_free(&fs);
}

/* No NVIDIA GPU on the PCI bus: a machine that needs no driver, said as not
 * checked (check exits 3); with one there, or the bus not read, critical. */
static void driver_missing_needs_an_nvidia_gpu_on_the_bus(void **state)
{
    (void)state;
    const struct {
        gd_value on_bus;
        size_t findings;
    } cases[] = {{gd_val(0), 0}, {gd_val(2), 1}, {gd_missing(GD_ST_NOT_SUPPORTED), 1}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        gd_facts f;
        memset(&f, 0, sizeof f);
        f.pci_nvidia_gpus = cases[c].on_bus;
        gd_findings fs;
        fx_run(&f, "driver.missing", &fs);
        assert_int_equal(fs.n, cases[c].findings);
        assert_int_equal(gd_facts_no_nvidia_gpu(&f), cases[c].findings == 0);
        if (fs.n == 0)
            assert_true(fx_skipped(&fs, "driver.missing", GD_NO_GPU, "no NVIDIA GPU on this machine"));
        else if (gd_ok(cases[c].on_bus))
            assert_non_null(strstr(fs.v[0].title, "on a machine with 2 NVIDIA GPUs on its PCI bus"));
        gd_findings_free(&fs);
        /* A capture or a scenario is never "this machine without a GPU". */
        f.captured = true;
        assert_false(gd_facts_no_nvidia_gpu(&f));
    }
}

static void gpu_none_fires_when_driver_sees_no_gpu(void **state)
{
    (void)state;
    gd_facts f;
    fx_facts(&f, 0, 0);
    gd_findings fs;
    fx_run(&f, "gpu.none", &fs);
    assert_int_equal(fx_count(&fs, "gpu.none", GD_NO_GPU), 1);
    gd_findings_free(&fs);
    fx_run(&f, "driver.missing", &fs);
    assert_int_equal(fs.n, 0);
    gd_findings_free(&fs);
    gd_facts_free(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(driver_missing_fires_without_driver),
        cmocka_unit_test(driver_missing_needs_an_nvidia_gpu_on_the_bus),
        cmocka_unit_test(gpu_none_fires_when_driver_sees_no_gpu),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
