/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Scenario files of the simulated machine (docs/scenarios.md): parsing,
 * validation, and the questions the simulated libraries ask of a scenario
 * ("what is GPU 3's temperature at scenario second 12.5?").
 *
 * Parsing builds plain C structs; nothing here keeps a JSON tree, does I/O
 * after loading, or holds global state. Every optional value carries a
 * presence flag: absent is not zero.
 */
#ifndef GPUDOCTOR_SIM_SCENARIO_H
#define GPUDOCTOR_SIM_SCENARIO_H

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Limits, each refused with a message naming it. */
#define GD_SCENARIO_MAX_FILE_BYTES ((size_t)64 << 20)
#define GD_SCENARIO_MAX_GPUS 64
#define GD_SCENARIO_MAX_POINTS 100000

/* Optional values of the static part of a scenario. */
typedef struct gd_scenario_int {
    bool present;
    long long value;
} gd_scenario_int;

typedef struct gd_scenario_num {
    bool present;
    double value;
} gd_scenario_num;

typedef struct gd_scenario_flag {
    bool present;
    bool value;
} gd_scenario_flag;

/* A {"sm": MHz, "mem": MHz} pair. */
typedef struct gd_scenario_clocks {
    gd_scenario_int sm;
    gd_scenario_int mem;
} gd_scenario_clocks;

/* The fields of a timeline point that hold a number (or null). */
typedef enum gd_scenario_field {
    GD_SCENARIO_TEMP_C,
    GD_SCENARIO_MEM_TEMP_C,
    GD_SCENARIO_SM_CLOCK_MHZ,
    GD_SCENARIO_MEM_CLOCK_MHZ,
    GD_SCENARIO_POWER_W,
    GD_SCENARIO_UTIL_GPU_PCT,
    GD_SCENARIO_UTIL_MEM_PCT,
    GD_SCENARIO_MEM_USED_MIB,
    GD_SCENARIO_PCIE_GEN,
    GD_SCENARIO_PCIE_WIDTH,
    GD_SCENARIO_PCIE_TX_KBPS,
    GD_SCENARIO_PCIE_RX_KBPS,
    GD_SCENARIO_PCIE_REPLAYS,
    GD_SCENARIO_FAN_PCT,
    GD_SCENARIO_FIELD_COUNT
} gd_scenario_field;

/* How a timeline value stands at some time. */
typedef enum gd_scenario_status {
    GD_SCENARIO_ABSENT = 0, /* in no point of this GPU: the board does not report it */
    GD_SCENARIO_NULL, /* written as null: not reported at this time */
    GD_SCENARIO_SET /* value holds */
} gd_scenario_status;

typedef struct gd_scenario_value {
    gd_scenario_status status;
    double value;
} gd_scenario_value;

/*
 * One timeline point, already resolved at load time: a field the point omits
 * carries the previous point's value, and a field that first appears in a
 * later point carries that first value back to the earlier points (so
 * "before the first point, the first values hold" holds per field). `written`
 * has bit (1u << field) set for the fields the file wrote in this point, and
 * bit GD_SCENARIO_FIELD_COUNT for event_reasons.
 */
typedef struct gd_scenario_point {
    double t; /* scenario seconds, >= 0, strictly increasing */
    gd_scenario_value field[GD_SCENARIO_FIELD_COUNT];
    gd_scenario_status reasons_status;
    unsigned long long event_reasons; /* NVML clock event reason bits */
    unsigned written;
} gd_scenario_point;

/*
 * Injected NVML return codes. GPU-level (and scenario-level) entries have
 * `always` set; entries of a timeline point apply from `from_t` on. Entries
 * are kept in file order: GPU-level first, then timeline points by time.
 */
typedef struct gd_scenario_error {
    char *fn; /* NVML function name as written, e.g. "nvmlDeviceGetCount_v2" */
    int code; /* an nvmlReturn_t value */
    bool always;
    double from_t;
} gd_scenario_error;

typedef struct gd_scenario_errors {
    size_t count;
    gd_scenario_error *items;
} gd_scenario_errors;

