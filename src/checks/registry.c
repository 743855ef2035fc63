/* SPDX-License-Identifier: Apache-2.0 */
/* The check registry: an explicit table, in report order. Checks that look
 * at other findings (clocks.outlier) come after the ones they defer to. */
#include "analysis/window_acc.h"
#include "checks_internal.h"
#include "gpudoctor/stack.h"

#include <assert.h>

/* The fix templates of the rows below (a check writes its own where the
 * evidence decides the fix). */
static const char gd_fix_cooling[] =
    "Improve cooling: check the server's fans ('ipmitool sdr type Fan') and fan profile (set it "
    "to performance / full speed in the BMC), inlet (ambient) temperature, blanking panels and "
    "cable clutter in the airflow path, dust on heatsinks and filters, and spacing between "
    "cards; on older boards, thermal paste and pads. Watch it with 'nvidia-smi dmon -s pc'.";
static const char gd_fix_power_brake[] =
    "The power brake is an external signal: the system (PSU, power distribution or BMC) asks the GPU to slow "
    "down because it is near its power or current limit. Check the BMC's event log ('ipmitool sel elist') and "
    "PSU status ('ipmitool sdr type \"Power Supply\"'), that every PSU is connected and redundant supplies are "
    "healthy, and the rack's power budget. Not fixable from the OS.";
static const char gd_fix_vram_growing[] =
    "Memory that keeps rising is a leak or a cache without a bound: tensors kept across steps (a loss summed "
    "without .item() or .detach(), outputs appended to a list), caches of compiled graphs, or batches of "
    "ever new shapes feeding the caching allocator new block sizes. Log torch.cuda.memory_allocated() and "
    "memory_reserved() each step: allocated rising is a leak in the script; only reserved rising is the "
    "allocator (try PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True). torch.cuda.memory._record_memory_history() "
    "and _dump_snapshot() show which code allocates.";
static const char gd_fix_vram_foreign[] =
    "Another process holds memory on a GPU this job trains on: the job has that much less for its batch, "
    "and the two share the GPU's SMs by time-slicing. Name them with 'nvidia-smi "
    "--query-compute-apps=pid,process_name,used_memory --format=csv', stop the strays, and give each job its "
    "own GPUs (CUDA_VISIBLE_DEVICES, Slurm --gres=gpu, the Kubernetes device plugin). Compute mode "
    "EXCLUSIVE_PROCESS ('nvidia-smi -i N -c EXCLUSIVE_PROCESS') keeps a second process off a training GPU.";
static const char gd_fix_hw_slowdown[] =
    "HW Slowdown halves the clocks or worse. Without a thermal or power-brake reason it "
    "usually means the board's power input: reseat the 8-pin / 12VHPWR power cables and check "
    "for melted or loose connectors, check the PSU capacity and the rails feeding this GPU, "
    "and the board's temperature sensors ('nvidia-smi -q -d PERFORMANCE,TEMPERATURE'). If it "
    "stays after that, the board needs service.";
static const char gd_fix_power_capped[] =
    "Normal for heavy kernels at the default limit: the GPU trades clock for power. Nothing "
    "to fix unless the limit was lowered; a higher limit, where the board allows it "
    "('nvidia-smi -q -d POWER', Max Power Limit), buys some clock.";
static const char gd_fix_iommu_p2p[] =
    "With the IOMMU translating DMA, peer-to-peer traffic between GPUs (and GPUDirect RDMA) is sent up to "
    "the root complex instead of across the switch, or fails: NCCL's troubleshooting guide asks for the "
    "IOMMU in passthrough and PCI ACS disabled on bare metal. Boot with 'iommu=pt' (plus intel_iommu=on or "
    "amd_iommu=on if needed), check ACS with 'sudo lspci -vvv | grep ACSCtl' (SrcValid+ redirects), and "
    "verify with 'nvidia-smi topo -p2p r' and NCCL's all_reduce_perf.";

