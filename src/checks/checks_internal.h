/* SPDX-License-Identifier: Apache-2.0 */
/* Declarations shared by the check families and the registry. */
#ifndef GD_CHECKS_INTERNAL_H
#define GD_CHECKS_INTERNAL_H

#include "analysis/episodes.h"
#include "analysis/peers.h"
#include "analysis/window.h"
#include "core/json_util.h"
#include "gpudoctor/checks.h"
#include "gpudoctor/abi/nvml_api.h"
#include "source.h"
#include "thresholds.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* The one severity rule for a measured loss (docs/checks.md): critical when
 * the job loses GD_IMPACT_CRITICAL_PCT or more now, from the impact or, where
 * clocks cannot tell it, from the share of loaded time; a warning otherwise. */
static inline gd_severity gd_loss_severity(double impact_pct, double loaded_share)
{
    if (!isnan(impact_pct))
        return impact_pct >= GD_IMPACT_CRITICAL_PCT ? GD_SEV_CRITICAL : GD_SEV_WARNING;
    return loaded_share >= GD_THROTTLE_CRITICAL_SHARE ? GD_SEV_CRITICAL : GD_SEV_WARNING;
}

/* advice.c: a fix chosen for where it is read and for the finding's
 * severity. A check with more than one place or severity keeps its texts as
 * cases, most particular first, the last fitting everywhere. */
#define GD_AT_BIT(w) (1u << (unsigned)(w)) /* a command (gd_where) */
#define GD_AT_JOB (1u << 16) /* a job is watched: check --pid, run */
#define GD_AT_CAPTURE (1u << 17) /* the facts are a capture (--from) */
#define GD_AT_ANY 0u
typedef struct gd_fix_case {
    unsigned at; /* where it fits: any of these GD_AT_* bits; GD_AT_ANY everywhere */
    unsigned severities; /* GD_SEVS_* bits; 0 any severity */
    const char *text;
} gd_fix_case;
/* Where out is read: its command's bit, GD_AT_JOB and GD_AT_CAPTURE. */
unsigned gd_where_bits(const gd_facts *f, const gd_findings *out);
/* The text of the first case that fits where out is read and sev; NULL when none does. */
const char *gd_fix_pick(const gd_fix_case *cases, size_t n, const gd_facts *f, const gd_findings *out, gd_severity sev);
#define GD_FIX_PICK(cases, f, out, sev) gd_fix_pick((cases), sizeof(cases) / sizeof((cases)[0]), (f), (out), (sev))

/* driver.c */
void gd_check_driver_missing(const gd_check *self, const gd_facts *f, gd_findings *out);
void gd_check_gpu_none(const gd_check *self, const gd_facts *f, gd_findings *out);
/* capture.c: what --from evidence could not show (notes only) */
void gd_check_capture_limits(const gd_check *self, const gd_facts *f, gd_findings *out);
/* health.c */
void gd_check_gpu_lost(const gd_check *self, const gd_facts *f, gd_findings *out);
void gd_check_sensors_failing(const gd_check *self, const gd_facts *f, gd_findings *out);
/* health.c: a GPU that fell off the bus, one instruction whichever finding
 * tells it (lead: what said so, ending in ". "; gpu may be NULL). */
void gd_off_bus_fix(const gd_gpu *gpu, const char *lead, char *fix, size_t len);
/* The same GPU back: it answered a whole window after it fell off. */
void gd_off_bus_back_fix(const gd_gpu *gpu, const char *lead, char *fix, size_t len);
/* A fault that says GPU index is gone (Xid xid, or 0 for the kernel log's
 * words) beside NVML's readings of it: whether they agree, and when they do
 * not, a clause for the title (said) and ev's "gpu_answered". */
