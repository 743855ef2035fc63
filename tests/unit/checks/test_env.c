/* SPDX-License-Identifier: Apache-2.0 */
/* The job's environment (src/checks/env.c): each variable that slows training
 * fires with its value, healthy values and unset variables stay quiet, and an
 * environment that could not be read is "not checked", never passed. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "facts_fixture.h"
#include "gpudoctor/stack.h"

#include <stdio.h>
#include <string.h>

/* A check, a setting it fires on, one it accepts, and what it says. */
typedef struct env_case {
    const char *id;
    const char *bad, *good; /* NAME=VALUE */
    gd_severity sev;
    const char *says;
} env_case;

static const env_case cases[] = {
    {"env.launch_blocking", "CUDA_LAUNCH_BLOCKING=1", "CUDA_LAUNCH_BLOCKING=0", GD_SEV_WARNING,
     "every kernel launch waits for the GPU"},
    {"env.profiler_injection", "CUDA_INJECTION64_PATH=/opt/nsight/libToolsInjection64.so",
     "CUDA_INJECTION64_PATH=", GD_SEV_WARNING, "a profiler, debugger or core-dump hook"},
    {"env.nccl_p2p_disabled", "NCCL_P2P_DISABLE=1", "NCCL_P2P_DISABLE=0", GD_SEV_WARNING,
     "NCCL does not use NVLink or PCIe peer-to-peer"},
    {"env.nccl_ib_disabled", "NCCL_IB_DISABLE=1", "NCCL_IB_DISABLE=0", GD_SEV_INFO,
     "fall back to TCP sockets (no effect on a single-node job)"},
    {"env.nccl_shm_disabled", "NCCL_SHM_DISABLE=1", "NCCL_SHM_DISABLE=0", GD_SEV_WARNING,
     "NCCL does not use shared memory"},
    {"env.tf32_disabled", "NVIDIA_TF32_OVERRIDE=0", "NVIDIA_TF32_OVERRIDE=1", GD_SEV_WARNING, "lose the tensor cores"},
    {"env.no_caching_allocator", "PYTORCH_NO_CUDA_MEMORY_CACHING=1", "PYTORCH_NO_CUDA_MEMORY_CACHING=0", GD_SEV_WARNING,
     "caching allocator is off"},
    {"env.force_ptx_jit", "CUDA_FORCE_PTX_JIT=1", "CUDA_FORCE_PTX_JIT=0", GD_SEV_WARNING,
     "JIT-compiles PTX for every kernel"},
    {"env.cache_disabled", "CUDA_CACHE_DISABLE=1", "CUDA_CACHE_DISABLE=0", GD_SEV_INFO, "the CUDA JIT cache is off"},
    {"env.eager_loading", "CUDA_MODULE_LOADING=EAGER", "CUDA_MODULE_LOADING=LAZY", GD_SEV_INFO,
     "loads every kernel module at start"},
    {"env.ptx_jit_disabled", "CUDA_DISABLE_PTX_JIT=1", "CUDA_DISABLE_PTX_JIT=0", GD_SEV_WARNING,
     "may not JIT-compile PTX"},
    {"env.cublas_no_workspace", "CUBLAS_WORKSPACE_CONFIG=:0:0", "CUBLAS_WORKSPACE_CONFIG=:4096:8", GD_SEV_WARNING,
     "cuBLAS gets no workspace"},
    {"env.omp_single_thread", "OMP_NUM_THREADS=1", "OMP_NUM_THREADS=8", GD_SEV_INFO, "runs on one OpenMP thread"},
};
#define NCASES (sizeof cases / sizeof cases[0])

/* Runs check id on one H100 (compute capability 9.0) whose job has the
 * environment vars (NULL-terminated). */
static gd_findings run_env(const char *id, const char *const *vars)
{
    gd_facts f;
    fx_facts(&f, 1, 2);
    f.gpus[0].cc_major = gd_val(9);
    fx_env(&f, vars);
    gd_findings fs = fx_run_one(&f, id);
    gd_facts_free(&f);
    return fs;
}