/* NVLink error counters, in nvmlNvLinkErrorCounter_t's order. */
typedef enum gd_scenario_nvlink_counter {
    GD_SCENARIO_NVLINK_REPLAY,
    GD_SCENARIO_NVLINK_RECOVERY,
    GD_SCENARIO_NVLINK_CRC_FLIT,
    GD_SCENARIO_NVLINK_CRC_DATA,
    GD_SCENARIO_NVLINK_ECC_DATA,
    GD_SCENARIO_NVLINK_COUNTERS
} gd_scenario_nvlink_counter;

/* "ok", "chipset_not_supported", ... in nvmlGpuP2PStatus_t's order. */
#define GD_SCENARIO_P2P_STATUSES 7
extern const char *const gd_scenario_p2p_status_names[GD_SCENARIO_P2P_STATUSES];

/* "replay", "recovery", "crc_flit", "crc_data", "ecc_data". */
extern const char *const gd_scenario_nvlink_counter_names[GD_SCENARIO_NVLINK_COUNTERS];

typedef struct gd_scenario_nvlink {
    unsigned link;
    gd_scenario_flag active;
    char *remote_pci_bus_id; /* NULL when absent */
    /* Additions: the error counters at t = 0 ("error_counters": {"crc_flit": 0, ...};
     * a counter neither given here nor raised by an event is not supported),
     * and the data rates ("data_tx_kibps", "data_rx_kibps": KiB per scenario
     * second) behind the throughput field values. */
    gd_scenario_int errors[GD_SCENARIO_NVLINK_COUNTERS];
    gd_scenario_int version; /* addition: "version", nvmlDeviceGetNvLinkVersion's answer (absent: not supported) */
    gd_scenario_num data_tx_kibps, data_rx_kibps;
} gd_scenario_nvlink;

/*
 * Addition: a MIG-enabled GPU's MIG devices ("mig_devices": [{"gpu_instance_id":
 * 9, "compute_instance_id": 0, "profile": "1g.10gb", "uuid": "MIG-...",
 * "memory_total_mib": 9856, "memory_used_mib": 512}]), answered through
 * nvmlDeviceGetMigDeviceHandleByIndex and the calls NVML allows on a MIG
 * device's handle (name, UUID, memory, instance ids).
 */
#define GD_SCENARIO_MAX_MIG 7 /* an A100's or H100's most */
typedef struct gd_scenario_mig {
    unsigned gpu_instance_id, compute_instance_id;
    char *profile; /* "1g.10gb"; NULL when absent */
    char *uuid; /* NULL when absent */
    gd_scenario_int memory_total_mib, memory_used_mib;
} gd_scenario_mig;

typedef struct gd_scenario_process {
    unsigned pid;
    char *name; /* NULL when absent */
    gd_scenario_int used_mib;
} gd_scenario_process;

typedef enum gd_scenario_compute_mode {
    /* Same values as nvmlComputeMode_t. */
    GD_SCENARIO_COMPUTE_DEFAULT = 0,
    GD_SCENARIO_COMPUTE_EXCLUSIVE_THREAD = 1,
    GD_SCENARIO_COMPUTE_PROHIBITED = 2,
    GD_SCENARIO_COMPUTE_EXCLUSIVE_PROCESS = 3
} gd_scenario_compute_mode;

/*
 * Addition: a GPU's health events at their time ("events": [{"t": 40,
 * "ecc_uncorrected": 2}, {"t": 12, "xid": 79}]). Xids are delivered through
 * NVML's event API; the counts add to the static "ecc" counters from `t` on.
 */
typedef struct gd_scenario_event {
    double t;
    int xid; /* 0: none */
    long long ecc_uncorrected; /* new uncorrectable errors (volatile and aggregate) */
    long long retired_pages; /* new pages retired for double-bit errors */
    long long remapped_rows_uncorrectable; /* new rows remapped for uncorrectable errors */
    gd_scenario_flag remapped_rows_pending; /* the pending state from t on */
    /* "nvlink": {"link": 3, "crc_flit": 120, "replay": 4}: new errors on that link */
    bool has_nvlink;
    unsigned nvlink_link;
    long long nvlink_errors[GD_SCENARIO_NVLINK_COUNTERS];
} gd_scenario_event;

