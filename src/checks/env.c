/* SPDX-License-Identifier: Apache-2.0 */
/* The job's environment: variables that slow training down or hide GPUs.
 * Sources: research/facts.md section 5 (CUDA, NCCL and PyTorch docs) and
 * DCGM's list of bad variables (nvvs/src/Software.cpp checkForBadEnvVaribles). */
#include "checks_internal.h"
#include "gpudoctor/net.h"
#include "gpudoctor/stack.h"
#include "net_ports.h"

#include <ctype.h>
#include <stdlib.h>
#include <strings.h>

typedef struct env_rule {
    const char *id;
    const char *const *vars; /* NULL-terminated */
    bool (*bad)(const char *value);
    gd_severity sev;
    const char *effect; /* title after "NAME=value: " */
    const char *fix;
} env_rule;

static bool truthy(const char *v)
{
    return *v && strcmp(v, "0") != 0 && strcasecmp(v, "false") != 0 && strcasecmp(v, "no") != 0 &&
           strcasecmp(v, "off") != 0;
}
static bool any_value(const char *v)
{
    return *v != '\0';
}
static bool is_zero(const char *v)
{
    return strcmp(v, "0") == 0;
}
static bool is_eager(const char *v)
{
    return strcasecmp(v, "EAGER") == 0;
}
/* CUBLAS_WORKSPACE_CONFIG=:0:0 (or any :0:N): no workspace for cuBLAS. */
static bool no_workspace(const char *v)
{
    return strncmp(v, ":0:", 3) == 0;
}
static bool is_one(const char *v)
{
    return strcmp(v, "1") == 0;
}
/* NCCL_NET=Socket: NCCL's TCP transport only. */
static bool net_socket(const char *v)
{
    return strcasecmp(v, "Socket") == 0;
}
/* NCCL_P2P_LEVEL LOC or 0: never use P2P. */
static bool p2p_off(const char *v)
{
    return truthy(v) ? strcasecmp(v, "LOC") == 0 : is_zero(v);
}

static const char *const v_launch[] = {"CUDA_LAUNCH_BLOCKING", NULL};
static const char *const v_inject[] = {"CUDA_INJECTION64_PATH",
                                       "CUDA_INJECTION32_PATH",
                                       "NSIGHT_CUDA_DEBUGGER",
                                       "CUDA_PROFILE",
                                       "COMPUTE_PROFILE",
                                       "OPENCL_PROFILE",
                                       "CUDA_ENABLE_COREDUMP_ON_EXCEPTION",
                                       "CUDA_COREDUMP_FILE",
                                       "CUDA_DEVICE_WAITS_ON_EXCEPTION",
                                       "CUDA_AUTO_BOOST",
                                       NULL};
static const char *const v_p2p[] = {"NCCL_P2P_DISABLE", NULL};
static const char *const v_p2p_level[] = {"NCCL_P2P_LEVEL", NULL};
static const char *const v_ib[] = {"NCCL_IB_DISABLE", NULL};
static const char *const v_net[] = {"NCCL_NET", NULL};
static const char *const v_shm[] = {"NCCL_SHM_DISABLE", NULL};
static const char *const v_tf32[] = {"NVIDIA_TF32_OVERRIDE", NULL};
static const char *const v_alloc[] = {"PYTORCH_NO_CUDA_MEMORY_CACHING", NULL};
static const char *const v_jit[] = {"CUDA_FORCE_PTX_JIT", NULL};
static const char *const v_cache[] = {"CUDA_CACHE_DISABLE", NULL};
static const char *const v_eager[] = {"CUDA_MODULE_LOADING", NULL};
static const char *const v_nojit[] = {"CUDA_DISABLE_PTX_JIT", NULL};
static const char *const v_cublas[] = {"CUBLAS_WORKSPACE_CONFIG", NULL};
static const char *const v_omp[] = {"OMP_NUM_THREADS", NULL};

