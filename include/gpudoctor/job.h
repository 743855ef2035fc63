/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The job on the host: its process tree, threads, CPU and disk waits,
 * sampled from /proc on the session's clock beside the GPUs
 * (src/sources/proc/source_proc.c; the host's own CPU, pressure and swap are
 * f->host_series, model.h). Bounded: a ring of the newest samples (ring.h's
 * gd_ring) and a table of at most GD_JOB_MAX_THREADS threads; a value that
 * could not be read is NaN.
 */
#ifndef GPUDOCTOR_JOB_H
#define GPUDOCTOR_JOB_H

#include "gpudoctor/model.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define GD_JOB_MAX_THREADS 1024 /* threads followed; more are counted, not followed */
#define GD_JOB_MAX_PROCS 256 /* processes of the tree followed */
/* A thread at this share of one core or more in an interval counts as
 * saturated: a Python main thread held by the GIL shows 95-100 %, and the
 * kernel's tick accounting (USER_HZ, 10 ms) blurs a 100 ms interval by 10 %. */
#define GD_THREAD_SATURATED_CORE 0.90

/* One thread seen in the window. */
typedef struct gd_job_thread {
    int pid, tid;
    char comm[20];
    double cpu_s; /* CPU time (utime + stime) at its last sight */
    uint32_t seen; /* samples it was seen in */
    uint32_t running; /* ... in state R */
    uint32_t disk_wait; /* ... in state D (uninterruptible: disk or other I/O wait) */
    uint32_t saturated; /* intervals at GD_THREAD_SATURATED_CORE of a core or more */
    uint32_t measured; /* intervals whose CPU share is known */
    double busy_sum; /* sum of its per-interval shares of one core */
    uint32_t stamp; /* the sample it was last seen in */
    /* Voluntary context switches (TID/status, once a second): a thread waiting
     * for Python's GIL sleeps on it hundreds of times a second, a thread held
     * off the CPU by other work switches involuntarily. NaN unknown. */
    double vcsw_first, vcsw_last, vcsw_first_t, vcsw_last_t;
    double vcsw_first_cpu_s, vcsw_last_cpu_s; /* its CPU time at those two readings */
} gd_job_thread;

/* What a process of the job's tree is (src/analysis/job_tree.c decides from
 * the facts below): the command in front (a shell, torchrun, srun, uv run),
 * a trainer (one per rank: it holds a GPU, maps the CUDA driver, or is the
 * first Python with torch loaded below the launchers), or a trainer's
 * worker (a DataLoader worker: any process below a trainer). */
typedef enum gd_job_role {
    GD_ROLE_NONE = 0,
    GD_ROLE_LAUNCHER,
    GD_ROLE_TRAINER,
    GD_ROLE_WORKER,
} gd_job_role;

/* One process of the tree seen in the window (at most GD_JOB_MAX_PROCS). */
typedef struct gd_job_proc {
    int pid, ppid;
    char comm[20];
    char prog[32]; /* what runs: argv[0]'s base name, a Python's script or -m module ("torchrun") */
    bool python; /* a Python interpreter */
    bool torch; /* maps PyTorch's libraries (PID/maps libtorch) */
    bool cuda; /* maps the CUDA driver (PID/maps libcuda.so) */
    bool torch_cuda; /* maps PyTorch's CUDA half (libtorch_cuda.so, libc10_cuda.so): a CUDA build of torch */
    bool cudart; /* maps the CUDA runtime (libcudart.so) */
    bool nvidia_ctl; /* held /dev/nvidiactl or /dev/nvidia-uvm open in the window */
    uint64_t dev_minors; /* bit N: held /dev/nvidiaN open in the window (N < 64) */
    int rank; /* RANK, LOCAL_RANK, OMPI_COMM_WORLD_RANK, PMI_RANK or SLURM_PROCID; -1 none */
    bool has_cuda_visible, has_nvidia_visible;
    char cuda_visible[128]; /* CUDA_VISIBLE_DEVICES as set in its environment */
    char nvidia_visible[128]; /* NVIDIA_VISIBLE_DEVICES */
    double first_s, last_s; /* sample times it was first and last seen */
    uint32_t intervals; /* intervals whose CPU share is known */
    uint32_t one_running; /* samples with exactly one of its threads runnable (R) */
    uint32_t many_running; /* ... with two or more */
    double busy_sum; /* sum of its per-interval CPU (1.0 = one core) */
    double busy_max; /* its most CPU in one interval */
} gd_job_proc;

/* The job at one sample (the host's samples are f->host_series). */
typedef struct gd_job_sample {
    double t;
    double job_cores; /* the tree's CPU time per wall second (1.0 = one core busy) */
    double top_thread_core; /* the busiest thread's share of one core in the interval */
    int top_tid;
    uint16_t procs, threads, running, disk_wait;
    double read_bps; /* bytes read from storage per second (the tree, /proc/PID/io) */
    double vcsw_ps, ivcsw_ps; /* voluntary / involuntary context switches per second */
} gd_job_sample;

typedef struct gd_job_facts {
    bool read; /* the job's /proc was read */
    char error[256]; /* why not ("no such process", "not ours to read: ...") */
    long pid;
    char comm[32];
    /* The tree over the window. */
    size_t procs_seen; /* distinct processes (the job and its descendants) */
    size_t procs_max; /* most alive at once */
    size_t children_started; /* children that appeared after the first sample */
    size_t children_exited; /* children that ended while the job ran */
    size_t respawn_rounds; /* full scans where new children replaced children that had ended */
    size_t threads_untracked; /* threads beyond GD_JOB_MAX_THREADS */
    bool ended; /* the job ended (or vanished) inside the window */
    bool started_in_window; /* the job was started by the session (run): it began at the window's start */
    bool wall_paced; /* a live /proc beside a simulation: the scenario played at wall speed */
    double ended_at_s;
    /* Static facts of the host and the job. */
    int host_cpus; /* CPUs online (/proc/stat cpuN lines) */
    int affinity_cpus; /* CPUs the job may run on (Cpus_allowed_list), 0 unknown */
    char affinity[128];
    char governor[32]; /* cpufreq scaling_governor of cpu0, "" unknown */
    char scaling_driver[32]; /* cpufreq scaling_driver of cpu0, "" unknown */
    long freq_cur_khz, freq_min_khz, freq_max_khz; /* cpu0's scaling_cur_freq, cpuinfo_min/max_freq; 0 unknown */
    bool io_denied; /* PID/io refused (another user's process): read bytes unknown */
    /* PID/environ as last read while the job ran (NUL-separated), or NULL;
     * under run, the environment it was started with until one is read. */
    char *environ;
    size_t environ_len;
    /* Processes followed (the roles come from src/analysis/job_tree.c). */
    size_t proc_count;
    gd_job_proc *procs;
    /* The GPUs' device minors (/dev/nvidiaN), by GPU index: from
     * PROC/driver/nvidia/gpus/BUS/information, else the index (gpu_minor_source says which). */
    size_t gpu_minor_count;
    int gpu_minors[64];
    char gpu_minor_source[96];
    /* Threads followed. */
    size_t thread_count;
    gd_job_thread *threads;
    /* The samples: a ring of the newest `limit` (model.h's rule). */
    GD_RING_FIELDS;
    gd_job_sample *samples;
} gd_job_facts;

static inline const gd_job_sample *gd_job_at(const gd_job_facts *j, size_t i)
{
    return &j->samples[gd_ring_row(&j->ring, i)];
}

void gd_job_facts_free(gd_job_facts *j);

#endif