static void each_setting_fires_with_its_variable_and_value(void **state)
{
    (void)state;
    for (size_t c = 0; c < NCASES; c++) {
        gd_findings fs = run_env(cases[c].id, (const char *const[]){"PATH=/usr/bin", cases[c].bad, NULL});
        const gd_finding *x = fx_only(&fs, cases[c].id);
        char name[64];
        size_t len = strcspn(cases[c].bad, "=");
        snprintf(name, sizeof name, "%.*s", (int)len, cases[c].bad);
        /* The title leads with the setting itself, then what it does. */
        if (x->severity != cases[c].sev || strncmp(x->title, cases[c].bad, strlen(cases[c].bad)) != 0 ||
            !strstr(x->title, cases[c].says))
            fail_msg("%s: severity %d, '%s'", cases[c].id, x->severity, x->title);
        assert_int_equal(x->gpu, GD_NO_GPU);
        assert_string_equal(json_string_value(json_object_get(x->evidence, "variable")), name);
        assert_string_equal(json_string_value(json_object_get(x->evidence, "value")), cases[c].bad + len + 1);
        assert_string_equal(json_string_value(json_object_get(x->evidence, "source")),
                            "environment: /proc/4242/environ");
        assert_true(strlen(x->fix) > 0);
        gd_findings_free(&fs);
    }
}

static void healthy_values_and_unset_variables_are_quiet(void **state)
{
    (void)state;
    for (size_t c = 0; c < NCASES; c++) {
        gd_findings fs = run_env(cases[c].id, (const char *const[]){cases[c].good, NULL});
        if (fs.n != 0 || fs.nskips != 0)
            fail_msg("%s: %zu findings, %zu notes on %s", cases[c].id, fs.n, fs.nskips, cases[c].good);
        gd_findings_free(&fs);
        fs = run_env(cases[c].id, (const char *const[]){"PATH=/usr/bin", NULL});
        assert_int_equal(fs.n + fs.nskips, 0);
        gd_findings_free(&fs);
    }
}

/* The job's environ unreadable (another user's process), or never read. */
static void an_unread_environment_is_not_checked(void **state)
{
    (void)state;
    for (size_t c = 0; c < NCASES; c++) {
        gd_facts f;
        fx_facts(&f, 1, 2);
        gd_findings fs = fx_run_one(&f, cases[c].id);
        assert_int_equal(fs.n, 0);
        assert_true(fx_skipped(&fs, cases[c].id, GD_NO_GPU, "the job's environment was not read"));
        gd_findings_free(&fs);
        fx_env(&f, (const char *const[]){cases[c].bad, NULL});
        f.stack->env_read = false;
        snprintf(f.stack->env_error, sizeof f.stack->env_error, "/proc/4242/environ: Permission denied");
        fs = fx_run_one(&f, cases[c].id);
        assert_int_equal(fs.n, 0);
        assert_true(fx_skipped(&fs, cases[c].id, GD_NO_GPU, "/proc/4242/environ: Permission denied"));
        gd_findings_free(&fs);
        gd_facts_free(&f);
    }
}

/* InfiniBand off costs a job only across nodes: Slurm's node count, or a
 * world larger than the local one (torchrun, Open MPI), makes it a warning. */
static void nccl_ib_disabled_warns_on_a_multi_node_job(void **state)
{
    (void)state;
    static const char *const multi[][2] = {{"SLURM_JOB_NUM_NODES=2", NULL},
                                           {"WORLD_SIZE=16", "LOCAL_WORLD_SIZE=8"},
                                           {"OMPI_COMM_WORLD_SIZE=16", "OMPI_COMM_WORLD_LOCAL_SIZE=8"}};
    for (size_t k = 0; k < sizeof multi / sizeof multi[0]; k++) {
        gd_findings fs =
            run_env("env.nccl_ib_disabled", (const char *const[]){"NCCL_IB_DISABLE=1", multi[k][0], multi[k][1], NULL});
        const gd_finding *x = fx_only(&fs, "env.nccl_ib_disabled");
        assert_int_equal(x->severity, GD_SEV_WARNING);
        assert_null(strstr(x->title, "single-node"));
        gd_findings_free(&fs);
    }
    /* One node's world: still context. */
    gd_findings fs = run_env("env.nccl_ib_disabled",
                             (const char *const[]){"NCCL_IB_DISABLE=1", "WORLD_SIZE=8", "LOCAL_WORLD_SIZE=8", NULL});
    assert_int_equal(fx_only(&fs, "env.nccl_ib_disabled")->severity, GD_SEV_INFO);
    gd_findings_free(&fs);
}

