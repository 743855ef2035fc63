/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The collection model: what gpudoctor knows about a machine.
 *
 * A snapshot of static facts (host, driver, each GPU's identity, limits,
 * thresholds and settings) plus a time series of every dynamic metric.
 * Every value carries a status, so "the board does not report this" is
 * never mistaken for zero.
 */
#ifndef GPUDOCTOR_MODEL_H
#define GPUDOCTOR_MODEL_H

#include "gpudoctor/ring.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Why a value is (not) there. */
typedef enum gd_status {
    GD_ST_UNREAD = 0, /* never asked (for example before the first sample) */
    GD_ST_OK, /* value is valid */
    GD_ST_NOT_SUPPORTED, /* the board or driver does not report it */
    GD_ST_NO_PERMISSION, /* needs root or a capability */
    GD_ST_UNAVAILABLE, /* the function is missing from the loaded library */
    GD_ST_ERROR, /* any other error; raw code kept */
    GD_ST_GPU_LOST, /* the GPU stopped answering */
    GD_ST_NOT_REPORTED, /* a full dump (nvidia-smi -q) lacks it: a layout not known (a newer driver), never a guess */
    GD_ST_DEPRECATED, /* the driver retired the call (NVML_ERROR_DEPRECATED): not reported, like NOT_SUPPORTED */
} gd_status;

/* One reading. `raw` keeps the NVML return code for errors. */
typedef struct gd_value {
    double v;
    int16_t status; /* gd_status */
    int16_t reserved;
    int32_t raw;
} gd_value;

static inline bool gd_ok(gd_value x)
{
    return x.status == GD_ST_OK;
}
static inline gd_value gd_val(double v)
{
    return (gd_value){.v = v, .status = GD_ST_OK};
}
static inline gd_value gd_missing(gd_status st)
{
    return (gd_value){.v = 0, .status = (int16_t)st};
}

const char *gd_status_name(gd_status st);
/* NVML's name of a return code ("NVML_ERROR_GPU_IS_LOST" for 15), for
 * evidence that a reader can look up; "NVML_ERROR_UNKNOWN" for one it does not know. */
const char *gd_nvml_return_name(int rc);

/* True when the board or driver does not report the reading at all (not
 * supported, or the call retired by the driver): data, not an error. */
static inline bool gd_not_reported(gd_value x)
{
    return x.status == GD_ST_NOT_SUPPORTED || x.status == GD_ST_DEPRECATED;
}

/* Dynamic metrics, sampled every interval. Keep gd_metric_info in sync. */
typedef enum gd_metric {
    GD_M_TEMP_C,
    GD_M_MEM_TEMP_C,
    GD_M_SM_CLOCK_MHZ,
    GD_M_MEM_CLOCK_MHZ,
    GD_M_POWER_W,
    GD_M_UTIL_GPU_PCT,
    GD_M_UTIL_MEM_PCT,
    GD_M_MEM_USED_MIB,
    GD_M_PCIE_GEN,
    GD_M_PCIE_WIDTH,
    GD_M_PCIE_TX_KBPS,
    GD_M_PCIE_RX_KBPS,
    GD_M_PCIE_REPLAYS,
    GD_M_FAN_PCT,
    GD_M_EVENT_REASONS, /* bitmask of nvmlClocksThrottleReason* */
    GD_M_ENERGY_MJ,
    GD_M_VIOL_POWER_NS, /* cumulative violation time, NVML_PERF_POLICY_POWER */
    GD_M_VIOL_THERMAL_NS, /* cumulative thermal slowdown time (gd_facts.thermal_counter says which call) */
    GD_M_VIOL_SYNC_BOOST_NS, /* ... NVML_PERF_POLICY_SYNC_BOOST */
    GD_M_VIOL_BOARD_LIMIT_NS, /* ... NVML_PERF_POLICY_BOARD_LIMIT */
    GD_M_VIOL_LOW_UTIL_NS, /* ... NVML_PERF_POLICY_LOW_UTILIZATION */
    GD_M_VIOL_RELIABILITY_NS, /* ... NVML_PERF_POLICY_RELIABILITY */
    GD_M_PSTATE, /* performance state: 0 (P0, full performance) .. 15; idle GPUs sit in P8 */
    GD_M_MEM_RESERVED_MIB, /* memory the driver reserves (nvmlMemory_v2_t.reserved) */
    GD_M_GR_ENGINE_ACTIVE_PCT, /* GPM (Hopper and newer): graphics/compute engine active */
    GD_M_TENSOR_ACTIVE_PCT, /* GPM: any tensor pipe active */
    GD_M_DRAM_ACTIVE_PCT, /* GPM: DRAM bandwidth used of the maximum */
    GD_M_VIOL_POWER_BRAKE_NS, /* cumulative power brake slowdown time (field 253, R570 and later) */
    GD_M_COUNT
} gd_metric;

