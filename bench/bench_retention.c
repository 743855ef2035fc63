/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Memory of long sessions: a 24-hour `check --sim` (played on the fast
 * scenario clock) against a 1-hour one, peak RSS of each child process
 * measured in the same run, for a scenario of GPUs alone and one with a host
 * /proc (the host's series beside the GPUs'). Every series is a ring of the
 * newest hour, so the ratios should stay within 1.10; the wall time shows
 * what a day of 8 simulated GPUs costs to sample.
 *
 * `bench_retention export [SECONDS]`: the exporter at 10 Hz (--interval 100)
 * for a simulated day (or SECONDS) against its first minute: its series keep
 * its --window (60 s), so its peak RSS must stay within 1.10 of the minute's.
 * Usage: bench_retention [INTERVAL_MS]   (default 1000)
 *        bench_retention export [SECONDS] (default 86400)
 */
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

/* Peak RSS in KiB of `check --sim SCENARIO --duration SECONDS` (or of
 * `export`, on a free loopback port), and its wall time; -1 on failure. */
static long peak_kib(const char *command, const char *scenario, const char *seconds, const char *interval, double *wall)
{
    double t0 = now();
    fflush(stdout); /* the child's freopen would write what is buffered again */
    pid_t pid = fork();
    if (pid == 0) {
        if (!freopen("/dev/null", "w", stdout) || !freopen("/dev/null", "w", stderr))
            _exit(126);
        unsetenv("GPUDOCTOR_SIM_TIMESCALE"); /* the fast clock */
        if (command[0] == 'e') {
            setenv("GPUDOCTOR_SIM_TIMESCALE", "1e9", 1); /* the exporter paces itself unless told */
            execl(GD_BINARY, GD_BINARY, "export", "--listen", "127.0.0.1:0", "--duration", seconds, "--interval",
                  interval, "--sim", scenario, (char *)NULL);
        }
        execl(GD_BINARY, GD_BINARY, "check", "--json", "--duration", seconds, "--interval", interval, "--sim", scenario,
              (char *)NULL);
        _exit(127);
    }
    int status;
    struct rusage ru;
    if (pid < 0 || wait4(pid, &status, 0, &ru) != pid || !WIFEXITED(status) || WEXITSTATUS(status) > 2)
        return -1;
    *wall = now() - t0;
    return ru.ru_maxrss;
}

static int exporter_day(const char *seconds)
{
    const char *scenario = GD_EXAMPLES_DIR "/h100x8-training.json";
    double minute_s, day_s;
    long minute = peak_kib("export", scenario, "60", "100", &minute_s);
    long day = peak_kib("export", scenario, seconds, "100", &day_s);
    if (minute < 0 || day < 0) {
        fprintf(stderr, "bench_retention: the exporter failed\n");
        return 1;
    }
    double ratio = (double)day / (double)minute;
    printf("retention (export at 10 Hz): 1 min peak RSS %ld KiB (%.2f s), %s s peak RSS %ld KiB (%.2f s), ratio %.3f "
           "(want <= 1.10)\n",
           minute, minute_s, seconds, day, day_s, ratio);
    return ratio <= 1.10 ? 0 : 1;
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "export") == 0)
        return exporter_day(argc > 2 ? argv[2] : "86400");
    const char *interval = argc > 1 ? argv[1] : "1000";
    static const char *const scenarios[] = {GD_EXAMPLES_DIR "/h100x8-training.json",
                                            GD_EXAMPLES_DIR "/h100x8-input-io-wait.json"};
    int rc = 0;
    for (size_t k = 0; k < sizeof scenarios / sizeof scenarios[0]; k++) {
        double hour_s, day_s;
        long hour = peak_kib("check", scenarios[k], "3600", interval, &hour_s);
        long day = peak_kib("check", scenarios[k], "86400", interval, &day_s);
        if (hour < 0 || day < 0) {
            fprintf(stderr, "bench_retention: a check of %s failed\n", scenarios[k]);
            return 1;
        }
        double ratio = (double)day / (double)hour;
        printf("retention (%s): 1 h peak RSS %ld KiB (%.2f s), 24 h peak RSS %ld KiB (%.2f s), ratio %.3f (want <= "
               "1.10) at --interval %s\n",
               k == 0 ? "GPUs" : "GPUs and host", hour, hour_s, day, day_s, ratio, interval);
        rc |= ratio <= 1.10 ? 0 : 1;
    }
    return rc;
}
