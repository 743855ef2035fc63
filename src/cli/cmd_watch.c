/* SPDX-License-Identifier: Apache-2.0 */
/* gpudoctor watch: the live view on a terminal, dmon-like lines elsewhere. */
#include "analysis/window_acc.h"
#include "cli.h"
#include "gpudoctor/session.h"
#include "report/recorder.h"
#include "report/watch_lines.h"
#include "watch_view.h"

#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char gd_watch_help[] = "usage: gpudoctor watch [--interval MS] [--count N] [--format table|csv|jsonl]\n"
                             "         [--record FILE.jsonl] [--sim SCENARIO | --from FILE.jsonl]\n"
                             "\n"
                             "Shows every GPU live, with the diagnosis running: on a terminal a full-screen\n"
                             "view (one row per GPU with a history plot, the GPUs' processes, the findings\n"
                             "of the last minute); elsewhere, or with --format csv|jsonl, one line per GPU\n"
                             "per sample, like 'nvidia-smi dmon', flushed at once so 'watch | tee' and\n"
                             "pipelines work. A value not read is empty (CSV) or null (JSONL) and the\n"
                             "line's status field says why; time_utc is each sample's wall-clock time.\n"
                             "Without a driver or a GPU it says why and exits 3.\n"
                             "\n"
                             "  --interval MS    time between samples (default 1000; 250ms, 2s also work)\n"
                             "  --count N        stop after N samples (default: until q, Ctrl-C or SIGTERM)\n"
                             "  --format F       table (the view; needs a terminal), csv (a header line\n"
                             "                   first) or jsonl (one object a line)\n"
                             "  --record FILE    also write every sample to FILE (gzip when it ends in .gz;\n"
                             "                   'check --from FILE' replays it to the same findings)\n"
                             "  --sim SCENARIO   watch a simulated machine (examples/*.json), one scenario\n"
                             "                   second per second unless GPUDOCTOR_SIM_TIMESCALE says\n"
                             "                   otherwise (with --count off a terminal: as fast as it runs)\n"
                             "  --from FILE      play a recording (or a dmon / --query-gpu log) back\n"
                             "\n"
                             "Keys in the view: q quits, p pauses, h/l or Left/Right choose the plotted\n"
                             "metric, Up/Down (j/k) or 0-9 select a GPU, Esc shows all, ? shows help.\n"
                             "Every GPU's history is on one scale, up to the metric's limit. NO_COLOR\n"
                             "disables colour.\n";

typedef struct watch_opts {
    double interval_ms;
    long count; /* 0: until stopped */
    const char *format, *sim, *from, *record;
} watch_opts;

const struct option gd_watch_options[] = {
    {"interval", required_argument, NULL, 'i'}, {"count", required_argument, NULL, 'c'},
    {"format", required_argument, NULL, 'F'},   {"sim", required_argument, NULL, 's'},
    {"from", required_argument, NULL, 'f'},     {"record", required_argument, NULL, 'R'},
    {"help", no_argument, NULL, 'h'},           {NULL, 0, NULL, 0},
};

static int parse(int argc, char **argv, watch_opts *o)
{
    *o = (watch_opts){.interval_ms = 1000};
    optind = 1;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, "+:h", gd_watch_options, NULL)) != -1) {
        switch (c) {
        case 'i':
            if (gd_cli_interval(optarg, &o->interval_ms) != 0)
                return GD_EXIT_ERROR;
            break;
        case 'c':
            if (gd_cli_integer(optarg, 1, 100000000, &o->count) != 0)
                return gd_cli_error("--count wants a number of samples (1 or more), not '%s'", optarg);
            break;
        case 'F':
            if (strcmp(optarg, "table") != 0 && strcmp(optarg, "csv") != 0 && strcmp(optarg, "jsonl") != 0)
                return gd_cli_error("--format wants table, csv or jsonl, not '%s'", optarg);
            o->format = optarg;
            break;
        case 's': o->sim = gd_cli_scenario(optarg); break;
        case 'f':
            if (o->from)
                return gd_cli_error("watch plays one --from file back");
            o->from = optarg;
            break;
        case 'R': o->record = optarg; break;
        case 'h': gd_cli_help_print(stdout, gd_watch_help); return -1;
        case ':': return gd_cli_error("%s needs a value (see 'gpudoctor watch --help')", argv[optind - 1]);
        default: return gd_cli_error("unknown option '%s' (see 'gpudoctor watch --help')", argv[optind - 1]);
        }
    }
    if (optind < argc)
        return gd_cli_error("unexpected argument '%s' (see 'gpudoctor watch --help')", argv[optind]);
    if (o->sim && o->from)
        return gd_cli_error("--sim and --from exclude each other: one describes a machine, the other a recording");
    return 0;
}

