/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gd_facts as JSON and back (facts_json.h). Every struct a check reads is a
 * table of fields: one writer and one reader walk the tables, so a field
 * added to a struct is one row here and round-trips in both directions.
 */
#include "facts_json.h"

#include "gpudoctor/job.h"
#include "gpudoctor/net.h"
#include "gpudoctor/pcie.h"
#include "gpudoctor/stack.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef enum {
    F_STR,
    F_VAL,
    F_INT,
    F_UINT,
    F_LONG,
    F_LLONG,
    F_SIZE,
    F_BOOL,
    F_DBL,
    F_U16,
    F_U64,
    F_SUB,
    F_ARR,
    F_PARR,
    F_INTS,
    F_DBLS,
    F_ULONGS,
    F_STRS,
    F_STRV
} ftype;

typedef struct ftable ftable;
typedef struct field {
    const char *key;
    ftype type;
    bool square; /* F_PARR: count[cnt] squared elements (a matrix), no count of its own */
    size_t off; /* of the member */
    size_t size; /* F_STR: bytes; arrays: one element */
    size_t cnt; /* arrays: offset of the size_t count */
    size_t max; /* arrays: most elements */
    const ftable *sub;
} field;

struct ftable {
    const field *f;
    size_t n;
};

#define MEMB(T, m) (((T *)0)->m)
#define STR(T, m)                                                                                                      \
    {                                                                                                                  \
#m, F_STR, false, offsetof(T, m), sizeof MEMB(T, m), 0, 0, NULL                                                \
    }
#define VAL(T, m)                                                                                                      \
    {                                                                                                                  \
#m, F_VAL, false, offsetof(T, m), 0, 0, 0, NULL                                                                \
    }
#define INT(T, m)                                                                                                      \
    {                                                                                                                  \
#m, F_INT, false, offsetof(T, m), 0, 0, 0, NULL                                                                \
    }
#define UINT(T, m)                                                                                                     \
    {                                                                                                                  \
#m, F_UINT, false, offsetof(T, m), 0, 0, 0, NULL                                                               \
    }
#define LONG(T, m)                                                                                                     \
    {                                                                                                                  \
#m, F_LONG, false, offsetof(T, m), 0, 0, 0, NULL                                                               \
    }
#define LLONG(T, m)                                                                                                    \
    {                                                                                                                  \
#m, F_LLONG, false, offsetof(T, m), 0, 0, 0, NULL                                                              \
    }
#define SIZE(T, m)                                                                                                     \
    {                                                                                                                  \
#m, F_SIZE, false, offsetof(T, m), 0, 0, 0, NULL                                                               \
    }
#define BOOL(T, m)                                                                                                     \
    {                                                                                                                  \
#m, F_BOOL, false, offsetof(T, m), 0, 0, 0, NULL                                                               \
    }
#define DBL(T, m)                                                                                                      \
    {                                                                                                                  \
#m, F_DBL, false, offsetof(T, m), 0, 0, 0, NULL                                                                \
    }
#define U16(T, m)                                                                                                      \
    {                                                                                                                  \
#m, F_U16, false, offsetof(T, m), 0, 0, 0, NULL                                                                \
    }
#define U64(T, m)                                                                                                      \
    {                                                                                                                  \
#m, F_U64, false, offsetof(T, m), 0, 0, 0, NULL                                                                \
    }
#define SUB(T, m, t)                                                                                                   \
    {                                                                                                                  \
#m, F_SUB, false, offsetof(T, m), 0, 0, 0, &t                                                                  \
    }
#define ARR(T, m, c, t)                                                                                                \
    {                                                                                                                  \
#m, F_ARR, false, offsetof(T, m),                                                                              \
            sizeof MEMB(T, m)[0], offsetof(T, c), sizeof MEMB(T, m) / sizeof MEMB(T, m)[0], &t                         \
    }
#define PARR(T, m, c, t, mx)                                                                                           \
    {                                                                                                                  \
#m, F_PARR, false, offsetof(T, m), sizeof *MEMB(T, m), offsetof(T, c), mx, &t                                  \
    }
#define MATRIX(T, m, c, t, mx)                                                                                         \
    {                                                                                                                  \
#m, F_PARR, true, offsetof(T, m), sizeof *MEMB(T, m), offsetof(T, c), mx, &t                                   \
    }
#define INTS(T, m, c)                                                                                                  \
    {                                                                                                                  \
#m, F_INTS, false, offsetof(T, m),                                                                             \
            sizeof MEMB(T, m)[0], offsetof(T, c), sizeof MEMB(T, m) / sizeof MEMB(T, m)[0], NULL                       \
    }
#define DBLS(T, m)                                                                                                     \
    {                                                                                                                  \
#m, F_DBLS, false, offsetof(T, m), sizeof MEMB(T, m)[0], 0, sizeof MEMB(T, m) / sizeof MEMB(T, m)[0], NULL     \
    }
#define ULONGS(T, m)                                                                                                   \
    {                                                                                                                  \
#m, F_ULONGS, false, offsetof(T, m), sizeof MEMB(T, m)[0], 0, sizeof MEMB(T, m) / sizeof MEMB(T, m)[0], NULL   \
    }
#define STRS(T, m, c)                                                                                                  \
    {                                                                                                                  \
#m, F_STRS, false, offsetof(T, m),                                                                             \
            sizeof MEMB(T, m)[0], offsetof(T, c), sizeof MEMB(T, m) / sizeof MEMB(T, m)[0], NULL                       \
    }
#define STRV(T, m, c, mx)                                                                                              \
    {                                                                                                                  \
#m, F_STRV, false, offsetof(T, m), 0, offsetof(T, c), mx, NULL                                                 \
    }
