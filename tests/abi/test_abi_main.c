/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ABI conformance test, built once per API (test_nvml_abi, test_cuda_abi):
 *   coverage:  every constant, type (and function typedef) that our header
 *              declares is in the comparison list, so the list cannot rot;
 *   vs NVIDIA: each listed constant has the same value, each type the same
 *              size and alignment, each member the same offset and size as
 *              in NVIDIA's header. Without NVIDIA's header the comparison is
 *              skipped (exit code 77, SKIPPED to ctest) after the coverage
 *              check, or fails where the environment has CI=true.
 *
 * Compile definitions: GD_ABI_HEADER (path of our header), GD_ABI_NAME
 * (label), GD_ABI_HAVE_THEIRS (0 or 1); GD_ABI_WITH_NEWER=1 where the list
 * covers the lines marked "newer" too; GD_ABI_SKIP_WHY, why NVIDIA's header
 * is missing and the command that brings it; GD_ABI_FROM_DEBIAN=1 where a
 * Debian package brings it (make test), so that CI=true requires it (a
 * header that only a CUDA toolkit brings skips with the reason even there).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "abi_compare.h"

const struct gd_abi_side *gd_abi_side_ours(void);
extern const char *const gd_abi_ignored[];
#if GD_ABI_HAVE_THEIRS
const struct gd_abi_side *gd_abi_side_theirs(void);
#endif

static void test_list_covers_header(void **state)
{
    (void)state;
    const struct gd_abi_side *ours = gd_abi_side_ours();
    assert_true(ours->n_consts > 0);
#ifndef GD_ABI_WITH_NEWER
#define GD_ABI_WITH_NEWER 0
#endif
    assert_int_equal(gd_abi_check_coverage(GD_ABI_HEADER, ours, gd_abi_ignored, GD_ABI_WITH_NEWER), 0);
}

#if GD_ABI_HAVE_THEIRS
static void test_matches_nvidia(void **state)
{
    (void)state;
    const struct gd_abi_side *ours = gd_abi_side_ours(), *theirs = gd_abi_side_theirs();
    int diffs = gd_abi_compare(ours, theirs);
    printf("%s: compared %zu constants, %zu types, %zu members, %zu function types (at build time)\n", GD_ABI_NAME,
           ours->n_consts, ours->n_types, ours->n_members, ours->n_fns);
    assert_int_equal(diffs, 0);
}
#endif

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_list_covers_header),
#if GD_ABI_HAVE_THEIRS
        cmocka_unit_test(test_matches_nvidia),
#endif
    };
    int failed = cmocka_run_group_tests_name(GD_ABI_NAME, tests, NULL, NULL);
#if !GD_ABI_HAVE_THEIRS
    if (failed == 0) {
        /* A comparison that cannot run is SKIPPED, never passed; in CI it
         * fails where a Debian package brings the header. */
        const char *ci = getenv("CI");
        bool fail_in_ci = GD_ABI_FROM_DEBIAN && ci && strcmp(ci, "true") == 0;
        fprintf(stderr, "%s: %s: %s\n", GD_ABI_NAME, fail_in_ci ? "impossible, and CI=true: failing" : "skipped",
                GD_ABI_SKIP_WHY);
        return fail_in_ci ? 1 : 77;
    }
#endif
    return failed ? 1 : 0;
}
