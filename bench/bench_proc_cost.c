/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The cost of sampling a job's /proc: a job of 64 threads and 16 child
 * processes (all asleep, as a DataLoader between batches), sampled by the
 * proc source at 10 Hz for BENCH_SECONDS (default 5) of wall time. Measured:
 * this process's CPU time (user + system); reference: the wall time of the
 * window. Target: under 1 % of one core.
 * Usage: bench_proc_cost [THREADS CHILDREN]
 */
#include "sources/source.h"
#include "gpudoctor/job.h"

#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double cpu_self(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 + (double)ru.ru_stime.tv_sec +
           (double)ru.ru_stime.tv_usec / 1e6;
}

static void *sleeper(void *arg)
{
    (void)arg;
    for (;;)
        pause();
    return NULL;
}

/* The job: `threads` threads in the first process and `children` children; it sleeps until killed. */
static pid_t start_job(int threads, int children)
{
    int p[2];
    if (pipe(p) != 0)
        return -1;
    pid_t pid = fork();
    if (pid != 0) {
        char c;
        close(p[1]);
        if (pid < 0 || read(p[0], &c, 1) != 1)
            pid = -1;
        close(p[0]);
        return pid;
    }
    setpgid(0, 0); /* one group: the bench ends the whole job */
    for (int i = 0; i < children; i++)
        if (fork() == 0) {
            for (;;)
                pause();
        }
    for (int i = 1; i < threads; i++) {
        pthread_t t;
        pthread_create(&t, NULL, sleeper, NULL);
    }
    if (write(p[1], "x", 1) != 1)
        _exit(1);
    for (;;)
        pause();
}

int main(int argc, char **argv)
{
    int threads = argc > 2 ? atoi(argv[1]) : 64, children = argc > 2 ? atoi(argv[2]) : 16;
    const char *secs = getenv("BENCH_SECONDS");
    double window = secs && atof(secs) > 0 ? atof(secs) : 5;
    pid_t job = start_job(threads, children);
    if (job < 0) {
        fprintf(stderr, "bench_proc_cost: cannot start the job\n");
        return 1;
    }
    usleep(200000); /* the children are forked */
    gd_facts f;
    memset(&f, 0, sizeof f);
    gd_roots roots = {.sys = "/sys", .proc = "/proc"};
    gd_session_opts o = {.pid = job, .interval_s = 0.1, .duration_s = window};
    void *self = calloc(1, gd_source_proc.size);
    char err[256];
    int rc = self ? gd_source_proc.open(self, &o, &f, &roots, err, sizeof err) : -1;
    if (rc != 0) {
        fprintf(stderr, "bench_proc_cost: cannot read the job: %s\n", f.job ? f.job->error : err);
        kill(-job, SIGKILL);
        return 1;
    }
    f.job->limit = (size_t)(window * 10 + 2);
    double c0 = cpu_self(), t0 = now();
    size_t k = 0;
    for (; now() - t0 < window; k++) {
        double due = t0 + (double)k * 0.1, d = due - now();
        if (d > 0)
            usleep((useconds_t)(d * 1e6));
        gd_source_proc.sample(self, &f, k, now() - t0);
    }
    double cpu = cpu_self() - c0, wall = now() - t0;
    const gd_job_sample *last = gd_job_at(f.job, f.job->n - 1);
    printf("bench_proc_cost: %zu samples at 10 Hz of a job of %u processes and %u threads: "
           "CPU %.4f s over %.2f s wall = %.3f %% of one core (%.0f us a sample; target under 1 %%)\n",
           k, last->procs, last->threads, cpu, wall, 100 * cpu / wall, 1e6 * cpu / (double)k);
    kill(-job, SIGKILL);
    waitpid(job, NULL, 0);
    gd_source_proc.close(self);
    free(self);
    int ok = last->procs == (unsigned)children + 1 && last->threads == (unsigned)(threads + children) &&
             100 * cpu / wall < 1.0;
    gd_job_facts_free(f.job);
    return ok ? 0 : 1;
}