typedef struct gd_scenario_gpu {
    unsigned index;
    /* Strings are NULL when absent. */
    char *name;
    char *uuid;
    char *pci_bus_id; /* "00000000:1B:00.0" */
    char *serial;
    char *vbios_version; /* "vbios_version", an addition to the format */
    bool has_compute_capability;
    int compute_capability[2]; /* major, minor */
    gd_scenario_int memory_total_mib;
    gd_scenario_num power_limit_w;
    gd_scenario_num power_limit_requested_w; /* "power_limit_requested_w", an addition: absent, the enforced limit */
    gd_scenario_num power_limit_default_w;
    gd_scenario_num power_limit_min_w;
    gd_scenario_num power_limit_max_w;
    gd_scenario_clocks clocks_max_mhz;
    gd_scenario_clocks clocks_default_app_mhz;
    gd_scenario_clocks clocks_app_mhz;
    struct {
        gd_scenario_int shutdown, slowdown, gpu_max, mem_max;
    } temperature_thresholds_c;
    /* Addition: current drivers' relative limits. "temperature_limit_c" is
     * T.Limit, the maximum operating temperature in C (the margin,
     * nvmlDeviceGetMarginTemperature, is it minus temp_c); the offsets of the
     * limits from it, as nvidia-smi prints them ("Slowdown T.Limit -2 C"). */
    gd_scenario_int temperature_limit_c;
    struct {
        gd_scenario_int shutdown, slowdown, gpu_max, mem_max;
    } temperature_tlimit_c;
    struct {
        gd_scenario_int gen, width; /* the card's own */
        gd_scenario_int host_gen, host_width; /* the slot's, when lower (NVML's Max is the lower of the two) */
    } pcie_max;
    gd_scenario_flag persistence_mode;
    bool has_compute_mode;
    gd_scenario_compute_mode compute_mode;
    gd_scenario_flag mig_mode;
    struct {
        gd_scenario_flag enabled;
        gd_scenario_int volatile_uncorrected;
        gd_scenario_int aggregate_uncorrected;
        gd_scenario_int retired_pages;
        gd_scenario_flag retired_pages_pending; /* addition: nvmlDeviceGetRetiredPagesPendingStatus */
        gd_scenario_flag remapped_rows_pending;
        gd_scenario_flag remap_failure;
    } ecc;
    bool has_nvlink; /* the key is there (possibly an empty list) */
    size_t nvlink_count;
    gd_scenario_nvlink *nvlink;
    struct {
        gd_scenario_num h2d_pinned, d2h_pinned, h2d_pageable, d2h_pageable, d2d;
    } bandwidth_gbps;
    struct {
        gd_scenario_num bf16, fp16, fp32, tf32, fp8;
    } gemm_tflops;
    /* Addition: faults the simulated libraries play for the benchmarks. */
    struct {
        gd_scenario_flag kernel_load; /* cuModuleLoadData fails: CUDA_ERROR_INVALID_PTX */
        gd_scenario_flag gemm_wrong_results; /* the simulated cuBLASLt returns a wrong element */
        gd_scenario_flag nccl_wrong_results; /* the simulated NCCL leaves a wrong element on this GPU */
        gd_scenario_flag nccl_process_exit; /* the simulated NCCL ends this GPU's process mid-run (across processes) */
    } faults;
    size_t mig_count; /* "mig_devices" */
    gd_scenario_mig *mig;
    bool has_processes;
    size_t process_count;
    gd_scenario_process *processes;
    gd_scenario_errors errors; /* GPU-level and timeline errors, flattened */
    gd_scenario_num gpm_tensor_share; /* addition: "gpm": {"tensor_share": 0..1} */
    gd_scenario_int memory_reserved_mib; /* addition: what the driver reserves (nvmlMemory_v2_t) */
    /* Addition: "fabric": {"state": "completed", "status": 0}, the GPU's NVLink
     * fabric registration (nvmlDeviceGetGpuFabricInfo); absent: NOT_SUPPORTED. */
    bool has_fabric;
    unsigned fabric_state; /* NVML_GPU_FABRIC_STATE_* */
    /* Addition: "nvlink_speed_mbps", the active links' common speed
     * (NVML_FI_DEV_NVLINK_SPEED_MBPS_COMMON); absent: not supported. */
    gd_scenario_int nvlink_speed_mbps;
    /* Addition: "p2p": {"supported": false, "status": "chipset_not_supported",
     * "gbps": 25.1, "peers": {"00000000:41:00.0": 6.3}}: whether the driver
     * lets this GPU reach its peers' memory (cuDeviceCanAccessPeer; absent:
     * true), nvmlDeviceGetP2PStatus's answer (absent: ok when supported,
     * else not_supported; an NVML P2P status name without NVML_P2P_STATUS_,
     * in lower case), and the copy rate to a peer per direction in GB/s,
     * overridden per peer by its bus id (absent: what its NVLinks carry,
     * gd_scenario_p2p_gbps). */
    struct {
        gd_scenario_flag supported;
        int status; /* nvmlGpuP2PStatus_t, -1 absent */
        gd_scenario_num gbps;
        size_t peer_count;
        struct gd_scenario_p2p_peer {
            char *bus_id;
            double gbps;
        } * peers;
    } p2p;
    gd_scenario_int fabric_status; /* an nvmlReturn_t; absent: NVML_SUCCESS */
    size_t event_count; /* "events", sorted by t */
    gd_scenario_event *events;
    size_t point_count; /* 0 when there is no timeline */
    gd_scenario_point *points;
} gd_scenario_gpu;

