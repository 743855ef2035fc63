/* SPDX-License-Identifier: Apache-2.0 */
/* End to end: software stack, environment, configuration and health checks,
 * on scenarios plus fixture trees (a Python environment with torch/version.py
 * and a libtorch_cuda.so holding fatbin headers; a root with /usr/local/cuda-X). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "run_tool.h"

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* Every variable the checks read, unset, so the runner's own environment
 * (a CI job with CUDA_VISIBLE_DEVICES, a venv) cannot leak in. */
#define CLEAN                                                                                                          \
    "GPUDOCTOR_SIM_TIMESCALE=", "NO_COLOR=", "GPUDOCTOR_ROOT=", "CUDA_VISIBLE_DEVICES=", "CUDA_LAUNCH_BLOCKING=",      \
        "CUDA_DEVICE_ORDER=", "CUDA_INJECTION64_PATH=", "NCCL_P2P_DISABLE=", "NCCL_P2P_LEVEL=", "NCCL_IB_DISABLE=",    \
        "NCCL_SHM_DISABLE=", "NVIDIA_TF32_OVERRIDE=", "PYTORCH_NO_CUDA_MEMORY_CACHING=", "CUDA_FORCE_PTX_JIT=",        \
        "CUDA_CACHE_DISABLE=", "CUDA_MODULE_LOADING=", "VIRTUAL_ENV=", "CONDA_PREFIX=", "LD_LIBRARY_PATH=",            \
        "CUDA_PROFILE=", "NSIGHT_CUDA_DEBUGGER=", "SLURM_JOB_NUM_NODES=", "SLURM_NNODES=", "NNODES=", "WORLD_SIZE=",   \
        "LOCAL_WORLD_SIZE=", "OMPI_COMM_WORLD_SIZE=", "OMPI_COMM_WORLD_LOCAL_SIZE=", "NCCL_SOCKET_IFNAME=",            \
        "NCCL_IB_HCA=", "NCCL_NET=", "NCCL_NET_GDR_LEVEL=", "NCCL_IB_GID_INDEX="

static const char *const my_ids[] = {"cuda.driver_too_old",
                                     "cuda.minor_compat",
                                     "cuda.forward_compat",
                                     "cuda.framework_cpu_only",
                                     "cuda.arch_unsupported",
                                     "cuda.ptx_jit",
                                     "env.visible_devices",
                                     "env.device_order",
                                     "env.launch_blocking",
                                     "env.profiler_injection",
                                     "env.nccl_p2p_disabled",
                                     "env.nccl_ib_disabled",
                                     "env.nccl_shm_disabled",
                                     "env.tf32_disabled",
                                     "env.no_caching_allocator",
                                     "env.force_ptx_jit",
                                     "env.cache_disabled",
                                     "env.eager_loading",
                                     "env.ptx_jit_disabled",
                                     "env.cublas_no_workspace",
                                     "env.omp_single_thread",
                                     "config.persistence_off",
                                     "config.compute_mode",
                                     "config.mig_enabled",
                                     "config.ecc_disabled",
                                     "health.ecc_uncorrectable",
                                     "health.row_remap",
                                     "health.xid",
                                     NULL};

/* A fatbin with one entry per "sm_XX" / "compute_XX" word of archs. */
static size_t fatbin(unsigned char *buf, const char *archs)
{
    size_t off = 16;
    for (const char *p = archs; *p;) {
        bool ptx = strncmp(p, "compute_", 8) == 0;
        int sm = atoi(p + (ptx ? 8 : 3));
        unsigned char *h = buf + off;
        memset(h, 0, 72);
        h[0] = ptx ? 1 : 2, h[4] = 64, h[8] = 8, h[16] = 8, h[28] = (unsigned char)sm;
        off += 72;
        p += strcspn(p, " ");
        p += *p == ' ';
    }
    uint32_t magic = 0xBA55ED50u;
    uint64_t size = off - 16;
    memcpy(buf, &magic, 4);
    buf[4] = 1, buf[6] = 16;
    memcpy(buf + 8, &size, 8);
    return off;
}