typedef struct gd_metric_info {
    const char *key; /* JSON key, also the scenario timeline key where one exists */
    const char *label; /* short human label */
    const char *unit; /* "C", "MHz", ... or "" */
} gd_metric_info;

const gd_metric_info *gd_metric_describe(gd_metric m);

/* Clock event reasons: NVML bit <-> stable name (docs/interface.md). */
typedef struct gd_reason_name {
    unsigned long long bit;
    const char *name;
} gd_reason_name;

extern const gd_reason_name gd_reason_names[];
extern const size_t gd_reason_names_count;
/* Returns the bit for a reason name, or 0 when unknown. */
unsigned long long gd_reason_bit(const char *name);

typedef struct gd_process {
    unsigned int pid;
    gd_value used_mib;
    char name[64]; /* NVML's name, else PROC/PID/comm where readable, else "" */
    char user[64]; /* the owner: PROC/PID/status Uid, as a name where this host knows it; "" */
} gd_process;

typedef struct gd_nvlink {
    unsigned int link;
    gd_value active; /* 1 active, 0 inactive */
    char remote_pci_bus_id[32];
    /* nvmlDeviceGetNvLinkErrorCounter (NVML_NVLINK_ERROR_DL_*), read at the
     * snapshot and again every GD_HEALTH_REREAD_S; not read on a MIG GPU. */
    gd_value replay_errors, recovery_errors, crc_flit_errors, crc_data_errors;
    /* nvmlDeviceGetNvLinkVersion as NVML numbers it (nvml.h's nvmlNvlinkVersion_t:
     * 6 is NVLink 4.0, 7 is 5.0), read once; NOT_SUPPORTED for an inactive link. */
    gd_value version;
} gd_nvlink;

/* A MIG device of a MIG-enabled GPU (one per GPU instance): dcgm-exporter's
 * GPU_I_ID and GPU_I_PROFILE labels, and its share of the memory, re-read
 * with the health counters (every GD_HEALTH_REREAD_S). */
#define GD_MAX_MIG_DEVICES 7
typedef struct gd_mig_device {
    unsigned int gpu_instance_id;
    char profile[32]; /* "1g.10gb": the name after "MIG " in NVML's name of the device; "" unknown */
    char uuid[96];
    gd_value mem_total_mib, mem_used_mib;
} gd_mig_device;

/*
 * --from: where a reading was read from. key: what the capture called it
 * (an XML element, an nvidia-smi -q label path, a CSV column header, a dmon
 * column), a static string; NULL when no capture gave it. file: its place
 * in gd_facts.capture_files.
 */
typedef struct gd_origin {
    const char *key;
    uint8_t file;
} gd_origin;

#define GD_GPU_READINGS 48 /* room for gd_gpu's run of gd_value from cc_major to remap_failure */
#define GD_CAPTURE_FILES 64 /* files whose name the origins can cite */
#define GD_CAPTURE_NO_FILE 255
#define GD_CAPTURE_NOTES 16 /* what readers passed over, said in the report (more are counted) */
#define GD_CAPTURE_REFUSED 16 /* files refused whole, named in the report (more are counted) */
#define GD_CAPTURE_NOTE_LEN 320

