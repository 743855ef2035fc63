/* SPDX-License-Identifier: Apache-2.0 */
/* config.persistence_off, config.compute_mode, config.mig_enabled and
 * config.ecc_disabled (src/checks/config.c): severities and who they name. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "facts_fixture.h"
#include "gpudoctor/abi/nvml_api.h"

#include <string.h>

static void configuration_severities(void **state)
{
    (void)state;
    gd_facts f;
    fx_facts(&f, 4, 2);
    for (size_t g = 0; g < 4; g++) {
        f.gpus[g].persistence_mode = gd_val(g == 0 ? 0 : 1);
        f.gpus[g].compute_mode = gd_val(NVML_COMPUTEMODE_DEFAULT);
        f.gpus[g].mig_mode = gd_val(0);
    }
    f.gpus[1].compute_mode = gd_val(NVML_COMPUTEMODE_EXCLUSIVE_PROCESS);
    gd_findings out;
    fx_run(&f, "config.persistence_off", &out);
    assert_int_equal(fx_only(&out, "config.persistence_off")->severity, GD_SEV_INFO);
    gd_findings_free(&out);
    fx_run(&f, "config.compute_mode", &out);
    assert_int_equal(fx_only(&out, "config.compute_mode")->severity, GD_SEV_INFO);
    gd_findings_free(&out);
    f.gpus[1].compute_mode = gd_val(NVML_COMPUTEMODE_PROHIBITED);
    fx_run(&f, "config.compute_mode", &out);
    assert_int_equal(fx_only(&out, "config.compute_mode")->severity, GD_SEV_CRITICAL);
    gd_findings_free(&out);
    fx_run(&f, "config.mig_enabled", &out);
    assert_int_equal(out.n, 0);
    gd_findings_free(&out);
    gd_facts_free(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(configuration_severities),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