/* site-packages with torch VERSION for CUDA (NULL: CPU build) and a
 * libtorch_cuda.so carrying archs. Returns the directory (caller frees). */
static char *torch_env(const char *version, const char *cuda, const char *archs)
{
    char *dir = temp_dir();
    char text[512];
    snprintf(text, sizeof text,
             "from typing import Optional\n__version__ = '%s'\ndebug = False\ncuda: Optional[str] = %s%s%s\n"
             "hip: Optional[str] = None\n",
             version, cuda ? "'" : "", cuda ? cuda : "None", cuda ? "'" : "");
    put_file(dir, "lib/python3.11/site-packages/torch/version.py", text, strlen(text));
    if (archs) {
        unsigned char bin[4096] = {0};
        size_t n = fatbin(bin + 64, archs) + 64; /* after some other bytes, as in a library */
        put_file(dir, "lib/python3.11/site-packages/torch/lib/libtorch_cuda.so", bin, n);
    }
    return dir;
}

/* A finding with this id on GPU gpu (-1: host-wide, gpu null; -2: any). */
static bool has(json_t *report, const char *id, int gpu)
{
    size_t i;
    json_t *f;
    json_array_foreach(json_object_get(report, "findings"), i, f)
    {
        json_t *g = json_object_get(f, "gpu");
        if (strcmp(json_string_value(json_object_get(f, "id")), id) == 0 &&
            (gpu == -2 || (gpu == -1 ? json_is_null(g) : json_integer_value(g) == gpu)))
            return true;
    }
    return false;
}

static const char *severity_of(json_t *report, const char *id)
{
    size_t i;
    json_t *f;
    json_array_foreach(json_object_get(report, "findings"), i,
                       f) if (strcmp(json_string_value(json_object_get(f, "id")), id) ==
                              0) return json_string_value(json_object_get(f, "severity"));
    return "";
}

static tool_result check(const char *scenario, const char *python, const char *const *env)
{
    const char *argv[12] = {"check", "--json", "--duration", "10", "--interval", "2000", "--sim", example(scenario)};
    size_t n = 8;
    if (python) {
        argv[n++] = "--python";
        argv[n++] = python;
    }
    argv[n] = NULL;
    tool_result r = run_tool(argv, env);
    if (!r.json)
        fail_msg("%s: no JSON; stderr: %s", scenario, r.err);
    return r;
}

static void consistent_machines_have_none_of_these(void **state)
{
    (void)state;
    static const char *const env[] = {CLEAN, NULL};
    /* Also with a consistent stack: CUDA 12.4 toolkit and a cu124 torch with sm_90 on R550. */
    char *root = temp_dir();
    put_file(root, "usr/local/cuda-12.4/version.json", "{\"cuda\": {\"version\": \"12.4.1\"}}", 31);
    char *py = torch_env("2.5.1+cu124", "12.4", "sm_80 sm_86 sm_90");
    char envroot[1100];
    snprintf(envroot, sizeof envroot, "GPUDOCTOR_ROOT=%s", root);
    const char *const env_root[] = {CLEAN, envroot, NULL};
    const char *scenarios[] = {"h100x8-training.json", "h100x8-idle.json"};
    for (size_t s = 0; s < 2; s++)
        for (int variant = 0; variant < 2; variant++) {
            tool_result r = check(scenarios[s], variant ? py : NULL, variant ? env_root : env);
            for (const char *const *id = my_ids; *id; id++)
                if (has(r.json, *id, -2))
                    fail_msg("%s: unexpected %s", scenarios[s], *id);
            assert_int_equal(r.exit_code, 0);
            tool_result_free(&r);
        }
    /* The text names a toolkit by its CUDA version, not its file's. */
    tool_result t = run_tool(
        (const char *[]){"check", "--details", "--duration", "0", "--sim", example("h100x8-training.json"), NULL},
        env_root);
    assert_non_null(strstr(t.out, "CUDA 12.4 toolkit"));
    assert_null(strstr(t.out, "12.4.1.dist"));
    tool_result_free(&t);
    remove_tree(root);
    remove_tree(py);
    free(root);
    free(py);
}

