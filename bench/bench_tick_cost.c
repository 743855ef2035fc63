/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Constant cost (issue 40): what a tick of the continuous commands costs in
 * their first minute and in the last hour of a simulated day, sampling the
 * 8-GPU training scenario at 10 Hz with their findings judged, on the fast
 * scenario clock (GPUDOCTOR_SIM_TIMESCALE=1e9: the same sampling, judging
 * and output code, as fast as it runs).
 *
 * Each command runs the day once; the simulated NVML notes its CPU time
 * (user + system, simulator included: it runs in-process) when the scenario
 * clock reaches 0.1 s, a minute, the day less an hour and the day
 * (GPUDOCTOR_SIM_CPU_MARKS, docs/scenarios.md), which gives
 *  - the first minute's cost per tick: (minute - 0.1 s) / 599,
 *  - the last hour's: (day - (day - 1 h)) / 36 000, and their ratio
 *    (budget: at most 1.2),
 *  - the day's average share of a core: CPU at exit / the day's seconds
 *    (budget: at most 0.1 %).
 * Commands: `watch --format csv` (judged every sample), `export` (judged
 * every second, published for every scrape), and `check` (judged once at
 * the end: the session's sampling alone, which `run` shares; `run` itself
 * follows a real process on the wall clock, so it is measured apart, paced,
 * steady for BENCH_TOP_SECONDS (default 20) from 35 s after its start: its
 * threads' time on a CPU (schedstat)). References in the same run, measured
 * the same way from 5 s: `top -b -d 0.1` and `check` paced at 10 Hz. run's
 * budget (0.1 %) is on its work at a tick, as the fast clock measures the
 * others: its steady cost less the wake-ups every paced command pays (check
 * paced less check on the fast clock).
 * Usage: bench_tick_cost [DAY_SECONDS]   (default 86400; BENCH_DAY_SECONDS)
 */
#include <dirent.h>
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

/* Starts argv (output discarded) with the scenario clock as given; its pid, -1 none. */
static pid_t spawn(const char *path, char *const argv[], const char *timescale)
{
    fflush(stdout);
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
    return pid;
}

/* Runs argv to its end; wall and CPU. */
static cost run(const char *path, char *const argv[], const char *timescale)
{
    cost c = {0};
    double t0 = now();
    pid_t pid = spawn(path, argv, timescale);
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

/* The CPU seconds of `command` over a day of scenario time at 10 Hz: at the
 * marks (0.1 s, 60 s, day - 1 h, day) and at exit. */
static void cpu_of(command c, double day, const char *scenario, double at[4], double *total)
{
    char count[32], dur[32], marks[128], file[4096];
    const char *tmp = getenv("TMPDIR");
    snprintf(file, sizeof file, "%s/bench_tick_cost.XXXXXX", tmp && *tmp ? tmp : "/tmp");
    snprintf(count, sizeof count, "%.0f", day * 10 + 1);
    snprintf(dur, sizeof dur, "%.1f", day);
    snprintf(marks, sizeof marks, "0.1,60,%.1f,%.1f", day - 3600, day);
    int fd = mkstemp(file);
    if (fd < 0) {
        perror("bench_tick_cost: mkstemp");
        exit(1);
    }
    close(fd);
    setenv("GPUDOCTOR_SIM_CPU_MARKS", marks, 1);
    setenv("GPUDOCTOR_SIM_CPU_FILE", file, 1);
    char *watch[] = {"gpudoctor", "watch", "--format",       "csv", "--interval", "100", "--count",
                     count,       "--sim", (char *)scenario, NULL};
    char *export[] = {"gpudoctor",  "export", "--listen", "127.0.0.1:0",    "--duration", dur,
                      "--interval", "100",    "--sim",    (char *)scenario, NULL};
    char *check[] = {"gpudoctor",  "check", "--json", "--duration",     dur,
                     "--interval", "100",   "--sim",  (char *)scenario, NULL};
    char *const *argv = c == WATCH ? watch : c == EXPORT ? export : check;
    cost k = run(GD_BINARY, argv, "1e9");
    unsetenv("GPUDOCTOR_SIM_CPU_MARKS");
    unsetenv("GPUDOCTOR_SIM_CPU_FILE");
    FILE *f = fopen(file, "r");
    int got = 0;
    double mark;
    while (f && got < 4 && fscanf(f, "%lf %lf", &mark, &at[got]) == 2)
        got++;
    if (f)
        fclose(f);
    unlink(file);
    if (failed(k.status) || got != 4) {
        fprintf(stderr, "bench_tick_cost: %s for %s s failed (status %d, %d of 4 marks)\n", names[c], dur, k.status,
                got);
        exit(1);
    }
    *total = k.cpu_s;
}

/* Nanoseconds on a CPU of all of pid's threads (their schedstat), -1 unreadable. */
static double on_cpu_ns(pid_t pid)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/task", (int)pid);
    DIR *d = opendir(path);
    if (!d)
        return -1;
    double ns = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] < '0' || e->d_name[0] > '9')
            continue;
        char p[320];
        snprintf(p, sizeof p, "/proc/%d/task/%s/schedstat", (int)pid, e->d_name);
        FILE *f = fopen(p, "r");
        double v = 0;
        if (f && fscanf(f, "%lf", &v) == 1)
            ns += v;
        if (f)
            fclose(f);
    }
    closedir(d);
    return ns;
}