static const env_rule rules[] = {
    {"env.launch_blocking", v_launch, truthy, GD_SEV_WARNING,
     "every kernel launch waits for the GPU to finish (a debugging setting)",
     "Unset it ('unset CUDA_LAUNCH_BLOCKING', and remove it from the job script, .bashrc or the "
     "launcher config). It serialises the CPU and GPU: large slowdowns, no overlap of data loading and compute."},
    {"env.profiler_injection", v_inject, any_value, GD_SEV_WARNING,
     "a profiler, debugger or core-dump hook is injected into every CUDA process",
     "Unset it outside profiling sessions: injection libraries (Nsight, CUPTI tools) intercept every CUDA call, "
     "and the exception/core-dump settings change how kernels run. DCGM's software test flags these too."},
    {"env.nccl_p2p_disabled", v_p2p, truthy, GD_SEV_WARNING,
     "NCCL does not use NVLink or PCIe peer-to-peer: GPU-to-GPU traffic goes through host memory",
     "Unset NCCL_P2P_DISABLE. It is a workaround for broken P2P (IOMMU/ACS on, some virtual machines); if P2P "
     "really hangs, fix that instead (disable ACS or put the IOMMU in passthrough, check 'nvidia-smi topo -p2p r')."},
    {"env.nccl_p2p_disabled", v_p2p_level, p2p_off, GD_SEV_WARNING, "NCCL may not use peer-to-peer between any GPUs",
     "Unset NCCL_P2P_LEVEL (NCCL picks the distance from the topology), or raise it to NVL/PIX/PXB/PHB/SYS."},
    {"env.nccl_ib_disabled", v_ib, truthy, GD_SEV_WARNING,
     "NCCL does not use InfiniBand/RoCE: multi-node collectives fall back to TCP sockets",
     "Unset NCCL_IB_DISABLE on nodes with InfiniBand or RoCE NICs (harmless on a single node). If IB fails, "
     "look at 'ibstat' and NCCL_DEBUG=INFO output instead of turning it off."},
    {"env.nccl_ib_disabled", v_net, net_socket, GD_SEV_WARNING,
     "NCCL is told to use TCP sockets: multi-node collectives do not use InfiniBand/RoCE",
     "Unset NCCL_NET (NCCL picks IB when an RDMA device is active, else Socket) on nodes with InfiniBand or RoCE "
     "NICs. If IB fails, look at 'ibstat' and NCCL_DEBUG=INFO output instead of turning it off."},
    {"env.nccl_shm_disabled", v_shm, truthy, GD_SEV_WARNING,
     "NCCL does not use shared memory: traffic between sockets may go through the network",
     "Unset NCCL_SHM_DISABLE unless /dev/shm is too small (in containers, start them with --shm-size or --ipc=host)."},
    {"env.tf32_disabled", v_tf32, is_zero, GD_SEV_WARNING,
     "cuBLAS and cuDNN are told not to use TF32: FP32 matmuls and convolutions lose the tensor cores",
     "Unset NVIDIA_TF32_OVERRIDE unless full FP32 precision is required (TF32 is ~7x faster for FP32 GEMMs on "
     "A100 per PyTorch's docs). In PyTorch prefer torch.set_float32_matmul_precision('high')."},
    {"env.no_caching_allocator", v_alloc, truthy, GD_SEV_WARNING,
     "PyTorch's caching allocator is off: every tensor allocation calls cudaMalloc/cudaFree (synchronising)",
     "Unset PYTORCH_NO_CUDA_MEMORY_CACHING (a debugging setting for memory checkers). For fragmentation use "
     "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True instead."},
    {"env.force_ptx_jit", v_jit, truthy, GD_SEV_WARNING,
     "the driver ignores native code and JIT-compiles PTX for every kernel",
     "Unset CUDA_FORCE_PTX_JIT (a compatibility-testing setting): start-up takes minutes and fails for "
     "kernels shipped without PTX."},
    {"env.cache_disabled", v_cache, truthy, GD_SEV_INFO,
     "the CUDA JIT cache is off: PTX is compiled again at every start",
     "Unset CUDA_CACHE_DISABLE. It only costs time when kernels are JIT-compiled (PTX-only builds, Triton)."},
    {"env.eager_loading", v_eager, is_eager, GD_SEV_INFO,
     "CUDA loads every kernel module at start instead of on first use",
     "Unset CUDA_MODULE_LOADING (LAZY is the default since CUDA 12.2): eager loading costs start-up time and "
     "hundreds of MiB of GPU memory per process (PyTorch measured ~636 vs ~274 MiB, pytorch#86509)."},
    {"env.ptx_jit_disabled", v_nojit, truthy, GD_SEV_WARNING,
     "the driver may not JIT-compile PTX: kernels shipped only as PTX for this GPU fail to load",
     "Unset CUDA_DISABLE_PTX_JIT unless every library carries native code (SASS) for this GPU's architecture; "
     "with it set, a framework built without this GPU's sm_XX fails instead of compiling its PTX."},
    {"env.cublas_no_workspace", v_cublas, no_workspace, GD_SEV_WARNING,
     "cuBLAS gets no workspace, which rules out its faster split-K GEMM algorithms",
     "Use CUBLAS_WORKSPACE_CONFIG=:4096:8 (or :16:8) if deterministic cuBLAS is the aim, as PyTorch's "
     "reproducibility notes do; ':0:0' costs GEMM speed."},
    {"env.omp_single_thread", v_omp, is_one, GD_SEV_INFO,
     "CPU-side work in each process (data preprocessing, CPU ops) runs on one OpenMP thread",
     "torchrun sets OMP_NUM_THREADS=1 per process when it is unset. If the data pipeline or CPU ops are slow, "
     "set it to the cores per process (e.g. nproc / processes per node) in the launcher."},
};

static long env_long(const gd_stack_facts *s, const char *name)
{
    const char *v = gd_stack_getenv(s, name);
    char *end;
    long n = v && *v ? strtol(v, &end, 10) : -1;
    return v && *v && *end == '\0' ? n : -1;
}