/* A simulated machine's software is not this one's: the job's active Python
 * (VIRTUAL_ENV, python3 on PATH) is not scanned under --sim, while the same
 * environment named with --python is. */
static void simulation_does_not_scan_this_machine(void **state)
{
    (void)state;
    char *py = torch_env("2.9.0+cu130", "13.0", NULL);
    char venv[1100], path[1200];
    snprintf(venv, sizeof venv, "VIRTUAL_ENV=%s", py);
    snprintf(path, sizeof path, "PATH=%s/bin:/usr/bin:/bin", py);
    put_file(py, "bin/python3", "", 0);
    const char *const env[] = {CLEAN, venv, path, NULL};
    tool_result r = check("h100x8-training.json", NULL, env);
    assert_false(has(r.json, "cuda.driver_too_old", -2));
    char *skips = json_dumps(json_object_get(r.json, "not_checked"), 0);
    assert_non_null(strstr(skips, "simulated machine"));
    free(skips);
    tool_result_free(&r);
    r = check("h100x8-training.json", py, env); /* CUDA 13.0 on R550: it would fire */
    assert_true(has(r.json, "cuda.driver_too_old", -1));
    tool_result_free(&r);
    remove_tree(py);
    free(py);
}

static void driver_too_old_minor_and_forward_compat(void **state)
{
    (void)state;
    static const char *const env[] = {CLEAN, NULL};
    char *cu130 = torch_env("2.9.0+cu130", "13.0", "sm_75 sm_80 sm_90 sm_100 sm_120 compute_120");
    tool_result r = check("h100x8-driver-535.json", cu130, env);
    assert_true(has(r.json, "cuda.driver_too_old", -1));
    assert_string_equal(severity_of(r.json, "cuda.driver_too_old"), "critical");
    assert_int_equal(r.exit_code, 2);
    tool_result_free(&r);

    /* cu128 on R535 (CUDA 12.2): minor-version compatibility, an info. */
    char *cu128 = torch_env("2.7.0+cu128", "12.8", "sm_75 sm_80 sm_90 sm_100 sm_120 compute_120");
    r = check("h100x8-driver-535.json", cu128, env);
    assert_true(has(r.json, "cuda.minor_compat", -1));
    assert_false(has(r.json, "cuda.driver_too_old", -2));
    assert_int_equal(r.exit_code, 0);
    tool_result_free(&r);

    /* ...but when sm_90 is only PTX, JIT needs a 12.8 driver. */
    char *ptx = torch_env("2.7.0+cu128", "12.8", "sm_80 compute_90");
    r = check("h100x8-driver-535.json", ptx, env);
    assert_true(has(r.json, "cuda.driver_too_old", -1));
    tool_result_free(&r);

    /* A forward-compatibility package for 13.0 on these data-center GPUs. */
    char *root = temp_dir();
    put_file(root, "usr/local/cuda-13.0/version.json", "{\"cuda\": {\"version\": \"13.0.2\"}}", 31);
    put_file(root, "usr/local/cuda-13.0/compat/libcuda.so.580.95.05", "x", 1);
    char envroot[1100];
    snprintf(envroot, sizeof envroot, "GPUDOCTOR_ROOT=%s", root);
    const char *const env_root[] = {CLEAN, envroot, NULL};
    r = check("h100x8-driver-535.json", cu130, env_root);
    assert_false(has(r.json, "cuda.driver_too_old", -2));
    assert_true(has(r.json, "cuda.forward_compat", -1));
    assert_string_equal(severity_of(r.json, "cuda.forward_compat"), "warning"); /* not on the loader path */
    tool_result_free(&r);
    const char *const env_ld[] = {CLEAN, envroot, "LD_LIBRARY_PATH=/usr/local/cuda-13.0/compat", NULL};
    r = check("h100x8-driver-535.json", cu130, env_ld);
    assert_string_equal(severity_of(r.json, "cuda.forward_compat"), "info");
    assert_int_equal(r.exit_code, 0);
    tool_result_free(&r);
    /* A system toolkit newer than the driver, without a compat package. */
    char *root2 = temp_dir();
    put_file(root2, "usr/local/cuda-13.0/version.json", "{\"cuda\": {\"version\": \"13.0.2\"}}", 31);
    snprintf(envroot, sizeof envroot, "GPUDOCTOR_ROOT=%s", root2);
    const char *const env_root2[] = {CLEAN, envroot, NULL};
    r = check("h100x8-driver-535.json", NULL, env_root2);
    assert_string_equal(severity_of(r.json, "cuda.driver_too_old"), "warning");
    tool_result_free(&r);
    char *dirs[] = {cu130, cu128, ptx, root, root2};
    for (size_t i = 0; i < 5; i++) {
        remove_tree(dirs[i]);
        free(dirs[i]);
    }
}

