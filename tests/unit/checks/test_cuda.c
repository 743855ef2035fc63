/* SPDX-License-Identifier: Apache-2.0 */
/* The CUDA runtimes against the driver (src/checks/cuda.c): cuda.driver_too_old,
 * cuda.minor_compat, cuda.forward_compat and cuda.framework_cpu_only from
 * literal software stacks on an H100 with driver 550.54.15 (CUDA 12.4). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "facts_fixture.h"
#include "gpudoctor/stack.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* Runs check id on one H100 with a single runtime of kind at CUDA version. */
static gd_findings run_with(const char *id, gd_runtime_kind kind, int version, const char *framework)
{
    gd_facts f;
    fx_facts(&f, 1, 2);
    fx_cuda_runtime(&f, kind, version, framework);
    gd_findings fs = fx_run_one(&f, id);
    gd_facts_free(&f);
    return fs;
}

/* A cu130 wheel on an R550 driver: CUDA does not initialise. */
static void driver_too_old_for_a_framework_is_critical(void **state)
{
    (void)state;
    gd_findings fs = run_with("cuda.driver_too_old", GD_RT_TORCH, 13000, "torch 2.9.0+cu130");
    const gd_finding *x = fx_only(&fs, "cuda.driver_too_old");
    assert_int_equal(x->severity, GD_SEV_CRITICAL);
    assert_int_equal(x->gpu, GD_NO_GPU);
    assert_float_equal(x->impact_pct, 100.0, 1e-9);
    assert_string_equal(x->title,
                        "torch 2.9.0+cu130 (CUDA 13.0) needs a newer driver than 550.54.15 (CUDA 12.4): CUDA will "
                        "not initialise");
    assert_string_equal(json_string_value(json_object_get(x->evidence, "driver_version")), "550.54.15");
    json_t *rt = json_array_get(json_object_get(x->evidence, "runtimes"), 0);
    assert_string_equal(json_string_value(json_object_get(rt, "framework")), "torch 2.9.0+cu130");
    assert_string_equal(json_string_value(json_object_get(rt, "needs_driver")), "580.65.06");
    assert_non_null(strstr(x->fix, "Install a driver >= 580.65.06"));
    assert_non_null(strstr(x->fix, "whl/cu124"));
    gd_findings_free(&fs);
}

/* A toolkit alone is what extensions build with: a warning, no cost claimed. */
static void driver_too_old_for_a_toolkit_is_a_warning(void **state)
{
    (void)state;
    gd_findings fs = run_with("cuda.driver_too_old", GD_RT_TOOLKIT, 13000, "");
    const gd_finding *x = fx_only(&fs, "cuda.driver_too_old");
    assert_int_equal(x->severity, GD_SEV_WARNING);
    assert_true(isnan(x->impact_pct));
    assert_string_equal(x->title, "CUDA 13.0 toolkit needs a newer driver than 550.54.15 (CUDA 12.4)");
    gd_findings_free(&fs);
}

/* The driver's own CUDA and older runtimes are native; 12.8 is minor compat. */
static void driver_too_old_quiet_on_runtimes_the_driver_runs(void **state)
{
    static const int versions[] = {12040, 11080, 12080};
    (void)state;
    for (size_t k = 0; k < sizeof versions / sizeof versions[0]; k++) {
        gd_findings fs = run_with("cuda.driver_too_old", GD_RT_TORCH, versions[k], "torch");
        if (fs.n + fs.nskips != 0)
            fail_msg("CUDA %d on 12.4: %zu findings, %zu notes", versions[k], fs.n, fs.nskips);
        gd_findings_free(&fs);
    }
}

static void driver_too_old_says_why_it_could_not_judge(void **state)
{
    (void)state;
    gd_facts f;
    fx_facts(&f, 1, 2);
    gd_findings fs = fx_run_one(&f, "cuda.driver_too_old"); /* no stack collected */
    assert_true(fx_skipped(&fs, "cuda.driver_too_old", GD_NO_GPU, "the software stack was not collected"));
    gd_findings_free(&fs);
    fx_cuda_runtime(&f, GD_RT_TORCH, 13000, "torch 2.9.0+cu130");
    f.cuda_driver_version = gd_missing(GD_ST_ERROR);
    fs = fx_run_one(&f, "cuda.driver_too_old");
    assert_int_equal(fs.n, 0);
    assert_true(fx_skipped(&fs, "cuda.driver_too_old", GD_NO_GPU,
                           "the driver's CUDA version is not known (the driver did not report it"));
    gd_findings_free(&fs);
    f.stack->runtime_count = 0; /* scanned, nothing found */
    fs = fx_run_one(&f, "cuda.driver_too_old");
    assert_true(fx_skipped(&fs, "cuda.driver_too_old", GD_NO_GPU,
                           "no CUDA runtime found in /usr/local/cuda*, ld.so.cache or a Python environment"));
    gd_findings_free(&fs);
    f.stack->system_scanned = false; /* --sim without GPUDOCTOR_ROOT */
    snprintf(f.stack->system_skip, sizeof f.stack->system_skip, "simulated machine");
    fs = fx_run_one(&f, "cuda.driver_too_old");
    assert_true(fx_skipped(&fs, "cuda.driver_too_old", GD_NO_GPU, "no CUDA runtime found (simulated machine;"));
    gd_findings_free(&fs);
    gd_facts_free(&f);
}