typedef enum gd_gone_answer {
    GD_GONE_CONSISTENT = 0, /* lost, or no reading of it: nothing to say */
    GD_GONE_ANSWERED_AFTER, /* the session saw the fault, then readings: stale, or it came back */
    GD_GONE_BEFORE, /* every reading of the window, no fault seen in it: the fault predates it */
    GD_GONE_READ_BEFORE, /* the readings end before the session saw the fault */
    GD_GONE_ORDER_UNKNOWN, /* a capture, or nothing watched: which came first is not known */
} gd_gone_answer;
gd_gone_answer gd_gone_but_answering(const gd_facts *f, int index, int xid, json_t *ev, char *said, size_t len);
/* health_events.c */
void gd_check_gpu_came_back(const gd_facts *f, gd_findings *out);
void gd_check_driver_unresponsive(const gd_check *self, const gd_facts *f, gd_findings *out);
/* thermal.c */
void gd_check_thermal_throttling(const gd_check *self, const gd_facts *f, gd_findings *out);
void gd_check_thermal_hot(const gd_check *self, const gd_facts *f, gd_findings *out);
void gd_check_thermal_outlier(const gd_check *self, const gd_facts *f, gd_findings *out);
double gd_hot_threshold_c(gd_value limit);
bool gd_temp_not_reported(const gd_facts *f, size_t g);
bool gd_thermal_throttled_under_load(const gd_facts *f, size_t g);
/* True when GPU g's clock event reasons were read at least once; otherwise
 * records that `id` could not judge it (unless the GPU was lost) and returns false. */
bool gd_reasons_read(const gd_facts *f, size_t g, const char *id, gd_findings *out);
/* The clock a GPU would run at without the episode: its own unthrottled
 * loaded median, its peers' median if higher, else its maximum clock. */
double gd_reference_clock_mhz(const gd_facts *f, size_t g, const gd_episode *e);
/* power.c */
void gd_check_power_limit_lowered(const gd_check *self, const gd_facts *f, gd_findings *out);
void gd_check_power_brake(const gd_check *self, const gd_facts *f, gd_findings *out);
void gd_check_power_hw_slowdown(const gd_check *self, const gd_facts *f, gd_findings *out);
void gd_check_power_capped(const gd_check *self, const gd_facts *f, gd_findings *out);
/* clocks.c */
void gd_check_clocks_low(const gd_check *self, const gd_facts *f, gd_findings *out);
void gd_check_clocks_locked(const gd_check *self, const gd_facts *f, gd_findings *out);
void gd_check_clocks_outlier(const gd_check *self, const gd_facts *f, gd_findings *out);
/* utilization.c */
void gd_check_gpu_underutilized(const gd_check *self, const gd_facts *f, gd_findings *out);
/* job_gpu.c: a job run started that used no GPU */
void gd_check_job_no_gpu(const gd_check *self, const gd_facts *f, gd_findings *out);
/* input.c: the job's /proc beside its GPUs */
void gd_check_input_starved(const gd_check *self, const gd_facts *f, gd_findings *out);
void gd_check_input_single_thread(const gd_check *self, const gd_facts *f, gd_findings *out);
void gd_check_input_io_wait(const gd_check *self, const gd_facts *f, gd_findings *out);
void gd_check_input_swapping(const gd_check *self, const gd_facts *f, gd_findings *out);
/* input_cpu.c: the job's CPUs (workers, affinity, respawns, governor) */
void gd_check_input_gil_contention(const gd_check *self, const gd_facts *f, gd_findings *out);
void gd_check_input_cpu_starved(const gd_check *self, const gd_facts *f, gd_findings *out);
void gd_check_input_few_workers(const gd_check *self, const gd_facts *f, gd_findings *out);
void gd_check_input_affinity_narrow(const gd_check *self, const gd_facts *f, gd_findings *out);
void gd_check_input_workers_respawned(const gd_check *self, const gd_facts *f, gd_findings *out);
void gd_check_input_cpu_governor(const gd_check *self, const gd_facts *f, gd_findings *out);
/* vram.c */
#include "analysis/vram_trend.h"
void gd_check_vram_near_full(const gd_check *self, const gd_facts *f, gd_findings *out);
void gd_check_vram_growing(const gd_check *self, const gd_facts *f, gd_findings *out);
void gd_check_vram_foreign_process(const gd_check *self, const gd_facts *f, gd_findings *out);
/* True when a memory trend is a steady rise worth reporting on a GPU of total_mib. */
bool gd_vram_is_growing(const gd_vram_trend *tr, double total_mib);
/* pcie.c, pcie_errors.c, pcie_bandwidth.c, topology.c, nvlink.c */
void gd_check_pcie_link_downgraded(const gd_check *self, const gd_facts *f, gd_findings *out);
/* Grace Hopper with NVLink-C2C on ("GPU C2C Mode: Enabled"): host traffic
 * goes over C2C, the PCIe link (Gen4 x1 on GH200) is not the host path and
 * is not judged as one. Says so in a "not checked" note for `check` and
 * returns true. */
