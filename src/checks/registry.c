/* The check registry: an explicit table, in report order. Checks that look
 * at other findings (clocks.outlier) come after the ones they defer to. */
#include "checks_internal.h"
#include "gpudoctor/stack.h"

/* One row per check, one line per row: clang-format leaves the table alone. */
/* clang-format off */
const gd_check gd_checks[] = {
    {"driver.missing", "driver", "an NVIDIA driver (NVML) can be loaded", 0, gd_check_driver_missing},
    {"gpu.none", "driver", "the driver reports at least one GPU", 0, gd_check_gpu_none},
    {"capture", "capture", "what the evidence could not show: captures (--from), windows longer than kept", 0, gd_check_capture_limits},
    {"health.gpu_lost", "health", "every GPU answers for the whole window", 0, gd_check_gpu_lost},
    {"health.sensors_failing", "health", "every sensor that answered keeps answering", 0, gd_check_sensors_failing},
    {"thermal.throttling", "thermal", "no thermal slowdown under load", 0, gd_check_thermal_throttling},
    {"thermal.hot", "thermal", "GPU and memory temperature stay clear of their limits", 0, gd_check_thermal_hot},
    {"thermal.outlier", "thermal", "no GPU runs much hotter than its peers", 0, gd_check_thermal_outlier},
    {"power.limit_lowered", "power", "the power limit is the board's default", 0, gd_check_power_limit_lowered},
    {"power.brake", "power", "no hardware power brake", 0, gd_check_power_brake},
    {"power.hw_slowdown", "power", "no unexplained hardware slowdown", 0, gd_check_power_hw_slowdown},
    {"power.capped", "power", "time at the power cap, for context", 0, gd_check_power_capped},
    {"clocks.locked", "clocks", "application and locked clocks are at their defaults", 0, gd_check_clocks_locked},
    {"clocks.low", "clocks", "SM clock near its maximum under load", 0, gd_check_clocks_low},
    {"clocks.outlier", "clocks", "no GPU runs much slower than its peers", 0, gd_check_clocks_outlier},
    {"pcie.link_downgraded", "pcie", "each GPU's link at its maximum generation and width under load", 0, gd_check_pcie_link_downgraded},
    {"pcie.slot_limited", "pcie", "each card in a slot that allows its own maximum PCIe generation and width", 0, gd_check_pcie_slot_limited},
    {"pcie.upstream_downgraded", "pcie", "every switch link above a GPU at its maximum", GD_NEED_PCIE, gd_check_pcie_upstream_downgraded},
    {"pcie.replays", "pcie", "PCIe replays within what the link's bit error rate allows", 0, gd_check_pcie_replays},
    {"pcie.aer_errors", "pcie", "no uncorrectable and few correctable AER errors on a GPU's path", 0, gd_check_pcie_aer_errors},
    {"pcie.bandwidth_low", "pcie", "measured host-device bandwidth near what the link allows", 0, gd_check_pcie_bandwidth_low},
    {"topology.numa_mismatch", "topology", "the job runs and allocates on its GPU's NUMA node", GD_NEED_JOB | GD_NEED_PCIE, gd_check_numa_mismatch},
    {"topology.iommu_p2p", "topology", "no IOMMU translation between GPUs that talk over PCIe", 0, gd_check_iommu_p2p},
    {"nvlink.down", "nvlink", "every NVLink link active", 0, gd_check_nvlink_down},
    {"vram.near_full", "vram", "memory use under load stays below 95% of total", 0, gd_check_vram_near_full},
    {"vram.growing", "vram", "memory use does not keep rising across the window", 0, gd_check_vram_growing},
    {"vram.foreign_process", "vram", "no other process holds memory on the job's GPUs", GD_NEED_JOB, gd_check_vram_foreign_process},
    {"gpu.underutilized", "utilization", "a GPU whose memory a process holds is busy most of the window", 0, gd_check_gpu_underutilized},
    {"input.single_thread", "input", "no single thread of the job saturated while its GPUs wait", GD_NEED_JOB, gd_check_input_single_thread},
    {"input.starved", "input", "the job's host side keeps its GPUs fed", GD_NEED_JOB, gd_check_input_starved},
    {"input.io_wait", "input", "the job does not wait on storage", GD_NEED_JOB, gd_check_input_io_wait},
    {"input.swapping", "input", "the host does not swap while the job runs", GD_NEED_JOB, gd_check_input_swapping},
    {"input.few_workers", "input", "the job's loader workers keep up, or it has no CPUs to spare", GD_NEED_JOB, gd_check_input_few_workers},
    {"input.affinity_narrow", "input", "the job's CPU affinity leaves it the CPUs it keeps busy", GD_NEED_JOB, gd_check_input_affinity_narrow},
    {"input.workers_respawned", "input", "the job's worker processes live across epochs", GD_NEED_JOB, gd_check_input_workers_respawned},
    {"input.cpu_governor", "input", "the CPU frequency governor does not pin the lowest frequency", GD_NEED_JOB, gd_check_input_cpu_governor},
    {"cuda.driver_too_old", "stack", "every CUDA runtime found can run on the installed driver", GD_NEED_STACK, gd_check_cuda_driver_too_old},
    {"cuda.minor_compat", "stack", "runtimes newer than the driver's CUDA, run by minor-version compatibility", GD_NEED_STACK, gd_check_cuda_minor_compat},
    {"cuda.forward_compat", "stack", "a forward-compatibility package, when one is needed, is on the loader path", GD_NEED_STACK, gd_check_cuda_forward_compat},
    {"cuda.framework_cpu_only", "stack", "PyTorch is a CUDA build", GD_NEED_STACK, gd_check_cuda_cpu_only},
    {"cuda.arch_unsupported", "stack", "the framework build and toolkits carry code for each GPU's architecture", GD_NEED_STACK, gd_check_cuda_arch_unsupported},
    {"cuda.ptx_jit", "stack", "no GPU is served by PTX JIT only", GD_NEED_STACK, gd_check_cuda_ptx_jit},
    {"env.visible_devices", "stack", "CUDA_VISIBLE_DEVICES names GPUs that exist", GD_NEED_ENV, gd_check_env_visible_devices},
    {"env.device_order", "stack", "CUDA's GPU numbering matches nvidia-smi's on mixed nodes", GD_NEED_ENV, gd_check_env_device_order},
    {"env.launch_blocking", "stack", "CUDA_LAUNCH_BLOCKING is off", GD_NEED_ENV, gd_check_env_launch_blocking},
    {"env.profiler_injection", "stack", "no profiler, debugger or core-dump injection variables", GD_NEED_ENV, gd_check_env_profiler_injection},
    {"env.nccl_p2p_disabled", "stack", "NCCL may use NVLink and PCIe peer-to-peer", GD_NEED_ENV, gd_check_env_nccl_p2p_disabled},
    {"env.nccl_ib_disabled", "stack", "NCCL may use InfiniBand/RoCE", GD_NEED_ENV, gd_check_env_nccl_ib_disabled},
    {"env.nccl_shm_disabled", "stack", "NCCL may use shared memory", GD_NEED_ENV, gd_check_env_nccl_shm_disabled},
    {"env.tf32_disabled", "stack", "TF32 is not forced off on Ampere and newer", GD_NEED_ENV, gd_check_env_tf32_disabled},
    {"env.no_caching_allocator", "stack", "PyTorch's caching allocator is on", GD_NEED_ENV, gd_check_env_no_caching_allocator},
    {"env.force_ptx_jit", "stack", "CUDA_FORCE_PTX_JIT is off", GD_NEED_ENV, gd_check_env_force_ptx_jit},
    {"env.cache_disabled", "stack", "the CUDA JIT cache is on", GD_NEED_ENV, gd_check_env_cache_disabled},
    {"env.eager_loading", "stack", "CUDA modules load lazily", GD_NEED_ENV, gd_check_env_eager_loading},
    {"env.ptx_jit_disabled", "stack", "the driver may JIT-compile PTX", GD_NEED_ENV, gd_check_env_ptx_jit_disabled},
    {"env.cublas_no_workspace", "stack", "cuBLAS has a workspace", GD_NEED_ENV, gd_check_env_cublas_no_workspace},
    {"env.omp_single_thread", "stack", "CPU-side work may use more than one thread", GD_NEED_ENV, gd_check_env_omp_single_thread},
    {"config.persistence_off", "config", "persistence mode on", 0, gd_check_config_persistence},
    {"config.compute_mode", "config", "compute mode lets the job create its contexts", 0, gd_check_config_compute_mode},
    {"config.mig_enabled", "config", "MIG off, or chosen by the job", 0, gd_check_config_mig},
    {"config.ecc_disabled", "config", "ECC on for data-center GPUs", 0, gd_check_config_ecc},
    {"health.ecc_uncorrectable", "health", "no uncorrectable ECC errors", 0, gd_check_ecc_uncorrectable},
    {"health.row_remap", "health", "no pending or failed row remapping; retired pages below DCGM's limits", 0, gd_check_row_remap},
    {"health.xid", "health", "no Xid errors in the kernel log", GD_NEED_KERNEL_LOG, gd_check_xid},
};
/* clang-format on */
const size_t gd_checks_count = sizeof gd_checks / sizeof gd_checks[0];

