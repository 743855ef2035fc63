/*
 * The tool's own cost, as ratios against references measured in the same run:
 *  - sampling 8 simulated GPUs at 10 Hz: CPU time / wall time (target < 1 %
 *    of one core, simulator included, since it runs in-process);
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
static cost run(char *const args[])
{
    cost c = {0};
    double t0 = now();
    pid_t pid = fork();
    if (pid == 0) {
        if (!freopen("/dev/null", "w", stdout) || !freopen("/dev/null", "w", stderr))
            _exit(126);
        execv(GD_BINARY, args);
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

/* A run that failed measured nothing: a check ends 0-2, --version 0. */
static int failed(int status)
{
    return !WIFEXITED(status) || WEXITSTATUS(status) > 2;
}

/* Mean of n runs; the status is that of the first failing run, if any. */
static cost mean_of(char *const args[], int n)
{
    cost sum = {0};
    for (int i = 0; i < n; i++) {
        cost c = run(args);
        sum.wall_s += c.wall_s / n;
        sum.cpu_s += c.cpu_s / n;
        if (failed(c.status) && !failed(sum.status))
            sum.status = c.status;
    }
    return sum;
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
    printf("sampling 8 GPUs at 10 Hz for %s s     %8.3f s CPU / %.1f s wall = %.3f%% of one core (target < 1%%)\n",
           secs, win.cpu_s, win.wall_s, 100.0 * win.cpu_s / win.wall_s);
    printf("                                     %8.1f us CPU per GPU sample\n", win.cpu_s / (samples * 8) * 1e6);
    if (failed(win.status)) {
        fprintf(stderr, "bench_cost: the sampling run failed (status %d)\n", win.status);
        return 1;
    }
    return 0;
}