/* cu128 wheels on R550 run through minor-version compatibility: context,
 * with the limits it brings and the driver that lifts them. */
static void minor_compat_is_info_for_a_newer_minor_framework(void **state)
{
    (void)state;
    gd_findings fs = run_with("cuda.minor_compat", GD_RT_TORCH, 12080, "torch 2.7.0+cu128");
    const gd_finding *x = fx_only(&fs, "cuda.minor_compat");
    assert_int_equal(x->severity, GD_SEV_INFO);
    assert_int_equal(x->gpu, GD_NO_GPU);
    assert_string_equal(x->title,
                        "torch 2.7.0+cu128 (CUDA 12.8) runs on driver 550.54.15 through minor-version compatibility");
    assert_string_equal(json_string_value(json_object_get(x->evidence, "cuda")), "12.8");
    assert_string_equal(json_string_value(json_object_get(x->evidence, "needs_driver")), "525.60.13");
    assert_string_equal(json_string_value(json_object_get(x->evidence, "source")),
                        "nvml:nvmlSystemGetCudaDriverVersion");
    assert_non_null(strstr(x->fix, "Works: CUDA 12.x runs on drivers >= 525.60.13"));
    assert_non_null(strstr(x->fix, "A driver >= 570.26 removes both limits"));
    gd_findings_free(&fs);
}

/* Toolkits are not what the job loads; native runtimes need nothing. */
static void minor_compat_quiet_on_toolkits_and_native_runtimes(void **state)
{
    (void)state;
    gd_findings fs = run_with("cuda.minor_compat", GD_RT_TOOLKIT, 12080, "");
    assert_int_equal(fs.n + fs.nskips, 0);
    gd_findings_free(&fs);
    fs = run_with("cuda.minor_compat", GD_RT_TORCH, 12040, "torch 2.4.0+cu124");
    assert_int_equal(fs.n + fs.nskips, 0);
    gd_findings_free(&fs);
    fs = run_with("cuda.minor_compat", GD_RT_TORCH, 13000, "torch 2.9.0+cu130"); /* too old: not minor */
    assert_int_equal(fs.n + fs.nskips, 0);
    gd_findings_free(&fs);
}

/* CUDA 13.0 on R535 (CUDA 12.2) with the 13.0 toolkit's compat package: it
 * runs where the job's LD_LIBRARY_PATH loads the package's libcuda. */
static void forward_compat(gd_facts *f, const char *gpu_name, const char *const *env)
{
    fx_facts(f, 1, 2);
    snprintf(f->gpus[0].name, sizeof f->gpus[0].name, "%s", gpu_name);
    snprintf(f->driver_version, sizeof f->driver_version, "535.54.03");
    f->cuda_driver_version = gd_val(12020);
    fx_cuda_runtime(f, GD_RT_TORCH, 13000, "torch 2.9.0+cu130");
    gd_cuda_runtime *tk = fx_cuda_runtime(f, GD_RT_TOOLKIT, 13000, "");
    snprintf(tk->compat_lib, sizeof tk->compat_lib, "/usr/local/cuda-13.0/compat/libcuda.so.580.65.06");
    snprintf(tk->compat_driver, sizeof tk->compat_driver, "580.65.06");
    fx_env(f, env);
}

