/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Constant cost (issue 40): what a tick of the continuous commands costs in
 * their first minute and in the last hour of a simulated day, sampling the
 * 8-GPU training scenario at 10 Hz with their findings judged, on the fast
 * scenario clock (GPUDOCTOR_SIM_TIMESCALE=1e9: the same sampling, judging
 * and output code, as fast as it runs).
 *
 * Each command is run for 0.1 s (two samples), a minute, the day less an hour and the
 * day, in the same run; its CPU time (user + system, simulator included:
 * it runs in-process) gives
 *  - the first minute's cost per tick: (minute - its first 0.1 s) / 599,
 *  - the last hour's: (day - (day - 1 h)) / 36 000, and their ratio
 *    (budget: at most 1.2),
 *  - the day's average share of a core: CPU / the day's seconds (budget:
 *    at most 0.1 %).
 * Commands: `watch --format csv` (judged every sample), `export` (judged
 * every second, published for every scrape), and `check` (judged once at
 * the end: the session's sampling alone, which `run` shares; `run` itself
 * follows a real process on the wall clock, so it is measured apart, paced,
 * for BENCH_TOP_SECONDS). References in the same run: `top -b -d 0.1` and
 * `check` paced at 10 Hz for BENCH_TOP_SECONDS (default 20) of wall time.
 * Usage: bench_tick_cost [DAY_SECONDS]   (default 86400; BENCH_DAY_SECONDS)
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
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

/* Runs argv (output discarded) with the scenario clock as given; wall and CPU. */
static cost run(const char *path, char *const argv[], const char *timescale)
{
    cost c = {0};
    fflush(stdout);
    double t0 = now();
    pid_t pid = fork();
    if (pid == 0) {
        if (!freopen("/dev/null", "w", stdout) || !freopen("/dev/null", "w", stderr))
            _exit(126);
        if (timescale)
            setenv("GPUDOCTOR_SIM_TIMESCALE", timescale, 1);
        else
            unsetenv("GPUDOCTOR_SIM_TIMESCALE");
        execvp(path, argv);
        _exit(127);
    }
    struct rusage ru;
    if (pid < 0 || wait4(pid, &c.status, 0, &ru) < 0)
        exit(1);
    c.wall_s = now() - t0;
    c.cpu_s = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 + (double)ru.ru_stime.tv_sec +
              (double)ru.ru_stime.tv_usec / 1e6;
    return c;
}

static int failed(int status)
{
    return !WIFEXITED(status) || WEXITSTATUS(status) > 2;
}

typedef enum { WATCH, EXPORT, CHECK } command;
static const char *const names[] = {"watch --format csv", "export", "check (run's sampling)"};

/* CPU seconds of `command` over `seconds` of scenario time at 10 Hz. */
static double cpu_of(command c, double seconds, const char *scenario)
{
    char count[32], dur[32];
    snprintf(count, sizeof count, "%.0f", seconds * 10 + 1);
    snprintf(dur, sizeof dur, "%.1f", seconds);
    char *watch[] = {"gpudoctor", "watch", "--format", "csv", "--interval", "100", "--count", count, "--sim",
                     (char *)scenario, NULL};
    char *export[] = {"gpudoctor", "export", "--listen", "127.0.0.1:0", "--duration", dur, "--interval", "100",
                      "--sim", (char *)scenario, NULL};
    char *check[] = {"gpudoctor", "check", "--json", "--duration", dur, "--interval", "100", "--sim",
                     (char *)scenario, NULL};
    char *const *argv = c == WATCH ? watch : c == EXPORT ? export : check;
    cost k = run(GD_BINARY, argv, "1e9");
    if (failed(k.status)) {
        fprintf(stderr, "bench_tick_cost: %s for %s s failed (status %d)\n", names[c], dur, k.status);
        exit(1);
    }
    return k.cpu_s;
}

