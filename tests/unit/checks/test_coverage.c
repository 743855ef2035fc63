/* SPDX-License-Identifier: Apache-2.0 */
/* coverage (src/checks/coverage.c): what a verdict judged. The kernel log
 * is the GPUs' own word on their state and counts when it has a line; a
 * PCIe tree counts only where it says something of a link; a topology
 * matrix judges none of it (docs/interface.md, exit codes). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "facts_fixture.h"
#include "core/pcie_util.h"

#include <stdlib.h>
#include <string.h>

static size_t judged(const gd_facts *f, char *what, size_t len)
{
    gd_findings fs = {0};
    gd_checks_run_all(f, &fs);
    char missing[256];
    size_t n = gd_judged_summary(f, &fs, what, len, missing, sizeof missing);
    gd_findings_free(&fs);
    return n;
}

/* Captured facts with no GPU: a kernel log or a matrix alone. */
static void no_gpus(gd_facts *f)
{
    memset(f, 0, sizeof *f);
    f->captured = true;
    f->cuda_driver_version = gd_missing(GD_ST_NOT_SUPPORTED);
    snprintf(f->driver_error, sizeof f->driver_error, "no nvidia-smi output");
}

static void a_kernel_log_alone_is_judged(void **state)
{
    (void)state;
    gd_facts f;
    no_gpus(&f);
    f.stack = calloc(1, sizeof *f.stack);
    f.stack->kernel_log_read = true;
    snprintf(f.stack->kernel_log_source, sizeof f.stack->kernel_log_source, "dmesg.log");
    char what[256];
    assert_int_equal(judged(&f, what, sizeof what), 0); /* read, but not a line in it ("-- No entries --") */
    assert_string_equal(what, "nothing of the GPUs' own state");
    f.stack->kernel_log_lines = 2362;
    assert_int_equal(judged(&f, what, sizeof what), 1);
    assert_string_equal(what, "the kernel log (2362 lines, no Xid, no lost GPU)");
    f.stack->xid_group_count = 1;
    f.stack->xid_groups[0] = (gd_xid_group){.xid = 13, .count = 1, .example_count = 1, .gpu = -1};
    assert_int_equal(judged(&f, what, sizeof what), 1);
    assert_string_equal(what, "the kernel log (2362 lines)");
    gd_facts_free(&f);
}

/* An lspci GPU whose links are not decoded ('lspci -v -xxx') judged nothing. */
static void a_pcie_tree_without_links_is_not(void **state)
{
    (void)state;
    gd_facts f;
    fx_facts(&f, 1, 1);
    f.captured = true;
    f.driver_loaded = false;
    gd_gpu *gpu = &f.gpus[0];
    for (gd_value *v = &gpu->cc_major; v <= &gpu->remap_failure; v++)
        *v = gd_missing(GD_ST_NOT_REPORTED);
    for (int m = 0; m < GD_M_COUNT; m++)
        fx_unset(&f, 0, (gd_metric)m, GD_ST_NOT_SUPPORTED);
    gd_pcie_gpu *pg = gd_pcie_gpu_add(gd_pcie_facts_get(&f));
    fx_pcie_path(pg, "0000:02", -1, (const char *const[]){"0000:02:00.0", NULL});
    pg->gpu = 0;
    pg->matched = true;
    char what[256];
    assert_int_equal(judged(&f, what, sizeof what), 0);
    pg->hops[0].gen = gd_val(3); /* its LnkSta */
    pg->hops[0].width = gd_val(16);
    assert_int_equal(judged(&f, what, sizeof what), 1);
    assert_string_equal(what, "PCIe links of 1 GPU");
    gd_facts_free(&f);
}

/* A topology matrix alone is wiring, not state. */
static void a_matrix_alone_is_not(void **state)
{
    (void)state;
    gd_facts f;
    no_gpus(&f);
    gd_pcie_facts *p = gd_pcie_facts_get(&f);
    for (int g = 0; g < 2; g++) {
        gd_pcie_gpu *pg = gd_pcie_gpu_add(p);
        pg->gpu = g;
        pg->numa_node = gd_val(g);
    }
    p->matrix = calloc(4, sizeof *p->matrix);
    p->matrix[1] = p->matrix[2] = (gd_topo_cell){GD_TOPO_SYS, 0};
    char what[256];
    assert_int_equal(judged(&f, what, sizeof what), 0);
    gd_facts_free(&f);
}

static gd_check_state state_of(const gd_facts *f, const gd_findings *fs, const char *id, char *why, size_t len)
{
    return gd_check_coverage(gd_check_find(id), f, fs, why, len);
}