/* True when the job's environment shows it spans several nodes: Slurm's
 * node count, or a world larger than the local one (torchrun, Open MPI). */
static bool multi_node_job(const gd_stack_facts *s)
{
    static const char *const nodes[] = {"SLURM_JOB_NUM_NODES", "SLURM_NNODES", "NNODES", NULL};
    static const char *const worlds[][2] = {{"WORLD_SIZE", "LOCAL_WORLD_SIZE"},
                                            {"OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_SIZE"}};
    for (const char *const *n = nodes; *n; n++)
        if (env_long(s, *n) > 1)
            return true;
    for (size_t i = 0; i < sizeof worlds / sizeof worlds[0]; i++) {
        long world = env_long(s, worlds[i][0]), local = env_long(s, worlds[i][1]);
        if (world > 0 && local > 0 && world > local)
            return true;
    }
    return false;
}

/* Runs rules[] rows with this id. */
static void run_rules(const gd_facts *f, gd_findings *out, const char *id)
{
    const gd_stack_facts *s = f->stack; /* read: the table's needs */
    for (size_t r = 0; r < sizeof rules / sizeof rules[0]; r++) {
        if (strcmp(rules[r].id, id) != 0)
            continue;
        for (const char *const *v = rules[r].vars; *v; v++) {
            const char *val = gd_stack_getenv(s, *v);
            if (!val || !rules[r].bad(val))
                continue;
            /* TF32 exists on Ampere and newer only. */
            if (strcmp(id, "env.tf32_disabled") == 0 &&
                !(f->gpu_count && gd_ok(f->gpus[0].cc_major) && f->gpus[0].cc_major.v >= 8))
                continue;
            gd_severity sev = rules[r].sev;
            const char *scope = "";
            /* Without InfiniBand use on one node, turning it off costs nothing;
             * nor on a node without an RDMA port. Where ports are active, say so. */
            char rdma[96] = "";
            if (strcmp(id, "env.nccl_ib_disabled") == 0) {
                size_t active = gd_net_active_ports(f);
                if (!multi_node_job(s)) {
                    sev = GD_SEV_INFO;
                    scope = " (no effect on a single-node job)";
                } else if (f->net && f->net->devices_read && active == 0) {
                    sev = GD_SEV_INFO;
                    scope = " (no active RDMA port on this node)";
                }
                if (active)
                    snprintf(rdma, sizeof rdma, ", although %zu RDMA port%s %s active here", active,
                             active == 1 ? "" : "s", active == 1 ? "is" : "are");
            }
            json_t *ev = json_object();
            json_object_set_new(ev, "variable", json_string(*v));
            json_object_set_new(ev, "value", json_string(val));
            char src[160];
            snprintf(src, sizeof src, "environment: %.140s", s->env_source);
            json_object_set_new(ev, "source", json_string(src));
            gd_finding_add(out, id, sev, GD_NO_GPU, ev, NAN, rules[r].fix, "%s=%.40s: %s%s%s", *v, val, rules[r].effect,
                           rdma, scope);
        }
    }
}

void gd_check_env_launch_blocking(const gd_check *self, const gd_facts *f, gd_findings *out)
{
    run_rules(f, out, self->id);
}
void gd_check_env_profiler_injection(const gd_check *self, const gd_facts *f, gd_findings *out)
{
    run_rules(f, out, self->id);
}
void gd_check_env_nccl_p2p_disabled(const gd_check *self, const gd_facts *f, gd_findings *out)
{
    run_rules(f, out, self->id);
}
void gd_check_env_nccl_ib_disabled(const gd_check *self, const gd_facts *f, gd_findings *out)
{
    run_rules(f, out, self->id);
}
void gd_check_env_nccl_shm_disabled(const gd_check *self, const gd_facts *f, gd_findings *out)
{
    run_rules(f, out, self->id);
}
void gd_check_env_tf32_disabled(const gd_check *self, const gd_facts *f, gd_findings *out)
{
    run_rules(f, out, self->id);
}
void gd_check_env_no_caching_allocator(const gd_check *self, const gd_facts *f, gd_findings *out)
{
    run_rules(f, out, self->id);
}
void gd_check_env_force_ptx_jit(const gd_check *self, const gd_facts *f, gd_findings *out)
{
    run_rules(f, out, self->id);
}
void gd_check_env_cache_disabled(const gd_check *self, const gd_facts *f, gd_findings *out)
{
    run_rules(f, out, self->id);
}
void gd_check_env_eager_loading(const gd_check *self, const gd_facts *f, gd_findings *out)
{
    run_rules(f, out, self->id);
}
void gd_check_env_ptx_jit_disabled(const gd_check *self, const gd_facts *f, gd_findings *out)
{
    run_rules(f, out, self->id);
}
void gd_check_env_cublas_no_workspace(const gd_check *self, const gd_facts *f, gd_findings *out)
{
    run_rules(f, out, self->id);
}
void gd_check_env_omp_single_thread(const gd_check *self, const gd_facts *f, gd_findings *out)
{
    run_rules(f, out, self->id);
}