static void architectures(void **state)
{
    (void)state;
    static const char *const env[] = {CLEAN, NULL};
    /* A build without Hopper kernels on H100. */
    char *nohopper = torch_env("2.1.0+cu121", "12.1", "sm_70 sm_75 sm_80 sm_86");
    tool_result r = check("h100x8-training.json", nohopper, env);
    assert_true(has(r.json, "cuda.arch_unsupported", -1));
    assert_string_equal(severity_of(r.json, "cuda.arch_unsupported"), "critical");
    assert_int_equal(r.exit_code, 2);
    tool_result_free(&r);
    /* Only PTX for Hopper: runs, through the JIT. */
    char *ptx = torch_env("2.1.0+cu121", "12.1", "sm_80 compute_80");
    r = check("h100x8-training.json", ptx, env);
    assert_true(has(r.json, "cuda.ptx_jit", -1));
    assert_false(has(r.json, "cuda.arch_unsupported", -2));
    tool_result_free(&r);
    /* CPU-only torch on a GPU server. */
    char *cpu = torch_env("2.7.0+cpu", NULL, NULL);
    r = check("h100x8-training.json", cpu, env);
    assert_true(has(r.json, "cuda.framework_cpu_only", -1));
    tool_result_free(&r);
    char *dirs[] = {nohopper, ptx, cpu};
    for (size_t i = 0; i < 3; i++) {
        remove_tree(dirs[i]);
        free(dirs[i]);
    }
}

/* A little-endian ELF64 header and two section headers (the names, then
 * .nv_fatbin, or .nv_fatbix, over [4096, size)) in buf's first 256 bytes. */
static void elf_with_section(unsigned char *buf, uint64_t size, bool fatbin_section)
{
    const char *names = fatbin_section ? "\0.nv_fatbin" : "\0.nv_fatbix";
    memcpy(buf, "\177ELF", 4);
    buf[4] = 2, buf[5] = 1;
    uint64_t shoff = 64, stroff = 192, secoff = 4096, secsize = size - 4096, namelen = 12;
    memcpy(buf + 0x28, &shoff, 8);
    buf[0x3A] = 64, buf[0x3C] = 2, buf[0x3E] = 0; /* entry size, count, names at 0 */
    memcpy(buf + 64 + 24, &stroff, 8);
    memcpy(buf + 64 + 32, &namelen, 8);
    buf[128] = 1; /* its name at offset 1 */
    memcpy(buf + 128 + 24, &secoff, 8);
    memcpy(buf + 128 + 32, &secsize, 8);
    memcpy(buf + stroff, names, namelen);
}

