/* SPDX-License-Identifier: Apache-2.0 */
/* The CUDA compatibility rules at their edges, and the embedded tables. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "checks/cuda_rules.h"

#include <string.h>

static gd_compat verdict(int runtime, int driver_cuda, const char *driver, bool ptx, bool fwd, bool dc)
{
    gd_compat_input in = {runtime, driver_cuda, driver, ptx, fwd, dc};
    return gd_cuda_compat(&in).verdict;
}

static void same_or_older_runtime_is_native(void **state)
{
    (void)state;
    assert_int_equal(verdict(12040, 12040, "550.54.15", false, false, true), GD_COMPAT_NATIVE);
    assert_int_equal(verdict(11080, 12040, "550.54.15", false, false, true), GD_COMPAT_NATIVE);
    /* PTX from an older toolkit JITs fine on a newer driver. */
    assert_int_equal(verdict(12040, 12040, "550.54.15", true, false, true), GD_COMPAT_NATIVE);
}

static void same_major_newer_minor_uses_minor_compat_above_family_minimum(void **state)
{
    (void)state;
    /* cu128 wheels on R550: the usual case (facts.md 1.2). */
    assert_int_equal(verdict(12080, 12040, "550.54.15", false, false, true), GD_COMPAT_MINOR);
    /* exactly at the 12.x family minimum */
    assert_int_equal(verdict(12090, 12000, "525.60.13", false, false, true), GD_COMPAT_MINOR);
    /* one below it */
    gd_compat_input in = {12090, 12000, "525.60.12", false, false, true};
    gd_compat_result r = gd_cuda_compat(&in);
    assert_int_equal(r.verdict, GD_COMPAT_TOO_OLD);
    assert_string_equal(r.needed, "525.60.13");
    /* 11.x family minimum 450.80.02 */
    assert_int_equal(verdict(11080, 11000, "450.80.02", false, false, true), GD_COMPAT_MINOR);
    assert_int_equal(verdict(11080, 11000, "450.51.06", false, false, true), GD_COMPAT_TOO_OLD);
    /* 13.x */
    assert_int_equal(verdict(13020, 13000, "580.65.06", false, false, true), GD_COMPAT_MINOR);
}

static void newer_major_fails(void **state)
{
    (void)state;
    gd_compat_input in = {13000, 12090, "575.51.03", false, false, true};
    gd_compat_result r = gd_cuda_compat(&in);
    assert_int_equal(r.verdict, GD_COMPAT_TOO_OLD);
    assert_string_equal(r.needed, "580.65.06");
    assert_non_null(strstr(r.rule, "newer CUDA major"));
    assert_int_equal(verdict(12000, 11080, "520.61.05", false, false, true), GD_COMPAT_TOO_OLD);
    /* Before 11.0 there is no minor-version compatibility. */
    assert_int_equal(verdict(10020, 10010, "418.39", false, false, true), GD_COMPAT_TOO_OLD);
}

static void ptx_only_needs_driver_as_new_as_toolkit(void **state)
{
    (void)state;
    /* Minor compat would allow SASS, but PTX from 12.8 needs a 12.8 driver. */
    gd_compat_input in = {12080, 12040, "550.54.15", true, false, true};
    gd_compat_result r = gd_cuda_compat(&in);
    assert_int_equal(r.verdict, GD_COMPAT_TOO_OLD);
    assert_string_equal(r.needed, "570.26");
    assert_non_null(strstr(r.rule, "PTX"));
}

static void forward_compat_package_on_datacenter_gpus_only(void **state)
{
    (void)state;
    assert_int_equal(verdict(13000, 12020, "535.54.03", false, true, true), GD_COMPAT_FORWARD);
    assert_int_equal(verdict(13000, 12020, "535.54.03", true, true, true), GD_COMPAT_FORWARD);
    /* GeForce: the package does not help. */
    assert_int_equal(verdict(13000, 12020, "535.54.03", false, true, false), GD_COMPAT_TOO_OLD);
    assert_true(gd_gpu_is_datacenter("NVIDIA H100 80GB HBM3"));
    assert_true(gd_gpu_is_datacenter("NVIDIA RTX PRO 6000 Blackwell Server Edition"));
    assert_false(gd_gpu_is_datacenter("NVIDIA GeForce RTX 4090"));
}

static void unknown_driver_cuda_is_unknown(void **state)
{
    (void)state;
    assert_int_equal(verdict(12080, 0, "", false, false, true), GD_COMPAT_UNKNOWN);
    assert_int_equal(verdict(99000, 12040, "550.54.15", false, false, true), GD_COMPAT_UNKNOWN);
}