/* One row per check, one line per row: clang-format leaves the table alone. */
/* clang-format off */
const gd_check gd_checks[] = {
    {"driver.missing", "driver", "an NVIDIA driver (NVML) can be loaded", 0, gd_check_driver_missing, GD_SEVS_CRITICAL, NULL},
    {"gpu.none", "driver", "the driver reports at least one GPU", 0, gd_check_gpu_none, GD_SEVS_CRITICAL, NULL},
    {"capture", "capture", "what the evidence could not show: captures (--from), windows longer than kept", 0, gd_check_capture_limits, GD_SEVS_NONE, NULL},
    {"health.gpu_lost", "health", "every GPU answers for the whole window", 0, gd_check_gpu_lost, GD_SEVS_WARNING | GD_SEVS_CRITICAL, NULL},
    {"health.driver_unresponsive", "health", "the driver answers for the whole window", 0, gd_check_driver_unresponsive, GD_SEVS_CRITICAL,
     "The NVIDIA driver stopped answering for every GPU (a hung GPU, a driver reload, a full kernel log of NVRM "
     "errors): look at 'dmesg -T' for NVRM and Xid lines at that time and 'nvidia-smi'; a driver that does not "
     "recover needs the node drained and rebooted."},
    {"health.sensors_failing", "health", "every sensor that answered keeps answering", 0, gd_check_sensors_failing, GD_SEVS_WARNING, NULL},
    {"thermal.throttling", "thermal", "no thermal slowdown under load", 0, gd_check_thermal_throttling, GD_SEVS_WARNING | GD_SEVS_CRITICAL, gd_fix_cooling},
    {"thermal.hot", "thermal", "GPU and memory temperature stay clear of their limits", 0, gd_check_thermal_hot, GD_SEVS_INFO | GD_SEVS_WARNING, gd_fix_cooling},
    {"thermal.outlier", "thermal", "no GPU runs much hotter than its peers", 0, gd_check_thermal_outlier, GD_SEVS_WARNING, NULL},
    {"power.limit_lowered", "power", "the power limit is the board's default", 0, gd_check_power_limit_lowered, GD_SEVS_WARNING | GD_SEVS_CRITICAL, NULL},
    {"power.brake", "power", "no hardware power brake", 0, gd_check_power_brake, GD_SEVS_INFO | GD_SEVS_WARNING | GD_SEVS_CRITICAL, gd_fix_power_brake},
    {"power.hw_slowdown", "power", "no unexplained hardware slowdown", 0, gd_check_power_hw_slowdown, GD_SEVS_WARNING | GD_SEVS_CRITICAL, gd_fix_hw_slowdown},
    {"power.capped", "power", "time at the power cap, for context", 0, gd_check_power_capped, GD_SEVS_INFO, gd_fix_power_capped},
    {"clocks.locked", "clocks", "application and locked clocks are at their defaults", 0, gd_check_clocks_locked, GD_SEVS_WARNING | GD_SEVS_CRITICAL, NULL},
    {"clocks.low", "clocks", "SM clock near its maximum under load", 0, gd_check_clocks_low, GD_SEVS_WARNING | GD_SEVS_CRITICAL, NULL},
    {"clocks.outlier", "clocks", "no GPU runs much slower than its peers", 0, gd_check_clocks_outlier, GD_SEVS_WARNING | GD_SEVS_CRITICAL, NULL},
    {"pcie.link_downgraded", "pcie", "each GPU's link at its maximum generation and width under load", 0, gd_check_pcie_link_downgraded, GD_SEVS_WARNING | GD_SEVS_CRITICAL, NULL},
    {"pcie.width_reduced", "pcie", "each idle GPU's link trained at its full width (idle links slow down, seldom narrow)", 0, gd_check_pcie_width_reduced, GD_SEVS_INFO, NULL},
    {"pcie.slot_limited", "pcie", "each card in a slot that allows its own maximum PCIe generation and width", 0, gd_check_pcie_slot_limited, GD_SEVS_WARNING, NULL},
    {"pcie.upstream_downgraded", "pcie", "every switch link above a GPU at its maximum", GD_NEED_PCIE, gd_check_pcie_upstream_downgraded, GD_SEVS_WARNING | GD_SEVS_CRITICAL, NULL},
    {"pcie.replays", "pcie", "PCIe replays within what the link's bit error rate allows", 0, gd_check_pcie_replays, GD_SEVS_WARNING | GD_SEVS_CRITICAL, NULL},
    {"pcie.aer_errors", "pcie", "no uncorrectable and few correctable AER errors on a GPU's path", 0, gd_check_pcie_aer_errors, GD_SEVS_INFO | GD_SEVS_WARNING | GD_SEVS_CRITICAL, NULL},
    {"pcie.bandwidth_low", "pcie", "measured host-device bandwidth near what the link allows", 0, gd_check_pcie_bandwidth_low, GD_SEVS_WARNING | GD_SEVS_CRITICAL, NULL},
    {"bench.failed", "bench", "every GPU's benchmark work ran and returned the right results", 0, gd_check_bench_failed, GD_SEVS_CRITICAL, "A GPU that computes or copies wrong results corrupts training silently (NaN losses, diverging runs): take it out of service ('scontrol update nodename=N state=drain reason=...'), run 'dcgmi diag -r 3' or NVIDIA's field diagnostic, and have it replaced if it fails again."},
    {"bench.gemm_low", "bench", "GEMM throughput near the node's peers and the SKU's datasheet", 0, gd_check_bench_gemm_low, GD_SEVS_WARNING | GD_SEVS_CRITICAL, NULL},
    {"bench.above_datasheet", "bench", "no measured figure above the SKU's datasheet (a measurement or identification error)", 0, gd_check_bench_above_datasheet, GD_SEVS_WARNING, "A figure above the datasheet cannot be the GPU's: check that the product name NVML reports is the card installed ('nvidia-smi -q': Product Name, Board Part Number) and that gpudoctor matched the right datasheet row (the evidence's sku; data/gpu-peaks.tsv); under a simulation, the scenario's figures. Then measure again ('gpudoctor bench gemm', 'gpudoctor bench membw'): a figure that stays above it is a timing fault to report. Until then, do not compare this GPU's figures with others'."},
    {"p2p.slow_pair", "bench", "GPU-to-GPU copies as fast as their path allows and as their peers", 0, gd_check_p2p_slow_pair, GD_SEVS_WARNING | GD_SEVS_CRITICAL, NULL},
    {"p2p.sys_route", "bench", "GPU pairs across CPUs not far slower than pairs within one", 0, gd_check_p2p_sys_route, GD_SEVS_INFO, NULL},
    {"bench.membw_low", "bench", "device memory bandwidth near the node's peers and the SKU's datasheet", 0, gd_check_bench_membw_low, GD_SEVS_WARNING | GD_SEVS_CRITICAL, NULL},
    {"bench.nccl_failed", "bench", "NCCL's collectives over all GPUs ran and returned the right data", 0, gd_check_bench_nccl_failed, GD_SEVS_CRITICAL, NULL},
    {"bench.nccl_low", "bench", "NCCL all-reduce bus bandwidth near what the GPUs' topology allows", 0, gd_check_bench_nccl_low, GD_SEVS_WARNING | GD_SEVS_CRITICAL, NULL},
    {"bench.nccl_node_missing", "bench", "every rank of a run across nodes joined and reported", 0, gd_check_bench_nccl_node_missing, GD_SEVS_CRITICAL, NULL},
    {"bench.nccl_nodes_failed", "bench", "NCCL's all-reduce across nodes ran and returned the right data on every node", 0, gd_check_bench_nccl_nodes_failed, GD_SEVS_CRITICAL, NULL},
    {"bench.nccl_nodes_low", "bench", "all-reduce across nodes near what the nodes' RDMA NICs allow", 0, gd_check_bench_nccl_nodes_low, GD_SEVS_WARNING | GD_SEVS_CRITICAL, NULL},
    {"topology.numa_mismatch", "topology", "the job runs and allocates on its GPU's NUMA node", GD_NEED_JOB | GD_NEED_PCIE, gd_check_numa_mismatch, GD_SEVS_WARNING, NULL},
    {"p2p.unsupported", "topology", "every pair of GPUs can reach each other's memory (P2P)", 0, gd_check_p2p_unsupported, GD_SEVS_INFO | GD_SEVS_WARNING, NULL},
    {"topology.iommu_p2p", "topology", "no IOMMU translation between GPUs that talk over PCIe", 0, gd_check_iommu_p2p, GD_SEVS_WARNING, gd_fix_iommu_p2p},
    {"nvlink.down", "nvlink", "every NVLink link active", 0, gd_check_nvlink_down, GD_SEVS_WARNING | GD_SEVS_CRITICAL, NULL},
    {"nvlink.errors", "nvlink", "no NVLink error counter grows during the window", 0, gd_check_nvlink_errors, GD_SEVS_INFO | GD_SEVS_WARNING | GD_SEVS_CRITICAL, NULL},
    {"nvlink.fabric", "nvlink", "every GPU registered with the NVLink fabric (Fabric Manager)", 0, gd_check_nvlink_fabric, GD_SEVS_WARNING | GD_SEVS_CRITICAL, NULL},
    {"nvlink.sxid", "nvlink", "no NVSwitch errors (SXid) in the kernel log", 0, gd_check_nvlink_sxid, GD_SEVS_WARNING | GD_SEVS_CRITICAL, NULL},
    {"vram.near_full", "vram", "memory use under load stays below 95% of total", 0, gd_check_vram_near_full, GD_SEVS_INFO | GD_SEVS_WARNING, NULL},
    {"vram.growing", "vram", "memory use does not keep rising across the window", 0, gd_check_vram_growing, GD_SEVS_WARNING | GD_SEVS_CRITICAL, gd_fix_vram_growing},
    {"vram.foreign_process", "vram", "no other process holds memory on the job's GPUs", GD_NEED_JOB, gd_check_vram_foreign_process, GD_SEVS_WARNING, gd_fix_vram_foreign},
    {"gpu.underutilized", "utilization", "a GPU whose memory a process holds is busy most of the window", 0, gd_check_gpu_underutilized, GD_SEVS_WARNING, NULL},
    {"job.no_gpu", "utilization", "a job that 'gpudoctor run' started uses a GPU", GD_NEED_JOB, gd_check_job_no_gpu, GD_SEVS_WARNING, NULL},
    {"input.single_thread", "input", "no single thread of the job saturated while its GPUs wait", GD_NEED_JOB, gd_check_input_single_thread, GD_SEVS_WARNING, NULL},
    {"input.starved", "input", "the job's host side keeps its GPUs fed", GD_NEED_JOB, gd_check_input_starved, GD_SEVS_WARNING, NULL},
    {"input.io_wait", "input", "the job does not wait on storage", GD_NEED_JOB, gd_check_input_io_wait, GD_SEVS_WARNING, NULL},
    {"input.swapping", "input", "the host does not swap while the job runs", GD_NEED_JOB, gd_check_input_swapping, GD_SEVS_WARNING, NULL},
    {"input.gil_contention", "input", "the threads of one job process do not take turns on one core while its GPUs wait", GD_NEED_JOB, gd_check_input_gil_contention, GD_SEVS_WARNING, NULL},
    {"input.cpu_starved", "input", "the job's input threads get the CPU they want", GD_NEED_JOB, gd_check_input_cpu_starved, GD_SEVS_WARNING, NULL},
    {"input.few_workers", "input", "the job's loader workers keep up, or it has no CPUs to spare", GD_NEED_JOB, gd_check_input_few_workers, GD_SEVS_WARNING, NULL},
    {"input.affinity_narrow", "input", "the job's CPU affinity leaves it the CPUs it keeps busy", GD_NEED_JOB, gd_check_input_affinity_narrow, GD_SEVS_WARNING, NULL},
    {"input.workers_respawned", "input", "the job's worker processes live across epochs", GD_NEED_JOB, gd_check_input_workers_respawned, GD_SEVS_INFO | GD_SEVS_WARNING, NULL},
    {"input.cpu_governor", "input", "the CPU frequency governor does not pin the lowest frequency", GD_NEED_JOB, gd_check_input_cpu_governor, GD_SEVS_WARNING, NULL},
    {"cuda.driver_too_old", "stack", "every CUDA runtime found can run on the installed driver", GD_NEED_STACK, gd_check_cuda_driver_too_old, GD_SEVS_WARNING | GD_SEVS_CRITICAL, NULL},
    {"cuda.minor_compat", "stack", "runtimes newer than the driver's CUDA, run by minor-version compatibility", GD_NEED_STACK, gd_check_cuda_minor_compat, GD_SEVS_INFO, NULL},
    {"cuda.forward_compat", "stack", "a forward-compatibility package, when one is needed, is on the loader path", GD_NEED_STACK, gd_check_cuda_forward_compat, GD_SEVS_INFO | GD_SEVS_WARNING, NULL},
    {"cuda.framework_cpu_only", "stack", "PyTorch is a CUDA build", GD_NEED_STACK, gd_check_cuda_cpu_only, GD_SEVS_WARNING, NULL},
    {"cuda.arch_unsupported", "stack", "the framework build and toolkits carry code for each GPU's architecture", GD_NEED_STACK, gd_check_cuda_arch_unsupported, GD_SEVS_WARNING | GD_SEVS_CRITICAL, NULL},
    {"cuda.ptx_jit", "stack", "no GPU is served by PTX JIT only", GD_NEED_STACK, gd_check_cuda_ptx_jit, GD_SEVS_WARNING, NULL},
    {"env.visible_devices", "stack", "CUDA_VISIBLE_DEVICES names GPUs that exist", GD_NEED_ENV, gd_check_env_visible_devices, GD_SEVS_INFO | GD_SEVS_WARNING | GD_SEVS_CRITICAL, NULL},
    {"env.device_order", "stack", "CUDA's GPU numbering matches nvidia-smi's on mixed nodes", GD_NEED_ENV, gd_check_env_device_order, GD_SEVS_INFO, NULL},
    {"env.launch_blocking", "stack", "CUDA_LAUNCH_BLOCKING is off", GD_NEED_ENV, gd_check_env_launch_blocking, GD_SEVS_WARNING, NULL},
    {"env.profiler_injection", "stack", "no profiler, debugger or core-dump injection variables", GD_NEED_ENV, gd_check_env_profiler_injection, GD_SEVS_WARNING, NULL},
    {"env.nccl_p2p_disabled", "stack", "NCCL may use NVLink and PCIe peer-to-peer", GD_NEED_ENV, gd_check_env_nccl_p2p_disabled, GD_SEVS_WARNING, NULL},
    {"env.nccl_ib_disabled", "stack", "NCCL may use InfiniBand/RoCE", GD_NEED_ENV, gd_check_env_nccl_ib_disabled, GD_SEVS_INFO | GD_SEVS_WARNING, NULL},
    {"env.nccl_shm_disabled", "stack", "NCCL may use shared memory", GD_NEED_ENV, gd_check_env_nccl_shm_disabled, GD_SEVS_WARNING, NULL},
    {"env.tf32_disabled", "stack", "TF32 is not forced off on Ampere and newer", GD_NEED_ENV, gd_check_env_tf32_disabled, GD_SEVS_WARNING, NULL},
    {"env.no_caching_allocator", "stack", "PyTorch's caching allocator is on", GD_NEED_ENV, gd_check_env_no_caching_allocator, GD_SEVS_WARNING, NULL},
    {"env.force_ptx_jit", "stack", "CUDA_FORCE_PTX_JIT is off", GD_NEED_ENV, gd_check_env_force_ptx_jit, GD_SEVS_WARNING, NULL},
    {"env.cache_disabled", "stack", "the CUDA JIT cache is on", GD_NEED_ENV, gd_check_env_cache_disabled, GD_SEVS_INFO, NULL},
    {"env.eager_loading", "stack", "CUDA modules load lazily", GD_NEED_ENV, gd_check_env_eager_loading, GD_SEVS_INFO, NULL},
    {"env.ptx_jit_disabled", "stack", "the driver may JIT-compile PTX", GD_NEED_ENV, gd_check_env_ptx_jit_disabled, GD_SEVS_WARNING, NULL},
    {"env.cublas_no_workspace", "stack", "cuBLAS has a workspace", GD_NEED_ENV, gd_check_env_cublas_no_workspace, GD_SEVS_WARNING, NULL},
    {"env.omp_single_thread", "stack", "CPU-side work may use more than one thread", GD_NEED_ENV, gd_check_env_omp_single_thread, GD_SEVS_INFO, NULL},
    {"config.persistence_off", "config", "persistence mode on", 0, gd_check_config_persistence, GD_SEVS_INFO, NULL},
    {"config.compute_mode", "config", "compute mode lets the job create its contexts", 0, gd_check_config_compute_mode, GD_SEVS_INFO | GD_SEVS_CRITICAL, NULL},
    {"config.mig_enabled", "config", "MIG off, or chosen by the job", 0, gd_check_config_mig, GD_SEVS_INFO | GD_SEVS_WARNING, NULL},
    {"config.ecc_disabled", "config", "ECC on for data-center GPUs", 0, gd_check_config_ecc, GD_SEVS_INFO, NULL},
    {"health.ecc_uncorrectable", "health", "no uncorrectable ECC errors", 0, gd_check_ecc_uncorrectable, GD_SEVS_INFO | GD_SEVS_WARNING | GD_SEVS_CRITICAL, NULL},
    {"health.row_remap", "health", "no pending or failed row remapping; retired pages below DCGM's limits", 0, gd_check_row_remap, GD_SEVS_WARNING | GD_SEVS_CRITICAL, NULL},
    {"health.xid", "health", "no Xid errors in the kernel log or NVML's events", GD_NEED_XID_SOURCE, gd_check_xid, GD_SEVS_INFO | GD_SEVS_WARNING | GD_SEVS_CRITICAL, NULL},
    {"net.port_down", "network", "every RDMA port has link where its peers of the same kind do", 0, gd_check_net_port_down, GD_SEVS_WARNING | GD_SEVS_CRITICAL, NULL},
    {"net.port_rate_low", "network", "every active RDMA port runs at its peers' rate", 0, gd_check_net_port_rate_low, GD_SEVS_WARNING, NULL},
    {"net.port_errors", "network", "no RDMA port's error counters grow during the window", 0, gd_check_net_port_errors, GD_SEVS_WARNING | GD_SEVS_CRITICAL, NULL},
    {"net.roce_gid", "network", "each RoCE port has a RoCE v2 GID where NCCL looks for one", 0, gd_check_net_roce_gid, GD_SEVS_WARNING, NULL},
    {"net.gpu_nic_far", "network", "no GPU's nearest RDMA NIC is across the CPU while others have one on their switch", 0, gd_check_net_gpu_nic_far, GD_SEVS_WARNING, NULL},
    {"net.gdr_module", "network", "GPUDirect RDMA's kernel module is loaded where GPUs and RDMA NICs share a node", 0, gd_check_net_gdr_module, GD_SEVS_WARNING, NULL},
    {"net.acs_enabled", "network", "no PCIe ACS redirect on a switch between GPUs or a GPU and a NIC", 0, gd_check_net_acs, GD_SEVS_INFO | GD_SEVS_WARNING, NULL},
    {"env.nccl_socket_ifname", "stack", "NCCL_SOCKET_IFNAME names an interface that exists and reaches other nodes", GD_NEED_ENV, gd_check_env_nccl_socket_ifname, GD_SEVS_WARNING, NULL},
    {"env.nccl_ib_hca", "stack", "NCCL_IB_HCA names RDMA devices that exist and are active", GD_NEED_ENV, gd_check_env_nccl_ib_hca, GD_SEVS_INFO | GD_SEVS_WARNING, NULL},
    {"env.nccl_gdr_level", "stack", "NCCL_NET_GDR_LEVEL lets NCCL use GPUDirect RDMA", GD_NEED_ENV, gd_check_env_nccl_gdr_level, GD_SEVS_WARNING, NULL},
    {"nccl_log.socket_fallback", "network", "NCCL's log: NCCL uses RDMA between nodes where RDMA NICs exist", 0, gd_check_nccl_log_socket_fallback, GD_SEVS_WARNING | GD_SEVS_CRITICAL, NULL},
    {"nccl_log.gdr_off", "network", "NCCL's log: GPUDirect RDMA on for every GPU and node", 0, gd_check_nccl_log_gdr_off, GD_SEVS_WARNING, NULL},
    {"nccl_log.version_mismatch", "network", "NCCL's log: every rank runs the same NCCL version", 0, gd_check_nccl_log_version_mismatch, GD_SEVS_CRITICAL, NULL},
    {"nccl_log.bad_iface", "network", "NCCL's log: no loopback or bridge interface for NCCL's connections", 0, gd_check_nccl_log_bad_iface, GD_SEVS_WARNING, NULL},
    {"nccl_log.connect_failed", "network", "NCCL's log: NCCL's connections between ranks succeed", 0, gd_check_nccl_log_connect_failed, GD_SEVS_WARNING | GD_SEVS_CRITICAL, NULL},
    {"nccl_log.transport_disabled", "network", "NCCL's log: peer-to-peer and shared memory not turned off by the environment", 0, gd_check_nccl_log_transport_disabled, GD_SEVS_WARNING, NULL},
    {"nccl_tests.summary", "network", "what an nccl-tests table says: peak bus bandwidth at the large sizes, ranks and nodes", 0, gd_check_nccl_tests_summary, GD_SEVS_INFO, NULL},
    {"nccl_tests.wrong_data", "network", "an nccl-tests run returned no wrong element", 0, gd_check_nccl_tests_wrong_data, GD_SEVS_CRITICAL, NULL},
    {"nccl_tests.aborted", "network", "an nccl-tests run ended without an NCCL or CUDA failure", 0, gd_check_nccl_tests_aborted, GD_SEVS_CRITICAL, NULL},
    {"nccl_tests.collapse", "network", "nccl-tests bus bandwidth holds up at the large sizes", 0, gd_check_nccl_tests_collapse, GD_SEVS_WARNING, NULL},
    {"nccl_tests.below_nics", "network", "nccl-tests bus bandwidth across nodes near what a node's NICs allow", 0, gd_check_nccl_tests_below_nics, GD_SEVS_WARNING | GD_SEVS_CRITICAL, NULL},
    {"nccl_tests.below_topology", "network", "a one-node nccl-tests all-reduce near what the node's topology allows", 0, gd_check_nccl_tests_below_topology, GD_SEVS_WARNING | GD_SEVS_CRITICAL, NULL},
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
    case GD_NEED_XID_SOURCE: {
        bool events = f->events.xid_watched;
        gd_event_sum seen;
        for (size_t i = 0; !events && i < f->events.sum_count; i++)
            events = f->events.sums[i].kind == GD_EV_XID && gd_event_sum_get(&f->events, i, -INFINITY, INFINITY, &seen);
        if (events || (s && s->kernel_log_read))
            return NULL;
        return s && s->kernel_log_error[0] ? s->kernel_log_error : "the kernel log was not read";
    }
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
    size_t first = out->n;
    c->run(c, f, out);
    for (size_t i = first; i < out->n; i++) {
        gd_finding *x = &out->v[i];
        /* A check reports its own id, within its severity rule. */
        assert(strcmp(x->id, c->id) == 0);
        assert(c->severities & (1u << x->severity));
        if (!x->fix[0] && c->fix)
            snprintf(x->fix, sizeof x->fix, "%s", c->fix);
    }
}

void gd_checks_run_all(const gd_facts *f, gd_findings *out)
{
    /* Every check reads the window's running statistics: the session's, or
     * built here once from the series (window_acc.h). */
    gd_window_acc *tmp = NULL;
    gd_facts with = *f;
    if (!gd_window_acc_of(f) && (tmp = gd_window_acc_build(f))) {
        with.acc = tmp;
        with.acc_free = NULL;
    }
    for (size_t i = 0; i < gd_checks_count; i++)
        gd_check_run(&gd_checks[i], &with, out);
    gd_sources_of_capture(&with, out);
    gd_findings_sort(out);
    gd_window_acc_free(tmp);
}