/* A libtorch_cuda.so of 1 GiB (sparse: zeros the file system does not
 * store), a bare file or an ELF whose .nv_fatbin spans it after one real
 * container, is read up to the cap and no further: the check finishes,
 * and the architectures are "could not be read", never judged from the
 * part read (sm_80 alone would be a critical on H100). */
static void oversized_library_is_refused_with_the_reason(void **state)
{
    (void)state;
    static const char *const env[] = {CLEAN, NULL};
    for (int elf = 0; elf < 2; elf++) {
        char *py = torch_env("2.1.0+cu121", "12.1", NULL);
        char lib[2048];
        snprintf(lib, sizeof lib, "%s/lib/python3.11/site-packages/torch/lib/libtorch_cuda.so", py);
        uint64_t size = (uint64_t)1 << 30;
        unsigned char head[8192] = {0};
        if (elf) {
            elf_with_section(head, size, true);
            fatbin(head + 4096, "sm_80");
        }
        put_file(py, "lib/python3.11/site-packages/torch/lib/libtorch_cuda.so", head, sizeof head);
        assert_int_equal(truncate(lib, (off_t)size), 0);
        tool_result r = check("h100x8-training.json", py, env);
        assert_int_equal(r.exit_code, 0);
        assert_false(has(r.json, "cuda.arch_unsupported", -2));
        char *skips = json_dumps(json_object_get(r.json, "not_checked"), 0);
        if (!strstr(skips, "stopped at 64 MiB, the most read of one library"))
            fail_msg("elf=%d: no reason in %s", elf, skips);
        free(skips);
        tool_result_free(&r);
        remove_tree(py);
        free(py);
    }
    /* A library with no .nv_fatbin holds no CUDA code: not read, however
     * large, and libtorch_cuda.so's list stands (no sm_90 on H100). */
    char *py = torch_env("2.1.0+cu121", "12.1", "sm_80");
    char lib[2048];
    snprintf(lib, sizeof lib, "%s/lib/python3.11/site-packages/torch/lib/libtorch.so", py);
    unsigned char head[8192] = {0};
    elf_with_section(head, (uint64_t)1 << 30, false);
    put_file(py, "lib/python3.11/site-packages/torch/lib/libtorch.so", head, sizeof head);
    assert_int_equal(truncate(lib, (off_t)1 << 30), 0);
    tool_result r = check("h100x8-training.json", py, env);
    assert_true(has(r.json, "cuda.arch_unsupported", -1));
    assert_string_equal(severity_of(r.json, "cuda.arch_unsupported"), "critical");
    tool_result_free(&r);
    remove_tree(py);
    free(py);
}

typedef struct env_case {
    const char *set;
    const char *id;
    const char *severity;
} env_case;