static void sleep_s(double s)
{
    struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
    while (nanosleep(&ts, &ts) != 0)
        ;
}

/* argv's steady share of one core, in %: its CPU time from `settle` seconds
 * after its start to `seconds` later (it must run that long); -1 when it
 * cannot run. */
static double steady(const char *path, char *const argv[], const char *timescale, double settle, double seconds)
{
    pid_t pid = spawn(path, argv, timescale);
    if (pid < 0)
        return -1;
    sleep_s(settle);
    double a = on_cpu_ns(pid), t0 = now();
    sleep_s(seconds);
    double b = on_cpu_ns(pid), t1 = now();
    int status;
    waitpid(pid, &status, 0);
    if (a < 0 || b < 0 || failed(status))
        return -1;
    return 100 * (b - a) / 1e9 / (t1 - t0);
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
    double check_share = 0; /* check's day on the fast clock: the sampling without its wake-ups */
    printf("8 simulated GPUs at 10 Hz, findings judged; a simulated day of %.0f s on the fast clock\n", day);
    printf("%-24s %12s %12s %7s %14s\n", "command", "1st min/tick", "last h/tick", "ratio", "day % of core");
    for (int c = WATCH; c <= CHECK; c++) {
        double at[4], total;
        cpu_of((command)c, day, scenario, at, &total);
        double first = (at[1] - at[0]) / 599, last = (at[3] - at[2]) / 36000, share = 100 * total / day;
        if (c == CHECK)
            check_share = share;
        double ratio = first > 0 ? last / first : 0;
        bool ok = ratio <= 1.2 && share <= 0.1;
        over |= !ok;
        printf("%-24s %9.1f us %9.1f us %7.2f %13.4f%% %s\n", names[c], first * 1e6, last * 1e6, ratio, share,
               ok ? "" : "OVER BUDGET (ratio 1.2, 0.1 %)");
    }
    /* On the wall clock: the references, and run, which follows a real
     * process and so plays the scenario at wall speed. Each is measured
     * steady, inside one run: its threads' time on a CPU between 5 s after
     * its start and top_s later, start-up and report left out; run from
     * 35 s on, once it has stopped reading the maps of a job that never
     * loads torch (GD_PROC_MAPS_SCANS: its first 30 full scans). */
    char n[32], dur[32], secs[32];
    snprintf(n, sizeof n, "%.0f", (top_s + 10) * 10);
    snprintf(dur, sizeof dur, "%.0f", top_s + 10);
    snprintf(secs, sizeof secs, "%.0f", top_s + 40);
    char *top[] = {"top", "-b", "-d", "0.1", "-n", n, NULL};
    char *check[] = {"gpudoctor",  "check", "--json", "--duration",     dur,
                     "--interval", "100",   "--sim",  (char *)scenario, NULL};
    char *runj[] = {"gpudoctor", "run", "--interval", "100", "--sim", (char *)scenario, "--", "sleep", secs, NULL};
    double t = steady("top", top, NULL, 5, top_s), k = steady(GD_BINARY, check, "1", 5, top_s);
    double r = steady(GD_BINARY, runj, NULL, 35, top_s);
    if (t < 0)
        printf("top -b -d 0.1: not runnable here: no reference\n");
    else
        printf("top -b -d 0.1, steady, %.0f s (reference)       %8.4f%% of one core\n", top_s, t);
    if (k >= 0)
        printf("check at 10 Hz, paced, steady, %.0f s           %8.4f%% of one core\n", top_s, k);
    if (r >= 0)
        printf("run -- sleep, 10 Hz, steady, %.0f s from 35 s   %8.4f%% of one core\n", top_s, r);
    /* The budget, as for the commands above, without the wake-ups: waking
     * ten times a second costs every paced command the same (check paced,
     * less check on the fast clock), and is this machine's, not ours. What
     * run does at a tick is check's sampling and the job's /proc:
     * its steady cost less check paced's, plus check's on the fast clock. */
    if (r >= 0 && k >= 0) {
        double wake = k - check_share, work = r - k + check_share;
        bool ok = work <= 0.1;
        over |= !ok;
        printf("  waking at 10 Hz (check paced - check fast)  %8.4f%% of one core (this machine's)\n", wake);
        printf("  run's work a tick (run - check paced + check fast) %8.4f%% of one core %s\n", work,
               ok ? "" : "OVER BUDGET (0.1 %)");
    }
    return over;
}