int gd_cmd_watch(int argc, char **argv)
{
    watch_opts o;
    int rc = parse(argc, argv, &o);
    if (rc != 0)
        return rc < 0 ? GD_EXIT_OK : rc;
    bool tty = isatty(STDOUT_FILENO) && isatty(STDIN_FILENO);
    const char *format = o.format ? o.format : tty ? "table" : "csv";
    bool table = strcmp(format, "table") == 0;
    if (table && !tty)
        return gd_cli_error("--format table needs a terminal; use --format csv or jsonl in a pipe");
    gd_ctx ctx;
    if ((rc = gd_cli_context(&ctx)) != 0)
        return rc;
    /* A live view under --sim is paced: one scenario second per second,
     * unless GPUDOCTOR_SIM_TIMESCALE says otherwise; so are endless lines. */
    if (o.sim && ctx.sim_pace <= 0 && (table || o.count == 0))
        ctx.sim_pace = 1;
    double interval_s = o.interval_ms / 1000.0;
    const char *from[1] = {o.from};
    gd_session_opts so = {
        .ctx = &ctx,
        .sim_scenario = o.sim,
        .from = from,
        .from_count = o.from ? 1 : 0,
        .duration_s = o.count ? (double)(o.count - 1) * interval_s : 1e9,
        .interval_s = interval_s,
        /* What the view draws: the findings' last minute, a screen of history. */
        .retain_s = GD_WATCH_FINDINGS_SPAN_S > 300 * interval_s ? GD_WATCH_FINDINGS_SPAN_S : 300 * interval_s,
        .judge_s = GD_WATCH_FINDINGS_SPAN_S,
        .stop = &gd_cli_stop,
        .pid = -1,
    };

    gd_facts f;
    char err[4096];
    gd_session *s = gd_session_open(&so, &f, err, sizeof err);
    if (!s) {
        gd_facts_free(&f);
        return gd_cli_error("%s", err);
    }
    /* Nothing to watch: say why before the screen or the header, as info does. */
    if (!f.driver_loaded || f.gpu_count == 0) {
        if (!f.driver_loaded)
            rc = gd_cli_error("%s: %s", f.captured ? "no nvidia-smi output" : "no NVIDIA driver", f.driver_error);
        else
            rc = gd_cli_error("no GPU to watch: the driver lists none%s", f.denied_count ? " that can be read" : "");
        gd_session_close(s, NULL, 0);
        gd_facts_free(&f);
        return rc;
    }
    gd_watch_lines lines = {
        .out = stdout, .notes = stderr, .format = strcmp(format, "jsonl") == 0 ? GD_WATCH_JSONL : GD_WATCH_CSV};
    gd_watch_view *view = NULL;
    gd_sink sink = gd_watch_lines_sink(&lines);
    /* A recording plays back at its own interval in the view, at once elsewhere. */
    double wall_wait = o.sim ? (ctx.sim_pace > 0 ? interval_s / ctx.sim_pace : 0) : o.from ? f.interval_s : interval_s;
    if (table) {
        const char *nc = getenv("NO_COLOR");
        /* The view waits for keys until the next sample is due, minus a margin for the sampling itself. */
        view = gd_watch_view_open(&gd_cli_stop, wall_wait * 0.9, !(nc && *nc));
        if (!view) {
            gd_session_close(s, NULL, 0);
            gd_facts_free(&f);
            return gd_cli_error("cannot set up the terminal for the live view");
        }
        sink = gd_watch_view_sink(view);
    }
    gd_recorder *rec = NULL;
    rc = gd_session_add_sink(s, &sink) == 0 ? 0 : -1;
    if (rc == 0 && o.record && gd_cli_record(s, o.record, &rec, err, sizeof err) != 0)
        rc = -1;
    int step = 0;
    if (rc == 0 && o.from) {
        /* A capture brings its own samples: the sinks see them in turn,
         * with the last minute's running statistics as the session keeps them. */
        gd_window_acc *acc = gd_window_acc_new(f.gpu_count, GD_WATCH_FINDINGS_SPAN_S);
        gd_facts played = f;
        played.acc = acc;
        played.acc_free = NULL;
        for (size_t i = 0; i < f.series.n && !gd_cli_stop && !lines.failed && (o.count == 0 || i < (size_t)o.count);
             i++) {
            if (acc && gd_window_acc_add(acc, &f, i) != 0) {
                gd_window_acc_free(acc); /* judged from the series instead */
                played.acc = acc = NULL;
            }
            sink.on_sample(sink.ud, &played, i);
        }
        gd_window_acc_free(acc);
    } else {
        while (rc == 0 && !lines.failed && (step = gd_session_step(s, err, sizeof err)) > 0)
            ;
    }
    gd_watch_view_close(view);
    if (step < 0)
        rc = -1;
    /* The end facts (PCIe, stack) only matter to a recording. */
    int crc = gd_session_close(s, rec && rc == 0 ? err : NULL, sizeof err);
    bool recorded = gd_recorder_close(rec);
    gd_facts_free(&f);
    if (rc != 0 || crc != 0)
        return gd_cli_error("%s", err);
    if (!recorded)
        return GD_EXIT_ERROR; /* the recorder said why */
    if (lines.failed)
        return gd_cli_error("cannot write the samples (a closed pipe or a full disk)");
    return GD_EXIT_OK;
}
