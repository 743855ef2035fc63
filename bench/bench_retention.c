/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Memory of long sessions: a 24-hour `check --sim` (played on the fast
 * scenario clock) against a 1-hour one, peak RSS of each child process
 * measured in the same run, for a scenario of GPUs alone and one with a host
 * /proc (the host's series beside the GPUs'). Every series is a ring of the
 * newest hour, so the ratios should stay within 1.10; the wall time shows
 * what a day of 8 simulated GPUs costs to sample.
 * Usage: bench_retention [INTERVAL_MS]   (default 1000)
 */
#include <stdio.h>
#include <stdlib.h>
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

/* Peak RSS in KiB of `check --sim SCENARIO --duration SECONDS`, and its wall time; -1 on failure. */
static long peak_kib(const char *scenario, const char *seconds, const char *interval, double *wall)
{
    double t0 = now();
    fflush(stdout); /* the child's freopen would write what is buffered again */
    pid_t pid = fork();
    if (pid == 0) {
        if (!freopen("/dev/null", "w", stdout) || !freopen("/dev/null", "w", stderr))
            _exit(126);
        unsetenv("GPUDOCTOR_SIM_TIMESCALE"); /* the fast clock */
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

int main(int argc, char **argv)
{
    const char *interval = argc > 1 ? argv[1] : "1000";
    static const char *const scenarios[] = {GD_EXAMPLES_DIR "/h100x8-training.json",
                                            GD_EXAMPLES_DIR "/h100x8-input-io-wait.json"};
    int rc = 0;
    for (size_t k = 0; k < sizeof scenarios / sizeof scenarios[0]; k++) {
        double hour_s, day_s;
        long hour = peak_kib(scenarios[k], "3600", interval, &hour_s);
        long day = peak_kib(scenarios[k], "86400", interval, &day_s);
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