/* A group is ok only for what it judged: without clock event reasons
 * throttling is not judged, however quiet (a dmon capture); the group is
 * judged in part. */
static void a_check_is_judged_only_on_what_it_reads(void **state)
{
    (void)state;
    gd_facts f;
    fx_facts(&f, 2, 20);
    f.captured = true;
    for (size_t g = 0; g < 2; g++) {
        fx_unset(&f, g, GD_M_EVENT_REASONS, GD_ST_NOT_REPORTED);
        fx_unset(&f, g, GD_M_VIOL_THERMAL_NS, GD_ST_NOT_REPORTED);
        fx_unset(&f, g, GD_M_VIOL_POWER_BRAKE_NS, GD_ST_NOT_REPORTED);
    }
    gd_findings fs = {0};
    gd_checks_run_all(&f, &fs);
    char why[256];
    assert_int_equal(state_of(&f, &fs, "thermal.throttling", why, sizeof why), GD_CHECK_NOT_JUDGED);
    assert_int_equal(state_of(&f, &fs, "thermal.hot", why, sizeof why), GD_CHECK_JUDGED);
    gd_coverage cov;
    gd_group_coverage(&f, &fs, "thermal", &cov);
    assert_int_equal(cov.state, GD_CHECK_PART);
    assert_int_equal(cov.applicable, 3);
    assert_int_equal(cov.judged_checks, 2);
    /* A capture holds no job, environment or stack: not applicable, never "no --pid". */
    assert_int_equal(state_of(&f, &fs, "input.single_thread", why, sizeof why), GD_CHECK_NOT_APPLICABLE);
    assert_int_equal(state_of(&f, &fs, "env.launch_blocking", why, sizeof why), GD_CHECK_NOT_APPLICABLE);
    gd_group_coverage(&f, &fs, "input", &cov);
    assert_int_equal(cov.state, GD_CHECK_NOT_APPLICABLE);
    for (size_t i = 0; i < fs.nskips; i++)
        if (strncmp(fs.skips[i].check, "input.", 6) == 0)
            assert_false(gd_skip_applies(&f, &fs.skips[i]));
    char line[900];
    gd_coverage_line(&f, &fs, line, sizeof line);
    assert_null(strstr(line, "no --pid"));
    assert_non_null(strstr(line, "in part"));
    assert_null(strstr(line, "not judged: thermal"));
    gd_findings_free(&fs);
    gd_facts_free(&f);
}

/* Live, healthy, without --pid: the job is the one group not judged. */
static void the_line_names_what_was_not_judged(void **state)
{
    (void)state;
    gd_facts f;
    fx_facts(&f, 8, 20);
    f.pid = -1;
    gd_findings fs = {0};
    gd_checks_run_all(&f, &fs);
    char line[900];
    size_t judged = gd_coverage_line(&f, &fs, line, sizeof line);
    assert_true(judged > 0);
    assert_non_null(strstr(line, "Judged "));
    assert_non_null(strstr(line, "job (no --pid)"));
    assert_null(strstr(line, "benchmarks")); /* measured by bench: not counted in check */
    gd_coverage cov;
    gd_group_coverage(&f, &fs, "bench", &cov);
    assert_int_equal(cov.state, GD_CHECK_NOT_APPLICABLE);
    gd_findings_free(&fs);
    gd_facts_free(&f);
}

/* Idle: no GPU under load in any sample; an unread utilisation is not idle. */
static void all_idle(void **state)
{
    (void)state;
    gd_facts f;
    fx_facts(&f, 2, 10);
    assert_false(gd_coverage_all_idle(&f));
    for (size_t g = 0; g < 2; g++)
        fx_set(&f, g, GD_M_UTIL_GPU_PCT, 0, 10, 0);
    assert_true(gd_coverage_all_idle(&f));
    fx_set(&f, 1, GD_M_UTIL_GPU_PCT, 9, 10, 90);
    assert_false(gd_coverage_all_idle(&f));
    fx_unset(&f, 1, GD_M_UTIL_GPU_PCT, GD_ST_NOT_SUPPORTED);
    assert_false(gd_coverage_all_idle(&f));
    gd_facts_free(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_kernel_log_alone_is_judged),
        cmocka_unit_test(a_pcie_tree_without_links_is_not),
        cmocka_unit_test(a_matrix_alone_is_not),
        cmocka_unit_test(a_check_is_judged_only_on_what_it_reads),
        cmocka_unit_test(the_line_names_what_was_not_judged),
        cmocka_unit_test(all_idle),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