bool gd_pcie_not_host_path(const gd_gpu *gpu, const char *check, gd_findings *out);
void gd_check_pcie_width_reduced(const gd_check *self, const gd_facts *f, gd_findings *out);
void gd_check_pcie_slot_limited(const gd_check *self, const gd_facts *f, gd_findings *out);
void gd_check_pcie_upstream_downgraded(const gd_check *self, const gd_facts *f, gd_findings *out);
void gd_check_pcie_replays(const gd_check *self, const gd_facts *f, gd_findings *out);
void gd_check_pcie_aer_errors(const gd_check *self, const gd_facts *f, gd_findings *out);
void gd_check_pcie_bandwidth_low(const gd_check *self, const gd_facts *f, gd_findings *out);
void gd_check_bench_gemm_low(const gd_check *self, const gd_facts *f, gd_findings *out);
void gd_check_bench_membw_low(const gd_check *self, const gd_facts *f, gd_findings *out);
void gd_check_bench_failed(const gd_check *self, const gd_facts *f, gd_findings *out);
void gd_check_bench_above_datasheet(const gd_check *self, const gd_facts *f, gd_findings *out);
void gd_check_bench_nccl_low(const gd_check *self, const gd_facts *f, gd_findings *out);
void gd_check_bench_nccl_failed(const gd_check *self, const gd_facts *f, gd_findings *out);
void gd_check_bench_nccl_node_missing(const gd_check *self, const gd_facts *f, gd_findings *out);
void gd_check_bench_nccl_nodes_failed(const gd_check *self, const gd_facts *f, gd_findings *out);
void gd_check_bench_nccl_nodes_low(const gd_check *self, const gd_facts *f, gd_findings *out);
/* nccl-tests tables read by --from (nccl_tests.c). */
void gd_check_nccl_tests_summary(const gd_check *self, const gd_facts *f, gd_findings *out);
void gd_check_nccl_tests_wrong_data(const gd_check *self, const gd_facts *f, gd_findings *out);
void gd_check_nccl_tests_aborted(const gd_check *self, const gd_facts *f, gd_findings *out);
void gd_check_nccl_tests_collapse(const gd_check *self, const gd_facts *f, gd_findings *out);
void gd_check_nccl_tests_below_nics(const gd_check *self, const gd_facts *f, gd_findings *out);
void gd_check_nccl_tests_below_topology(const gd_check *self, const gd_facts *f, gd_findings *out);
void gd_check_p2p_unsupported(const gd_check *self, const gd_facts *f, gd_findings *out);
void gd_check_p2p_slow_pair(const gd_check *self, const gd_facts *f, gd_findings *out);
void gd_check_p2p_sys_route(const gd_check *self, const gd_facts *f, gd_findings *out);
void gd_check_numa_mismatch(const gd_check *self, const gd_facts *f, gd_findings *out);
void gd_check_iommu_p2p(const gd_check *self, const gd_facts *f, gd_findings *out);
void gd_check_nvlink_down(const gd_check *self, const gd_facts *f, gd_findings *out);
/* nvlink_health.c */
void gd_check_nvlink_errors(const gd_check *self, const gd_facts *f, gd_findings *out);
void gd_check_nvlink_fabric(const gd_check *self, const gd_facts *f, gd_findings *out);
void gd_check_nvlink_sxid(const gd_check *self, const gd_facts *f, gd_findings *out);
/* cuda.c, cuda_arch.c (software stack; rules in cuda_rules.h) */
void gd_check_cuda_driver_too_old(const gd_check *self, const gd_facts *f, gd_findings *out);
void gd_check_cuda_minor_compat(const gd_check *self, const gd_facts *f, gd_findings *out);
void gd_check_cuda_forward_compat(const gd_check *self, const gd_facts *f, gd_findings *out);
void gd_check_cuda_cpu_only(const gd_check *self, const gd_facts *f, gd_findings *out);
void gd_check_cuda_arch_unsupported(const gd_check *self, const gd_facts *f, gd_findings *out);
void gd_check_cuda_ptx_jit(const gd_check *self, const gd_facts *f, gd_findings *out);
/* env.c, env_devices.c (the job's environment) */
void gd_check_env_launch_blocking(const gd_check *self, const gd_facts *f, gd_findings *out);
void gd_check_env_visible_devices(const gd_check *self, const gd_facts *f, gd_findings *out);
void gd_check_env_device_order(const gd_check *self, const gd_facts *f, gd_findings *out);
void gd_check_env_profiler_injection(const gd_check *self, const gd_facts *f, gd_findings *out);
void gd_check_env_nccl_p2p_disabled(const gd_check *self, const gd_facts *f, gd_findings *out);
void gd_check_env_nccl_ib_disabled(const gd_check *self, const gd_facts *f, gd_findings *out);
void gd_check_env_nccl_shm_disabled(const gd_check *self, const gd_facts *f, gd_findings *out);
void gd_check_env_tf32_disabled(const gd_check *self, const gd_facts *f, gd_findings *out);
void gd_check_env_no_caching_allocator(const gd_check *self, const gd_facts *f, gd_findings *out);
void gd_check_env_force_ptx_jit(const gd_check *self, const gd_facts *f, gd_findings *out);
void gd_check_env_cache_disabled(const gd_check *self, const gd_facts *f, gd_findings *out);
void gd_check_env_eager_loading(const gd_check *self, const gd_facts *f, gd_findings *out);
void gd_check_env_ptx_jit_disabled(const gd_check *self, const gd_facts *f, gd_findings *out);
void gd_check_env_cublas_no_workspace(const gd_check *self, const gd_facts *f, gd_findings *out);
void gd_check_env_omp_single_thread(const gd_check *self, const gd_facts *f, gd_findings *out);
/* config.c */
void gd_check_config_persistence(const gd_check *self, const gd_facts *f, gd_findings *out);
void gd_check_config_compute_mode(const gd_check *self, const gd_facts *f, gd_findings *out);
void gd_check_config_mig(const gd_check *self, const gd_facts *f, gd_findings *out);
void gd_check_config_ecc(const gd_check *self, const gd_facts *f, gd_findings *out);
/* health_memory.c, xid.c */
void gd_check_ecc_uncorrectable(const gd_check *self, const gd_facts *f, gd_findings *out);
void gd_check_row_remap(const gd_check *self, const gd_facts *f, gd_findings *out);
void gd_check_xid(const gd_check *self, const gd_facts *f, gd_findings *out);