/* Static facts of one GPU, read once. */
typedef struct gd_gpu {
    int index;
    char name[96];
    char uuid[96];
    char pci_bus_id[32];
    char serial[32];
    char vbios[32];
    char
        pcie_max_source[192]; /* where the PCIe maxima were read: "nvml:...", "capture:FILE:<field>...", "; sysfs..." */
    /* Where the temperature limits were read: the absolute thresholds, or
     * T.Limit (the margin and the limits' offsets) on current drivers. */
    char temp_limits_source[160];
    gd_value cc_major, cc_minor;
    gd_value mem_total_mib;
    gd_value power_limit_w; /* enforced */
    /* The limit asked for (nvidia-smi -pl, else the default): NVML's
     * management limit, nvidia-smi's "Requested Power Limit". The enforced
     * one is the lowest of all limiters, so a platform cap (a module budget,
     * a BMC) shows as an enforced limit below this one. */
    gd_value power_limit_requested_w;
    gd_value power_limit_default_w;
    gd_value power_limit_min_w, power_limit_max_w;
    gd_value clock_max_sm_mhz, clock_max_mem_mhz;
    gd_value clock_default_app_sm_mhz, clock_default_app_mem_mhz;
    gd_value clock_app_sm_mhz, clock_app_mem_mhz;
    gd_value temp_shutdown_c, temp_slowdown_c, temp_gpu_max_c, temp_mem_max_c;
    /* PCIe maxima: what card and slot reach together (nvidia-smi "Max",
     * nvmlDeviceGetMaxPcieLinkGeneration / Width), the card's own (nvidia-smi
     * "Device Max", nvmlDeviceGetGpuMaxPcieLinkGeneration, or the GPU's own
     * LnkCap / max_link_*), and the host's (nvidia-smi "Host Max"). */
    gd_value pcie_gen_max, pcie_width_max;
    gd_value pcie_gen_max_device, pcie_width_max_device;
    gd_value pcie_gen_max_host;
    gd_value persistence_mode; /* 1 on, 0 off */
    gd_value compute_mode; /* nvmlComputeMode_t */
    gd_value mig_mode; /* current: 1 on, 0 off */
    gd_value c2c_mode; /* 1: the host reaches the GPU over NVLink-C2C (Grace Hopper), not its PCIe link */
    gd_value ecc_enabled;
    gd_value ecc_volatile_uncorrected, ecc_aggregate_uncorrected;
    gd_value retired_pages_sbe, retired_pages_dbe;
    gd_value retired_pages_pending; /* 1: a page waits for retirement (next reset) */
    gd_value remap_corr_rows, remap_unc_rows, remap_pending, remap_failure;
    size_t nvlink_count;
    gd_nvlink nvlink[36]; /* NVML_NVLINK_MAX_LINKS of current nvml.h */
    size_t mig_device_count;
    gd_mig_device mig_devices[GD_MAX_MIG_DEVICES];
    /* NVLink data of all links (field values NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_TX
     * + _RX, scopeId UINT_MAX) every sample of a session: the cumulative KiB
     * at the last read, and per second between the last two reads (KiB/s). */
    gd_value nvlink_data_kib, nvlink_data_kibps;
    /* nvmlDeviceGetGpuFabricInfo: the GPU's registration with the NVLink
     * fabric (Fabric Manager on NVSwitch systems). fabric_state: 1 not
     * started, 2 in progress, 3 completed (NVML_GPU_FABRIC_STATE_*);
     * NOT_SUPPORTED on boards without a fabric. fabric_status: the
     * registration's nvmlReturn_t (0: success), read when completed. */
    gd_value fabric_state, fabric_status;
    /* NVML_FI_DEV_NVLINK_SPEED_MBPS_COMMON: the active links' common speed, MB/s per direction. */
    gd_value nvlink_speed_mbps;
    double nvlink_data_t; /* session seconds of the last read */
    gd_value processes_status; /* status of the process query itself */
    size_t process_count;
    gd_process *processes;
    /* Loss: set by the sampler when the GPU stops answering. */
    bool lost;
    double lost_at_s; /* window seconds of the first failing sample */
    char lost_call[64]; /* the NVML function that reported it */
    int lost_code; /* its nvmlReturn_t */
    /* --from: the file that named this GPU, and where each reading came from:
     * origin[i] for the i-th gd_value from cc_major, metric_origin[m] for metric m. */
    uint8_t capture_file;
    gd_origin origin[GD_GPU_READINGS];
    gd_origin metric_origin[GD_M_COUNT];
} gd_gpu;

