/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Software stack facts: CUDA runtimes and frameworks installed, the job's
 * environment, and Xid events from the kernel log.
 *
 * Everything here is read from files, never by running or importing
 * anything: toolkit version files, the dynamic linker's cache, Python
 * packages' version files and dist-info, the CUDA fatbins inside framework
 * libraries, /proc/PID/environ, the kernel log.
 *
 * Roots. The scans of system places (/usr/local/cuda*, /etc/ld.so.cache, the
 * Python environment the job uses) are made under a root prefix: "" on a
 * real machine, $GPUDOCTOR_ROOT when set (a directory laid out like /, for
 * tests and for inspecting a mounted image; symbolic links under it resolve
 * inside it, as they would on that machine). Under --sim without
 * GPUDOCTOR_ROOT these scans are skipped: the simulated machine has no
 * software stack, and this machine's must not leak into it. --python paths
 * are always read as given.
 */
#ifndef GPUDOCTOR_STACK_H
#define GPUDOCTOR_STACK_H

#include "gpudoctor/model.h"

#include <stdbool.h>
#include <stddef.h>

#define GD_STACK_MAX_RUNTIMES 48
#define GD_STACK_MAX_PYTHONS 16
#define GD_STACK_MAX_ARCHS 32
#define GD_STACK_MAX_XID_GROUPS 256 /* distinct (Xid, PCI address) pairs */
#define GD_XID_EXAMPLES 3 /* newest events kept per pair */
#define GD_STACK_MAX_GPU_FATAL 64
#define GD_STACK_MAX_AER_DEVICES 64
#define GD_STACK_MAX_SXID_GROUPS 64 /* distinct (SXid, NVSwitch) pairs */

/* Where a CUDA runtime was found. */
typedef enum gd_runtime_kind {
    GD_RT_TOOLKIT = 0, /* /usr/local/cuda-X.Y (version.json, version.txt, dist-info) */
    GD_RT_LDCACHE, /* a libcudart.so.N in the dynamic linker's cache */
    GD_RT_TORCH, /* torch/version.py */
    GD_RT_TENSORFLOW, /* tensorflow/python/platform/build_info.py */
    GD_RT_WHEEL, /* nvidia-cuda-runtime[-cuNN] dist-info in a Python environment */
} gd_runtime_kind;

const char *gd_runtime_kind_name(gd_runtime_kind k);

/* A compiled architecture: sm = 10*major + minor (80, 90, 120). */
typedef struct gd_arch {
    int sm;
    bool ptx; /* PTX (JIT-compiled by the driver) rather than SASS */
} gd_arch;

typedef struct gd_cuda_runtime {
    gd_runtime_kind kind;
    int version; /* 1000*major + 10*minor, as cuda_driver_version; 0 unknown */
    char version_text[48]; /* as read: "12.8.93", "12.8", "13" */
    char path[512]; /* the file or directory it was read from */
    char framework[96]; /* "torch 2.7.0+cu128", "tensorflow 2.15.0"; "" otherwise */
    int python; /* index into pythons[], or -1 */
    /* Toolkits: a forward-compatibility package (compat/libcuda.so.VERSION). */
    char compat_lib[512];
    char compat_driver[32]; /* "570.124.06" */
    /* Frameworks: the architectures the build carries, when they could be read. */
    bool arch_known;
    char arch_source[512]; /* the library, or build_info's cuda_compute_capabilities */
    char arch_error[640]; /* why a library's list could not be read ("" when none was refused) */
    size_t arch_count;
    gd_arch archs[GD_STACK_MAX_ARCHS];
} gd_cuda_runtime;

typedef struct gd_python_env {
    char path[512]; /* as given or found */
    char origin[24]; /* "--python", "VIRTUAL_ENV", "CONDA_PREFIX", "PATH" */
    char site_packages[512]; /* "" when none was found */
} gd_python_env;

typedef struct gd_xid_event {
    int xid;
    char pci[32]; /* as in the log: "0000:3b:00" */
    int gpu; /* index in f->gpus, or -1 when the bus id matches none */
    char when[48]; /* the line's timestamp as written, "" when none */
    char text[200]; /* the message after the Xid number */
} gd_xid_event;

/* Every event of one Xid on one PCI address: counted whatever the log's
 * length, with its newest events as examples. An event is one fault, which
 * the driver may print over several lines (formats/kernel_log/klog_xid_run.h). */
typedef struct gd_xid_group {
    int xid;
    char pci[32]; /* as in the log: "0000:3b:00" */
    int gpu; /* index in f->gpus, or -1 when the address matches none */
    size_t count; /* events */
    size_t lines; /* the log lines they were printed in */
    char first_seen[48]; /* the first event's timestamp as written */
    size_t example_count; /* at most GD_XID_EXAMPLES, oldest first */
    gd_xid_event examples[GD_XID_EXAMPLES];
} gd_xid_group;

/* The driver's own word that a GPU is gone without an Xid: "The NVIDIA GPU
 * ... has fallen off the bus", "GPU has fallen off the bus",
 * "RmInitAdapter failed", "rm_init_adapter failed", "probe of ... failed",
 * "The NVIDIA probe routine failed for N device(s)". One entry per address
 * and kind. */