/* net.c, net_gdr.c (the training network: f->net), env_nccl.c (NCCL's network variables) */
void gd_check_net_port_down(const gd_check *self, const gd_facts *f, gd_findings *out);
void gd_check_net_port_rate_low(const gd_check *self, const gd_facts *f, gd_findings *out);
void gd_check_net_port_errors(const gd_check *self, const gd_facts *f, gd_findings *out);
void gd_check_net_roce_gid(const gd_check *self, const gd_facts *f, gd_findings *out);
void gd_check_net_gpu_nic_far(const gd_check *self, const gd_facts *f, gd_findings *out);
void gd_check_net_gdr_module(const gd_check *self, const gd_facts *f, gd_findings *out);
void gd_check_net_acs(const gd_check *self, const gd_facts *f, gd_findings *out);
void gd_check_env_nccl_socket_ifname(const gd_check *self, const gd_facts *f, gd_findings *out);
void gd_check_env_nccl_ib_hca(const gd_check *self, const gd_facts *f, gd_findings *out);
void gd_check_env_nccl_gdr_level(const gd_check *self, const gd_facts *f, gd_findings *out);
/* nccl_log.c: what NCCL's own INFO log says it chose (f->net->nccl) */
void gd_check_nccl_log_socket_fallback(const gd_check *self, const gd_facts *f, gd_findings *out);
void gd_check_nccl_log_gdr_off(const gd_check *self, const gd_facts *f, gd_findings *out);
void gd_check_nccl_log_version_mismatch(const gd_check *self, const gd_facts *f, gd_findings *out);
void gd_check_nccl_log_bad_iface(const gd_check *self, const gd_facts *f, gd_findings *out);
void gd_check_nccl_log_connect_failed(const gd_check *self, const gd_facts *f, gd_findings *out);
void gd_check_nccl_log_transport_disabled(const gd_check *self, const gd_facts *f, gd_findings *out);

#endif
