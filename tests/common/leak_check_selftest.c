/* SPDX-License-Identifier: Apache-2.0 */
/*
 * For test_leak_check_exit.sh: a cmocka binary linked like every test one.
 * Without an argument its test leaves a buffer behind and fails, as a failed
 * assertion does; with "pass" its test leaks a buffer and passes; with
 * "skip" it says why it is skipped and exits 77, as a skipped test does.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

static char *kept;

static void leaves_its_buffer_and_fails(void **state)
{
    (void)state;
    char *buf = strdup("the test's own buffer");
    assert_null(buf);
    free(buf);
}

static void leaks_and_passes(void **state)
{
    (void)state;
    kept = malloc(77);
    assert_non_null(kept);
    kept = NULL; /* lost: a real leak */
}

int main(int argc, char **argv)
{
    const struct CMUnitTest failing[] = {cmocka_unit_test(leaves_its_buffer_and_fails)};
    const struct CMUnitTest passing[] = {cmocka_unit_test(leaks_and_passes)};
    if (argc > 1 && strcmp(argv[1], "skip") == 0) {
        fprintf(stderr, "selftest: skipped: the reason for the skip\n");
        return 77;
    }
    if (argc > 1 && strcmp(argv[1], "pass") == 0)
        return cmocka_run_group_tests(passing, NULL, NULL);
    return cmocka_run_group_tests(failing, NULL, NULL);
}