int main(int argc, char **argv)
{
    const char *env = getenv("BENCH_DAY_SECONDS"), *top_env = getenv("BENCH_TOP_SECONDS");
    double day = argc > 1 ? atof(argv[1]) : env ? atof(env) : 86400;
    double top_s = top_env ? atof(top_env) : 20;
    if (day < 2 * 3600) {
        fprintf(stderr, "usage: bench_tick_cost [DAY_SECONDS]: at least 7200 (an hour and more before it)\n");
        return 2;
    }
    const char *scenario = GD_EXAMPLES_DIR "/h100x8-training.json";
    int over = 0;
    printf("8 simulated GPUs at 10 Hz, findings judged; a simulated day of %.0f s on the fast clock\n", day);
    printf("%-24s %12s %12s %7s %14s\n", "command", "1st min/tick", "last h/tick", "ratio", "day % of core");
    for (int c = WATCH; c <= CHECK; c++) {
        double c0 = cpu_of((command)c, 0.1, scenario), c1 = cpu_of((command)c, 60, scenario);
        double c2 = cpu_of((command)c, day - 3600, scenario), c3 = cpu_of((command)c, day, scenario);
        double first = (c1 - c0) / 599, last = (c3 - c2) / 36000, share = 100 * c3 / day;
        double ratio = first > 0 ? last / first : 0;
        bool ok = ratio <= 1.2 && share <= 0.1;
        over |= !ok;
        printf("%-24s %9.1f us %9.1f us %7.2f %13.4f%% %s\n", names[c], first * 1e6, last * 1e6, ratio, share,
               ok ? "" : "OVER BUDGET (ratio 1.2, 0.1 %)");
    }
    /* The references, on the wall clock. */
    char n[32], dur[32], secs[32];
    snprintf(n, sizeof n, "%.0f", top_s * 10);
    snprintf(dur, sizeof dur, "%.0f", top_s);
    snprintf(secs, sizeof secs, "%.0f", top_s);
    char *top[] = {"top", "-b", "-d", "0.1", "-n", n, NULL};
    char *check[] = {"gpudoctor", "check", "--json", "--duration", dur, "--interval", "100", "--sim",
                     (char *)scenario, NULL};
    char *runj[] = {"gpudoctor", "run", "--interval", "100", "--sim", (char *)scenario, "--", "sleep", secs, NULL};
    char secs3[32];
    snprintf(secs3, sizeof secs3, "%.0f", 3 * top_s);
    char *runj3[] = {"gpudoctor", "run", "--interval", "100", "--sim", (char *)scenario, "--", "sleep", secs3, NULL};
    cost t = run("top", top, NULL), k = run(GD_BINARY, check, "1");
    cost r = run(GD_BINARY, runj, NULL), r3 = run(GD_BINARY, runj3, NULL);
    if (failed(t.status))
        printf("top -b -d 0.1: not runnable here (status %d): no reference\n", t.status);
    else
        printf("top -b -d 0.1 for %.0f s (reference)           %8.4f%% of one core\n", top_s,
               100 * t.cpu_s / t.wall_s);
    if (!failed(k.status))
        printf("check at 10 Hz, paced, %.0f s, start-up in it  %8.4f%% of one core\n", top_s,
               100 * k.cpu_s / k.wall_s);
    /* run follows a real process on the wall clock: its steady cost is the
     * difference of a run three times as long, start-up and report left out. */
    if (!failed(r.status) && !failed(r3.status) && r3.wall_s > r.wall_s) {
        double steady = 100 * (r3.cpu_s - r.cpu_s) / (r3.wall_s - r.wall_s);
        bool ok = steady <= 0.1;
        over |= !ok;
        printf("run -- sleep, 10 Hz, steady (%.0f s vs %.0f s)   %8.4f%% of one core %s\n", 3 * top_s, top_s, steady,
               ok ? "" : "OVER BUDGET (0.1 %)");
    }
    return over;
}