static void arch_coverage(void **state)
{
    (void)state;
    gd_arch cu126[] = {{50, false}, {60, false}, {70, false}, {75, false}, {80, false}, {86, false}, {90, false}};
    assert_int_equal(gd_arch_coverage(cu126, 7, 90), GD_ARCH_SASS);
    assert_int_equal(gd_arch_coverage(cu126, 7, 89), GD_ARCH_SASS); /* sm_86 SASS runs on sm_89 */
    assert_int_equal(gd_arch_coverage(cu126, 7, 100), GD_ARCH_NONE); /* no Blackwell */
    assert_int_equal(gd_arch_coverage(cu126, 7, 120), GD_ARCH_NONE);
    gd_arch ptx[] = {{80, false}, {90, true}};
    assert_int_equal(gd_arch_coverage(ptx, 2, 120), GD_ARCH_PTX_ONLY);
    assert_int_equal(gd_arch_coverage(ptx, 2, 86), GD_ARCH_SASS);
    assert_int_equal(gd_arch_coverage(ptx, 2, 75), GD_ARCH_NONE); /* nothing old enough */
    gd_arch cu128[] = {{75, false}, {80, false}, {86, false}, {90, false}, {100, false}, {120, false}, {120, true}};
    assert_int_equal(gd_arch_coverage(cu128, 7, 70), GD_ARCH_NONE); /* V100 */
    assert_int_equal(gd_arch_coverage(cu128, 7, 121), GD_ARCH_SASS);
    assert_int_equal(gd_toolkit_min_sm(13000), 75);
    assert_int_equal(gd_toolkit_min_sm(12080), 50);
    assert_int_equal(gd_toolkit_max_sm(11080), 90);
    assert_int_equal(gd_toolkit_max_sm(12080), 120);
}

/* What each common Xid calls for (data/xid.tsv): the immediate action of
 * NVIDIA's Xid catalog and DCGM's health watch. A wrong row sends a
 * technician to the wrong fix: Xid 94 once read as an application's bug
 * ("rerun with compute-sanitizer") where the GPU needs a reset for its row
 * remap. */
static void xid_actions(void **state)
{
    (void)state;
    static const struct {
        int xid;
        const char *action, *dcgm;
    } rows[] = {
        {8, "app", "-"},         {13, "app", "-"},        {31, "app", "warn"},     {32, "restart", "warn"},
        {38, "watch", "warn"},   {39, "restart", "warn"}, {42, "support", "warn"}, {43, "app", "warn"},
        {44, "watch", "-"},      {45, "watch", "-"},      {46, "reset", "-"},      {48, "reset", "fail"},
        {54, "hw", "warn"},      {56, "support", "warn"}, {57, "rma", "warn"},     {58, "rma", "warn"},
        {60, "restart", "warn"}, {61, "support", "warn"}, {62, "reset", "warn"},   {63, "remap", "warn"},
        {64, "rma", "fail"},     {67, "watch", "warn"},   {73, "support", "warn"}, {74, "reset", "fail"},
        {78, "update", "warn"},  {79, "reboot", "fail"},  {92, "watch", "-"},      {94, "remap", "warn"},
        {95, "reset", "fail"},   {109, "reset", "-"},     {119, "reset", "fail"},  {120, "reset", "fail"},
        {121, "watch", "warn"},  {137, "watch", "warn"},  {140, "reset", "fail"},  {143, "reset", "-"},
        {154, "reset", "-"},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        gd_xid_info x;
        if (!gd_xid_lookup(rows[i].xid, &x))
            fail_msg("Xid %d is not in the table", rows[i].xid);
        if (strcmp(x.action, rows[i].action) != 0 || strcmp(x.dcgm, rows[i].dcgm) != 0)
            fail_msg("Xid %d: %s/%s, want %s/%s", rows[i].xid, x.action, x.dcgm, rows[i].action, rows[i].dcgm);
        assert_true(strlen(x.meaning) >= 9); /* "GSP error" */
    }
}

static void tables(void **state)
{
    (void)state;
    gd_cuda_release r;
    assert_true(gd_cuda_release_find(12080, &r));
    assert_string_equal(r.driver_min, "570.26");
    assert_string_equal(r.family_min, "525.60.13");
    assert_true(gd_cuda_release_find(12070, &r)); /* no 12.7: the nearest lower */
    assert_int_equal(r.cuda, 12060);
    assert_false(gd_cuda_release_find(9020, &r));
    assert_true(gd_cuda_release_newest() >= 13020);
    gd_xid_info x;
    assert_true(gd_xid_lookup(79, &x));
    assert_string_equal(x.dcgm, "fail");
    assert_string_equal(x.action, "reboot");
    assert_true(gd_xid_lookup(94, &x));
    assert_string_equal(x.dcgm, "warn");
    assert_false(gd_xid_lookup(4242, &x));
    assert_true(gd_driver_version_cmp("535.104.05", "535.54.03") > 0);
    assert_true(gd_driver_version_cmp("570.26", "570.124.06") < 0);
    assert_int_equal(gd_driver_version_cmp("525.60.13", "525.60.13"), 0);
    assert_true(gd_driver_version_cmp("580", "575.57.08") > 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(same_or_older_runtime_is_native),
        cmocka_unit_test(same_major_newer_minor_uses_minor_compat_above_family_minimum),
        cmocka_unit_test(newer_major_fails),
        cmocka_unit_test(ptx_only_needs_driver_as_new_as_toolkit),
        cmocka_unit_test(forward_compat_package_on_datacenter_gpus_only),
        cmocka_unit_test(unknown_driver_cuda_is_unknown),
        cmocka_unit_test(arch_coverage),
        cmocka_unit_test(xid_actions),
        cmocka_unit_test(tables),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
