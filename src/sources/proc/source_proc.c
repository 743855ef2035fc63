/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The job's /proc as a source (include/gpudoctor/job.h): its process tree,
 * each thread's CPU time and state, context switches and read bytes, read
 * through the session's proc root (the
 * scenario's host.proc under --sim, /proc on a machine) at every sample of
 * the session. Children are found again at every sample (DataLoader workers
 * respawn each epoch). It takes no samples of its own clock: the session
 * samples it beside the GPUs.
 */
#include "core/job_ring.h"
#include "gpudoctor/job.h"
#include "sources/host/hostinfo.h"
#include "proc_tree.h"
#include "sources/source.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The tree and the per-process counters are read once a second;
 * between those full scans only the known threads' stat (CPU time, state) is
 * read at every sample: 10 Hz costs under 1 % of a core for 80 threads
 * (bench/bench_proc_cost.c). New threads and children are found within a second. */
#define GD_PROC_FULL_SCAN_S 1.0

typedef struct proc_entry {
    int pid;
    uint32_t stamp; /* the sample it was last seen in */
    double read_bytes, vcsw, ivcsw; /* cumulative, NaN unknown */
    uint32_t scans; /* full scans that read its maps */
    uint32_t idents; /* full scans since it was first seen or exec'd */
    char comm[20]; /* at the last identification: a new one means an exec */
} proc_entry;

/* Its maps are read at most this many full scans, until it shows torch and
 * the CUDA driver: a trainer imports torch in its first seconds. */
#define GD_PROC_MAPS_SCANS 30
/* Its command line is read in its first full scans after it starts or
 * execs (a spawned worker's settles within them), not every second after. */
#define GD_PROC_CMDLINE_SCANS 5
/* Its open files (the GPUs' device files it holds) at every full scan for
 * as long as the maps, then at every tenth: a job opens its GPUs when it
 * starts CUDA, and a trainer holds hundreds of files, a readlink each. */
#define GD_PROC_FDS_EVERY 10

typedef struct proc_source {
    gd_job_facts *j;
    char root[512]; /* the proc root */
    char sys[512]; /* the sysfs root ("": none) */
    double tick_s; /* seconds per clock tick */
    uint32_t stamp; /* samples taken */
    double last_t;
    double last_full; /* time of the last full scan (tree, counters, host) */
    bool exits_pending; /* children ended since the last respawn round */
    proc_entry procs[GD_JOB_MAX_PROCS];
    size_t nprocs;
    int stack[GD_JOB_MAX_PROCS], stack_ppid[GD_JOB_MAX_PROCS]; /* processes still to visit this sample */
    size_t depth;
    /* This sample, per process (the index of j->procs): CPU and threads runnable. */
    double acc_cores[GD_JOB_MAX_PROCS], acc_core_sum[GD_JOB_MAX_PROCS]; /* rate; sum (see count_thread) */
    uint16_t acc_running[GD_JOB_MAX_PROCS], acc_measured[GD_JOB_MAX_PROCS], acc_seen[GD_JOB_MAX_PROCS];
    int16_t thread_proc[GD_JOB_MAX_THREADS]; /* thread i's process (index of j->procs), -1 none */
    int fds[GD_JOB_MAX_THREADS]; /* thread i's stat, kept open between full scans (pread); -1 none */
    /* Quiet threads: asleep with no CPU time since the full scan before,
     * read again at the next full scan only (a trainer's threads are mostly
     * asleep; each stat is a syscall, the dearest part of a tick). Between
     * full scans they count as read and found unchanged. */
    bool quiet[GD_JOB_MAX_THREADS];
    char state[GD_JOB_MAX_THREADS]; /* at the last read */
    double full_cpu_s[GD_JOB_MAX_THREADS]; /* CPU seconds at the last full scan, NaN before */
    double span; /* seconds since the full scan before this one (this one's) */
} proc_source;

