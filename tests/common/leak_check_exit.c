/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Linked into every cmocka test binary. Under AddressSanitizer, a test
 * binary that exits non-zero (a test failed, or the binary reports Skipped)
 * ends without LeakSanitizer's check: a failed cmocka assertion jumps out of
 * the test and leaves the test's own buffers (tool output, parsed JSON,
 * fixtures) behind, and their report would read like a product leak below
 * the real failure. A binary whose tests all pass is leak-checked as ever,
 * and the gpudoctor processes the end-to-end tests start check their own.
 * A skipped binary (77) ends quietly: its own last words, the reason for
 * the skip, are what make test lists (tests/skip_reasons.py).
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define GD_TEST_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define GD_TEST_ASAN 1
#endif

#ifdef GD_TEST_ASAN
/* What a skipped test exits with (ctest's SKIP_RETURN_CODE). */
#define GD_TEST_SKIP_STATUS 77

/* on_exit handlers run in the reverse order of registration: this one,
 * registered after the sanitizer's own at start-up, runs before its leak
 * check and can end the process first. */
static void skip_leak_check_on_failure(int status, void *arg)
{
    (void)arg;
    if (status == 0)
        return;
    fflush(NULL);
    if (status != GD_TEST_SKIP_STATUS)
        fprintf(stderr, "(exit %d: LeakSanitizer's check skipped; the failed test's own buffers are not leaks)\n",
                status);
    _exit(status);
}

__attribute__((constructor)) static void register_exit_handler(void)
{
    on_exit(skip_leak_check_on_failure, NULL);
}
#endif