/* A GPU the driver lists but does not let us read: a handle error other
 * than loss (a GPU the container or cgroup does not give us, a timeout).
 * It is left out of gpus[] (and so out of every check and peer comparison)
 * and reported as "not accessible". */
typedef struct gd_gpu_denied {
    int index;
    char call[64]; /* the NVML function that refused */
    int code; /* its nvmlReturn_t */
    char error[96]; /* nvmlErrorString, or "" */
} gd_gpu_denied;

#define GD_MAX_DENIED_GPUS 64

typedef struct gd_host {
    char hostname[256];
    char kernel[256];
    int cpus;
    int numa_nodes; /* 0 when unknown */
} gd_host;

/* The most of a window the series keeps (its newest part): one hour. A
 * day-long session keeps the memory of an hour-long one. */
#define GD_RETENTION_S 3600.0

/* The GPUs' series: one row of GD_M_COUNT values per GPU per sample. */
typedef struct gd_series {
    size_t gpus;
    GD_RING_FIELDS;
    double *t; /* per storage row: seconds since the window started (scenario seconds under --sim) */
    gd_value *values; /* [cap][gpus][GD_M_COUNT] */
} gd_series;

static inline size_t gd_series_row(const gd_series *s, size_t i)
{
    return gd_ring_row(&s->ring, i);
}

/* Time of sample i. */
static inline double gd_series_t(const gd_series *s, size_t i)
{
    return s->t[gd_series_row(s, i)];
}

/* Value of metric m for gpu g at sample i. */
static inline gd_value gd_series_at(const gd_series *s, size_t i, size_t g, gd_metric m)
{
    return s->values[(gd_series_row(s, i) * s->gpus + g) * GD_M_COUNT + m];
}

/* The host at one sample (/proc/stat, /proc/pressure, /proc/vmstat): NaN
 * where not readable. */
typedef struct gd_host_sample {
    double t; /* session seconds */
    double busy, iowait; /* share of all CPUs' time since the previous sample, 0..1 */
    double psi_cpu, psi_io, psi_mem; /* "some avg10", percent */
    double swap_in_ps, swap_out_ps; /* pages per second (pswpin, pswpout) */
} gd_host_sample;

/* The host's series, sampled where a /proc is known (this machine's; the
 * scenario's host.proc under --sim; none for captures). */
typedef struct gd_host_series {
    GD_RING_FIELDS;
    gd_host_sample *v;
} gd_host_series;

static inline const gd_host_sample *gd_host_at(const gd_host_series *h, size_t i)
{
    return &h->v[gd_ring_row(&h->ring, i)];
}

/* A new newest host sample (zeroed but for t), or NULL (no memory). */
gd_host_sample *gd_host_push(gd_host_series *h, double t);

/*
 * Health events seen while a session ran, each at its session time: an Xid
 * (NVML's event API, or a kernel log line that appeared during the session),
 * a rise of an ECC, retired-page or row-remapping counter (re-read every
 * GD_HEALTH_REREAD_S), a GPU that stopped or started answering again, a
 * driver that stopped answering. The ring keeps the newest GD_EVENTS_MAX
 * for detail; beside it, what the events of each key add up to is kept for
 * the whole session (gd_event_sum), and that is what checks judge: an Xid 79
 * is never pushed out by a thousand Xid 13 that follow it.
 */
typedef enum gd_event_kind {
    GD_EV_XID = 1, /* value: the Xid; what: its source, "nvml" or "kernel log" */
    GD_EV_COUNTER, /* value: the increase; what: the counter (gd_event_counter_name) */
    GD_EV_GPU_LOST, /* value: the NVML return code; what: the call */
    GD_EV_GPU_BACK,
    GD_EV_DRIVER_LOST, /* every GPU failed one sample: value: the return code */
    GD_EV_DRIVER_BACK,
} gd_event_kind;