#define TABLE(name, ...)                                                                                               \
    static const field name##_f[] = {__VA_ARGS__};                                                                     \
    static const ftable name = {name##_f, sizeof name##_f / sizeof name##_f[0]}

_Static_assert(sizeof(gd_runtime_kind) == sizeof(int) && sizeof(gd_aer_severity) == sizeof(int), "enums are ints");

/* The model (model.h). */
TABLE(t_host, STR(gd_host, hostname), STR(gd_host, kernel), INT(gd_host, cpus), INT(gd_host, numa_nodes));
TABLE(t_process, UINT(gd_process, pid), VAL(gd_process, used_mib), STR(gd_process, name), STR(gd_process, user));
TABLE(t_nvlink, UINT(gd_nvlink, link), VAL(gd_nvlink, active), STR(gd_nvlink, remote_pci_bus_id),
      VAL(gd_nvlink, version), VAL(gd_nvlink, replay_errors), VAL(gd_nvlink, recovery_errors),
      VAL(gd_nvlink, crc_flit_errors), VAL(gd_nvlink, crc_data_errors));
/* What of a GPU changes while a session runs: the counters re-read every
 * GD_HEALTH_REREAD_S, and whether it answers. */
TABLE(t_nvlink_health, UINT(gd_nvlink, link), VAL(gd_nvlink, replay_errors), VAL(gd_nvlink, recovery_errors),
      VAL(gd_nvlink, crc_flit_errors), VAL(gd_nvlink, crc_data_errors));
TABLE(t_gpu_health, VAL(gd_gpu, ecc_volatile_uncorrected), VAL(gd_gpu, ecc_aggregate_uncorrected),
      VAL(gd_gpu, retired_pages_sbe), VAL(gd_gpu, retired_pages_dbe), VAL(gd_gpu, retired_pages_pending),
      VAL(gd_gpu, remap_corr_rows), VAL(gd_gpu, remap_unc_rows), VAL(gd_gpu, remap_pending), VAL(gd_gpu, remap_failure),
      ARR(gd_gpu, nvlink, nvlink_count, t_nvlink_health), BOOL(gd_gpu, lost), DBL(gd_gpu, lost_at_s),
      STR(gd_gpu, lost_call), INT(gd_gpu, lost_code));
/* One sum of the session's events (model.h). */
TABLE(t_event_sum, INT(gd_event_sum, gpu), INT(gd_event_sum, kind), LLONG(gd_event_sum, code), STR(gd_event_sum, what),
      SIZE(gd_event_sum, count), LLONG(gd_event_sum, total), DBL(gd_event_sum, first_t), DBL(gd_event_sum, last_t),
      LLONG(gd_event_sum, first_value), LLONG(gd_event_sum, last_value), SIZE(gd_event_sum, first_seq),
      SIZE(gd_event_sum, last_seq));
TABLE(t_gpu, INT(gd_gpu, index), STR(gd_gpu, name), STR(gd_gpu, uuid), STR(gd_gpu, pci_bus_id), STR(gd_gpu, serial),
      STR(gd_gpu, vbios), STR(gd_gpu, pcie_max_source), STR(gd_gpu, temp_limits_source), VAL(gd_gpu, cc_major),
      VAL(gd_gpu, cc_minor), VAL(gd_gpu, mem_total_mib), VAL(gd_gpu, power_limit_w),
      VAL(gd_gpu, power_limit_requested_w), VAL(gd_gpu, power_limit_default_w), VAL(gd_gpu, power_limit_min_w),
      VAL(gd_gpu, power_limit_max_w), VAL(gd_gpu, clock_max_sm_mhz), VAL(gd_gpu, clock_max_mem_mhz),
      VAL(gd_gpu, clock_default_app_sm_mhz), VAL(gd_gpu, clock_default_app_mem_mhz), VAL(gd_gpu, clock_app_sm_mhz),
      VAL(gd_gpu, clock_app_mem_mhz), VAL(gd_gpu, temp_shutdown_c), VAL(gd_gpu, temp_slowdown_c),
      VAL(gd_gpu, temp_gpu_max_c), VAL(gd_gpu, temp_mem_max_c), VAL(gd_gpu, pcie_gen_max), VAL(gd_gpu, pcie_width_max),
      VAL(gd_gpu, pcie_gen_max_device), VAL(gd_gpu, pcie_width_max_device), VAL(gd_gpu, pcie_gen_max_host),
      VAL(gd_gpu, persistence_mode), VAL(gd_gpu, compute_mode), VAL(gd_gpu, mig_mode), VAL(gd_gpu, c2c_mode),
      VAL(gd_gpu, ecc_enabled), VAL(gd_gpu, ecc_volatile_uncorrected), VAL(gd_gpu, ecc_aggregate_uncorrected),
      VAL(gd_gpu, retired_pages_sbe), VAL(gd_gpu, retired_pages_dbe), VAL(gd_gpu, retired_pages_pending),
      VAL(gd_gpu, remap_corr_rows), VAL(gd_gpu, remap_unc_rows), VAL(gd_gpu, remap_pending), VAL(gd_gpu, remap_failure),
      ARR(gd_gpu, nvlink, nvlink_count, t_nvlink), VAL(gd_gpu, fabric_state), VAL(gd_gpu, fabric_status),
      VAL(gd_gpu, nvlink_speed_mbps), VAL(gd_gpu, processes_status),
      PARR(gd_gpu, processes, process_count, t_process, 4096), BOOL(gd_gpu, lost), DBL(gd_gpu, lost_at_s),
      STR(gd_gpu, lost_call), INT(gd_gpu, lost_code));
TABLE(t_denied, INT(gd_gpu_denied, index), STR(gd_gpu_denied, call), INT(gd_gpu_denied, code),
      STR(gd_gpu_denied, error));
TABLE(t_tput, STR(gd_throughput_reads, source), SIZE(gd_throughput_reads, reads), DBL(gd_throughput_reads, every_s));
/* One P2P status of the pair matrix (an int: nvmlGpuP2PStatus_t or -1). */
TABLE(t_p2p, {"status", F_INT, false, 0, 0, 0, 0, NULL});
TABLE(t_facts, SUB(gd_facts, host, t_host), BOOL(gd_facts, driver_loaded), STR(gd_facts, driver_error),
      VAL(gd_facts, pci_nvidia_gpus), BOOL(gd_facts, simulated), STR(gd_facts, source), BOOL(gd_facts, captured),
      STR(gd_facts, capture_formats), BOOL(gd_facts, capture_untimed), STR(gd_facts, driver_version),
      STR(gd_facts, nvml_version), VAL(gd_facts, cuda_driver_version), PARR(gd_facts, gpus, gpu_count, t_gpu, 1024),
      MATRIX(gd_facts, p2p_status, gpu_count, t_p2p, 1024), ARR(gd_facts, denied, denied_count, t_denied),
      DBL(gd_facts, window_s), DBL(gd_facts, interval_s), SUB(gd_facts, pcie_throughput, t_tput),
      STR(gd_facts, power_reading), STR(gd_facts, thermal_counter), STR(gd_facts, replay_counter), LONG(gd_facts, pid));

/* PCIe (pcie.h); `bench pcie` results are not part of a check's facts. */
TABLE(t_hop, STR(gd_pcie_hop, bdf), STR(gd_pcie_hop, role), VAL(gd_pcie_hop, speed_gts),
      VAL(gd_pcie_hop, speed_max_gts), VAL(gd_pcie_hop, gen), VAL(gd_pcie_hop, gen_max), VAL(gd_pcie_hop, width),
      VAL(gd_pcie_hop, width_max), VAL(gd_pcie_hop, aer_cor), VAL(gd_pcie_hop, aer_nonfatal),
      VAL(gd_pcie_hop, aer_fatal), BOOL(gd_pcie_hop, aer_bits), INT(gd_pcie_hop, vendor));
TABLE(t_nic, STR(gd_pcie_nic, bdf), STR(gd_pcie_nic, name), INT(gd_pcie_nic, level));
TABLE(t_pgpu, INT(gd_pcie_gpu, gpu), BOOL(gd_pcie_gpu, matched), STR(gd_pcie_gpu, bdf), STR(gd_pcie_gpu, host_bridge),
      ARR(gd_pcie_gpu, hops, hop_count, t_hop), VAL(gd_pcie_gpu, numa_node), STR(gd_pcie_gpu, cpulist),
      STR(gd_pcie_gpu, iommu_type), ARR(gd_pcie_gpu, nics, nic_count, t_nic));
TABLE(t_cell, INT(gd_topo_cell, level), INT(gd_topo_cell, nvlinks));
TABLE(t_nicplace, STR(gd_pcie_nic_place, name), STR(gd_pcie_nic_place, model), SUB(gd_pcie_nic_place, where, t_pgpu),
      INTS(gd_pcie_nic_place, levels, level_count));
TABLE(t_job, LONG(gd_pcie_job, pid), BOOL(gd_pcie_job, readable), STR(gd_pcie_job, why), STR(gd_pcie_job, cpus_allowed),
      STR(gd_pcie_job, mems_allowed), BOOL(gd_pcie_job, has_pages), DBLS(gd_pcie_job, pages));
TABLE(t_pcie, STR(gd_pcie_facts, source), PARR(gd_pcie_facts, gpus, gpu_count, t_pgpu, 1024),
      MATRIX(gd_pcie_facts, matrix, gpu_count, t_cell, 1024), PARR(gd_pcie_facts, nics, nic_count, t_nicplace, 1024),
      INTS(gd_pcie_facts, node_ids, node_count), STRS(gd_pcie_facts, node_cpulist, node_count),
      SUB(gd_pcie_facts, job, t_job));

/* The job (job.h) and the host's series (model.h). */
TABLE(t_jthread, INT(gd_job_thread, pid), INT(gd_job_thread, tid), STR(gd_job_thread, comm), DBL(gd_job_thread, cpu_s),
      UINT(gd_job_thread, seen), UINT(gd_job_thread, running), UINT(gd_job_thread, disk_wait),
      UINT(gd_job_thread, saturated), UINT(gd_job_thread, measured), DBL(gd_job_thread, busy_sum),
      UINT(gd_job_thread, stamp), DBL(gd_job_thread, vcsw_first), DBL(gd_job_thread, vcsw_last),
      DBL(gd_job_thread, vcsw_first_t), DBL(gd_job_thread, vcsw_last_t), DBL(gd_job_thread, vcsw_first_cpu_s),
      DBL(gd_job_thread, vcsw_last_cpu_s));
TABLE(t_jproc, INT(gd_job_proc, pid), INT(gd_job_proc, ppid), STR(gd_job_proc, comm), STR(gd_job_proc, prog),
      BOOL(gd_job_proc, python), BOOL(gd_job_proc, torch), BOOL(gd_job_proc, cuda), BOOL(gd_job_proc, torch_cuda),
      BOOL(gd_job_proc, cudart), BOOL(gd_job_proc, nvidia_ctl), U64(gd_job_proc, dev_minors), INT(gd_job_proc, rank),
      BOOL(gd_job_proc, has_cuda_visible), BOOL(gd_job_proc, has_nvidia_visible), STR(gd_job_proc, cuda_visible),
      STR(gd_job_proc, nvidia_visible), DBL(gd_job_proc, first_s), DBL(gd_job_proc, last_s),
      UINT(gd_job_proc, intervals), UINT(gd_job_proc, one_running), UINT(gd_job_proc, many_running),
      DBL(gd_job_proc, busy_sum), DBL(gd_job_proc, busy_max));
TABLE(t_jfacts, BOOL(gd_job_facts, read), STR(gd_job_facts, error), LONG(gd_job_facts, pid), STR(gd_job_facts, comm),
      SIZE(gd_job_facts, procs_seen), SIZE(gd_job_facts, procs_max), SIZE(gd_job_facts, children_started),
      SIZE(gd_job_facts, children_exited), SIZE(gd_job_facts, respawn_rounds), SIZE(gd_job_facts, threads_untracked),
      BOOL(gd_job_facts, ended), BOOL(gd_job_facts, wall_paced), BOOL(gd_job_facts, started_in_window),
      DBL(gd_job_facts, ended_at_s), INT(gd_job_facts, host_cpus), INT(gd_job_facts, affinity_cpus),
      STR(gd_job_facts, affinity), STR(gd_job_facts, governor), STR(gd_job_facts, scaling_driver),
      LONG(gd_job_facts, freq_cur_khz), LONG(gd_job_facts, freq_min_khz), LONG(gd_job_facts, freq_max_khz),
      BOOL(gd_job_facts, io_denied), PARR(gd_job_facts, procs, proc_count, t_jproc, GD_JOB_MAX_PROCS),
      INTS(gd_job_facts, gpu_minors, gpu_minor_count), STR(gd_job_facts, gpu_minor_source),
      PARR(gd_job_facts, threads, thread_count, t_jthread, GD_JOB_MAX_THREADS));
TABLE(t_jsample, DBL(gd_job_sample, t), DBL(gd_job_sample, job_cores), DBL(gd_job_sample, top_thread_core),
      INT(gd_job_sample, top_tid), U16(gd_job_sample, procs), U16(gd_job_sample, threads), U16(gd_job_sample, running),
      U16(gd_job_sample, disk_wait), DBL(gd_job_sample, read_bps), DBL(gd_job_sample, vcsw_ps),
      DBL(gd_job_sample, ivcsw_ps));
TABLE(t_hsample, DBL(gd_host_sample, t), DBL(gd_host_sample, busy), DBL(gd_host_sample, iowait),
      DBL(gd_host_sample, psi_cpu), DBL(gd_host_sample, psi_io), DBL(gd_host_sample, psi_mem),
      DBL(gd_host_sample, swap_in_ps), DBL(gd_host_sample, swap_out_ps));

/* The software stack (stack.h). */
TABLE(t_arch, INT(gd_arch, sm), BOOL(gd_arch, ptx));
TABLE(t_runtime, INT(gd_cuda_runtime, kind), INT(gd_cuda_runtime, version), STR(gd_cuda_runtime, version_text),
      STR(gd_cuda_runtime, path), STR(gd_cuda_runtime, framework), INT(gd_cuda_runtime, python),
      STR(gd_cuda_runtime, compat_lib), STR(gd_cuda_runtime, compat_driver), BOOL(gd_cuda_runtime, arch_known),
      STR(gd_cuda_runtime, arch_source), STR(gd_cuda_runtime, arch_error),
      ARR(gd_cuda_runtime, archs, arch_count, t_arch));
TABLE(t_python, STR(gd_python_env, path), STR(gd_python_env, origin), STR(gd_python_env, site_packages));
TABLE(t_xid, INT(gd_xid_event, xid), STR(gd_xid_event, pci), INT(gd_xid_event, gpu), STR(gd_xid_event, when),
      STR(gd_xid_event, text));
TABLE(t_xid_group, INT(gd_xid_group, xid), STR(gd_xid_group, pci), INT(gd_xid_group, gpu), SIZE(gd_xid_group, count),
      SIZE(gd_xid_group, lines), STR(gd_xid_group, first_seen), ARR(gd_xid_group, examples, example_count, t_xid));
TABLE(t_gpu_fatal, STR(gd_gpu_fatal, pci), INT(gd_gpu_fatal, gpu), STR(gd_gpu_fatal, kind), SIZE(gd_gpu_fatal, count),
      STR(gd_gpu_fatal, when), STR(gd_gpu_fatal, text));
TABLE(t_aer, INT(gd_aer_event, severity), STR(gd_aer_event, dev), STR(gd_aer_event, port), STR(gd_aer_event, when),
      STR(gd_aer_event, text));
TABLE(t_aerdev, STR(gd_aer_device, dev), ULONGS(gd_aer_device, count), SUB(gd_aer_device, last, t_aer));
TABLE(t_sxid, INT(gd_sxid_event, sxid), STR(gd_sxid_event, nvswitch), STR(gd_sxid_event, pci),
      INT(gd_sxid_event, fatal), STR(gd_sxid_event, when), STR(gd_sxid_event, text));
TABLE(t_sxid_group, INT(gd_sxid_group, sxid), STR(gd_sxid_group, nvswitch), STR(gd_sxid_group, pci),
      INT(gd_sxid_group, fatal), SIZE(gd_sxid_group, count), STR(gd_sxid_group, first_seen),
      SUB(gd_sxid_group, last, t_sxid));
TABLE(t_stack, STR(gd_stack_facts, root), BOOL(gd_stack_facts, system_scanned), STR(gd_stack_facts, system_skip),
      ARR(gd_stack_facts, runtimes, runtime_count, t_runtime), ARR(gd_stack_facts, pythons, python_count, t_python),
      BOOL(gd_stack_facts, env_read), STR(gd_stack_facts, env_source), STR(gd_stack_facts, env_error),
      STRV(gd_stack_facts, env, env_count, 65536), BOOL(gd_stack_facts, kernel_log_read),
      STR(gd_stack_facts, kernel_log_source), STR(gd_stack_facts, kernel_log_error),
      SIZE(gd_stack_facts, kernel_log_lines), SIZE(gd_stack_facts, kernel_log_times_unread),
      STR(gd_stack_facts, kernel_log_time_unread), SIZE(gd_stack_facts, xid_total),
      ARR(gd_stack_facts, xid_groups, xid_group_count, t_xid_group), SIZE(gd_stack_facts, xid_dropped),
      ARR(gd_stack_facts, gpu_fatal, gpu_fatal_count, t_gpu_fatal), SIZE(gd_stack_facts, aer_total),
      ARR(gd_stack_facts, aer_devices, aer_device_count, t_aerdev), SIZE(gd_stack_facts, sxid_total),
      ARR(gd_stack_facts, sxid_groups, sxid_group_count, t_sxid_group));

/* The training network (net.h): what a replay judges as the live run did.
 * A port's counters are objects by sysfs name; NCCL's log is not kept
 * (the log is a capture of its own). */
_Static_assert(sizeof(gd_port_state) == sizeof(int) && sizeof(gd_port_phys) == sizeof(int) &&
                   sizeof(gd_link_layer) == sizeof(int) && sizeof(gd_peermem_state) == sizeof(int),
               "enums are ints");
#define COUNTER(c, name)                                                                                               \
    {                                                                                                                  \
        name, F_VAL, false, (c) * sizeof(gd_value), 0, 0, 0, NULL                                                      \
    }
TABLE(t_counters, COUNTER(GD_PC_LINK_DOWNED, "link_downed"), COUNTER(GD_PC_LINK_ERROR_RECOVERY, "link_error_recovery"),
      COUNTER(GD_PC_SYMBOL_ERROR, "symbol_error"), COUNTER(GD_PC_RCV_ERRORS, "port_rcv_errors"),
      COUNTER(GD_PC_XMIT_DISCARDS, "port_xmit_discards"),
      COUNTER(GD_PC_LOCAL_LINK_INTEGRITY, "local_link_integrity_errors"),
      COUNTER(GD_PC_EXCESSIVE_OVERRUN, "excessive_buffer_overrun_errors"),
      COUNTER(GD_PC_RCV_REMOTE_PHYS, "port_rcv_remote_physical_errors"), COUNTER(GD_PC_OUT_OF_BUFFER, "out_of_buffer"),
      COUNTER(GD_PC_OUT_OF_SEQUENCE, "out_of_sequence"), COUNTER(GD_PC_PACKET_SEQ_ERR, "packet_seq_err"),
      COUNTER(GD_PC_LOCAL_ACK_TIMEOUT, "local_ack_timeout_err"));
_Static_assert(GD_PC_COUNT == 12, "every port counter has a row in t_counters");
TABLE(t_net_gid, INT(gd_net_gid, index), STR(gd_net_gid, gid), STR(gd_net_gid, type), STR(gd_net_gid, ipv4),
      STR(gd_net_gid, netdev));
TABLE(t_net_port, INT(gd_net_port, port), INT(gd_net_port, state), INT(gd_net_port, phys), INT(gd_net_port, link_layer),
      VAL(gd_net_port, rate_gbps), STR(gd_net_port, rate_text), STR(gd_net_port, netdev), INT(gd_net_port, netdev_up),
      ARR(gd_net_port, gids, gid_count, t_net_gid), SUB(gd_net_port, counters_first, t_counters),
      SUB(gd_net_port, counters_last, t_counters), DBL(gd_net_port, counter_span_s));
TABLE(t_net_dev, STR(gd_net_dev, name), STR(gd_net_dev, ca_type), STR(gd_net_dev, firmware), STR(gd_net_dev, bdf),
      INT(gd_net_dev, numa_node), ARR(gd_net_dev, ports, port_count, t_net_port));
TABLE(t_net_iface, STR(gd_net_iface, name), INT(gd_net_iface, up), BOOL(gd_net_iface, loopback),
      BOOL(gd_net_iface, bridge), BOOL(gd_net_iface, virtual_dev), STR(gd_net_iface, ipv4));
TABLE(t_net_acs, STR(gd_net_acs, bdf), BOOL(gd_net_acs, src_valid), BOOL(gd_net_acs, trans_blk),
      BOOL(gd_net_acs, req_redir), BOOL(gd_net_acs, cmplt_redir), BOOL(gd_net_acs, upstream_fwd),
      BOOL(gd_net_acs, egress_ctrl), BOOL(gd_net_acs, direct_trans));
TABLE(t_net, STR(gd_net_facts, source), BOOL(gd_net_facts, devices_read), ARR(gd_net_facts, devs, dev_count, t_net_dev),
      BOOL(gd_net_facts, ifaces_read), ARR(gd_net_facts, ifaces, iface_count, t_net_iface), INT(gd_net_facts, peermem),
      STR(gd_net_facts, peermem_module), STR(gd_net_facts, peermem_source), BOOL(gd_net_facts, acs_read),
      STR(gd_net_facts, acs_source), ARR(gd_net_facts, acs, acs_count, t_net_acs));

static const char *const status_keys[] = {
    [GD_ST_UNREAD] = "unread",
    [GD_ST_OK] = "ok",
    [GD_ST_NOT_SUPPORTED] = "not_supported",
    [GD_ST_NO_PERMISSION] = "no_permission",
    [GD_ST_UNAVAILABLE] = "unavailable",
    [GD_ST_ERROR] = "error",
    [GD_ST_GPU_LOST] = "gpu_lost",
    [GD_ST_NOT_REPORTED] = "not_reported",
    [GD_ST_DEPRECATED] = "deprecated",
};
#define STATUS_KEYS (sizeof status_keys / sizeof status_keys[0])

static json_t *number(double v)
{
    if (isnan(v))
        return json_string("nan");
    if (isinf(v))
        return json_string(v > 0 ? "inf" : "-inf");
    if (v == floor(v) && fabs(v) < 9007199254740992.0)
        return json_integer((json_int_t)v);
    return json_real(v); /* jansson writes 17 significant digits: the same double back */
}

static int number_from(const json_t *j, double *out)
{
    if (json_is_number(j)) {
        *out = json_number_value(j);
        return 0;
    }
    const char *s = json_string_value(j);
    if (!s)
        return -1;
    if (strcmp(s, "nan") == 0)
        *out = NAN;
    else if (strcmp(s, "inf") == 0)
        *out = INFINITY;
    else if (strcmp(s, "-inf") == 0)
        *out = -INFINITY;
    else
        return -1;
    return 0;
}

json_t *gd_value_to_json(gd_value v)
{
    if (v.status == GD_ST_OK)
        return number(v.v);
    if (v.status == GD_ST_UNREAD && v.raw == 0)
        return json_null();
    const char *k = v.status >= 0 && (size_t)v.status < STATUS_KEYS ? status_keys[v.status] : "error";
    if (v.raw == 0)
        return json_string(k);
    char buf[48];
    snprintf(buf, sizeof buf, "%s:%d", k, (int)v.raw);
    return json_string(buf);
}

int gd_value_from_json(const json_t *j, gd_value *out)
{
    *out = (gd_value){0};
    if (json_is_null(j))
        return 0;
    if (json_is_number(j))
        return number_from(j, &out->v) == 0 ? (out->status = GD_ST_OK, 0) : -1;
    const char *s = json_string_value(j);
    if (!s)
        return -1;
    if (number_from(j, &out->v) == 0) {
        out->status = GD_ST_OK;
        return 0;
    }
    size_t n = strcspn(s, ":");
    for (size_t k = 0; k < STATUS_KEYS; k++)
        if (k != GD_ST_OK && strlen(status_keys[k]) == n && strncmp(s, status_keys[k], n) == 0) {
            out->status = (int16_t)k;
            if (s[n] == ':') {
                char *end;
                long raw = strtol(s + n + 1, &end, 10);
                if (*end || end == s + n + 1 || raw < -2147483647L || raw > 2147483647L)
                    return -1;
                out->raw = (int32_t)raw;
            }
            return 0;
        }
    return -1;
}

static json_t *dump(const void *obj, const ftable *t);

static json_t *elements(const char *base, size_t size, size_t n, const ftable *t)
{
    json_t *a = json_array();
    for (size_t i = 0; a && i < n; i++)
        if (json_array_append_new(a, dump(base + i * size, t)) != 0) {
            json_decref(a);
            return NULL;
        }
    return a;
}

static json_t *dump(const void *obj, const ftable *t)
{
    const char *o = obj;
    json_t *j = json_object();
    for (size_t k = 0; j && k < t->n; k++) {
        const field *d = &t->f[k];
        const char *m = o + d->off;
        size_t cnt = d->type >= F_ARR ? *(const size_t *)(o + d->cnt) : 0;
        json_t *v = NULL;
        switch (d->type) {
        case F_STR: v = json_stringn_nocheck(m, strnlen(m, d->size)); break;
        case F_VAL: v = gd_value_to_json(*(const gd_value *)m); break;
        case F_INT: v = json_integer(*(const int *)m); break;
        case F_UINT: v = json_integer(*(const unsigned int *)m); break;
        case F_LONG: v = json_integer(*(const long *)m); break;
        case F_LLONG: v = json_integer(*(const long long *)m); break;
        case F_SIZE: v = json_integer((json_int_t) * (const size_t *)m); break;
        case F_BOOL: v = json_boolean(*(const bool *)m); break;
        case F_DBL: v = number(*(const double *)m); break;
        case F_U16: v = json_integer(*(const uint16_t *)m); break;
        case F_U64: v = json_integer((json_int_t) * (const uint64_t *)m); break;
        case F_SUB: v = dump(m, d->sub); break;
        case F_ARR: v = elements(m, d->size, cnt < d->max ? cnt : d->max, d->sub); break;
        case F_PARR: {
            const char *p = *(const char *const *)m;
            if (!p)
                continue;
            v = elements(p, d->size, d->square ? cnt * cnt : cnt, d->sub);
            break;
        }
        case F_INTS:
        case F_DBLS:
        case F_ULONGS:
        case F_STRS:
        case F_STRV: {
            size_t n = d->type == F_DBLS || d->type == F_ULONGS ? d->max
                       : d->type == F_STRV || cnt < d->max      ? cnt
                                                                : d->max;
            v = json_array();
            for (size_t i = 0; v && i < n; i++) {
                json_t *e = d->type == F_INTS     ? json_integer(((const int *)m)[i])
                            : d->type == F_DBLS   ? number(((const double *)m)[i])
                            : d->type == F_ULONGS ? json_integer((json_int_t)((const unsigned long *)m)[i])
                            : d->type == F_STRS
                                ? json_stringn_nocheck(m + i * d->size, strnlen(m + i * d->size, d->size))
                                : json_string_nocheck((*(char *const *const *)m)[i]);
                json_array_append_new(v, e);
            }
            break;
        }
        }
        if (!v || json_object_set_new_nocheck(j, d->key, v) != 0) {
            json_decref(j);
            return NULL;
        }
    }
    return j;
}

static int load(void *obj, const ftable *t, const json_t *j, char *err, size_t errlen);

static int fail(char *err, size_t errlen, const char *key, const char *why)
{
    snprintf(err, errlen, "'%s' %s", key, why);
    return -1;
}

static int integer(const json_t *v, long long lo, long long hi, long long *out)
{
    if (!json_is_integer(v) || json_integer_value(v) < lo || json_integer_value(v) > hi)
        return -1;
    *out = json_integer_value(v);
    return 0;
}

static int load_elements(char *base, size_t size, const json_t *a, const ftable *t, char *err, size_t errlen)
{
    for (size_t i = 0; i < json_array_size(a); i++)
        if (load(base + i * size, t, json_array_get(a, i), err, errlen) != 0)
            return -1;
    return 0;
}

static int load_field(char *o, const field *d, const json_t *v, char *err, size_t errlen)
{
    char *m = o + d->off;
    long long x;
    size_t n = json_array_size(v);
    if (d->type >= F_ARR && !json_is_array(v))
        return fail(err, errlen, d->key, "is not a list");
    if (d->type >= F_ARR && d->type != F_PARR && d->type != F_STRV && n > d->max)
        return fail(err, errlen, d->key, "has too many entries");
    switch (d->type) {
    case F_STR: {
        const char *s = json_string_value(v);
        if (!s)
            return fail(err, errlen, d->key, "is not a string");
        snprintf(m, d->size, "%s", s);
        return 0;
    }
    case F_VAL: return gd_value_from_json(v, (gd_value *)m) == 0 ? 0 : fail(err, errlen, d->key, "is not a value");
    case F_INT:
        if (integer(v, -2147483647LL - 1, 2147483647LL, &x) != 0)
            return fail(err, errlen, d->key, "is not an integer");
        *(int *)m = (int)x;
        return 0;
    case F_UINT:
        if (integer(v, 0, 4294967295LL, &x) != 0)
            return fail(err, errlen, d->key, "is not a count");
        *(unsigned int *)m = (unsigned int)x;
        return 0;
    case F_LONG:
        if (integer(v, -(1LL << 53), 1LL << 53, &x) != 0)
            return fail(err, errlen, d->key, "is not an integer");
        *(long *)m = (long)x;
        return 0;
    case F_LLONG:
        if (!json_is_integer(v))
            return fail(err, errlen, d->key, "is not an integer");
        *(long long *)m = json_integer_value(v);
        return 0;
    case F_SIZE:
        if (integer(v, 0, 1LL << 53, &x) != 0)
            return fail(err, errlen, d->key, "is not a count");
        *(size_t *)m = (size_t)x;
        return 0;
    case F_BOOL:
        if (!json_is_boolean(v))
            return fail(err, errlen, d->key, "is not true or false");
        *(bool *)m = json_is_true(v);
        return 0;
    case F_DBL: return number_from(v, (double *)m) == 0 ? 0 : fail(err, errlen, d->key, "is not a number");
    case F_U16:
        if (integer(v, 0, 65535, &x) != 0)
            return fail(err, errlen, d->key, "is not a count");
        *(uint16_t *)m = (uint16_t)x;
        return 0;
    case F_U64:
        if (!json_is_integer(v))
            return fail(err, errlen, d->key, "is not an integer");
        *(uint64_t *)m = (uint64_t)json_integer_value(v);
        return 0;
    case F_SUB: return load(m, d->sub, v, err, errlen);
    case F_ARR: *(size_t *)(o + d->cnt) = n; return load_elements(m, d->size, v, d->sub, err, errlen);
    case F_PARR: {
        size_t cnt = *(size_t *)(o + d->cnt);
        if (d->square ? n != cnt * cnt : n > d->max)
            return fail(err, errlen, d->key, d->square ? "is not a square of the GPUs" : "has too many entries");
        if (n == 0)
            return 0;
        char *p = calloc(n, d->size);
        if (!p)
            return fail(err, errlen, d->key, "does not fit in memory");
        *(char **)m = p;
        if (!d->square)
            *(size_t *)(o + d->cnt) = n;
        return load_elements(p, d->size, v, d->sub, err, errlen);
    }
    case F_INTS:
    case F_DBLS:
    case F_ULONGS:
    case F_STRS:
    case F_STRV:
        if (d->type == F_STRV) {
            if (n > d->max)
                return fail(err, errlen, d->key, "has too many entries");
            char **sv = n ? calloc(n, sizeof *sv) : NULL;
            if (n && !sv)
                return fail(err, errlen, d->key, "does not fit in memory");
            *(char ***)m = sv;
            for (size_t i = 0; i < n; i++) {
                const char *s = json_string_value(json_array_get(v, i));
                if (!s || !(sv[i] = strdup(s)))
                    return fail(err, errlen, d->key, "holds a non-string");
                *(size_t *)(o + d->cnt) = i + 1;
            }
            return 0;
        }
        if (d->type == F_INTS || d->type == F_STRS)
            *(size_t *)(o + d->cnt) = n;
        for (size_t i = 0; i < n; i++) {
            const json_t *e = json_array_get(v, i);
            if (d->type == F_INTS) {
                if (integer(e, -2147483647LL - 1, 2147483647LL, &x) != 0)
                    return fail(err, errlen, d->key, "holds a non-integer");
                ((int *)m)[i] = (int)x;
            } else if (d->type == F_DBLS) {
                if (number_from(e, &((double *)m)[i]) != 0)
                    return fail(err, errlen, d->key, "holds a non-number");
            } else if (d->type == F_ULONGS) {
                if (integer(e, 0, 1LL << 53, &x) != 0)
                    return fail(err, errlen, d->key, "holds a non-count");
                ((unsigned long *)m)[i] = (unsigned long)x;
            } else {
                const char *s = json_string_value(e);
                if (!s)
                    return fail(err, errlen, d->key, "holds a non-string");
                snprintf(m + i * d->size, d->size, "%s", s);
            }
        }
        return 0;
    }
    return 0;
}

/* Keys a reader does not know (a newer writer's) are skipped; missing ones stay zero. */
static int load(void *obj, const ftable *t, const json_t *j, char *err, size_t errlen)
{
    if (!json_is_object(j)) {
        snprintf(err, errlen, "an object was expected");
        return -1;
    }
    for (size_t k = 0; k < t->n; k++) {
        const json_t *v = json_object_get(j, t->f[k].key);
        if (v && load_field(obj, &t->f[k], v, err, errlen) != 0)
            return -1;
    }
    return 0;
}

json_t *gd_facts_static_to_json(const gd_facts *f)
{
    return dump(f, &t_facts);
}

int gd_facts_static_from_json(const json_t *j, gd_facts *f, char *err, size_t errlen)
{
    return load(f, &t_facts, j, err, errlen);
}

json_t *gd_facts_end_to_json(const gd_facts *f)
{
    json_t *j = json_object();
    if (j && f->pcie && json_object_set_new(j, "pcie", dump(f->pcie, &t_pcie)) != 0)
        goto oom;
    if (j && f->stack && json_object_set_new(j, "stack", dump(f->stack, &t_stack)) != 0)
        goto oom;
    if (j && f->net && json_object_set_new(j, "net", dump(f->net, &t_net)) != 0)
        goto oom;
    if (j && (f->events.n || f->events.start_unix > 0) &&
        json_object_set_new(j, "events", gd_events_to_json(&f->events, false)) != 0)
        goto oom;
    return j;
oom:
    json_decref(j);
    return NULL;
}

/* A kernel log's counts as its reader makes them (stack.h): a recording that
 * says otherwise is damaged, and a check would count what is not there. */
static int kernel_log_counts(const gd_stack_facts *s, char *err, size_t errlen)
{
    if (!s->kernel_log_read && (s->xid_group_count || s->aer_device_count || s->gpu_fatal_count))
        return fail(err, errlen, "stack", "holds events of a kernel log that was not read");
    size_t counted = 0;
    for (size_t i = 0; i < s->xid_group_count; i++) {
        const gd_xid_group *g = &s->xid_groups[i];
        if (g->example_count == 0 || g->count < g->example_count)
            return fail(err, errlen, "stack", "holds an Xid group without its newest events");
        /* xid_total counts lines, and one fault may print several (klog_xid_run.h);
         * a recording older than the line count has none: one line an event. */
        size_t lines = g->lines ? g->lines : g->count;
        if (lines < g->count)
            return fail(err, errlen, "stack", "holds an Xid group of fewer lines than events");
        counted += lines;
    }
    if (counted + s->xid_dropped != s->xid_total)
        return fail(err, errlen, "stack", "counts Xids that do not add up");
    return 0;
}

/* The network's enumerations as its readers make them: a state past the
 * known ones would index a check's names out of bounds. */
static int net_in_range(const gd_net_facts *n, char *err, size_t errlen)
{
    if ((unsigned)n->peermem > GD_PEERMEM_LOADED)
        return fail(err, errlen, "net", "holds an unknown peermem state");
    for (size_t i = 0; i < n->dev_count; i++)
        for (size_t k = 0; k < n->devs[i].port_count; k++) {
            const gd_net_port *p = &n->devs[i].ports[k];
            if ((unsigned)p->state > GD_PORT_ACTIVE_DEFER || (unsigned)p->phys > GD_PORT_PHYS_TEST ||
                (unsigned)p->link_layer > GD_LINK_ETHERNET || p->netdev_up < -1 || p->netdev_up > 1)
                return fail(err, errlen, "net", "holds a port state out of range");
        }
    for (size_t i = 0; i < n->iface_count; i++)
        if (n->ifaces[i].up < -1 || n->ifaces[i].up > 1)
            return fail(err, errlen, "net", "holds an interface state out of range");
    return 0;
}

int gd_facts_end_from_json(const json_t *j, gd_facts *f, char *err, size_t errlen)
{
    const json_t *p = json_object_get(j, "pcie"), *s = json_object_get(j, "stack");
    if (p) {
        if (!f->pcie && !(f->pcie = calloc(1, sizeof *f->pcie)))
            return fail(err, errlen, "pcie", "does not fit in memory");
        if (load(f->pcie, &t_pcie, p, err, errlen) != 0)
            return -1;
    }
    if (s) {
        if (!f->stack && !(f->stack = calloc(1, sizeof *f->stack)))
            return fail(err, errlen, "stack", "does not fit in memory");
        if (load(f->stack, &t_stack, s, err, errlen) != 0 || kernel_log_counts(f->stack, err, errlen) != 0)
            return -1;
    }
    const json_t *n = json_object_get(j, "net");
    if (n) {
        if (!f->net && !(f->net = calloc(1, sizeof *f->net)))
            return fail(err, errlen, "net", "does not fit in memory");
        if (load(f->net, &t_net, n, err, errlen) != 0 || net_in_range(f->net, err, errlen) != 0)
            return -1;
    }
    const json_t *e = json_object_get(j, "events");
    if (e && gd_events_from_json(e, &f->events, err, errlen) != 0)
        return -1;
    return 0;
}

size_t gd_recording_full_samples(double window_s, double interval_s)
{
    if (!(interval_s > 0) || !(window_s >= 0))
        return 0;
    double span = window_s < GD_RETENTION_S ? window_s : GD_RETENTION_S;
    return (size_t)(span / interval_s + 1.5);
}

/* Whether the members of table t are the same in a and b (for the types a
 * health table holds). */
static bool same_fields(const char *a, const char *b, const ftable *t)
{
    for (size_t k = 0; k < t->n; k++) {
        const field *d = &t->f[k];
        const char *x = a + d->off, *y = b + d->off;
        size_t n;
        switch (d->type) {
        case F_VAL:
            if (memcmp(x, y, sizeof(gd_value)) != 0)
                return false;
            break;
        case F_STR:
            if (strncmp(x, y, d->size) != 0)
                return false;
            break;
        case F_INT: n = sizeof(int); goto raw;
        case F_UINT: n = sizeof(unsigned); goto raw;
        case F_BOOL: n = sizeof(bool); goto raw;
        case F_DBL:
            n = sizeof(double);
        raw:
            if (memcmp(x, y, n) != 0)
                return false;
            break;
        case F_ARR: {
            size_t ca = *(const size_t *)(a + d->cnt), cb = *(const size_t *)(b + d->cnt);
            if (ca != cb)
                return false;
            for (size_t i = 0; i < ca && i < d->max; i++)
                if (!same_fields(x + i * d->size, y + i * d->size, d->sub))
                    return false;
            break;
        }
        default: return false; /* not in a health table: never taken as the same */
        }
    }
    return true;
}

bool gd_gpu_health_same(const gd_gpu *a, const gd_gpu *b)
{
    return same_fields((const char *)a, (const char *)b, &t_gpu_health);
}

json_t *gd_gpu_health_to_json(const gd_gpu *g)
{
    return dump(g, &t_gpu_health);
}

int gd_gpu_health_from_json(const json_t *j, gd_gpu *g, char *err, size_t errlen)
{
    return load(g, &t_gpu_health, j, err, errlen);
}

json_t *gd_event_sum_to_json(const gd_event_sum *s)
{
    return dump(s, &t_event_sum);
}

int gd_event_sum_from_json(const json_t *j, gd_event_sum *s, char *err, size_t errlen)
{
    memset(s, 0, sizeof *s);
    if (load(s, &t_event_sum, j, err, errlen) != 0)
        return -1;
    if (s->kind < GD_EV_XID || s->kind > GD_EV_DRIVER_BACK || s->gpu < -1 || s->gpu > 4096 || s->count == 0 ||
        !isfinite(s->first_t) || !isfinite(s->last_t))
        return fail(err, errlen, "sums", "holds a sum that is not one of events");
    return 0;
}

json_t *gd_job_to_json(const gd_job_facts *j)
{
    return dump(j, &t_jfacts);
}

int gd_job_from_json(const json_t *v, gd_job_facts *j, char *err, size_t errlen)
{
    /* The newest summary replaces the one before. */
    if (json_object_get(v, "threads")) {
        free(j->threads);
        j->threads = NULL;
        j->thread_count = 0;
    }
    if (json_object_get(v, "procs")) {
        free(j->procs);
        j->procs = NULL;
        j->proc_count = 0;
    }
    if (json_array_size(json_object_get(v, "gpu_minors")) > 64)
        return fail(err, errlen, "gpu_minors", "has too many entries");
    return load(j, &t_jfacts, v, err, errlen);
}

json_t *gd_job_sample_to_json(const gd_job_sample *s)
{
    return dump(s, &t_jsample);
}

int gd_job_sample_from_json(const json_t *v, gd_job_sample *s, char *err, size_t errlen)
{
    return load(s, &t_jsample, v, err, errlen);
}

json_t *gd_host_sample_to_json(const gd_host_sample *s)
{
    return dump(s, &t_hsample);
}

int gd_host_sample_from_json(const json_t *v, gd_host_sample *s, char *err, size_t errlen)
{
    return load(s, &t_hsample, v, err, errlen);
}
