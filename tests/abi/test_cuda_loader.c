/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The CUDA loader (src/loaders/cuda_loader.c) against the simulated
 * libcuda.so.1: which library it picks, that it fills every entry, and that
 * its errors name the library or the missing symbol.
 */
#include <dlfcn.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "loaders/cuda_loader.h"

static const char *const sim_path = GD_SIM_CUDA_PATH;

static void test_loads_sim_and_fills_every_entry(void **state)
{
    (void)state;
    struct gd_cuda_api api;
    char err[512] = "";
    assert_int_equal(gd_cuda_load(&api, sim_path, err, sizeof err), 0);
    assert_non_null(api.lib.handle);
    assert_string_equal(api.lib.path, sim_path);
    /* Every member after `lib` is a function pointer; the simulated
     * library exports optional ones too, so none may be left NULL. */
    size_t first = offsetof(struct gd_cuda_api, cuGetErrorString);
    for (size_t off = first; off < sizeof api; off += sizeof(void *)) {
        void *p;
        memcpy(&p, (const char *)&api + off, sizeof p);
        if (!p)
            fail_msg("entry %zu of struct gd_cuda_api is NULL", (off - first) / sizeof(void *));
    }
    const char *name = NULL;
    assert_int_equal(api.cuGetErrorName(CUDA_ERROR_OUT_OF_MEMORY, &name), CUDA_SUCCESS);
    assert_string_equal(name, "CUDA_ERROR_OUT_OF_MEMORY");
    gd_cuda_unload(&api);
    assert_null(api.lib.handle);
    assert_null(api.cuInit);
    gd_cuda_unload(&api); /* twice is harmless */
}

static void test_sim_exports_every_listed_symbol(void **state)
{
    (void)state;
    static const char *const symbols[] = {
#define GD_CUDA_SYMBOL(t, sym) #sym,
#include "gpudoctor/abi/cuda_symbols.h"
#undef GD_CUDA_SYMBOL
    };
    void *h = dlopen(sim_path, RTLD_NOW | RTLD_LOCAL);
    assert_non_null(h);
    for (size_t i = 0; i < sizeof symbols / sizeof symbols[0]; i++)
        if (!dlsym(h, symbols[i]))
            fail_msg("the simulated libcuda does not export %s", symbols[i]);
    /* Nothing of the scenario parser leaks out. */
    assert_null(dlsym(h, "gd_scenario_load"));
    assert_null(dlsym(h, "gd_cuda_result_name"));
    dlclose(h);
}

static void test_nonexistent_path_names_it(void **state)
{
    (void)state;
    struct gd_cuda_api api;
    char err[512] = "";
    const char *path = "/nonexistent/gpudoctor/libcuda.so.1";
    assert_int_equal(gd_cuda_load(&api, path, err, sizeof err), -ENOENT);
    assert_null(api.lib.handle);
    assert_null(api.cuInit);
    assert_non_null(strstr(err, "cannot load the CUDA driver library"));
    assert_non_null(strstr(err, path));
}

static void test_missing_required_symbol_is_named(void **state)
{
    (void)state;
    struct gd_cuda_api api;
    char err[512] = "";
    /* A real library without any CUDA symbol: the first entry is missing. */
    assert_int_equal(gd_cuda_load(&api, "libm.so.6", err, sizeof err), -ENOSYS);
    assert_null(api.lib.handle);
    assert_non_null(strstr(err, "missing required symbol cuGetErrorString"));
    assert_non_null(strstr(err, "libm.so.6"));
}

/* The library reads no environment: the command line puts
 * GPUDOCTOR_CUDA_LIBRARY into the context, which passes the path. */
static void test_environment_variable_names_library(void **state)
{
    (void)state;
    struct gd_cuda_api api;
    char err[512] = "";
    assert_int_equal(setenv(GD_CUDA_LIBRARY_ENV, "/nonexistent/libcuda.so.1", 1), 0);
    assert_int_equal(gd_cuda_load(&api, sim_path, err, sizeof err), 0);
    assert_string_equal(api.lib.path, sim_path);
    gd_cuda_unload(&api);
    if (gd_cuda_load(&api, NULL, err, sizeof err) == 0) { /* a driver here: it is libcuda.so.1, not the variable */
        assert_string_equal(api.lib.path, "libcuda.so.1");
        gd_cuda_unload(&api);
    } else {
        assert_null(strstr(err, "/nonexistent"));
    }
    assert_int_equal(unsetenv(GD_CUDA_LIBRARY_ENV), 0);
}

static void test_default_is_versioned_soname(void **state)
{
    (void)state;
    struct gd_cuda_api api;
    char err[512] = "";
    assert_int_equal(unsetenv(GD_CUDA_LIBRARY_ENV), 0);
    /* Either a driver is installed or not: both ways, libcuda.so.1 was asked for. */
    if (gd_cuda_load(&api, NULL, err, sizeof err) == 0) {
        assert_string_equal(api.lib.path, "libcuda.so.1");
        gd_cuda_unload(&api);
    } else {
        assert_non_null(strstr(err, "libcuda.so.1"));
    }
    assert_string_equal(GD_CUDA_LIBRARY_DEFAULT, "libcuda.so.1");
}

static void test_null_table_and_tiny_error_buffer(void **state)
{
    (void)state;
    char err[8];
    assert_int_equal(gd_cuda_load(NULL, sim_path, err, sizeof err), -EINVAL);
    assert_int_equal(strlen(err), sizeof err - 1); /* truncated, terminated */
    struct gd_cuda_api api;
    assert_int_equal(gd_cuda_load(&api, "/nonexistent/x.so", NULL, 0), -ENOENT);
    gd_cuda_unload(NULL);
}

static void test_result_names(void **state)
{
    (void)state;
    assert_string_equal(gd_cuda_result_name(CUDA_SUCCESS), "CUDA_SUCCESS");
    assert_string_equal(gd_cuda_result_name(CUDA_ERROR_NOT_SUPPORTED), "CUDA_ERROR_NOT_SUPPORTED");
    assert_string_equal(gd_cuda_result_name(CUDA_ERROR_UNKNOWN), "CUDA_ERROR_UNKNOWN");
    assert_string_equal(gd_cuda_result_name((CUresult)12345), "CUDA_ERROR_<unrecognised>");
    assert_null(gd_cuda_result_name_or_null((CUresult)12345));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_loads_sim_and_fills_every_entry),
        cmocka_unit_test(test_sim_exports_every_listed_symbol),
        cmocka_unit_test(test_nonexistent_path_names_it),
        cmocka_unit_test(test_missing_required_symbol_is_named),
        cmocka_unit_test(test_environment_variable_names_library),
        cmocka_unit_test(test_default_is_versioned_soname),
        cmocka_unit_test(test_null_table_and_tiny_error_buffer),
        cmocka_unit_test(test_result_names),
    };
    return cmocka_run_group_tests_name("cuda_loader", tests, NULL, NULL);
}