/*
 * Addition: the node's training network (docs/scenarios.md, "nics" and
 * "network"): RDMA devices and their ports, the node's interfaces,
 * GPUDirect RDMA's module and PCIe ACS on its bridges. Strings are copied
 * into fixed fields (longer ones are refused); absent numbers carry no
 * presence.
 */
#define GD_SCENARIO_MAX_NICS 64
#define GD_SCENARIO_MAX_NIC_PORTS 4
#define GD_SCENARIO_MAX_GIDS 16
#define GD_SCENARIO_MAX_IFACES 128
#define GD_SCENARIO_MAX_ACS 256
#define GD_SCENARIO_NAME 32

/* The port counters a scenario may give, as sysfs names them
 * (ports/N/counters and hw_counters). */
#define GD_SCENARIO_PORT_COUNTERS 12
extern const char *const gd_scenario_port_counter_names[GD_SCENARIO_PORT_COUNTERS];

typedef struct gd_scenario_gid {
    int index;
    char gid[48];
    char type[16]; /* "IB", "RoCE v1", "RoCE v2" */
    char netdev[GD_SCENARIO_NAME];
} gd_scenario_gid;

typedef struct gd_scenario_nic_port {
    unsigned port; /* from 1 */
    int state; /* IBTA PortState: 1 down .. 5 active_defer; 0 absent */
    int phys_state; /* IBTA PortPhysicalState: 1 sleep .. 7 phy_test; 0 absent */
    int link_layer; /* 0 absent, 1 InfiniBand, 2 Ethernet */
    gd_scenario_num rate_gbps;
    char netdev[GD_SCENARIO_NAME];
    gd_scenario_flag netdev_up;
    gd_scenario_int counters[GD_SCENARIO_PORT_COUNTERS]; /* at t = 0 */
    double counters_per_s[GD_SCENARIO_PORT_COUNTERS]; /* growth per scenario second */
    size_t gid_count;
    gd_scenario_gid gids[GD_SCENARIO_MAX_GIDS];
} gd_scenario_nic_port;

typedef struct gd_scenario_nic {
    char name[GD_SCENARIO_NAME];
    char bdf[16]; /* "0000:19:00.0", lower case */
    char ca_type[32];
    char firmware[32];
    gd_scenario_int numa_node;
    size_t port_count;
    gd_scenario_nic_port ports[GD_SCENARIO_MAX_NIC_PORTS];
} gd_scenario_nic;

typedef struct gd_scenario_iface {
    char name[GD_SCENARIO_NAME];
    gd_scenario_flag up;
    bool loopback, bridge, virtual_dev;
    char ipv4[16];
} gd_scenario_iface;

