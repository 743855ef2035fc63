/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The table-driven loader (src/loaders/dl_table.c) against a small library
 * (dl_stub.c): candidate paths in order, names newest first and the one
 * taken recorded, optional entries may be missing, a missing required one
 * or a missing library fails and says which.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "loaders/dl_table.h"

#include <string.h>

typedef int (*answer_fn)(void);

typedef struct stub_api {
    gd_dl_lib lib;
    answer_fn answer;
    answer_fn old;
    answer_fn absent;
} stub_api;

#define AT(member) offsetof(stub_api, member)

static const gd_dl_sym optional_syms[] = {
    {AT(answer), true, {"dl_stub_answer_v2", "dl_stub_answer", NULL}},
    {AT(old), true, {"dl_stub_old_v3", "dl_stub_old", NULL}},
    {AT(absent), false, {"dl_stub_absent_v2", "dl_stub_absent", NULL}},
};
static const gd_dl_table optional_table = {"the stub library", optional_syms, 3};

static const gd_dl_sym required_syms[] = {
    {AT(answer), true, {"dl_stub_answer_v2", NULL}},
    {AT(absent), true, {"dl_stub_absent_v2", "dl_stub_absent", NULL}},
    {AT(old), false, {"dl_stub_old", NULL}},
};
static const gd_dl_table required_table = {"the stub library", required_syms, 3};

static const char *const stub[] = {DL_STUB};

static void newest_name_first_and_the_name_taken_is_recorded(void **state)
{
    (void)state;
    stub_api api;
    const char *found[3];
    char err[512] = "";
    assert_int_equal(gd_dl_open(&api.lib, &optional_table, stub, 1, &api, found, err, sizeof err), 0);
    assert_non_null(api.lib.handle);
    assert_string_equal(api.lib.path, DL_STUB);
    assert_int_equal(api.answer(), 2); /* dl_stub_answer_v2, not dl_stub_answer */
    assert_string_equal(found[0], "dl_stub_answer_v2");
    assert_int_equal(api.old(), 10); /* the older name as the fallback */
    assert_string_equal(found[1], "dl_stub_old");
    gd_dl_close(&api.lib);
    assert_null(api.lib.handle);
    gd_dl_close(&api.lib); /* twice is harmless */
    gd_dl_close(NULL);
}

static void missing_optional_symbol_is_null_and_counted(void **state)
{
    (void)state;
    stub_api api;
    const char *found[3] = {"x", "x", "x"};
    char err[512] = "";
    assert_int_equal(gd_dl_open(&api.lib, &optional_table, stub, 1, &api, found, err, sizeof err), 0);
    assert_null(api.absent);
    assert_null(found[2]);
    assert_int_equal(gd_dl_missing(&optional_table, &api), 1);
    gd_dl_close(&api.lib);
}

static void missing_required_symbol_fails_naming_it_and_the_library(void **state)
{
    (void)state;
    stub_api api;
    memset(&api, 0xff, sizeof api); /* whatever was there is cleared */
    const char *found[3];
    char err[512] = "";
    assert_int_equal(gd_dl_open(&api.lib, &required_table, stub, 1, &api, found, err, sizeof err), -ENOSYS);
    assert_non_null(strstr(err, "missing required symbol dl_stub_absent_v2"));
    assert_non_null(strstr(err, DL_STUB));
    assert_null(api.lib.handle);
    assert_null(api.answer); /* resolved before the failure, cleared after it */
    assert_null(api.old);
    assert_null(api.absent);
    assert_null(found[0]);
}

static void candidate_paths_are_tried_in_order(void **state)
{
    (void)state;
    stub_api api;
    char err[512] = "";
    const char *const paths[] = {"/nonexistent/gpudoctor/libstub.so.1", DL_STUB, "libm.so.6"};
    assert_int_equal(gd_dl_open(&api.lib, &optional_table, paths, 3, &api, NULL, err, sizeof err), 0);
    assert_string_equal(api.lib.path, DL_STUB);
    gd_dl_close(&api.lib);
    /* The first candidate that opens is taken, even if it lacks a symbol. */
    assert_int_equal(gd_dl_open(&api.lib, &optional_table, paths + 2, 1, &api, NULL, err, sizeof err), -ENOSYS);
    assert_non_null(strstr(err, "libm.so.6: missing required symbol dl_stub_answer_v2"));
}

static void missing_library_fails_naming_every_path_tried(void **state)
{
    (void)state;
    stub_api api;
    char err[512] = "";
    const char *const paths[] = {"/nonexistent/gpudoctor/a.so.1", "/nonexistent/gpudoctor/b.so"};
    assert_int_equal(gd_dl_open(&api.lib, &optional_table, paths, 2, &api, NULL, err, sizeof err), -ENOENT);
    assert_null(api.lib.handle);
    assert_null(api.answer);
    assert_non_null(strstr(err, "cannot load the stub library"));
    assert_non_null(strstr(err, "/nonexistent/gpudoctor/a.so.1, /nonexistent/gpudoctor/b.so"));
}

static void bad_arguments_and_tiny_error_buffer(void **state)
{
    (void)state;
    stub_api api;
    char err[8];
    assert_int_equal(gd_dl_open(&api.lib, NULL, stub, 1, &api, NULL, err, sizeof err), -EINVAL);
    assert_int_equal(strlen(err), sizeof err - 1); /* truncated, terminated */
    assert_int_equal(gd_dl_open(&api.lib, &optional_table, stub, 0, &api, NULL, err, sizeof err), -EINVAL);
    assert_int_equal(gd_dl_open(NULL, &optional_table, stub, 1, &api, NULL, NULL, 0), -EINVAL);
    assert_int_equal(gd_dl_open(&api.lib, &optional_table, stub, 1, NULL, NULL, NULL, 0), -EINVAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(newest_name_first_and_the_name_taken_is_recorded),
        cmocka_unit_test(missing_optional_symbol_is_null_and_counted),
        cmocka_unit_test(missing_required_symbol_fails_naming_it_and_the_library),
        cmocka_unit_test(candidate_paths_are_tried_in_order),
        cmocka_unit_test(missing_library_fails_naming_every_path_tried),
        cmocka_unit_test(bad_arguments_and_tiny_error_buffer),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
