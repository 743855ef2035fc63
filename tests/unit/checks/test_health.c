/* SPDX-License-Identifier: Apache-2.0 */
/* health.gpu_lost and health.sensors_failing (src/checks/health.c): a GPU
 * that stopped answering, sensors that stopped answering for good. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "checks/checks_internal.h"
#include "facts_fixture.h"

#include <string.h>

static void gpu_lost_names_the_gpu_and_the_call(void **state)
{
    (void)state;
    gd_facts f;
    fx_facts(&f, 8, 10);
    f.gpus[3].lost = true;
    f.gpus[3].lost_at_s = 6.0;
    f.gpus[3].lost_code = 15;
    snprintf(f.gpus[3].lost_call, sizeof f.gpus[3].lost_call, "nvmlDeviceGetTemperature");
    fx_unset(&f, 3, GD_M_TEMP_C, GD_ST_GPU_LOST);
    gd_findings fs = {0};
    gd_checks_run_all(&f, &fs);
    assert_int_equal(fs.n, 1);
    assert_string_equal(fs.v[0].id, "health.gpu_lost");
    assert_int_equal(fs.v[0].gpu, 3);
    assert_string_equal(json_string_value(json_object_get(fs.v[0].evidence, "call")), "nvmlDeviceGetTemperature");
    assert_int_equal(json_integer_value(json_object_get(fs.v[0].evidence, "lost_at_s")), 6);
    assert_non_null(strstr(fs.v[0].fix, "nvidia-smi -r -i 3"));
    gd_findings_free(&fs);
    gd_facts_free(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(gpu_lost_names_the_gpu_and_the_call),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