typedef struct gd_event {
    double t; /* session seconds */
    int gpu; /* index in gpus[], -1: the host or an unknown GPU */
    int kind; /* gd_event_kind */
    long long value;
    char what[64];
} gd_event;

/*
 * The events of one key over the whole session: (gpu, kind) and, for an Xid,
 * its number and source, for a counter, its name. A key's severity follows
 * from the key (an Xid's number), so the worst of its events is any of them.
 */
typedef struct gd_event_sum {
    int gpu, kind;
    long long code; /* the Xid of GD_EV_XID; 0 for other kinds */
    char what[64]; /* part of the key for an Xid and a counter; else the first event's */
    size_t count; /* events */
    long long total; /* their values added (a counter's increase) */
    double first_t, last_t;
    long long first_value, last_value;
    size_t first_seq, last_seq; /* 1-based order among all the session's events (gd_events.total) */
} gd_event_sum;

#define GD_EVENTS_MAX 1024
#define GD_EVENT_SUMS_MAX 16384 /* distinct keys; events of more are counted in sums_dropped */
#define GD_HEALTH_REREAD_S 5.0 /* ECC, retired pages, row remapping: re-read this often */

typedef struct gd_events {
    size_t n, dropped; /* dropped: older events that made room */
    gd_event *v; /* oldest first */
    double start_unix; /* wall-clock time of session second 0; 0 when unknown */
    bool xid_watched; /* NVML's Xid events were registered for some GPU */
    bool kernel_log_followed; /* new kernel log lines were read while the session ran */
    double reread_s; /* the re-read cadence, 0: none */
    /* How often the re-read counters (ECC, retired pages, remapped rows,
     * NVLink errors) were read: 1 at the snapshot, one more for each re-read
     * (every reread_s, and at the window's end). 1: read once, so their
     * growth cannot be judged; 0: not known (captures, older recordings). */
    int counter_reads;
    size_t total; /* every event added, the ring's dropped ones too */
    gd_event_sum *sums; /* in the order their keys first came */
    size_t sum_count, sum_cap, sums_dropped;
    unsigned *sum_slots; /* hash of the keys: index + 1 into sums, 0 empty */
    size_t slot_cap;
    /* A view of the session up to a time (a paused or replayed watch): what
     * came after until_t is not seen. */
    bool bounded;
    double until_t;
} gd_events;

/* Appends e to the ring (the oldest makes room at GD_EVENTS_MAX) and adds it
 * to its key's sum (a key that cannot be kept: counted in sums_dropped). 0,
 * or -1 (no memory for the ring). */
int gd_event_add(gd_events *ev, const gd_event *e);
/* Sum i (of ev->sum_count) as seen over [t0, t1] and, for a bounded view,
 * up to until_t: into *out, false when none of its events falls there. A
 * sum partly inside is counted again from the ring; where the ring no longer
 * holds its older events and they may fall inside, they are counted in:
 * a fault is never left out for being old. */
bool gd_event_sum_get(const gd_events *ev, size_t i, double t0, double t1, gd_event_sum *out);
/* Sets the sum of s's key to s (a recording's sums, read back). 0, or -1
 * (no memory, or GD_EVENT_SUMS_MAX keys already). */
int gd_event_sum_put(gd_events *ev, const gd_event_sum *s);
/* The ring's and the sums' memory. */
void gd_events_free(gd_events *ev);
/* "14:02:11": the wall-clock time of session second t (local time), or
 * "t=12.0 s" when the start is unknown. */
void gd_event_clock(const gd_events *ev, double t, char *buf, size_t len);
/* A kernel log line's timestamp as written, said as a time: a bare count of
 * seconds ("8734.551035", dmesg's default) is since boot and reads
 * "8734.551035 s after boot"; a date or clock ("Tue Mar  5 10:12:41 2024",
 * "2024-03-05T10:12:41+00:00") as written; "" stays "". */