static void environment_variables(void **state)
{
    (void)state;
    static const env_case cases[] = {
        {"CUDA_LAUNCH_BLOCKING=1", "env.launch_blocking", "warning"},
        {"CUDA_VISIBLE_DEVICES= ", "env.visible_devices", "critical"},
        {"CUDA_VISIBLE_DEVICES=-1", "env.visible_devices", "critical"},
        {"CUDA_VISIBLE_DEVICES=0,9,1", "env.visible_devices", "warning"},
        {"CUDA_VISIBLE_DEVICES=GPU-ffffffff", "env.visible_devices", "critical"},
        {"CUDA_VISIBLE_DEVICES=0,1", "env.visible_devices", "info"},
        {"CUDA_INJECTION64_PATH=/opt/nsight/libinjection.so", "env.profiler_injection", "warning"},
        {"NCCL_P2P_DISABLE=1", "env.nccl_p2p_disabled", "warning"},
        {"NCCL_IB_DISABLE=1", "env.nccl_ib_disabled", "info"}, /* a single-node job: no effect */
        {"NCCL_SHM_DISABLE=1", "env.nccl_shm_disabled", "warning"},
        {"NVIDIA_TF32_OVERRIDE=0", "env.tf32_disabled", "warning"},
        {"PYTORCH_NO_CUDA_MEMORY_CACHING=1", "env.no_caching_allocator", "warning"},
        {"CUDA_FORCE_PTX_JIT=1", "env.force_ptx_jit", "warning"},
        {"CUDA_MODULE_LOADING=EAGER", "env.eager_loading", "info"},
        {"CUDA_DISABLE_PTX_JIT=1", "env.ptx_jit_disabled", "warning"},
        {"CUBLAS_WORKSPACE_CONFIG=:0:0", "env.cublas_no_workspace", "warning"},
        {"OMP_NUM_THREADS=1", "env.omp_single_thread", "info"},
        {"NCCL_SOCKET_IFNAME=lo", "env.nccl_socket_ifname", "warning"},
        {"NCCL_SOCKET_IFNAME==docker0", "env.nccl_socket_ifname", "warning"},
        {"NCCL_NET_GDR_LEVEL=LOC", "env.nccl_gdr_level", "warning"},
        {"NCCL_NET=Socket", "env.nccl_ib_disabled", "info"}, /* a single-node job: no effect */
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        const char *const env[] = {CLEAN, cases[c].set, NULL};
        tool_result r = check("h100x8-training.json", NULL, env);
        if (strcmp(severity_of(r.json, cases[c].id), cases[c].severity) != 0)
            fail_msg("%s: %s is '%s', want %s", cases[c].set, cases[c].id, severity_of(r.json, cases[c].id),
                     cases[c].severity);
        tool_result_free(&r);
    }
    /* InfiniBand off matters once the job spans nodes. */
    static const char *const multi[][3] = {{"SLURM_JOB_NUM_NODES=4", NULL, NULL},
                                           {"WORLD_SIZE=16", "LOCAL_WORLD_SIZE=8", NULL},
                                           {"OMPI_COMM_WORLD_SIZE=16", "OMPI_COMM_WORLD_LOCAL_SIZE=8", NULL}};
    for (size_t c = 0; c < sizeof multi / sizeof multi[0]; c++) {
        const char *const env[] = {CLEAN, "NCCL_IB_DISABLE=1", multi[c][0],
                                   multi[c][1] ? multi[c][1] : "NNODES=", NULL};
        tool_result r = check("h100x8-training.json", NULL, env);
        if (strcmp(severity_of(r.json, "env.nccl_ib_disabled"), "warning") != 0)
            fail_msg("%s: env.nccl_ib_disabled is '%s', want warning", multi[c][0],
                     severity_of(r.json, "env.nccl_ib_disabled"));
        tool_result_free(&r);
    }
    const char *const one_node[] = {CLEAN, "NCCL_IB_DISABLE=1", "WORLD_SIZE=8", "LOCAL_WORLD_SIZE=8", NULL};
    tool_result one = check("h100x8-training.json", NULL, one_node);
    assert_string_equal(severity_of(one.json, "env.nccl_ib_disabled"), "info");
    tool_result_free(&one);
    /* Values that are fine. */
    const char *const ok[] = {CLEAN,
                              "CUDA_LAUNCH_BLOCKING=0",
                              "NCCL_P2P_DISABLE=0",
                              "CUDA_VISIBLE_DEVICES=0,1,2,3,4,5,6,7",
                              "NVIDIA_TF32_OVERRIDE=1",
                              "CUBLAS_WORKSPACE_CONFIG=:4096:8",
                              "OMP_NUM_THREADS=8",
                              "CUDA_DISABLE_PTX_JIT=0",
                              "NCCL_SOCKET_IFNAME=eth0",
                              "NCCL_NET_GDR_LEVEL=PHB",
                              "NCCL_NET=IB",
                              NULL};
    tool_result r = check("h100x8-training.json", NULL, ok);
    assert_int_equal(json_array_size(json_object_get(r.json, "findings")), 0);
    tool_result_free(&r);
}