typedef struct gd_gpu_fatal {
    char pci[32]; /* "0000:b3:00.0" as in the log; "" when the message names none */
    int gpu; /* index in f->gpus, or -1 */
    char kind[96]; /* "fell off the bus", "failed to initialise (RmInitAdapter failed)", ... */
    size_t count;
    char when[48]; /* the newest message's timestamp */
    char text[200]; /* the newest message, joined when it spans lines */
} gd_gpu_fatal;

/* An NVSwitch error of the kernel log (SXid), as the nvswitch driver prints it:
 * "nvidia-nvswitch0: SXid (PCI:0000:05:00.0): 12028, Non-fatal, Link 32 ...".
 * Its "Severity ..." and "Data {...}" lines that follow describe the same
 * event and are not counted again. */
typedef struct gd_sxid_event {
    int sxid;
    char nvswitch[32]; /* "nvidia-nvswitch0" */
    char pci[32]; /* "0000:05:00.0" as in the log */
    int fatal; /* 1 "Fatal", 0 "Non-fatal", -1 the line does not say */
    char when[48]; /* the line's timestamp as written, "" when none */
    char text[200]; /* the message after the SXid number */
} gd_sxid_event;

/* Every event of one SXid on one NVSwitch, with the newest as example. */
typedef struct gd_sxid_group {
    int sxid;
    char nvswitch[32];
    char pci[32];
    int fatal; /* 1 when any event said "Fatal", else 0, -1 when none said */
    size_t count;
    char first_seen[48];
    gd_sxid_event last;
} gd_sxid_group;

/* A PCIe AER message of the kernel log ("AER: Corrected error received: ..."). */
typedef enum gd_aer_severity { GD_AER_CORRECTED, GD_AER_NONFATAL, GD_AER_FATAL } gd_aer_severity;

typedef struct gd_aer_event {
    gd_aer_severity severity;
    char dev[32]; /* the device that had the error, "0000:3b:00.0" (the reporting port when not named) */
    char port[32]; /* the port that reported it, "0000:3a:00.0" */
    char when[48]; /* the line's timestamp as written, "" when none */
    char text[200]; /* the message from "AER:" on */
} gd_aer_event;

/* The AER messages about one device. */
typedef struct gd_aer_device {
    char dev[32];
    unsigned long count[3]; /* by gd_aer_severity */
    gd_aer_event last; /* the latest message */
} gd_aer_device;

typedef struct gd_stack_facts {
    /* Discovery */
    char root[512]; /* prefix of the system scans ("" = /) */
    bool system_scanned; /* false under --sim without GPUDOCTOR_ROOT */
    char system_skip[256]; /* why not */
    size_t runtime_count;
    gd_cuda_runtime runtimes[GD_STACK_MAX_RUNTIMES];
    size_t python_count;
    gd_python_env pythons[GD_STACK_MAX_PYTHONS];
    /* The job's environment: NAME=VALUE strings (owned). */
    bool env_read;
    char env_source[128]; /* "/proc/4242/environ", "gpudoctor's own environment" */
    char env_error[256];
    size_t env_count;
    char **env;
    /* Kernel log */
    bool kernel_log_read;
    char kernel_log_source[512];
    char kernel_log_error[512]; /* why it could not be read, and how to allow it */
    size_t kernel_log_lines; /* lines read, blank ones left out */
    size_t kernel_log_times_unread; /* lines whose timestamp is not read as a date (a month in another language) */
    char kernel_log_time_unread[48]; /* the first such timestamp, as written */
    size_t xid_total; /* every Xid line */
    size_t xid_group_count;
    gd_xid_group xid_groups[GD_STACK_MAX_XID_GROUPS];
    size_t xid_dropped; /* lines of pairs past the array: counted in xid_total only */
    size_t gpu_fatal_count;
    gd_gpu_fatal gpu_fatal[GD_STACK_MAX_GPU_FATAL];
    size_t sxid_total; /* every SXid event (not its detail lines), even of groups past the array */
    size_t sxid_group_count;
    gd_sxid_group sxid_groups[GD_STACK_MAX_SXID_GROUPS];
    size_t aer_total; /* every AER error message, even of devices past the array */
    size_t aer_device_count;
    gd_aer_device aer_devices[GD_STACK_MAX_AER_DEVICES];
} gd_stack_facts;

void gd_stack_facts_free(gd_stack_facts *s);

/* Do a kernel log's PCI id ("0000:3b:00") and NVML's bus id
 * ("00000000:3B:00.0") name the same device? */
bool gd_pci_same(const char *log_pci, const char *nvml_bus_id);

/* The value of NAME in the job's environment, or NULL when unset. */
const char *gd_stack_getenv(const gd_stack_facts *s, const char *name);

/*
 * What a recording (--record) keeps of the job's environment: only the
 * variables the checks and the stack scan read (CUDA_*, NCCL_*, PYTORCH_*,
 * TORCH_*, OMP_*, CUBLAS_*, CUDNN_*, NVIDIA_*, SLURM_*, LD_LIBRARY_PATH,
 * PATH, VIRTUAL_ENV, CONDA_PREFIX, the launchers' world sizes ...).
 * gd_env_kept: whether "NAME=VALUE" is one of them. gd_env_secret: whether
 * the n bytes of a name say its value is a secret (TOKEN, KEY, SECRET,
 * PASSWORD, PASSWD, CREDENTIAL, AUTH, any case): its value is then recorded
 * as "<redacted>".
 */
bool gd_env_kept(const char *entry);
bool gd_env_secret(const char *name, size_t n);
#define GD_ENV_REDACTED "<redacted>"

#endif