typedef struct gd_scenario_acs {
    char bdf[16];
    bool src_valid, trans_blk, req_redir, cmplt_redir, upstream_fwd, egress_ctrl, direct_trans;
} gd_scenario_acs;

typedef enum gd_scenario_peermem {
    GD_SCENARIO_PEERMEM_ABSENT = 0, /* the key is not there: not said */
    GD_SCENARIO_PEERMEM_NONE, /* "none": neither module loaded */
    GD_SCENARIO_PEERMEM_NVIDIA, /* "nvidia_peermem" */
    GD_SCENARIO_PEERMEM_MELLANOX, /* "nv_peer_mem" */
} gd_scenario_peermem;

typedef struct gd_scenario_net {
    bool has_nics; /* "nics" is there (an empty list: a node without RDMA devices) */
    size_t nic_count;
    gd_scenario_nic *nics;
    bool has_ifaces; /* "network.interfaces" is there */
    size_t iface_count;
    gd_scenario_iface *ifaces;
    gd_scenario_peermem peermem;
    bool has_acs; /* "network.acs" is there (an empty list: no bridge with ACS on) */
    size_t acs_count;
    gd_scenario_acs *acs;
} gd_scenario_net;

typedef struct gd_scenario {
    char *path; /* as given to the loader */
    char *description; /* NULL when absent */
    char *driver_version; /* NULL when absent */
    gd_scenario_int cuda_driver_version; /* e.g. 12040 */
    double timescale; /* > 0; 1.0 when absent */
    struct {
        char *sysfs; /* resolved against the scenario's directory; NULL when absent */
        char *kernel_log; /* same */
        char *proc; /* addition: a directory laid out like /proc (the job's status, numa_maps); same */
        gd_scenario_int numa_nodes;
        char *hostname; /* addition: the simulated machine's name; NULL when absent */
        char *kernel; /* addition: its kernel release; NULL when absent */
        gd_scenario_int cpus; /* addition: its online CPUs */
    } host;
    gd_scenario_errors errors; /* addition: top-level "errors" for system-level calls */
    gd_scenario_net net; /* addition: "nics" and "network" */
    size_t gpu_count;
    gd_scenario_gpu *gpus;
    /* The named processes of every GPU by pid, sorted once at load (for
     * gd_scenario_process_name); a pid on several GPUs once, its first name. */
    size_t pid_name_count;
    struct gd_scenario_pid_name {
        unsigned pid;
        size_t order; /* position in the scenario: ties of the sort */
        const char *name; /* owned by the process */
    } * pid_names;
} gd_scenario;

/*
 * Reads, parses and validates a scenario file. Returns a scenario the caller
 * frees with gd_scenario_free(), or NULL with a message in err such as
 * "x.json: gpus[2].timeline[3].t: expected a number".
 */
gd_scenario *gd_scenario_load(const char *path, char *err, size_t errlen);

/*
 * Same, from memory: `name` stands for the file in messages and relative
 * host paths resolve against its directory. `data` need not be
 * NUL-terminated.
 */
gd_scenario *gd_scenario_load_buffer(const char *data, size_t len, const char *name, char *err, size_t errlen);

/* Frees a scenario; NULL is fine. */
void gd_scenario_free(gd_scenario *sc);

/*
 * The timeline point in effect at scenario time t (the last one with
 * point.t <= t, or the first one when t is before it), or NULL when the GPU
 * has no timeline. Its values are already step-held (see gd_scenario_point).
 */
const gd_scenario_point *gd_scenario_state_at(const gd_scenario_gpu *gpu, double t);

/* One field at time t; status GD_SCENARIO_ABSENT when no point has it. */
gd_scenario_value gd_scenario_value_at(const gd_scenario_gpu *gpu, gd_scenario_field field, double t);

/* Event reason bits at time t into *bits (0 unless the status is SET). */
gd_scenario_status gd_scenario_reasons_at(const gd_scenario_gpu *gpu, double t, unsigned long long *bits);

/* The integral of a timeline field over [0, t] (value x scenario seconds);
 * false when the field is absent from the first point. */
bool gd_scenario_field_integral(const gd_scenario_gpu *gpu, gd_scenario_field field, double t, double *out);

