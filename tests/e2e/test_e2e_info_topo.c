/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What info and topo show of a GPU (issue 39): a MIG GPU's instances in a
 * table and its NVLinks as not applicable, a compute mode that does not
 * contradict the GPU's own utilisation, names whole where the width has
 * room, and topo with the banner of check, "n/a" for a bus id it lacks and
 * each GPU's PCIe link generation and width.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "run_tool.h"

#include <stdio.h>
#include <string.h>

static const char *const plain[] = {"NO_COLOR=1", "COLUMNS=", NULL};

/* The GPU table cuts a name only where the width has no room for it:
 * "GeForce RTX 4090" whole at 80 columns ("GeForce RTX 4~" before). */
static void names_take_the_room_the_width_has(void **state)
{
    (void)state;
    tool_result r = run_tool((const char *[]){"info", "--sim", example("rtx4090x8-no-p2p.json"), NULL}, plain);
    assert_int_equal(r.exit_code, 0);
    assert_null(strstr(r.out, "~"));
    assert_non_null(strstr(r.out, "  0  GeForce RTX 4090 "));
    tool_result_free(&r);
    /* At 40 columns there is no room: cut, and said with the mark. */
    r = run_tool((const char *[]){"info", "--sim", example("rtx4090x8-no-p2p.json"), NULL},
                 (const char *[]){"NO_COLOR=1", "COLUMNS=40", NULL});
    assert_non_null(strstr(r.out, "~"));
    tool_result_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(names_take_the_room_the_width_has),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
