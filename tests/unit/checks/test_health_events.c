/* SPDX-License-Identifier: Apache-2.0 */
/* The session's fault events (src/checks/health_events.c): a GPU that came
 * back (health.gpu_lost), a driver that stopped answering every GPU
 * (health.driver_unresponsive). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "checks/checks_internal.h"
#include "facts_fixture.h"

#include <string.h>

/* A GPU lost at 10 s that answered again at 20 s keeps its finding, with both times. */
static void a_gpu_that_came_back_keeps_its_finding(void **state)
{
    (void)state;
    gd_facts f;
    fx_facts(&f, 4, 30);
    gd_event lost = {.t = 10, .gpu = 2, .kind = GD_EV_GPU_LOST, .value = 15};
    gd_event back = {.t = 20, .gpu = 2, .kind = GD_EV_GPU_BACK};
    snprintf(lost.what, sizeof lost.what, "nvmlDeviceGetTemperature");
    assert_int_equal(gd_event_add(&f.events, &lost), 0);
    assert_int_equal(gd_event_add(&f.events, &back), 0);
    gd_findings fs = {0};
    fx_run(&f, "health.gpu_lost", &fs);
    assert_int_equal(fs.n, 1);
    assert_int_equal(fs.v[0].gpu, 2);
    assert_int_equal(json_integer_value(json_object_get(fs.v[0].evidence, "back_at_s")), 20);
    assert_non_null(strstr(fs.v[0].title, "answered again"));
    gd_findings_free(&fs);
    gd_facts_free(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_gpu_that_came_back_keeps_its_finding),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