/*
 * Integral of power_w over scenario time [0, t], in millijoules. Returns
 * false when power_w is absent from the GPU. Stretches where power_w is null
 * count as zero.
 */
bool gd_scenario_energy_mj(const gd_scenario_gpu *gpu, double t, double *mj);

/*
 * Scenario time in [0, t] during which any bit of `mask` was set in
 * event_reasons, in nanoseconds. Returns false when event_reasons is absent
 * from the GPU.
 */
bool gd_scenario_reason_time_ns(const gd_scenario_gpu *gpu, unsigned long long mask, double t, double *ns);

/* The sum of the events' counts up to time t (scenario_events.c): the
 * offset of `which` ("ecc_uncorrected", "retired_pages",
 * "remapped_rows_uncorrectable") over the static value. */
long long gd_scenario_event_sum(const gd_scenario_gpu *gpu, const char *which, double t);
/* NVLink `link`'s error counter at t: its "error_counters" value plus the
 * events' counts up to t; false when neither gives that counter. */
bool gd_scenario_nvlink_errors_at(const gd_scenario_gpu *gpu, unsigned link, gd_scenario_nvlink_counter c, double t,
                                  long long *out);
/* The pending state of row remapping at t: the latest event that sets it,
 * else the static value; *present false when neither says. */
/*
 * The copy rate between GPUs a and b per direction, GB/s, as the simulated
 * machine carries it: a per-peer rate of either GPU, else the lower of their
 * "p2p.gbps", else their NVLinks (direct ones, or both GPUs' links to an
 * NVSwitch: the fewer of the two, at nvlink_speed_mbps or the links'
 * version's rate, 86 % of it arriving, as nvbandwidth measures HGX H100), else a PCIe peer copy at 80 % of the
 * lower pinned host-copy rate. *p2p_ok: both GPUs allow peer access and
 * their P2P status is ok; without it a copy is staged through host memory,
 * at the per-peer rate where one is given, else half the lower of a's
 * device-to-host and b's host-to-device rate.
 */
double gd_scenario_p2p_gbps(const gd_scenario *sc, size_t a, size_t b, bool *p2p_ok);

/* nvmlDeviceGetP2PStatus's answer for GPU a and b (nvmlGpuP2PStatus_t). */
int gd_scenario_p2p_status(const gd_scenario *sc, size_t a, size_t b);

/* A NIC port's counter `c` at scenario time t: its value at 0 plus its
 * growth per second times t; false when the scenario does not give it. */
bool gd_scenario_nic_counter_at(const gd_scenario_nic_port *port, size_t c, double t, double *out);

bool gd_scenario_remap_pending_at(const gd_scenario_gpu *gpu, double t, bool *present);

/*
 * The return code injected for NVML function `fn` at time t, or 0
 * (NVML_SUCCESS) when none. Names match ignoring a trailing "_v2"/"_v3"...
 * on either side; when several entries match, the last one in effect wins.
 */
int gd_scenario_error_at(const gd_scenario_errors *errors, const char *fn, double t);

/* Whether any entry in effect at time t injects `code` (e.g. GPU_IS_LOST). */
bool gd_scenario_code_active(const gd_scenario_errors *errors, int code, double t);

/*
 * The name of process pid: that of the first GPU (in scenario order) that
 * lists it with a name, or NULL. O(log n): a binary search of pid_names.
 */
const char *gd_scenario_process_name(const gd_scenario *sc, unsigned pid);

/*
 * Splits a PCI bus id, "00000000:1B:00.0" or "0000:1B:00.0", into its parts.
 * Returns false when it is not of that form. Any out pointer may be NULL.
 */
bool gd_scenario_parse_bus_id(const char *id, unsigned *domain, unsigned *bus, unsigned *device, unsigned *function);

/* Names: "temp_c"; the NVML bit of a reason name (0 if unknown);
 * an NVML return code name ("NVML_ERROR_GPU_IS_LOST") to its value. */
const char *gd_scenario_field_name(gd_scenario_field field);
unsigned long long gd_scenario_reason_bit(const char *name);
bool gd_scenario_return_code(const char *name, int *code);

#ifdef __cplusplus
}
#endif
#endif
