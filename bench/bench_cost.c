/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The tool's own cost, as ratios against references measured in the same run:
 *  - start-up: `gpudoctor --version` against `/bin/true`, mean wall time of
 *    50 runs each (what the dynamic loader and the binary's own start cost);
 *  - sampling 8 simulated GPUs at 10 Hz: CPU time / wall time (target < 0.1 %
 *    of one core for the whole command, simulator included, since it runs
 *    in-process), and the same for `watch --format csv`, each against
 *    `top -b -d 0.1` over as many samples (the reference a monitor is
 *    compared with);
 *  - a snapshot-only check of 8 GPUs: wall time, and its ratio to the start-up
 *    of the same binary (`gpudoctor --version`), the floor any run pays.
 * Usage: bench_cost [SECONDS]   (default 60; BENCH_SECONDS also works)
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

typedef struct cost {
    double wall_s, cpu_s;
    int status;
} cost;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Runs the binary with args, output discarded; wall and CPU (user + system). */
static cost run_path(const char *path, char *const args[])
{
    cost c = {0};
    fflush(stdout); /* or the child inherits what is buffered */
    double t0 = now();
    pid_t pid = fork();
    if (pid == 0) {
        if (!freopen("/dev/null", "w", stdout) || !freopen("/dev/null", "w", stderr))
            _exit(126);
        execvp(path, args);
        _exit(127);
    }
    struct rusage ru;
    if (wait4(pid, &c.status, 0, &ru) < 0)
        exit(1);
    c.wall_s = now() - t0;
    c.cpu_s = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 + (double)ru.ru_stime.tv_sec +
              (double)ru.ru_stime.tv_usec / 1e6;
    return c;
}

static cost run(char *const args[])
{
    return run_path(GD_BINARY, args);
}

/* A run that failed measured nothing: a check ends 0-2, --version 0. */
static int failed(int status)
{
    return !WIFEXITED(status) || WEXITSTATUS(status) > 2;
}

/* Mean of n runs; the status is that of the first failing run, if any. */
static cost mean_of_path(const char *path, char *const args[], int n)
{
    cost sum = {0};
    for (int i = 0; i < n; i++) {
        cost c = run_path(path, args);
        sum.wall_s += c.wall_s / n;
        sum.cpu_s += c.cpu_s / n;
        if (failed(c.status) && !failed(sum.status))
            sum.status = c.status;
    }
    return sum;
}

static cost mean_of(char *const args[], int n)
{
    return mean_of_path(GD_BINARY, args, n);
}

static double core_pct(cost c)
{
    return c.wall_s > 0 ? 100.0 * c.cpu_s / c.wall_s : 0;
}

/* Start-up against /bin/true; 0 when it could not run. */
static int startup(void)
{
    char *truth[] = {"true", NULL};
    char *version[] = {"gpudoctor", "--version", NULL};
    cost t = mean_of_path("/bin/true", truth, 50);
    cost v = mean_of(version, 50);
    if (failed(t.status) || failed(v.status))
        return -1;
    printf("start-up: gpudoctor --version        %8.2f ms wall, /bin/true %.2f ms = %.1fx\n", v.wall_s * 1e3,
           t.wall_s * 1e3, v.wall_s / t.wall_s);
    return 0;
}

/* Sampling cost of check and watch --format csv against top -b -d 0.1, over
 * the same number of 100 ms samples. */
static int sampling_vs_top(const char *secs, const char *scenario)
{
    char count[32], top_n[32];
    snprintf(count, sizeof count, "%d", atoi(secs) * 10 + 1);
    snprintf(top_n, sizeof top_n, "%d", atoi(secs) * 10);
    char *top[] = {"top", "-b", "-d", "0.1", "-n", top_n, NULL};
    char *csv[] = {"gpudoctor", "watch", "--format", "csv", "--interval", "100", "--count", count,
                   "--sim",     (char *)scenario, NULL};
    cost t = run_path("top", top);
    if (failed(t.status)) {
        printf("top -b -d 0.1: not runnable here (status %d): no reference\n", t.status);
        return 0;
    }
    cost w = run(csv);
    if (failed(w.status))
        return -1;
    printf("top -b -d 0.1 for %s s                 %8.3f%% of one core (reference)\n", secs, core_pct(t));
    printf("watch --format csv, 8 GPUs, 10 Hz    %8.3f%% of one core = %.2fx top (target < 0.1%%)\n", core_pct(w),
           core_pct(w) / core_pct(t));
    return 0;
}

int main(int argc, char **argv)
{
    const char *secs = argc > 1 ? argv[1] : getenv("BENCH_SECONDS");
    if (!secs)
        secs = "60";
    char scenario[1024];
    snprintf(scenario, sizeof scenario, "%s/h100x8-training.json", GD_EXAMPLES_DIR);
    setenv("GPUDOCTOR_SIM_TIMESCALE", "1", 1);

    char *version[] = {"gpudoctor", "--version", NULL};
    char *snapshot[] = {"gpudoctor", "check", "--json", "--duration", "0", "--sim", scenario, NULL};
    char *window[] = {"gpudoctor",  "check", "--json", "--duration", (char *)secs,
                      "--interval", "100",   "--sim",  scenario,     NULL};

    if (startup() != 0) {
        fprintf(stderr, "bench_cost: the start-up runs failed\n");
        return 1;
    }
    cost ref = mean_of(version, 20);
    cost snap = mean_of(snapshot, 20);
    if (failed(ref.status) || failed(snap.status)) {
        fprintf(stderr, "bench_cost: %s failed (status %d)\n",
                failed(ref.status) ? "gpudoctor --version" : "the snapshot check",
                failed(ref.status) ? ref.status : snap.status);
        return 1;
    }
    printf("reference: gpudoctor --version       %8.2f ms wall\n", ref.wall_s * 1e3);
    printf("snapshot check, 8 GPUs               %8.2f ms wall = %.1fx the reference (target < 200 ms)\n",
           snap.wall_s * 1e3, snap.wall_s / ref.wall_s);
    fflush(stdout);
    cost win = run(window);
    double samples = atof(secs) * 10 + 1;
    printf("sampling 8 GPUs at 10 Hz for %s s     %8.3f s CPU / %.1f s wall = %.3f%% of one core (target < 0.1%%)\n",
           secs, win.cpu_s, win.wall_s, 100.0 * win.cpu_s / win.wall_s);
    printf("                                     %8.1f us CPU per GPU sample\n", win.cpu_s / (samples * 8) * 1e6);
    if (failed(win.status)) {
        fprintf(stderr, "bench_cost: the sampling run failed (status %d)\n", win.status);
        return 1;
    }
    if (sampling_vs_top(secs, scenario) != 0) {
        fprintf(stderr, "bench_cost: the watch run failed\n");
        return 1;
    }
    return 0;
}
