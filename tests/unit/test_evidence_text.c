/* SPDX-License-Identifier: Apache-2.0 */
/* Evidence values in text: numbers without exponents, structures in words
 * (never JSON), cut at a word with " ..." when they do not fit. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "report/text_util.h"

#include <string.h>

static void numbers_read_as_numbers(void **state)
{
    (void)state;
    char buf[64];
    json_t *v = json_real(13336.3);
    gd_json_scalar_text(v, buf, sizeof buf);
    assert_string_equal(buf, "13336"); /* was "1.334e+04" */
    json_decref(v);
    v = json_real(0.4567);
    gd_json_scalar_text(v, buf, sizeof buf);
    assert_string_equal(buf, "0.4567");
    json_decref(v);
    v = json_integer(42);
    gd_json_scalar_text(v, buf, sizeof buf);
    assert_string_equal(buf, "42");
    json_decref(v);
}

static void structures_read_as_words(void **state)
{
    (void)state;
    char buf[256];
    json_t *v = json_pack("[{s:i,s:i,s:s},{s:i,s:i,s:[i,i,i]}]", "xid", 79, "count", 2, "meaning", "fallen off the bus",
                          "xid", 13, "count", 1, "newest", 1, 2, 3);
    gd_json_scalar_text(v, buf, sizeof buf);
    assert_string_equal(buf, "xid 79, count 2, meaning fallen off the bus; xid 13, count 1, newest (1, 2, 3)");
    assert_null(strpbrk(buf, "{}[]\""));
    char small[40];
    gd_json_scalar_text(v, small, sizeof small);
    assert_null(strpbrk(small, "{}[]\""));
    size_t n = strlen(small);
    assert_true(n >= 4 && strcmp(small + n - 4, " ...") == 0); /* cut at a word, said */
    assert_true(small[n - 5] != ' ' && small[n - 5] != ',');
    json_decref(v);
    v = json_array();
    gd_json_scalar_text(v, buf, sizeof buf);
    assert_string_equal(buf, "none");
    json_decref(v);
}

/* A list of plain values inside another value is shown, in parentheses
 * (issue 39: "pairs=gpus 2 items, path_gbps 31.5" named no pair); a
 * structure two levels down is left to the JSON report, never "N items". */
static void nested_lists_name_their_items(void **state)
{
    (void)state;
    char buf[256];
    json_t *v =
        json_pack("[{s:[i,i],s:f},{s:[i,i],s:f}]", "gpus", 0, 1, "path_gbps", 31.5, "gpus", 0, 4, "path_gbps", 16.0);
    gd_json_scalar_text(v, buf, sizeof buf);
    assert_string_equal(buf, "gpus (0, 1), path_gbps 31.5; gpus (0, 4), path_gbps 16");
    json_decref(v);
    v = json_pack("[[i,i],[i,i]]", 0, 4, 1, 5);
    gd_json_scalar_text(v, buf, sizeof buf);
    assert_string_equal(buf, "(0, 4), (1, 5)");
    json_decref(v);
    v = json_pack("[i,i,i]", 0, 1, 2); /* a value's own list needs no parentheses */
    gd_json_scalar_text(v, buf, sizeof buf);
    assert_string_equal(buf, "0, 1, 2");
    json_decref(v);
    v = json_pack("[{s:i,s:[{s:s}],s:s}]", "xid", 79, "newest", "when", "8734.5", "action", "reboot");
    gd_json_scalar_text(v, buf, sizeof buf);
    assert_string_equal(buf, "xid 79, action reboot");
    assert_null(strstr(buf, "items"));
    json_decref(v);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(numbers_read_as_numbers),
        cmocka_unit_test(structures_read_as_words),
        cmocka_unit_test(nested_lists_name_their_items),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