static void forward_compat_warns_until_the_package_is_on_the_loader_path(void **state)
{
    (void)state;
    gd_facts f;
    forward_compat(&f, "NVIDIA H100 80GB HBM3", (const char *const[]){NULL});
    gd_findings fs = fx_run_one(&f, "cuda.forward_compat");
    assert_int_equal(fx_count(&fs, "cuda.forward_compat", GD_NO_GPU), 2); /* the framework and the toolkit */
    const gd_finding *x = &fs.v[0];
    assert_int_equal(x->severity, GD_SEV_WARNING);
    assert_string_equal(x->title, "torch 2.9.0+cu130 (CUDA 13.0) runs through the forward-compatibility package, "
                                  "which the job does not load");
    assert_string_equal(json_string_value(json_object_get(x->evidence, "compat_driver")), "580.65.06");
    assert_true(json_is_false(json_object_get(x->evidence, "on_ld_library_path")));
    assert_non_null(strstr(x->fix, "export LD_LIBRARY_PATH=/usr/local/cuda-13.0/compat:$LD_LIBRARY_PATH"));
    gd_findings_free(&fs);
    gd_facts_free(&f);
    forward_compat(&f, "NVIDIA H100 80GB HBM3",
                   (const char *const[]){"LD_LIBRARY_PATH=/usr/local/cuda-13.0/compat:/usr/lib", NULL});
    fs = fx_run_one(&f, "cuda.forward_compat");
    assert_int_equal(fs.n, 2);
    assert_int_equal(fs.v[0].severity, GD_SEV_INFO);
    assert_true(json_is_true(json_object_get(fs.v[0].evidence, "on_ld_library_path")));
    assert_string_equal(fs.v[0].title, "torch 2.9.0+cu130 (CUDA 13.0) runs through the forward-compatibility package");
    gd_findings_free(&fs);
    gd_facts_free(&f);
}

/* The package does nothing for a GeForce board: the driver is too old instead. */
static void forward_compat_quiet_on_geforce_and_native_runtimes(void **state)
{
    (void)state;
    gd_facts f;
    forward_compat(&f, "NVIDIA GeForce RTX 4090", (const char *const[]){NULL});
    assert_int_equal(fx_run_count(&f, "cuda.forward_compat"), 0);
    assert_int_equal(fx_run_count(&f, "cuda.driver_too_old"), 1);
    gd_facts_free(&f);
    gd_findings fs = run_with("cuda.forward_compat", GD_RT_TORCH, 12040, "torch 2.4.0+cu124");
    assert_int_equal(fs.n + fs.nskips, 0);
    gd_findings_free(&fs);
}

static void framework_cpu_only_fires_on_a_cpu_torch(void **state)
{
    (void)state;
    gd_facts f;
    fx_facts(&f, 8, 2);
    fx_cuda_runtime(&f, GD_RT_TORCH, 0, "torch 2.7.0+cpu");
    gd_findings fs = fx_run_one(&f, "cuda.framework_cpu_only");
    const gd_finding *x = fx_only(&fs, "cuda.framework_cpu_only");
    assert_int_equal(x->severity, GD_SEV_WARNING);
    assert_int_equal(x->gpu, GD_NO_GPU);
    assert_string_equal(x->title, "torch 2.7.0+cpu is a CPU-only build on a machine with 8 GPUs");
    assert_true(json_is_null(json_object_get(x->evidence, "cuda")));
    assert_string_equal(json_string_value(json_object_get(x->evidence, "path")),
                        "/venv/lib/python3.12/site-packages/torch/version.py");
    assert_non_null(strstr(x->fix, "Install a CUDA build"));
    gd_findings_free(&fs);
    gd_facts_free(&f);
}

/* A CUDA torch, another framework's CPU build, or no GPU: nothing to say. */
static void framework_cpu_only_quiet_otherwise(void **state)
{
    (void)state;
    gd_findings fs = run_with("cuda.framework_cpu_only", GD_RT_TORCH, 12080, "torch 2.7.0+cu128");
    assert_int_equal(fs.n + fs.nskips, 0);
    gd_findings_free(&fs);
    fs = run_with("cuda.framework_cpu_only", GD_RT_TENSORFLOW, 0, "tensorflow 2.15.0");
    assert_int_equal(fs.n + fs.nskips, 0);
    gd_findings_free(&fs);
    gd_facts f;
    fx_facts(&f, 0, 0);
    fx_cuda_runtime(&f, GD_RT_TORCH, 0, "torch 2.7.0+cpu");
    assert_int_equal(fx_run_count(&f, "cuda.framework_cpu_only"), 0);
    gd_facts_free(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(driver_too_old_for_a_framework_is_critical),
        cmocka_unit_test(driver_too_old_for_a_toolkit_is_a_warning),
        cmocka_unit_test(driver_too_old_quiet_on_runtimes_the_driver_runs),
        cmocka_unit_test(driver_too_old_says_why_it_could_not_judge),
        cmocka_unit_test(minor_compat_is_info_for_a_newer_minor_framework),
        cmocka_unit_test(minor_compat_quiet_on_toolkits_and_native_runtimes),
        cmocka_unit_test(forward_compat_warns_until_the_package_is_on_the_loader_path),
        cmocka_unit_test(forward_compat_quiet_on_geforce_and_native_runtimes),
        cmocka_unit_test(framework_cpu_only_fires_on_a_cpu_torch),
        cmocka_unit_test(framework_cpu_only_quiet_otherwise),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
