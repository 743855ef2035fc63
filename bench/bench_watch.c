/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The live view's cost: `gpudoctor watch` of 8 simulated GPUs at 1 Hz, paced
 * (one scenario second per second), on a pseudo-terminal of 120x40 whose
 * output is read and thrown away. Measured: CPU time of the whole process
 * (simulator included; the checks of the findings pane run every sample),
 * against the wall time of the run; target under 1 % of one core. The same
 * run with --format csv (no view, no checks) is the reference.
 * Usage: bench_watch [SECONDS]   (default 30; BENCH_SECONDS also works)
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdbool.h>
#include <pty.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Runs watch on a pty for `secs` seconds, then q (the view) or SIGTERM; CPU / wall. */
static double run(const char *format, double secs, double *cpu_s, double *wall_s)
{
    char scenario[1024];
    snprintf(scenario, sizeof scenario, "%s/h100x8-training.json", GD_EXAMPLES_DIR);
    struct winsize ws = {.ws_row = 40, .ws_col = 120};
    int master;
    double t0 = now();
    pid_t pid = forkpty(&master, NULL, NULL, &ws);
    if (pid < 0) {
        perror("forkpty");
        exit(1);
    }
    if (pid == 0) {
        setenv("TERM", "xterm-256color", 1);
        setenv("GPUDOCTOR_SIM_TIMESCALE", "1", 1);
        execl(GD_BINARY, "gpudoctor", "watch", "--interval", "1000", "--format", format, "--sim", scenario,
              (char *)NULL);
        _exit(127);
    }
    char buf[65536];
    bool quit = false;
    for (;;) {
        struct pollfd p = {.fd = master, .events = POLLIN};
        if (!quit && now() - t0 >= secs) {
            if (format[0] == 't')
                (void)!write(master, "q", 1);
            else
                kill(pid, SIGTERM);
            quit = true;
        }
        if (poll(&p, 1, 100) > 0 && read(master, buf, sizeof buf) <= 0)
            break; /* the child closed the terminal */
    }
    int status;
    struct rusage ru;
    if (wait4(pid, &status, 0, &ru) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        fprintf(stderr, "bench_watch: watch --format %s failed (status %d)\n", format, status);
        exit(1);
    }
    close(master);
    *wall_s = now() - t0;
    *cpu_s = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 + (double)ru.ru_stime.tv_sec +
             (double)ru.ru_stime.tv_usec / 1e6;
    return *cpu_s / *wall_s;
}

int main(int argc, char **argv)
{
    const char *secs = argc > 1 ? argv[1] : getenv("BENCH_SECONDS");
    double s = secs ? atof(secs) : 30;
    if (s < 2)
        s = 2;
    double cpu, wall;
    double lines = run("csv", s, &cpu, &wall);
    printf("watch --format csv, 8 GPUs at 1 Hz    %8.3f s CPU / %.1f s wall = %.3f%% of one core (reference)\n", cpu,
           wall, 100 * lines);
    fflush(stdout);
    double view = run("table", s, &cpu, &wall);
    printf("watch view, 8 GPUs at 1 Hz, 120x40   %8.3f s CPU / %.1f s wall = %.3f%% of one core (target < 1%%), %.1fx "
           "the lines\n",
           cpu, wall, 100 * view, lines > 0 ? view / lines : 0);
    return view < 0.01 ? 0 : 2;
}
