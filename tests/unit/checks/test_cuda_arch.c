/* SPDX-License-Identifier: Apache-2.0 */
/* Does the installed build carry code for each GPU (src/checks/cuda_arch.c):
 * cuda.arch_unsupported and cuda.ptx_jit from literal architecture lists. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "facts_fixture.h"
#include "gpudoctor/stack.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* PyTorch's cu126 wheels: SASS for sm_50 to sm_90, no PTX. */
static const gd_arch cu126[] = {{50, false}, {60, false}, {70, false}, {75, false},
                                {80, false}, {86, false}, {90, false}};
/* A build with sm_80 SASS and compute_90 PTX: newer GPUs JIT-compile it. */
static const gd_arch sm80_ptx90[] = {{80, false}, {90, true}};

/* n GPUs named `name` of compute capability sm (100: 10.0). */
static void gpus_of(gd_facts *f, size_t n, const char *name, int sm)
{
    fx_facts(f, n, 2);
    for (size_t g = 0; g < n; g++) {
        snprintf(f->gpus[g].name, sizeof f->gpus[g].name, "%s", name);
        f->gpus[g].cc_major = gd_val(sm / 10);
        f->gpus[g].cc_minor = gd_val(sm % 10);
    }
}

/* A torch build of CUDA version whose fatbins list archs. */
static gd_cuda_runtime *torch_with(gd_facts *f, int version, const char *framework, const gd_arch *archs, size_t n)
{
    gd_cuda_runtime *rt = fx_cuda_runtime(f, GD_RT_TORCH, version, framework);
    rt->arch_known = true;
    snprintf(rt->arch_source, sizeof rt->arch_source, "/venv/lib/python3.12/site-packages/torch/lib/libtorch_cuda.so");
    memcpy(rt->archs, archs, n * sizeof *archs);
    rt->arch_count = n;
    return rt;
}

/* cu126 on a B200 (sm_100): no kernel image for the device. */
static void arch_unsupported_is_critical_without_kernels_for_the_gpu(void **state)
{
    (void)state;
    gd_facts f;
    gpus_of(&f, 1, "NVIDIA B200", 100);
    torch_with(&f, 12060, "torch 2.6.0+cu126", cu126, sizeof cu126 / sizeof cu126[0]);
    gd_findings fs = fx_run_one(&f, "cuda.arch_unsupported");
    const gd_finding *x = fx_only(&fs, "cuda.arch_unsupported");
    assert_int_equal(x->severity, GD_SEV_CRITICAL);
    assert_int_equal(x->gpu, 0);
    assert_float_equal(x->impact_pct, 100.0, 1e-9);
    assert_string_equal(x->title, "torch 2.6.0+cu126 (CUDA 12.6) has no kernels for NVIDIA B200 (sm_100)");
    assert_string_equal(json_string_value(json_object_get(x->evidence, "gpu_compute_capability")), "10.0");
    json_t *archs = json_object_get(x->evidence, "build_archs");
    assert_int_equal(json_array_size(archs), 7);
    assert_string_equal(json_string_value(json_array_get(archs, 6)), "sm_90");
    assert_non_null(strstr(x->fix, "TORCH_CUDA_ARCH_LIST=\"10.0\""));
    gd_findings_free(&fs);
    gd_facts_free(&f);
}

/* Every GPU uncovered: one finding for the node, naming them all. */
static void arch_unsupported_names_every_gpu_once(void **state)
{
    (void)state;
    gd_facts f;
    gpus_of(&f, 2, "NVIDIA B200", 100);
    torch_with(&f, 12060, "torch 2.6.0+cu126", cu126, sizeof cu126 / sizeof cu126[0]);
    gd_findings fs = fx_run_one(&f, "cuda.arch_unsupported");
    const gd_finding *x = fx_only(&fs, "cuda.arch_unsupported");
    assert_int_equal(x->gpu, GD_NO_GPU);
    assert_int_equal(json_array_size(json_object_get(x->evidence, "gpus")), 2);
    assert_non_null(strstr(x->title, "(sm_100) on every GPU listed"));
    gd_findings_free(&fs);
    gd_facts_free(&f);
}

static void arch_unsupported_quiet_when_the_build_covers_the_gpu(void **state)
{
    (void)state;
    gd_facts f;
    gpus_of(&f, 1, "NVIDIA H100 80GB HBM3", 90);
    torch_with(&f, 12060, "torch 2.6.0+cu126", cu126, sizeof cu126 / sizeof cu126[0]);
    fx_assert_silent(&f, "cuda.arch_unsupported");
    gd_facts_free(&f);
    gpus_of(&f, 1, "NVIDIA L40S", 89); /* sm_86 SASS runs on sm_89 */
    torch_with(&f, 12060, "torch 2.6.0+cu126", cu126, sizeof cu126 / sizeof cu126[0]);
    assert_int_equal(fx_run_count(&f, "cuda.arch_unsupported"), 0);
    gd_facts_free(&f);
}

/* Without the fatbin's list: a GPU newer than the toolkit knows is a
 * warning; otherwise "not checked", with why. */
