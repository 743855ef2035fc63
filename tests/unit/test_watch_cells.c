/* SPDX-License-Identifier: Apache-2.0 */
/* The cells of watch's view (report/watch_cells.h): memory in MiB and the
 * clock event reasons by NVML's own names, as every other output says them
 * (issue 39: "MEM GiB" beside the contract's MiB, "power-cap" beside
 * sw_power_cap). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "gpudoctor/model.h"
#include "report/watch_cells.h"

#include <math.h>
#include <string.h>

static void memory_in_mib(void **state)
{
    (void)state;
    char cell[32];
    gd_watch_mem_cell(gd_val(61000), gd_val(81559), cell, sizeof cell);
    assert_string_equal(cell, "61000/81559");
    gd_watch_mem_cell(gd_missing(GD_ST_NOT_SUPPORTED), gd_val(81559), cell, sizeof cell);
    assert_string_equal(cell, "-/81559");
    assert_string_equal(gd_watch_mem_head, "MEM MiB");
}

static void reasons_by_their_nvml_names(void **state)
{
    (void)state;
    char cell[64];
    unsigned long long cap = gd_reason_bit("sw_power_cap"), th = gd_reason_bit("sw_thermal_slowdown"),
                       idle = gd_reason_bit("gpu_idle"), brake = gd_reason_bit("hw_power_brake_slowdown");
    assert_true(gd_watch_reasons_cell(cap, 19, cell, sizeof cell));
    assert_string_equal(cell, "sw_power_cap");
    assert_false(gd_watch_reasons_cell(idle, 19, cell, sizeof cell));
    assert_string_equal(cell, "gpu_idle");
    /* Two that do not fit side by side: the first, and how many more. */
    assert_true(gd_watch_reasons_cell(cap | th, 19, cell, sizeof cell));
    assert_string_equal(cell, "sw_power_cap +1");
    assert_true(gd_watch_reasons_cell(cap | th, 40, cell, sizeof cell));
    assert_string_equal(cell, "sw_power_cap,sw_thermal_slowdown");
    /* A name longer than the column is cut, the cut marked. */
    gd_watch_reasons_cell(brake, 19, cell, sizeof cell);
    assert_int_equal(strlen(cell), 19);
    assert_int_equal(strncmp(cell, "hw_power_brake_slo", 18), 0);
    assert_int_equal(cell[18], '~');
    gd_watch_reasons_cell(0, 19, cell, sizeof cell);
    assert_string_equal(cell, "");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(memory_in_mib),
        cmocka_unit_test(reasons_by_their_nvml_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