static void pid_reads_the_jobs_environment(void **state)
{
    (void)state;
    pid_t child = fork();
    if (child == 0) {
        char *const argv[] = {"sleep", "30", NULL};
        char *const envp[] = {"CUDA_LAUNCH_BLOCKING=1", "PATH=/usr/bin:/bin", NULL};
        execve("/bin/sleep", argv, envp);
        _exit(127);
    }
    /* Until the child has exec'd, its environ is ours: wait for sleep's, bounded. */
    char environ_path[64];
    snprintf(environ_path, sizeof environ_path, "/proc/%d/environ", (int)child);
    for (int tries = 0; tries < 500; tries++) {
        char buf[256] = "";
        FILE *fp = fopen(environ_path, "r");
        size_t n = fp ? fread(buf, 1, sizeof buf - 1, fp) : 0;
        if (fp)
            fclose(fp);
        if (n && strncmp(buf, "CUDA_LAUNCH_BLOCKING=1", 22) == 0)
            break;
        usleep(10000);
    }
    char pid[32];
    snprintf(pid, sizeof pid, "%d", (int)child);
    static const char *const env[] = {CLEAN, NULL};
    /* The simulated GPUs with this machine's /proc as the scenario's: the job is real. */
    json_t *sc = json_load_file(example("h100x8-training.json"), 0, NULL);
    assert_non_null(sc);
    json_object_set_new(json_object_get(sc, "host"), "proc", json_string("/proc"));
    char *dir = temp_dir();
    char *text = json_dumps(sc, 0);
    char *path = write_temp_file(dir, "scenario.json", text);
    tool_result r =
        run_tool((const char *[]){"check", "--json", "--duration", "0", "--pid", pid, "--sim", path, NULL}, env);
    /* Without host.proc the scenario has no job to read, even while this
     * machine has a process of that pid: not checked, no guess. */
    tool_result plain = run_tool((const char *[]){"check", "--json", "--duration", "0", "--pid", pid, "--sim",
                                                  example("h100x8-training.json"), NULL},
                                 env);
    assert_false(has(plain.json, "env.launch_blocking", -1));
    tool_result_free(&plain);
    kill(child, SIGKILL);
    waitpid(child, NULL, 0);
    assert_non_null(r.json);
    assert_true(has(r.json, "env.launch_blocking", -1));
    tool_result_free(&r);
    remove_tree(dir);
    free(path);
    free(text);
    free(dir);
    json_decref(sc);
}

typedef struct scen_case {
    const char *scenario;
    int exit_code;
    const char *ids[6];
} scen_case;