/* cpu0's cpufreq file NAME (first line) into buf; false when unreadable. */
static bool read_cpufreq(const char *sysfs_root, const char *name, char *buf, size_t len)
{
    char path[768], text[256];
    snprintf(path, sizeof path, "%s/devices/system/cpu/cpu0/cpufreq/%s", sysfs_root, name);
    if (gd_proc_read_small(path, text, sizeof text) <= 0)
        return false;
    size_t n = strcspn(text, "\n");
    n = n < len - 1 ? n : len - 1;
    memcpy(buf, text, n);
    buf[n] = '\0';
    return true;
}

/* The job's CPU affinity from its status: read again at every full scan,
 * since the command started may exec (a shell, taskset, a launcher) after
 * the first, or be pinned later. */
static void read_affinity(proc_source *ps, const char *status)
{
    gd_job_facts *j = ps->j;
    const char *a = status ? strstr(status, "\nCpus_allowed_list:") : NULL;
    if (a) {
        a += strlen("\nCpus_allowed_list:");
        a += strspn(a, " \t");
        size_t len = strcspn(a, "\n");
        snprintf(j->affinity, sizeof j->affinity, "%.*s", (int)(len < 127 ? len : 127), a);
        j->affinity_cpus = gd_proc_count_cpu_list(j->affinity);
    }
}

/* The job's environment, kept while it runs: the report is made after a
 * command that ended, when PID/environ is gone. Bounded like the stack's read. */
#define GD_JOB_ENVIRON_MAX (4u << 20)
static void keep_environ(proc_source *ps)
{
    gd_job_facts *j = ps->j;
    char path[768];
    snprintf(path, sizeof path, "%s/%ld/environ", ps->root, j->pid);
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return;
    size_t cap = 16384, len = 0;
    char *buf = malloc(cap);
    ssize_t n = 1;
    while (buf && n > 0 && len < GD_JOB_ENVIRON_MAX) {
        if (len == cap) {
            char *b = realloc(buf, cap * 2);
            if (!b)
                break;
            buf = b;
            cap *= 2;
        }
        n = read(fd, buf + len, cap - len);
        len += n > 0 ? (size_t)n : 0;
    }
    close(fd);
    if (!buf || n < 0 || len == 0) { /* unreadable, or a process gone: keep what was read before */
        free(buf);
        return;
    }
    free(j->environ);
    j->environ = buf;
    j->environ_len = len;
}

static void read_static(proc_source *ps)
{
    gd_job_facts *j = ps->j;
    char path[768], buf[8192];
    snprintf(path, sizeof path, "%s/%ld/comm", ps->root, j->pid);
    if (gd_proc_read_small(path, buf, sizeof buf) > 0) {
        buf[strcspn(buf, "\n")] = '\0';
        snprintf(j->comm, sizeof j->comm, "%.31s", buf);
    }
    snprintf(path, sizeof path, "%s/%ld/status", ps->root, j->pid);
    read_affinity(ps, gd_proc_read_small(path, buf, sizeof buf) > 0 ? buf : NULL);
    snprintf(path, sizeof path, "%s/stat", ps->root);
    if (gd_proc_read_small(path, buf, sizeof buf) > 0)
        for (const char *p = buf; (p = strstr(p, "\ncpu")); p++)
            j->host_cpus += p[4] >= '0' && p[4] <= '9';
    if (ps->sys[0]) {
        read_cpufreq(ps->sys, "scaling_governor", j->governor, sizeof j->governor);
        read_cpufreq(ps->sys, "scaling_driver", j->scaling_driver, sizeof j->scaling_driver);
        char v[32];
        j->freq_cur_khz = read_cpufreq(ps->sys, "scaling_cur_freq", v, sizeof v) ? atol(v) : 0;
        j->freq_min_khz = read_cpufreq(ps->sys, "cpuinfo_min_freq", v, sizeof v) ? atol(v) : 0;
        j->freq_max_khz = read_cpufreq(ps->sys, "cpuinfo_max_freq", v, sizeof v) ? atol(v) : 0;
    }
}

/* Which /dev/nvidiaN is which GPU: the driver's own table where it is
 * readable (a machine, a container with the driver's /proc), else the index. */
