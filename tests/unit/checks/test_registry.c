/* SPDX-License-Identifier: Apache-2.0 */
/* The registry (src/checks/registry.c): every check together stays quiet on a
 * healthy node, loaded or idle; every check has a unit test that names it. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "checks/checks_internal.h"
#include "facts_fixture.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void healthy_node_has_no_finding(void **state)
{
    (void)state;
    gd_facts f;
    fx_facts(&f, 8, 20);
    gd_findings fs = {0};
    gd_checks_run_all(&f, &fs);
    assert_int_equal(fs.n, 0);
    assert_int_equal(gd_findings_exit_code(&fs), 0);
    gd_findings_free(&fs);
    gd_facts_free(&f);
}

static void healthy_and_idle_nodes_stay_quiet(void **state)
{
    (void)state;
    gd_facts f;
    fx_facts(&f, 8, 30);
    gd_findings fs = {0};
    gd_checks_run_all(&f, &fs);
    assert_int_equal(fs.n, 0);
    gd_findings_free(&fs);
    for (size_t g = 0; g < 8; g++) { /* idle: low clocks, gpu_idle, cool */
        fx_set(&f, g, GD_M_UTIL_GPU_PCT, 0, 30, 0);
        fx_set(&f, g, GD_M_SM_CLOCK_MHZ, 0, 30, 345);
        fx_set(&f, g, GD_M_EVENT_REASONS, 0, 30, 0x1);
        fx_set(&f, g, GD_M_TEMP_C, 0, 30, 33);
    }
    memset(&fs, 0, sizeof fs);
    gd_checks_run_all(&f, &fs);
    assert_int_equal(fs.n, 0);
    gd_findings_free(&fs);
    gd_facts_free(&f);
}

/* The check tests (checks/test_*.c, this file aside), one string. */
static char *check_tests(const char *dir, size_t *files)
{
    DIR *d = opendir(dir);
    if (!d)
        fail_msg("%s: %s", dir, strerror(errno));
    char *all = calloc(1, 1);
    size_t len = 0;
    *files = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        size_t n = strlen(e->d_name);
        if (strncmp(e->d_name, "test_", 5) != 0 || n < 3 || strcmp(e->d_name + n - 2, ".c") != 0 ||
            strcmp(e->d_name, "test_registry.c") == 0)
            continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        char *text = fx_read_file(path);
        assert_non_null(text);
        size_t add = strlen(text);
        all = realloc(all, len + add + 1);
        memcpy(all + len, text, add + 1);
        len += add;
        free(text);
        (*files)++;
    }
    closedir(d);
    return all;
}

/* Every check of the registry is named, quoted, by a unit test of the
 * checks (issue 37): a new check without a unit test from literal facts
 * fails here, whatever end-to-end test runs it. */
static void every_registered_check_is_named_by_a_unit_test(void **state)
{
    (void)state;
    size_t files;
    char *tests = check_tests(GD_SOURCE_DIR "/tests/unit/checks", &files);
    assert_true(files >= 20); /* the folder read is the one of the check tests */
    char missing[4096] = "";
    size_t nmissing = 0;
    for (size_t i = 0; i < gd_checks_count; i++) {
        char quoted[80];
        snprintf(quoted, sizeof quoted, "\"%s\"", gd_checks[i].id);
        if (strstr(tests, quoted))
            continue;
        size_t used = strlen(missing);
        snprintf(missing + used, sizeof missing - used, "%s%s", nmissing++ ? ", " : "", gd_checks[i].id);
    }
    free(tests);
    if (nmissing)
        fail_msg("%zu registered check(s) without a unit test in tests/unit/checks/: %s", nmissing, missing);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(healthy_node_has_no_finding),
        cmocka_unit_test(healthy_and_idle_nodes_stay_quiet),
        cmocka_unit_test(every_registered_check_is_named_by_a_unit_test),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