static void arch_unsupported_without_the_list(void **state)
{
    (void)state;
    gd_facts f;
    gpus_of(&f, 1, "NVIDIA B200", 100);
    fx_cuda_runtime(&f, GD_RT_TORCH, 12060, "torch 2.6.0+cu126");
    gd_findings fs = fx_run_one(&f, "cuda.arch_unsupported");
    const gd_finding *x = fx_only(&fs, "cuda.arch_unsupported");
    assert_int_equal(x->severity, GD_SEV_WARNING);
    assert_string_equal(x->title, "torch 2.6.0+cu126 (CUDA 12.6) predates NVIDIA B200 (sm_100)");
    assert_non_null(strstr(x->fix, "CUDA 12.6 compiles for at most sm_90"));
    gd_findings_free(&fs);
    gd_facts_free(&f);
    gpus_of(&f, 1, "NVIDIA H100 80GB HBM3", 90);
    gd_cuda_runtime *rt = fx_cuda_runtime(&f, GD_RT_TORCH, 12060, "torch 2.6.0+cu126");
    fs = fx_run_one(&f, "cuda.arch_unsupported");
    assert_int_equal(fs.n, 0);
    assert_true(fx_skipped(&fs, "cuda.arch_unsupported", GD_NO_GPU,
                           "torch 2.6.0+cu126: its architecture list could not be read (no CUDA fatbin"));
    gd_findings_free(&fs);
    snprintf(rt->arch_error, sizeof rt->arch_error, "libtorch_cuda.so: not an ELF file");
    fs = fx_run_one(&f, "cuda.arch_unsupported");
    assert_true(fx_skipped(&fs, "cuda.arch_unsupported", GD_NO_GPU, "read: libtorch_cuda.so: not an ELF file"));
    gd_findings_free(&fs);
    gd_facts_free(&f);
}

/* nvcc of CUDA 13.0 dropped Volta: extensions built with it do not run on a V100. */
static void arch_unsupported_toolkit_that_dropped_the_gpu(void **state)
{
    (void)state;
    gd_facts f;
    gpus_of(&f, 1, "Tesla V100-SXM2-32GB", 70);
    fx_cuda_runtime(&f, GD_RT_TOOLKIT, 13000, "");
    gd_findings fs = fx_run_one(&f, "cuda.arch_unsupported");
    const gd_finding *x = fx_only(&fs, "cuda.arch_unsupported");
    assert_int_equal(x->severity, GD_SEV_WARNING);
    assert_int_equal(x->gpu, 0);
    assert_string_equal(
        x->title, "The CUDA 13.0 toolkit (/usr/local/cuda-13.0) dropped support for Tesla V100-SXM2-32GB (sm_70)");
    assert_string_equal(json_string_value(json_object_get(x->evidence, "framework")), "toolkit");
    /* No framework build at all: the check says what it could not judge. */
    assert_true(fx_skipped(&fs, "cuda.arch_unsupported", GD_NO_GPU, "no PyTorch or TensorFlow CUDA build found"));
    gd_findings_free(&fs);
    gd_facts_free(&f);
}

/* A B200 served only by compute_90 PTX: JIT at every start. */
static void ptx_jit_warns_when_only_ptx_serves_the_gpu(void **state)
{
    (void)state;
    gd_facts f;
    gpus_of(&f, 1, "NVIDIA B200", 100);
    torch_with(&f, 12040, "torch 2.4.0+cu124", sm80_ptx90, 2);
    gd_findings fs = fx_run_one(&f, "cuda.ptx_jit");
    const gd_finding *x = fx_only(&fs, "cuda.ptx_jit");
    assert_int_equal(x->severity, GD_SEV_WARNING);
    assert_int_equal(x->gpu, 0);
    assert_true(isnan(x->impact_pct));
    assert_string_equal(x->title, "torch 2.4.0+cu124 (CUDA 12.4) runs only as PTX on NVIDIA B200 (sm_100)");
    json_t *archs = json_object_get(x->evidence, "build_archs");
    assert_string_equal(json_string_value(json_array_get(archs, 1)), "compute_90");
    assert_non_null(strstr(x->fix, "Only PTX serves sm_100"));
    gd_findings_free(&fs);
    gd_facts_free(&f);
}

/* SASS for the GPU, PTX from a toolkit newer than the driver (that is
 * cuda.driver_too_old's), or no list: nothing for cuda.ptx_jit. */
static void ptx_jit_quiet_otherwise(void **state)
{
    (void)state;
    gd_facts f;
    gpus_of(&f, 1, "NVIDIA A100-SXM4-80GB", 80);
    torch_with(&f, 12040, "torch 2.4.0+cu124", sm80_ptx90, 2);
    assert_int_equal(fx_run_count(&f, "cuda.ptx_jit"), 0);
    gd_facts_free(&f);
    gpus_of(&f, 1, "NVIDIA B200", 100);
    torch_with(&f, 12080, "torch 2.7.0+cu128", sm80_ptx90, 2);
    assert_int_equal(fx_run_count(&f, "cuda.ptx_jit"), 0);
    assert_int_equal(fx_run_count(&f, "cuda.driver_too_old"), 1);
    gd_facts_free(&f);
    gpus_of(&f, 1, "NVIDIA B200", 100);
    fx_cuda_runtime(&f, GD_RT_TORCH, 12040, "torch 2.4.0+cu124");
    fx_assert_silent(&f, "cuda.ptx_jit");
    gd_facts_free(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(arch_unsupported_is_critical_without_kernels_for_the_gpu),
        cmocka_unit_test(arch_unsupported_names_every_gpu_once),
        cmocka_unit_test(arch_unsupported_quiet_when_the_build_covers_the_gpu),
        cmocka_unit_test(arch_unsupported_without_the_list),
        cmocka_unit_test(arch_unsupported_toolkit_that_dropped_the_gpu),
        cmocka_unit_test(ptx_jit_warns_when_only_ptx_serves_the_gpu),
        cmocka_unit_test(ptx_jit_quiet_otherwise),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
