/* SPDX-License-Identifier: Apache-2.0 */
/* JSON text: each real in its shortest form that reads back as the same
 * double, never jansson's "%.17g" digits, and strings left alone. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "core/json_util.h"

#include <stdlib.h>
#include <string.h>

static void reals_are_shortest_and_exact(void **state)
{
    (void)state;
    char buf[40];
    static const struct {
        double x;
        const char *text;
    } cases[] = {
        {627.3, "627.3"}, {0.3, "0.3"},      {0.1 + 0.2, "0.30000000000000004"}, {2.0, "2.0"}, {-1.5, "-1.5"},
        {1e-7, "1e-07"},  {1e300, "1e+300"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        assert_int_equal(gd_json_real_text(cases[i].x, buf, sizeof buf), 0);
        assert_string_equal(buf, cases[i].text);
        assert_true(strtod(buf, NULL) == cases[i].x);
    }
    assert_int_equal(gd_json_real_text(627.3, buf, 4), -1); /* does not fit */
}

static void dumps_rewrite_reals_only(void **state)
{
    (void)state;
    json_t *j = json_pack("{s:f, s:f, s:i, s:s, s:[f, f]}", "power_w", 627.3, "time_s", 0.3, "count", 17, "text",
                          "627.30000000000007 \"x\" 0.1", "list", 1.25, 84.24);
    char *text = gd_json_dumps(j, JSON_COMPACT | JSON_PRESERVE_ORDER);
    assert_non_null(text);
    assert_string_equal(text, "{\"power_w\":627.3,\"time_s\":0.3,\"count\":17,\"text\":\"627.30000000000007 \\\"x\\\" "
                              "0.1\",\"list\":[1.25,84.24]}");
    json_t *back = json_loads(text, 0, NULL);
    assert_true(json_equal(back, j)); /* exact: a recording replays the same numbers */
    json_decref(back);
    free(text);
    json_decref(j);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(reals_are_shortest_and_exact),
        cmocka_unit_test(dumps_rewrite_reals_only),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