const gd_check *gd_check_find(const char *id)
{
    for (size_t i = 0; i < gd_checks_count; i++)
        if (strcmp(gd_checks[i].id, id) == 0)
            return &gd_checks[i];
    return NULL;
}

/* Why a need is not met, or NULL when it is. */
static const char *unmet(unsigned need, const gd_facts *f)
{
    const struct gd_stack_facts *s = f->stack;
    switch (need) {
    case GD_NEED_PCIE: return f->pcie ? NULL : "the PCIe tree is not known (no sysfs tree, no lspci capture)";
    case GD_NEED_JOB: return f->pid >= 0 ? NULL : "no --pid: give the training process's pid to judge the job";
    case GD_NEED_STACK: return s ? NULL : "the software stack was not collected";
    case GD_NEED_ENV:
        return s && s->env_read ? NULL : s && s->env_error[0] ? s->env_error : "the job's environment was not read";
    case GD_NEED_KERNEL_LOG:
        return s && s->kernel_log_read       ? NULL
               : s && s->kernel_log_error[0] ? s->kernel_log_error
                                             : "the kernel log was not read";
    }
    return NULL;
}

void gd_check_run(const gd_check *c, const gd_facts *f, gd_findings *out)
{
    for (unsigned need = 1; need && need <= c->needs; need <<= 1) {
        const char *why = c->needs & need ? unmet(need, f) : NULL;
        if (why) {
            gd_skip_add(out, c->id, GD_NO_GPU, "%s", why);
            return;
        }
    }
    c->run(c, f, out);
}

void gd_checks_run_all(const gd_facts *f, gd_findings *out)
{
    for (size_t i = 0; i < gd_checks_count; i++)
        gd_check_run(&gd_checks[i], f, out);
    gd_sources_of_capture(f, out);
    gd_findings_sort(out);
}
