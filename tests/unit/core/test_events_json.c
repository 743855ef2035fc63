/* SPDX-License-Identifier: Apache-2.0 */
/* The session's events as JSON and back (src/core/events_json.c): what a
 * recording keeps of how often the re-read counters were read. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "core/facts_json.h"

#include <stdlib.h>
#include <string.h>

/* counter_reads survives the round trip; a recording without it (older
 * builds) reads back 0, "not known", never 1, "read once". */
static void counter_reads_round_trip(void **state)
{
    (void)state;
    gd_events ev;
    memset(&ev, 0, sizeof ev);
    ev.reread_s = 5;
    ev.counter_reads = 3;
    json_t *j = gd_events_to_json(&ev, true);
    assert_non_null(j);
    gd_events back;
    memset(&back, 0, sizeof back);
    char err[128];
    assert_int_equal(gd_events_from_json(j, &back, err, sizeof err), 0);
    assert_int_equal(back.counter_reads, 3);
    gd_events_free(&back);
    json_object_del(j, "counter_reads");
    memset(&back, 0, sizeof back);
    assert_int_equal(gd_events_from_json(j, &back, err, sizeof err), 0);
    assert_int_equal(back.counter_reads, 0);
    gd_events_free(&back);
    json_decref(j);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(counter_reads_round_trip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
