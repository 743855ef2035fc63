/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The session reads host facts where its context says, and nowhere else:
 * a machine whose /sys and /proc are fixture trees (no driver) gives the
 * trees' NUMA nodes, job and PCIe source; the facts carry no root.
 */
#include "gpudoctor/job.h"
#include "gpudoctor/pcie.h"
#include "gpudoctor/session.h"
#include "gpudoctor/stack.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#define EXAMPLES GD_DOCS_DIR "/../examples"

static void the_context_roots_are_where_host_facts_come_from(void **state)
{
    (void)state;
    gd_ctx ctx = {.nvml_library = EXAMPLES "/no-such-driver.so",
                  .sys_root = EXAMPLES "/sysfs/hgx-h100x8",
                  .proc_root = EXAMPLES "/proc/input-io-wait",
                  .kernel_log = GD_DOCS_DIR "/../tests/fixtures/kernel-log/no-such-log"};
    gd_session_opts o = {.ctx = &ctx, .duration_s = 0, .interval_s = 1, .pid = 41000};
    gd_facts f;
    char err[512];
    gd_session *s = gd_session_open(&o, &f, err, sizeof err);
    assert_non_null(s);
    assert_false(f.driver_loaded);
    const gd_roots *r = gd_session_roots(s);
    assert_string_equal(r->sys, ctx.sys_root);
    assert_string_equal(r->proc, ctx.proc_root);
    assert_int_equal(f.host.numa_nodes, 2); /* node0, node1 of the tree */
    assert_non_null(f.job);
    assert_true(f.job->read); /* pid 41000 exists only in the fixture tree */
    assert_int_equal(gd_session_close(s, err, sizeof err), 0);
    assert_non_null(f.pcie);
    assert_string_equal(f.pcie->source, "sysfs:" EXAMPLES "/sysfs/hgx-h100x8");
    /* The log file named by the context was tried, not this machine's. */
    assert_non_null(f.stack);
    assert_false(f.stack->kernel_log_read);
    assert_non_null(strstr(f.stack->kernel_log_error, "no-such-log"));
    gd_facts_free(&f);
}

static void defaults_are_this_machines_roots(void **state)
{
    (void)state;
    gd_ctx ctx = {.nvml_library = EXAMPLES "/no-such-driver.so"};
    gd_session_opts o = {.ctx = &ctx, .duration_s = 0, .interval_s = 1, .pid = -1};
    gd_facts f;
    char err[512];
    gd_session *s = gd_session_open(&o, &f, err, sizeof err);
    assert_non_null(s);
    assert_string_equal(gd_session_roots(s)->sys, "/sys");
    assert_string_equal(gd_session_roots(s)->proc, "/proc");
    assert_string_equal(gd_session_roots(s)->kernel_log, "");
    assert_null(f.job);
    gd_session_close(s, NULL, 0);
    gd_facts_free(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(the_context_roots_are_where_host_facts_come_from),
        cmocka_unit_test(defaults_are_this_machines_roots),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