void gd_log_when(const char *when, char *buf, size_t len);
/* "2026-03-14T14:02:11.250Z": the wall-clock time of session second t as
 * ISO 8601 UTC with milliseconds; false (and buf "") when the start is unknown. */
bool gd_event_utc(const gd_events *ev, double t, char *buf, size_t len);
/* The Unix time of an ISO 8601 UTC time as gd_event_utc writes it
 * (milliseconds optional); 0 on success, -1 when s is not one. */
int gd_utc_parse(const char *s, double *unix_s);
/* NVLink error counters in gd_nvlink's order: a rise of link L's counter C
 * is a GD_EV_COUNTER event named "nvlink_C:L" ("nvlink_crc_flit:7"). */
#define GD_NVLINK_COUNTERS 4
extern const char *const gd_nvlink_counter_names[GD_NVLINK_COUNTERS]; /* "replay", "recovery", "crc_flit", "crc_data" */
/* Whether e is such a rise: *link and *counter (an index of the names) set. */
bool gd_nvlink_event_parse(const gd_event *e, unsigned *link, int *counter);

/* Everything collected; the input of every check. */
/* How a window's PCIe throughput was read (gd_facts.pcie_throughput). */
typedef struct gd_throughput_reads {
    char source[96]; /* "" when not sampled */
    size_t reads;
    double every_s; /* per GPU, the shortest spacing between two reads */
} gd_throughput_reads;

typedef struct gd_facts {
    gd_host host;
    bool driver_loaded; /* NVML loaded and initialised */
    char driver_error[512]; /* why not, when !driver_loaded */
    /* NVIDIA display and 3D controllers on this machine's PCI bus (sysfs:
     * vendor 0x10de, class 0x0300 or 0x0302), counted when the driver did not
     * load: 0 is a machine without an NVIDIA GPU (a CPU node), which needs no
     * driver. Not ok when not counted (a driver loaded, a capture, a
     * scenario, no sysfs). */
    gd_value pci_nvidia_gpus;
    bool simulated; /* --sim */
    char source[512]; /* "nvml", "sim:FILE", "capture:FILE,..." */
    /* --from: facts read from captured files (nvidia-smi, lspci...), not a machine. */
    bool captured;
    char capture_formats[128]; /* what was read, e.g. "nvidia-smi -q -x, lspci -vv" */
    bool capture_untimed; /* samples without timestamps: 1 s apart assumed */
    size_t capture_file_count; /* the files read, as named on the command line */
    char capture_files[GD_CAPTURE_FILES][256];
    /* What the readers passed over in the files they read: shell prompts,
     * lines and sections cut from a paste, times not read ("FILE:LINE: ...").
     * capture_notes_more counts those past the array. */
    size_t capture_note_count, capture_notes_more;
    char capture_notes[GD_CAPTURE_NOTES][GD_CAPTURE_NOTE_LEN];
    /* Files refused whole (not a format gpudoctor reads, or malformed), each
     * "FILE:LINE: what was there and what was expected": their evidence is
     * missing from the report, and `check` says so in its exit code. */
    size_t capture_refused_count;
    char capture_refused[GD_CAPTURE_REFUSED][GD_CAPTURE_NOTE_LEN * 2];
    uint8_t driver_file, hostname_file; /* which file gave driver_version, host.hostname */
    char driver_version[80];
    char nvml_version[80];
    gd_value cuda_driver_version; /* 1000*major + 10*minor */
    size_t gpu_count;
    gd_gpu *gpus;
    size_t denied_count; /* GPUs listed but not accessible, not in gpus[] */
    gd_gpu_denied denied[GD_MAX_DENIED_GPUS];
    gd_series series;
    gd_host_series host_series; /* empty when not sampled */
    double window_s; /* requested duration */
    double interval_s;
    /* How PCIe throughput was read over the window: nvmlDeviceGetPcieThroughput
     * samples for 20 ms per call, so it is read at most once a second per GPU
     * (one GPU per sample); the driver's byte counters cost nothing and are
     * read every sample. reads: the samples of all GPUs that read it. */
    gd_throughput_reads pcie_throughput;
    /* Which power reading the samples hold: "instant" (field value), "average"
     * (nvmlDeviceGetPowerUsage: a 1 s average on Ampere and newer), "" none. */
    char power_reading[96];
    /* Which call gave the thermal slowdown time (GD_M_VIOL_THERMAL_NS): the
     * clock event reason counters, PERF_POLICY_THERMAL or the violation
     * status; "" when none answered (or a capture's counters). */
    char thermal_counter[96];
    /* Which call gave the PCIe replay counter (GD_M_PCIE_REPLAYS): the field
     * value or nvmlDeviceGetPcieReplayCounter ("nvml:..."); "" when neither
     * answered (or a capture's counter). */
    char replay_counter[96];
    /* The job examined (--pid, run), or -1: the subject of the diagnosis,
     * kept with the facts so that a replay judges the same job. Where host
     * facts were read is a setting of the session (gd_roots), not a fact. */
    long pid;
    /* Facts of other areas, NULL when not collected; gd_facts_free frees them. */
    gd_events events; /* health events of the session (a window shares them) */
    /* nvmlDeviceGetP2PStatus(gpus[a], gpus[b], NVML_P2P_CAPS_INDEX_READ) at
     * [a * gpu_count + b]: an nvmlGpuP2PStatus_t (0: peer access works), or
     * -1 not known (the call failed, a lost GPU, the diagonal). NULL: not read. */
    int *p2p_status;
    struct gd_pcie_facts *pcie; /* include/gpudoctor/pcie.h */
    struct gd_stack_facts *stack; /* include/gpudoctor/stack.h */
    struct gd_job_facts *job; /* include/gpudoctor/job.h: the job's /proc, sampled */
    struct gd_bench_facts *bench; /* include/gpudoctor/bench.h: bench gemm / membw / stress */
    struct gd_net_facts *net; /* include/gpudoctor/net.h: RDMA NICs, GPUDirect, ACS, NCCL's log */
    /* The window's running statistics (src/analysis/window_acc.h), kept by
     * the session as samples arrive and leave, so judging costs the same at
     * every tick; NULL: the checks build one from the series. Freed by
     * gd_facts_free through acc_free (its layer's own function). */
    struct gd_window_acc *acc;
    void (*acc_free)(struct gd_window_acc *acc);
} gd_facts;