static void configuration_and_health_scenarios(void **state)
{
    (void)state;
    static const scen_case cases[] = {
        {"h100x8-misconfigured.json",
         2,
         {"config.persistence_off@-1", "config.compute_mode@2", "config.mig_enabled@0", "config.ecc_disabled@6", NULL}},
        {"h100x8-memory-errors.json",
         2,
         {"health.ecc_uncorrectable@4", "health.row_remap@5", "health.row_remap@6", "health.row_remap@7", NULL}},
        {"h100x8-xid.json", 2, {"health.xid@3", "health.xid@4", "health.xid@1", NULL}},
    };
    static const char *const env[] = {CLEAN, NULL};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        tool_result r = check(cases[c].scenario, NULL, env);
        size_t want = 0;
        for (; cases[c].ids[want]; want++) {
            char id[64];
            snprintf(id, sizeof id, "%s", cases[c].ids[want]);
            char *at = strchr(id, '@');
            *at = '\0';
            if (!has(r.json, id, atoi(at + 1)))
                fail_msg("%s: no %s", cases[c].scenario, cases[c].ids[want]);
        }
        if (json_array_size(json_object_get(r.json, "findings")) != want || r.exit_code != cases[c].exit_code)
            fail_msg("%s: %zu findings (want %zu), exit %d: %s", cases[c].scenario,
                     json_array_size(json_object_get(r.json, "findings")), want, r.exit_code, r.out);
        tool_result_free(&r);
    }
    /* Severities an operator expects. */
    tool_result r = check("h100x8-misconfigured.json", NULL, env);
    assert_string_equal(severity_of(r.json, "config.persistence_off"), "info");
    assert_string_equal(severity_of(r.json, "config.compute_mode"), "critical");
    /* A partitioned node is deliberate until a job wants the whole GPU. */
    assert_string_equal(severity_of(r.json, "config.mig_enabled"), "info");
    tool_result_free(&r);
    static const char *const whole[] = {CLEAN, "CUDA_VISIBLE_DEVICES=0,1", NULL};
    r = check("h100x8-misconfigured.json", NULL, whole);
    assert_string_equal(severity_of(r.json, "config.mig_enabled"), "warning");
    tool_result_free(&r);
    static const char *const slice[] = {CLEAN, "CUDA_VISIBLE_DEVICES=MIG-4b7d2f10-7c3e-5a55-9a3e-0d8f1c2b3a4d", NULL};
    r = check("h100x8-misconfigured.json", NULL, slice);
    assert_string_equal(severity_of(r.json, "config.mig_enabled"), "info");
    tool_result_free(&r);
    r = check("h100x8-xid.json", NULL, env);
    size_t i;
    json_t *f;
    json_array_foreach(json_object_get(r.json, "findings"), i, f)
    {
        json_t *gpu = json_object_get(f, "gpu");
        json_t *xids = json_object_get(json_object_get(f, "evidence"), "xids");
        int xid = (int)json_integer_value(json_object_get(json_array_get(xids, 0), "xid"));
        int want = json_integer_value(gpu) == 3 ? 79 : json_integer_value(gpu) == 4 ? 119 : 13;
        assert_int_equal(xid, want);
        if (want == 79) /* dmesg and dmesg -T lines of the same event kind */
            assert_int_equal(json_integer_value(json_object_get(json_array_get(xids, 0), "count")), 2);
    }
    assert_string_equal(severity_of(r.json, "health.xid"), "critical");
    tool_result_free(&r);
}

static void text_report_shows_what_was_checked(void **state)
{
    (void)state;
    static const char *const env[] = {CLEAN, NULL};
    /* By default a line or two; --details lists every group. */
    tool_result r =
        run_tool((const char *[]){"check", "--duration", "0", "--sim", example("h100x8-training.json"), NULL}, env);
    assert_int_equal(r.exit_code, 0);
    assert_non_null(strstr(r.out, "Judged "));
    assert_null(strstr(r.out, "\nChecked"));
    tool_result_free(&r);
    r = run_tool(
        (const char *[]){"check", "--details", "--duration", "0", "--sim", example("h100x8-training.json"), NULL}, env);
    assert_int_equal(r.exit_code, 0);
    assert_non_null(strstr(r.out, "\nChecked"));
    assert_non_null(strstr(r.out, "software stack"));
    assert_non_null(strstr(r.out, "configuration"));
    assert_non_null(strstr(r.out, "health"));
    tool_result_free(&r);
    r = check("h100x8-training.json", NULL, env);
    json_t *checked = json_object_get(r.json, "checked");
    assert_true(json_array_size(checked) >= 3);
    bool stack = false;
    size_t i;
    json_t *g;
    json_array_foreach(checked, i, g) stack |= strcmp(json_string_value(json_object_get(g, "group")), "stack") == 0;
    assert_true(stack);
    tool_result_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(consistent_machines_have_none_of_these),
        cmocka_unit_test(simulation_does_not_scan_this_machine),
        cmocka_unit_test(driver_too_old_minor_and_forward_compat),
        cmocka_unit_test(architectures),
        cmocka_unit_test(oversized_library_is_refused_with_the_reason),
        cmocka_unit_test(environment_variables),
        cmocka_unit_test(pid_reads_the_jobs_environment),
        cmocka_unit_test(configuration_and_health_scenarios),
        cmocka_unit_test(text_report_shows_what_was_checked),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
