/* SPDX-License-Identifier: Apache-2.0 */
/* Paths inside GPUDOCTOR_ROOT: links resolve against the root, never the
 * host, and never lead out of it. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "sources/stack/stack_internal.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char root[256];

static void at(const char *rel, char *out, size_t len)
{
    snprintf(out, len, "%s/%s", root, rel);
}

static void dir(const char *rel)
{
    char p[512];
    at(rel, p, sizeof p);
    assert_int_equal(mkdir(p, 0755), 0);
}

static void link_(const char *rel, const char *target)
{
    char p[512];
    at(rel, p, sizeof p);
    assert_int_equal(symlink(target, p), 0);
}

static int setup(void **state)
{
    (void)state;
    const char *tmp = getenv("TMPDIR");
    snprintf(root, sizeof root, "%s/gd-root-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(root))
        return -1;
    dir("usr");
    dir("usr/local");
    dir("usr/local/cuda-12.4");
    dir("etc");
    dir("etc/alternatives");
    link_("usr/local/cuda", "/etc/alternatives/cuda");
    link_("etc/alternatives/cuda", "/usr/local/cuda-12.4");
    link_("usr/local/rel", "cuda-12.4");
    link_("usr/local/up", "../../../../../../../etc");
    link_("usr/local/slash", "/");
    link_("usr/local/loop", "/usr/local/loop");
    char p[512];
    at("usr/local/cuda-12.4/version.json", p, sizeof p);
    FILE *f = fopen(p, "w");
    return f && fclose(f) == 0 ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    return system(cmd) == 0 ? 0 : -1;
}

static void expect(const char *path, const char *rel)
{
    char out[PATH_MAX], want[PATH_MAX];
    if (gd_root_realpath(root, path, out, sizeof out) != 0)
        fail_msg("%s: %s", path, strerror(errno));
    snprintf(want, sizeof want, "%s%s", root, rel);
    assert_string_equal(out, want);
}

static void absolute_links_start_again_at_the_root(void **state)
{
    (void)state;
    expect("/usr/local/cuda", "/usr/local/cuda-12.4");
    expect("/usr/local/cuda/version.json", "/usr/local/cuda-12.4/version.json");
    expect("/usr/local/rel", "/usr/local/cuda-12.4");
    expect("/usr/local/slash", "/");
    expect("/usr/local/slash/usr/local/cuda", "/usr/local/cuda-12.4");
    expect("//usr/./local/../local/cuda/", "/usr/local/cuda-12.4");
}

static void dot_dot_stops_at_the_root(void **state)
{
    (void)state;
    expect("/usr/local/up", "/etc");
    expect("/../../etc/alternatives/cuda", "/usr/local/cuda-12.4");
}

static void missing_parts_and_loops_fail(void **state)
{
    (void)state;
    char out[PATH_MAX];
    errno = 0;
    assert_int_equal(gd_root_realpath(root, "/usr/local/loop", out, sizeof out), -1);
    assert_int_equal(errno, ELOOP);
    assert_int_equal(gd_root_realpath(root, "/usr/local/cuda-13.0", out, sizeof out), -1);
    assert_int_equal(errno, ENOENT);
    assert_int_equal(gd_root_realpath(root, "/usr/local/cuda/version.json/x", out, sizeof out), -1);
    assert_int_equal(errno, ENOTDIR);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(absolute_links_start_again_at_the_root),
        cmocka_unit_test(dot_dot_stops_at_the_root),
        cmocka_unit_test(missing_parts_and_loops_fail),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