void gd_facts_free(gd_facts *f);

/* True for a machine without an NVIDIA GPU: no driver loaded and none on its
 * PCI bus (pci_nvidia_gpus 0). `check` says "no NVIDIA GPU on this machine"
 * and exits 3 there, rather than driver.missing (issue 38). */
bool gd_facts_no_nvidia_gpu(const gd_facts *f);

/* Series helpers. Return 0, or -1 on allocation failure. */
int gd_series_init(gd_series *s, size_t gpus);
/*
 * A window: samples [from, from + n) of s as a series of their own that
 * shares s's storage (no copy; valid while s is not pushed to). Analyses and
 * checks take any series, so they judge a window as they judge the whole:
 * the live view judges the last minute of a day-long session this way.
 */
gd_series gd_series_window(const gd_series *s, size_t from, size_t n);

/* The newest samples of s that span at most span_s seconds, as a window. */
gd_series gd_series_last(const gd_series *s, double span_s);

/* f with its series replaced by the window w, for the checks (a shallow
 * copy: it owns nothing, never free it): the host's series over the same
 * time; the facts read once at the end of a session (PCIe, the software
 * stack) and the job's whole-window tables are left out. */
gd_facts gd_facts_window(const gd_facts *f, gd_series w);

/* Keeps at most `limit` samples from now on (0: all); call before the first push. */
void gd_series_set_limit(gd_series *s, size_t limit);
/* Appends a sample row (all values GD_ST_UNREAD) and returns its index, or
 * -1. At the limit, the oldest sample makes room. */
long gd_series_push(gd_series *s, double t_s);
gd_value *gd_series_slot(gd_series *s, size_t i, size_t g);
double *gd_series_t_slot(gd_series *s, size_t i);
void gd_series_free(gd_series *s);

#endif