static void read_gpu_minors(proc_source *ps, const gd_facts *f)
{
    gd_job_facts *j = ps->j;
    size_t found = 0;
    j->gpu_minor_count = f->gpu_count < 64 ? f->gpu_count : 64;
    for (size_t g = 0; g < j->gpu_minor_count; g++) {
        int m = gd_proc_gpu_minor(ps->root, f->gpus[g].pci_bus_id);
        found += m >= 0;
        j->gpu_minors[g] = m >= 0 ? m : f->gpus[g].index;
    }
    snprintf(j->gpu_minor_source, sizeof j->gpu_minor_source, "%s",
             found && found == j->gpu_minor_count ? "proc:driver/nvidia/gpus/BUS/information Device Minor"
             : found                              ? "proc:driver/nvidia/gpus/BUS/information, else the GPU's index"
                                                  : "the GPU's index (proc:driver/nvidia/gpus not readable)");
}

static int proc_open(void *self, const gd_session_opts *o, gd_facts *f, gd_roots *roots, char *err, size_t errlen)
{
    (void)err;
    (void)errlen;
    proc_source *ps = self;
    gd_job_facts *j = calloc(1, sizeof *j);
    if (!j || !(j->threads = calloc(GD_JOB_MAX_THREADS, sizeof *j->threads)) ||
        !(j->procs = calloc(GD_JOB_MAX_PROCS, sizeof *j->procs))) {
        if (j)
            free(j->threads);
        free(j);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    f->job = j;
    ps->j = j;
    j->pid = o->pid;
    snprintf(ps->root, sizeof ps->root, "%s", roots->proc);
    snprintf(ps->sys, sizeof ps->sys, "%s", roots->sys);
    long hz = sysconf(_SC_CLK_TCK);
    ps->tick_s = 1.0 / (double)(hz > 0 ? hz : 100);
    ps->last_t = ps->last_full = NAN;
    for (size_t i = 0; i < GD_JOB_MAX_THREADS; i++)
        ps->fds[i] = -1, ps->thread_proc[i] = -1, ps->full_cpu_s[i] = NAN;
    if (!ps->root[0]) {
        snprintf(j->error, sizeof j->error, "the scenario has no host.proc: the job's /proc is not known");
        return 1;
    }
    char path[600];
    snprintf(path, sizeof path, "%s/%ld/task", ps->root, j->pid);
    DIR *d = opendir(path);
    if (!d) {
        snprintf(j->error, sizeof j->error, "pid %ld: %s", j->pid,
                 errno == ENOENT   ? "no such process"
                 : errno == EACCES ? "not ours to read (another user's process: run as its user or root)"
                                   : strerror(errno));
        return 1;
    }
    closedir(d);
    j->read = true;
    read_static(ps);
    read_gpu_minors(ps, f);
    return 0;
}

static bool proc_samples(const void *self)
{
    return ((const proc_source *)self)->j && ((const proc_source *)self)->j->read;
}

static void proc_clock(const void *self, const gd_session_opts *o, int *mode, double *pace)
{
    (void)self;
    (void)o;
    *mode = 0; /* the session's clock is the GPUs' */
    *pace = 0;
}

static gd_job_thread *thread_slot(proc_source *ps, int pid, int tid, int proc)
{
    gd_job_facts *j = ps->j;
    for (size_t i = j->thread_count; i-- > 0;)
        if (j->threads[i].tid == tid) {
            ps->thread_proc[i] = (int16_t)proc;
            return &j->threads[i];
        }
    if (j->thread_count == GD_JOB_MAX_THREADS) {
        j->threads_untracked++;
        return NULL;
    }
    ps->thread_proc[j->thread_count] = (int16_t)proc;
    gd_job_thread *t = &j->threads[j->thread_count++];
    *t = (gd_job_thread){.pid = pid, .tid = tid, .cpu_s = NAN, .vcsw_first = NAN, .vcsw_last = NAN};
    return t;
}

static proc_entry *proc_slot(proc_source *ps, int pid, bool *fresh)
{
    *fresh = false;
    for (size_t i = 0; i < ps->nprocs; i++)
        if (ps->procs[i].pid == pid)
            return &ps->procs[i];
    if (ps->nprocs == GD_JOB_MAX_PROCS)
        return NULL;
    *fresh = true;
    proc_entry *p = &ps->procs[ps->nprocs++];
    *p = (proc_entry){.pid = pid, .read_bytes = NAN, .vcsw = NAN, .ivcsw = NAN};
    ps->j->procs[ps->nprocs - 1] = (gd_job_proc){.pid = pid, .rank = -1, .first_s = -1};
    ps->j->proc_count = ps->nprocs;
    ps->j->procs_seen++;
    return p;
}

/* A counter's growth per second into *acc (left alone when either end is unknown). */
static void rate(double *last, double now, double dt, double *acc)
{
    if (!isnan(*last) && !isnan(now) && dt > 0 && now >= *last)
        *acc = (isnan(*acc) ? 0 : *acc) + (now - *last) / dt;
    *last = now;
}

/* One thread's stat: its state and CPU time; false when gone. */
static bool read_thread(const char *path, char *state, double *cpu_ticks, char *comm, size_t commlen)
{
    char buf[1024];
    if (gd_proc_read_small(path, buf, sizeof buf) <= 0)
        return false;
    return gd_proc_parse_thread_stat(buf, state, cpu_ticks, comm, commlen);
}

/* One sighting of a thread (t NULL: beyond the table) into s. Its CPU time
 * grew over `since` seconds (dt, the sample's interval, but for a quiet
 * thread read again at a full scan: since the one before). The sample's
 * rates (the job's cores, the busiest thread) take the growth's average over
 * `since`; the sums the means come from take all of it, as if each skipped
 * sample had seen its part: a mean over the window stays exact. */
static void count_thread(proc_source *ps, gd_job_thread *t, char state, double ticks, const char *comm, double dt,
                         double since, gd_job_sample *s)
{
    s->threads++;
    s->running += state == 'R';
    s->disk_wait += state == 'D';
    if (!t)
        return;
    int proc = ps->thread_proc[t - ps->j->threads];
    ps->state[t - ps->j->threads] = state;
    if (proc >= 0) {
        ps->acc_seen[proc]++;
        ps->acc_running[proc] += state == 'R';
    }
    double cpu = ticks * ps->tick_s;
    snprintf(t->comm, sizeof t->comm, "%s", comm);
    t->seen++;
    t->running += state == 'R';
    t->disk_wait += state == 'D';
    if (!isnan(t->cpu_s) && t->stamp + 1 == ps->stamp && dt > 0 && since >= dt) {
        double share = (cpu - t->cpu_s) / since, sum = (cpu - t->cpu_s) / dt;
        s->job_cores += share;
        if (proc >= 0) {
            ps->acc_cores[proc] += share;
            ps->acc_core_sum[proc] += sum;
            ps->acc_measured[proc]++;
        }
        t->measured++;
        t->busy_sum += sum;
        t->saturated += share >= GD_THREAD_SATURATED_CORE;
        if (share > s->top_thread_core) {
            s->top_thread_core = share;
            s->top_tid = t->tid;
        }
    }
    t->cpu_s = cpu;
    t->stamp = ps->stamp;
}

/* Thread i's stat through its file kept open (pread: one syscall); false
 * when gone. */
static bool read_followed(proc_source *ps, size_t i, char *state, double *ticks, char *comm, size_t commlen)
{
    const gd_job_thread *t = &ps->j->threads[i];
    int *fd = &ps->fds[i];
    if (*fd < 0) {
        char path[768];
        snprintf(path, sizeof path, "%s/%d/task/%d/stat", ps->root, t->pid, t->tid);
        *fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    }
    char buf[1024];
    ssize_t n = *fd >= 0 ? pread(*fd, buf, sizeof buf - 1, 0) : -1;
    if (n > 0)
        buf[n] = '\0';
    else if (*fd >= 0) {
        close(*fd);
        *fd = -1;
    }
    return n > 0 && gd_proc_parse_thread_stat(buf, state, ticks, comm, commlen);
}

/* The slot of thread tid of process pid, -1 when not followed. */
static long followed(const proc_source *ps, int pid, int tid)
{
    for (size_t i = ps->j->thread_count; i-- > 0;)
        if (ps->j->threads[i].tid == tid && ps->j->threads[i].pid == pid)
            return (long)i;
    return -1;
}

/* Between full scans: the threads seen last time, their stat only. */
static void quick_sample(proc_source *ps, double dt, gd_job_sample *s)
{
    gd_job_facts *j = ps->j;
    char state, comm[20];
    double ticks;
    for (size_t i = 0; i < j->thread_count; i++) {
        gd_job_thread *t = &j->threads[i];
        if (t->stamp + 1 != ps->stamp)
            continue;
        if (ps->quiet[i]) {
            char name[sizeof t->comm];
            snprintf(name, sizeof name, "%s", t->comm);
            count_thread(ps, t, ps->state[i], t->cpu_s / ps->tick_s, name, dt, dt, s);
            continue;
        }
        if (!read_followed(ps, i, &state, &ticks, comm, sizeof comm) || (t->tid == (int)j->pid && state == 'Z')) {
            if (t->tid == (int)j->pid) {
                j->ended = true;
                j->ended_at_s = s->t;
            }
            continue;
        }
        count_thread(ps, t, state, ticks, comm, dt, dt, s);
    }
}

/* The threads of process pid (j->procs[proc], -1 beyond the table) into s;
 * its children onto the stack. False when gone. */
static bool sample_process(proc_source *ps, int pid, int proc, double dt, gd_job_sample *s)
{
    gd_job_facts *j = ps->j;
    char path[768], buf[4096];
    snprintf(path, sizeof path, "%s/%d/task", ps->root, pid);
    DIR *d = opendir(path);
    if (!d)
        return false;
    struct dirent *e;
    bool any = false;
    while ((e = readdir(d))) {
        if (e->d_name[0] < '0' || e->d_name[0] > '9')
            continue;
        int tid = atoi(e->d_name);
        char state, comm[20];
        double ticks;
        long slot = followed(ps, pid, tid);
        snprintf(path, sizeof path, "%s/%d/task/%d/stat", ps->root, pid, tid);
        if (!(slot >= 0 && read_followed(ps, (size_t)slot, &state, &ticks, comm, sizeof comm)) &&
            !read_thread(path, &state, &ticks, comm, sizeof comm))
            continue;
        if (tid == pid && state == 'Z')
            break; /* a zombie: the process has ended */
        any = true;
        if (tid == pid && proc >= 0)
            snprintf(j->procs[proc].comm, sizeof j->procs[proc].comm, "%s", comm);
        gd_job_thread *t = slot >= 0 ? &j->threads[slot] : thread_slot(ps, pid, tid, proc); /* searched once */
        if (slot >= 0)
            ps->thread_proc[slot] = (int16_t)proc;
        size_t i = t ? (size_t)(t - j->threads) : 0;
        /* A quiet thread's CPU time grew, if at all, since the last full scan. */
        count_thread(ps, t, state, ticks, comm, dt, t && ps->quiet[i] ? ps->span : dt, s);
        if (t) {
            double cpu = ticks * ps->tick_s;
            ps->quiet[i] = (state == 'S' || state == 'I') && cpu == ps->full_cpu_s[i];
            ps->full_cpu_s[i] = cpu;
        }
        snprintf(path, sizeof path, "%s/%d/task/%d/status", ps->root, pid, tid);
        double v = t && gd_proc_read_small(path, buf, sizeof buf) > 0
                       ? gd_proc_field_after(buf, "voluntary_ctxt_switches:")
                       : NAN;
        if (t && !isnan(v)) {
            if (isnan(t->vcsw_first))
                t->vcsw_first = v, t->vcsw_first_t = s->t, t->vcsw_first_cpu_s = t->cpu_s;
            t->vcsw_last = v;
            t->vcsw_last_t = s->t;
            t->vcsw_last_cpu_s = t->cpu_s;
        }
        snprintf(path, sizeof path, "%s/%d/task/%d/children", ps->root, pid, tid);
        if (gd_proc_read_small(path, buf, sizeof buf) > 0) {
            for (char *p = buf, *end; *p; p = end) {
                long c = strtol(p, &end, 10);
                if (end == p)
                    break;
                if (c > 0 && ps->depth < GD_JOB_MAX_PROCS) {
                    ps->stack_ppid[ps->depth] = pid;
                    ps->stack[ps->depth++] = (int)c;
                }
            }
        }
    }
    closedir(d);
    return any;
}

/* Per-process counters: read bytes and context switches. */
static void sample_counters(proc_source *ps, proc_entry *p, double dt, gd_job_sample *s)
{
    char path[768], buf[4096];
    snprintf(path, sizeof path, "%s/%d/io", ps->root, p->pid);
    long got = gd_proc_read_small(path, buf, sizeof buf);
    if (got < 0 && errno == EACCES)
        ps->j->io_denied = true;
    double rb = got > 0 ? gd_proc_field_after(buf, "read_bytes:") : NAN;
    rate(&p->read_bytes, rb, dt, &s->read_bps);
    snprintf(path, sizeof path, "%s/%d/status", ps->root, p->pid);
    bool ok = gd_proc_read_small(path, buf, sizeof buf) > 0;
    if (ok && p->pid == (int)ps->j->pid)
        read_affinity(ps, buf);
    rate(&p->vcsw, ok ? gd_proc_field_after(buf, "voluntary_ctxt_switches:") : NAN, dt, &s->vcsw_ps);
    rate(&p->ivcsw, ok ? gd_proc_field_after(buf, "nonvoluntary_ctxt_switches:") : NAN, dt, &s->ivcsw_ps);
}

/* Children that ended, then new ones: a respawn round (DataLoader workers
 * without persistent_workers end with each epoch's iterator and start again). */
static void note_tree_changes(proc_source *ps, size_t started, size_t exited)
{
    gd_job_facts *j = ps->j;
    j->children_started += started;
    j->children_exited += exited;
    if (exited)
        ps->exits_pending = true;
    if (started && ps->exits_pending) {
        j->respawn_rounds++;
        ps->exits_pending = false;
    }
}

/* Who the process is: its program, libraries, device files, rank. Its
 * environment is read when first seen and after an exec (a shell that execs
 * python); its maps until torch and the CUDA driver show, for a while. */
static void identify(proc_source *ps, proc_entry *p, bool fresh)
{
    gd_job_proc *jp = &ps->j->procs[p - ps->procs];
    bool exec = fresh || strcmp(p->comm, jp->comm) != 0;
    if (exec) {
        snprintf(p->comm, sizeof p->comm, "%s", jp->comm);
        p->scans = p->idents = 0;
        jp->torch = jp->cuda = jp->torch_cuda = jp->cudart = false;
        if (p->pid == (int)ps->j->pid) {
            snprintf(ps->j->comm, sizeof ps->j->comm, "%.31s", jp->comm);
            keep_environ(ps);
        }
    }
    unsigned parts = exec ? GD_PROC_ENVIRON : 0;
    if (p->idents < GD_PROC_CMDLINE_SCANS)
        parts |= GD_PROC_CMDLINE;
    if (p->idents < GD_PROC_MAPS_SCANS || p->idents % GD_PROC_FDS_EVERY == 0)
        parts |= GD_PROC_FDS;
    p->idents++;
    gd_proc_identify(ps->root, jp, parts);
    for (size_t k = 0; fresh && k < ps->nprocs; k++) { /* a forked worker maps what its parent mapped */
        const gd_job_proc *parent = &ps->j->procs[k];
        if (parent->pid == jp->ppid && parent->torch && strcmp(parent->prog, jp->prog) == 0 &&
            strcmp(parent->comm, jp->comm) == 0) {
            jp->torch = true;
            jp->cuda = parent->cuda;
            jp->torch_cuda = parent->torch_cuda;
            jp->cudart = parent->cudart;
            p->scans = GD_PROC_MAPS_SCANS;
        }
    }
    if (!(jp->torch && jp->cuda) && p->scans < GD_PROC_MAPS_SCANS) {
        p->scans++;
        gd_proc_read_maps(ps->root, jp);
    }
}

/* This sample's CPU and runnable threads into each process's totals. */
static void commit_procs(proc_source *ps, double t)
{
    gd_job_facts *j = ps->j;
    for (size_t k = 0; k < ps->nprocs; k++) {
        gd_job_proc *p = &j->procs[k];
        if (ps->acc_seen[k]) {
            if (p->first_s < 0)
                p->first_s = t;
            p->last_s = t;
            p->one_running += ps->acc_running[k] == 1;
            p->many_running += ps->acc_running[k] >= 2;
        }
        if (ps->acc_measured[k]) {
            p->intervals++;
            p->busy_sum += ps->acc_core_sum[k];
            p->busy_max = ps->acc_cores[k] > p->busy_max ? ps->acc_cores[k] : p->busy_max;
        }
        ps->acc_cores[k] = ps->acc_core_sum[k] = 0;
        ps->acc_running[k] = ps->acc_measured[k] = ps->acc_seen[k] = 0;
    }
}

static void proc_sample(void *self, gd_facts *f, size_t i, double t)
{
    (void)f;
    (void)i;
    proc_source *ps = self;
    gd_job_facts *j = ps->j;
    if (!j || !j->read || j->ended)
        return;
    gd_job_sample *s = gd_job_push(j);
    if (!s)
        return;
    ps->stamp++;
    double dt = isnan(ps->last_t) ? 0 : t - ps->last_t;
    ps->last_t = t;
    s->t = t;
    s->top_tid = -1;
    s->job_cores = s->top_thread_core = dt > 0 ? 0 : NAN;
    s->read_bps = s->vcsw_ps = s->ivcsw_ps = NAN;
    if (!isnan(ps->last_full) && t - ps->last_full < GD_PROC_FULL_SCAN_S - 1e-9) {
        const gd_job_sample *prev = j->n > 1 ? gd_job_at(j, j->n - 2) : NULL;
        s->procs = prev ? prev->procs : 0;
        quick_sample(ps, dt, s);
        commit_procs(ps, t);
        return;
    }
    double span = isnan(ps->last_full) ? 0 : t - ps->last_full;
    ps->last_full = t;
    ps->span = span;
    ps->depth = 0;
    ps->stack_ppid[ps->depth] = 0;
    ps->stack[ps->depth++] = (int)j->pid;
    size_t started = 0, exited = 0;
    while (ps->depth > 0 && s->procs < GD_JOB_MAX_PROCS) {
        int pid = ps->stack[--ps->depth], ppid = ps->stack_ppid[ps->depth];
        bool fresh;
        proc_entry *p = proc_slot(ps, pid, &fresh);
        if (p && p->stamp == ps->stamp)
            continue; /* seen through another thread's children */
        int proc = p ? (int)(p - ps->procs) : -1;
        if (proc >= 0)
            j->procs[proc].ppid = ppid;
        if (!sample_process(ps, pid, proc, dt, s)) {
            if (pid == j->pid) {
                j->ended = true;
                j->ended_at_s = t;
                break;
            }
            continue;
        }
        s->procs++;
        if (!p)
            continue;
        if (fresh && ps->stamp > 1 && pid != j->pid)
            started++;
        p->stamp = ps->stamp;
        sample_counters(ps, p, span, s);
        identify(ps, p, fresh);
    }
    commit_procs(ps, t);
    for (size_t k = 0; k < ps->nprocs; k++)
        if (ps->procs[k].stamp && ps->procs[k].stamp != ps->stamp && ps->procs[k].pid != j->pid) {
            exited++;
            ps->procs[k].stamp = 0;
        }
    note_tree_changes(ps, started, exited);
    if (s->procs > j->procs_max)
        j->procs_max = s->procs;
}

static void proc_close(void *self)
{
    proc_source *ps = self; /* the facts own the job's samples */
    for (size_t i = 0; ps->j && i < GD_JOB_MAX_THREADS; i++)
        if (ps->fds[i] >= 0) {
            close(ps->fds[i]);
            ps->fds[i] = -1;
        }
}

const gd_source_ops gd_source_proc = {
    .name = "proc",
    .size = sizeof(proc_source),
    .open = proc_open,
    .samples = proc_samples,
    .clock = proc_clock,
    .sample = proc_sample,
    .close = proc_close,
};