/* TF32 exists from Ampere (compute capability 8.0): a V100 loses nothing. */
static void tf32_disabled_only_on_ampere_and_newer(void **state)
{
    (void)state;
    gd_facts f;
    fx_facts(&f, 1, 2);
    f.gpus[0].cc_major = gd_val(7);
    fx_env(&f, (const char *const[]){"NVIDIA_TF32_OVERRIDE=0", NULL});
    assert_int_equal(fx_run_count(&f, "env.tf32_disabled"), 0);
    f.gpus[0].cc_major = gd_val(8);
    assert_int_equal(fx_run_count(&f, "env.tf32_disabled"), 1);
    gd_facts_free(&f);
}

/* NCCL_P2P_LEVEL=LOC or 0 forbids P2P as NCCL_P2P_DISABLE does; a level
 * that allows some (NVL, SYS) is a choice. */
static void nccl_p2p_level_loc_or_zero_disables_p2p(void **state)
{
    (void)state;
    static const struct {
        const char *setting;
        size_t findings;
    } levels[] = {{"NCCL_P2P_LEVEL=LOC", 1}, {"NCCL_P2P_LEVEL=loc", 1}, {"NCCL_P2P_LEVEL=0", 1},
                  {"NCCL_P2P_LEVEL=NVL", 0}, {"NCCL_P2P_LEVEL=SYS", 0}, {"NCCL_P2P_LEVEL=", 0}};
    for (size_t k = 0; k < sizeof levels / sizeof levels[0]; k++) {
        gd_findings fs = run_env("env.nccl_p2p_disabled", (const char *const[]){levels[k].setting, NULL});
        if (fx_count(&fs, "env.nccl_p2p_disabled", GD_NO_GPU) != levels[k].findings)
            fail_msg("%s: %zu findings", levels[k].setting, fs.n);
        if (levels[k].findings)
            assert_non_null(strstr(fs.v[0].title, "may not use peer-to-peer between any GPUs"));
        gd_findings_free(&fs);
    }
}

/* Each injected hook is its own finding: unsetting one leaves the other. */
static void profiler_injection_names_each_variable(void **state)
{
    (void)state;
    gd_findings fs =
        run_env("env.profiler_injection", (const char *const[]){"CUDA_INJECTION64_PATH=/opt/libinj.so",
                                                                "CUDA_ENABLE_COREDUMP_ON_EXCEPTION=1", NULL});
    assert_int_equal(fx_count(&fs, "env.profiler_injection", GD_NO_GPU), 2);
    assert_string_equal(json_string_value(json_object_get(fs.v[0].evidence, "variable")), "CUDA_INJECTION64_PATH");
    assert_string_equal(json_string_value(json_object_get(fs.v[1].evidence, "variable")),
                        "CUDA_ENABLE_COREDUMP_ON_EXCEPTION");
    gd_findings_free(&fs);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(each_setting_fires_with_its_variable_and_value),
        cmocka_unit_test(healthy_values_and_unset_variables_are_quiet),
        cmocka_unit_test(an_unread_environment_is_not_checked),
        cmocka_unit_test(nccl_ib_disabled_warns_on_a_multi_node_job),
        cmocka_unit_test(tf32_disabled_only_on_ampere_and_newer),
        cmocka_unit_test(nccl_p2p_level_loc_or_zero_disables_p2p),
        cmocka_unit_test(profiler_injection_names_each_variable),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
