/* SPDX-License-Identifier: Apache-2.0 */
/* What check and watch share around a session: --interval, the signals
 * that end it, --record FILE.jsonl (the recorder sink, its messages on stderr). */
#include "cli.h"
#include "gpudoctor/session.h"
#include "report/recorder.h"

#include <stdio.h>

int gd_cli_interval(const char *arg, double *ms)
{
    double v;
    if (gd_cli_duration(arg, 0.001, 0.01, 60, &v) != 0)
        return gd_cli_error("--interval wants milliseconds between 10 and 60000 (like 100, 250ms or 1s), not '%s'",
                            arg);
    *ms = v * 1000;
    return 0;
}

/* Ctrl-C, a scheduler's timeout (SIGTERM) and a closed terminal or session
 * (SIGHUP) all end the window early. */
static const int stop_signals[GD_CLI_STOP_SIGNALS] = {SIGINT, SIGTERM, SIGHUP};

volatile sig_atomic_t gd_cli_stop, gd_cli_stop_signal;

static void on_stop(int sig)
{
    if (!gd_cli_stop_signal)
        gd_cli_stop_signal = sig;
    gd_cli_stop = 1;
}

void gd_cli_catch_stops(void)
{
    /* SA_RESTART: a report being written when a second signal comes (timeout,
     * Slurm and systemd send two; so does a double Ctrl-C) goes on writing. */
    struct sigaction sa = {.sa_handler = on_stop, .sa_flags = SA_RESTART}, old;
    sigset_t unblock;
    sigemptyset(&sa.sa_mask);
    sigemptyset(&unblock);
    for (size_t i = 0; i < GD_CLI_STOP_SIGNALS; i++) {
        if (sigaction(stop_signals[i], NULL, &old) != 0 || old.sa_handler == SIG_IGN)
            continue; /* what nohup ignores stays ignored */
        sigaction(stop_signals[i], &sa, NULL);
        sigaddset(&unblock, stop_signals[i]);
    }
    /* One that came before the handler, held by a mask we inherited, ends
     * the window now instead of never. */
    sigprocmask(SIG_UNBLOCK, &unblock, NULL);
}

void gd_cli_stop_signals(void (*handler)(int), struct sigaction old[GD_CLI_STOP_SIGNALS])
{
    struct sigaction sa = {.sa_handler = handler};
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < GD_CLI_STOP_SIGNALS; i++) /* what nohup ignores stays ignored */
        if (sigaction(stop_signals[i], NULL, &old[i]) == 0 && old[i].sa_handler != SIG_IGN)
            sigaction(stop_signals[i], &sa, NULL);
}

void gd_cli_restore_signals(const struct sigaction old[GD_CLI_STOP_SIGNALS])
{
    for (size_t i = 0; i < GD_CLI_STOP_SIGNALS; i++)
        sigaction(stop_signals[i], &old[i], NULL);
}

static void record_log(void *ud, const char *msg)
{
    (void)ud;
    fprintf(stderr, "\ngpudoctor: %s\n", msg);
}

int gd_cli_record(gd_session *s, const char *path, gd_recorder **out, char *err, size_t errlen)
{
    *out = gd_recorder_open(path, record_log, NULL, err, errlen);
    if (!*out)
        return -1;
    gd_sink sink = gd_recorder_sink(*out);
    if (gd_session_add_sink(s, &sink) != 0) {
        gd_recorder_close(*out);
        *out = NULL;
        snprintf(err, errlen, "--record: too many sinks");
        return -1;
    }
    return 0;
}
