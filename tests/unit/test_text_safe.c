/* SPDX-License-Identifier: Apache-2.0 */
/* Strings on their way to a terminal: control characters out, text kept. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "core/text_safe.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void safe(const char *in, const char *want)
{
    char out[256];
    gd_text_safe(in, out, sizeof out);
    assert_string_equal(out, want);
    /* The stream form writes the same bytes. */
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    gd_write_safe(f, in, strlen(in));
    fclose(f);
    assert_string_equal(buf, want);
    free(buf);
}

static void controls_become_question_marks(void **state)
{
    (void)state;
    safe("python", "python");
    safe("\x1b]0;owned\x07\x1b[2Jpython", "?]0;owned??[2Jpython"); /* OSC title, clear screen */
    safe("a\nVerdict: OK", "a?Verdict: OK"); /* no forged line */
    safe("tab\there\r", "tab?here?");
    safe("del\x7f", "del?");
    safe("\xc2\x9b"
         "2J",
         "?"
         "?"
         "2J"); /* U+009B, CSI as UTF-8: both bytes out */
    safe("\x9b"
         "2J",
         "?2J"); /* a lone 8-bit CSI */
    safe("\xc2\x85", "??"); /* NEL */
}

static void valid_utf8_text_is_kept(void **state)
{
    (void)state;
    safe("NVIDIA H100 80GB HBM3", "NVIDIA H100 80GB HBM3");
    safe("n\xc3\xb6"
         "de-\xe6\x97\xa5\xe6\x9c\xac",
         "n\xc3\xb6"
         "de-\xe6\x97\xa5\xe6\x9c\xac"); /* ö, 日本 */
    safe("\xc2\xa0nbsp", "\xc2\xa0nbsp"); /* U+00A0 is text */
    safe("\xf0\x9f\x94\xa5", "\xf0\x9f\x94\xa5"); /* 4-byte emoji */
}

static void invalid_utf8_is_replaced_byte_by_byte(void **state)
{
    (void)state;
    safe("\xc0\xaf", "??"); /* overlong '/' */
    safe("\xe0\x80\xaf", "???"); /* overlong */
    safe("\xed\xa0\x80", "???"); /* a UTF-16 surrogate */
    safe("\xf4\x90\x80\x80", "????"); /* beyond U+10FFFF */
    safe("\xe6\x97", "??"); /* cut short */
    safe("\xff\xfe", "??");
}

static void bidi_controls_are_replaced(void **state)
{
    (void)state;
    safe("gpu\xe2\x80\xae"
         "01-edon",
         "gpu???01-edon"); /* U+202E RIGHT-TO-LEFT OVERRIDE */
    safe("a\xe2\x81\xa6"
         "b\xe2\x81\xa9",
         "a???b???"); /* U+2066 LEFT-TO-RIGHT ISOLATE, U+2069 POP DIRECTIONAL ISOLATE */
    safe("\xe2\x80\xaa\xe2\x80\x8f\xe2\x80\x8e\xe2\x81\xa7\xe2\x81\xa8", "???????????????");
    safe("\xd8\x9c", "??"); /* U+061C ARABIC LETTER MARK */
    safe("\xe2\x80\x94\xe2\x80\xaf\xe2\x81\xa5",
         "\xe2\x80\x94\xe2\x80\xaf\xe2\x81\xa5"); /* U+2014, U+202F, U+2065 around them stay */
}

static void output_is_bounded_and_characters_stay_whole(void **state)
{
    (void)state;
    char out[4];
    gd_text_safe("abcdef", out, sizeof out);
    assert_string_equal(out, "abc");
    gd_text_safe("ab\xe6\x97\xa5", out, sizeof out); /* 日 does not fit whole */
    assert_string_equal(out, "ab");
    char one[1];
    gd_text_safe("x", one, sizeof one);
    assert_string_equal(one, "");
    gd_text_safe(NULL, out, sizeof out);
    assert_string_equal(out, "");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(controls_become_question_marks),
        cmocka_unit_test(valid_utf8_text_is_kept),
        cmocka_unit_test(invalid_utf8_is_replaced_byte_by_byte),
        cmocka_unit_test(bidi_controls_are_replaced),
        cmocka_unit_test(output_is_bounded_and_characters_stay_whole),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
