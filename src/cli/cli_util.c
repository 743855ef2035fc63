/* SPDX-License-Identifier: Apache-2.0 */
/* Shared pieces of the command line. */
#include "sources/collect.h"
#include "cli.h"
#include "core/numparse.h"
#include "core/input.h"
#include "core/json_util.h"
#include "core/text_safe.h"

#include <getopt.h>

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <libgen.h>
#include <sys/stat.h>
#include <unistd.h>

/* The JSON error object (docs/interface.md "When a command cannot run"):
 * whether the command line asked for JSON, whether a JSON report reached
 * standard output, and the first error said. The command line's state, as
 * gd_cli_stop is: one command runs per process. */
static struct {
    bool wanted, printed, lines; /* lines: JSON Lines (watch --format jsonl), one object a line */
    const char *command;
    char error[2048];
} json_errors;

void gd_cli_json_errors(const char *command, int argc, char **argv)
{
    json_errors.command = command;
    for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++) {
        const char *a = argv[i];
        size_t n = strlen(a);
        /* getopt_long takes any unambiguous prefix: --js, --jso, --json */
        bool jsonl = strcmp(a, "--format=jsonl") == 0 ||
                     (strcmp(a, "--format") == 0 && i + 1 < argc && strcmp(argv[i + 1], "jsonl") == 0);
        if ((n >= 4 && strncmp(a, "--json", n) == 0) || jsonl)
            json_errors.wanted = true;
        json_errors.lines |= jsonl;
    }
}

void gd_cli_json_printed(void)
{
    json_errors.printed = true;
}

void gd_cli_json_error_members(json_t *report, const char *error, int code)
{
    char safe[1024];
    gd_text_safe(error, safe, sizeof safe);
    json_object_set_new(report, "error", json_string(safe));
    json_object_set_new(report, "exit_code", json_integer(code));
}

int gd_cli_json_error_exit(int code)
{
    if (!json_errors.wanted || json_errors.printed || code == GD_EXIT_OK ||
        (!json_errors.error[0] && code != GD_EXIT_ERROR))
        return code;
    if (!json_errors.error[0]) /* a usage printed on stderr, no message */
        snprintf(json_errors.error, sizeof json_errors.error, "bad arguments (the usage is on standard error)");
    json_t *o = json_object(), *tool = json_object();
    json_object_set_new(o, "error", json_string(json_errors.error));
    json_object_set_new(o, "exit_code", json_integer(code));
    json_object_set_new(o, "command", json_string(json_errors.command));
    json_object_set_new(o, "schema_version", json_integer(GD_JSON_SCHEMA_VERSION));
    json_object_set_new(tool, "name", json_string("gpudoctor"));
    json_object_set_new(tool, "version", json_string(GD_VERSION));
    json_object_set_new(o, "tool", tool);
    json_errors.printed = true; /* once */
    if (json_errors.lines ? gd_json_dumpf(o, stdout, JSON_COMPACT) != 0 || fputc('\n', stdout) == EOF
                          : gd_json_print(stdout, o) != 0)
        code = GD_EXIT_ERROR;
    json_decref(o);
    return code;
}

int gd_cli_error(const char *fmt, ...)
{
    /* Messages quote paths and what files say: made safe for the terminal. */
    char msg[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    /* A message of several lines (every refused file, what was expected)
     * keeps its lines; each is made safe on its own. */
    bool first = !json_errors.error[0]; /* the first says why; what follows from it comes after */
    size_t used = 0;
    fputs("gpudoctor: ", stderr);
    for (const char *p = msg;;) {
        size_t n = strcspn(p, "\n");
        gd_write_safe(stderr, p, n);
        fputc('\n', stderr);
        if (first && used < sizeof json_errors.error) {
            char part[sizeof json_errors.error], one[sizeof json_errors.error];
            snprintf(part, sizeof part, "%.*s", (int)(n < sizeof part ? n : sizeof part - 1), p);
            gd_text_safe(part, one, sizeof one);
            used += (size_t)snprintf(json_errors.error + used, sizeof json_errors.error - used, "%s%s",
                                     p == msg ? "" : "\n", one);
        }
        if (!p[n])
            break;
        p += n + 1;
    }
    return GD_EXIT_ERROR;
}

int gd_cli_close_stdout(int code)
{
    errno = 0;
    bool failed = ferror(stdout) != 0;
    int saved = errno;
    if (fclose(stdout) != 0) {
        failed = true;
        saved = errno;
    }
    if (!failed || code == GD_EXIT_ERROR) /* an error already said why */
        return code;
    return gd_cli_error("cannot write the output%s%s", saved ? ": " : "", saved ? strerror(saved) : "");
}

int gd_cli_number(const char *s, double lo, double hi, double *out)
{
    double v;
    if (gd_parse_decimal(s, &v) != 0 || v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

int gd_cli_integer(const char *s, long lo, long hi, long *out)
{
    unsigned long v;
    if (lo < 0 || hi < lo || gd_parse_uint(s, (unsigned long)hi, &v) != 0 || v < (unsigned long)lo)
        return -1;
    *out = (long)v;
    return 0;
}

int gd_cli_duration(const char *s, double unit_s, double lo_s, double hi_s, double *out_s)
{
    double v;
    if (gd_parse_duration(s, unit_s, &v) != 0 || v < lo_s || v > hi_s)
        return -1;
    *out_s = v;
    return 0;
}

const struct option gd_snapshot_options[] = {
    {"json", no_argument, NULL, 'j'},
    {"sim", required_argument, NULL, 's'},
    {"from", required_argument, NULL, 'f'},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

/* info's: the snapshot's, and --details. */
const struct option gd_info_options[] = {
    {"json", no_argument, NULL, 'j'},       {"details", no_argument, NULL, 'q'}, {"sim", required_argument, NULL, 's'},
    {"from", required_argument, NULL, 'f'}, {"help", no_argument, NULL, 'h'},    {NULL, 0, NULL, 0},
};

int gd_cli_parse_snapshot(int argc, char **argv, const char *cmd, const char *help, gd_snapshot_opts *o)
{
    memset(o, 0, sizeof *o);
    optind = 1;
    opterr = 0;
    int c;
    bool info = strcmp(cmd, "info") == 0;
    while ((c = getopt_long(argc, argv, info ? "+:hq" : "+:h", info ? gd_info_options : gd_snapshot_options, NULL)) !=
           -1) {
        switch (c) {
        case 'j': o->json = 1; break;
        case 'q': o->details = 1; break;
        case 's': o->sim = gd_cli_scenario(optarg); break;
        case 'f':
            if (o->from_count == sizeof o->from / sizeof o->from[0])
                return gd_cli_error("at most %zu --from files", sizeof o->from / sizeof o->from[0]);
            o->from[o->from_count++] = optarg;
            break;
        case 'h': gd_cli_help_print(stdout, help); return GD_EXIT_OK;
        case ':': return gd_cli_error("%s needs a value (see 'gpudoctor %s --help')", argv[optind - 1], cmd);
        default: return gd_cli_error("unknown option '%s' (see 'gpudoctor %s --help')", argv[optind - 1], cmd);
        }
    }
    if (optind < argc)
        return gd_cli_error("unexpected argument '%s' (see 'gpudoctor %s --help')", argv[optind], cmd);
    if (o->sim && o->from_count)
        return gd_cli_error("--sim and --from exclude each other: one describes a machine, the other captured files");
    return -1;
}

/* The library's notes for the user: on stderr, beside the report. */
static void cli_log(void *ud, const char *msg)
{
    (void)ud;
    fprintf(stderr, "gpudoctor: %s\n", msg);
}

int gd_cli_context(gd_ctx *ctx)
{
    /* The only place the environment becomes settings. */
    const char *sys_root = getenv("GPUDOCTOR_SYS_ROOT"); /* where /sys is (tests, a chroot); "": /sys */
    *ctx = (gd_ctx){.fs_root = getenv("GPUDOCTOR_ROOT"),
                    .sys_root = sys_root && sys_root[0] ? sys_root : NULL,
                    .nvml_library = getenv("GPUDOCTOR_NVML_LIBRARY"),
                    .cuda_library = getenv("GPUDOCTOR_CUDA_LIBRARY"),
                    .cublaslt_library = getenv("GPUDOCTOR_CUBLASLT_LIBRARY"),
                    .nccl_library = getenv("GPUDOCTOR_NCCL_LIBRARY"),
                    .cuda_home = getenv("CUDA_HOME"),
                    .sim_dir = getenv("GPUDOCTOR_SIM_DIR"),
                    .log = cli_log};
    return gd_cli_sim_pace(&ctx->sim_pace);
}

int gd_cli_sim_pace(double *pace)
{
    const char *v = getenv("GPUDOCTOR_SIM_TIMESCALE");
    *pace = 0;
    if (!v || !*v)
        return 0;
    char *end;
    errno = 0;
    double x = strtod(v, &end);
    if (end == v || *end || errno || !(x > 0) || !isfinite(x))
        return gd_cli_error("GPUDOCTOR_SIM_TIMESCALE: \"%s\" is not a positive number (scenario seconds per "
                            "wall second; unset, the scenario plays as fast as it can)",
                            v);
    *pace = x;
    return 0;
}

int gd_cli_snapshot(const gd_snapshot_opts *o, gd_facts *f)
{
    gd_ctx ctx;
    int rc = gd_cli_context(&ctx);
    if (rc != 0)
        return rc;
    gd_collect_opts co = {.ctx = &ctx,
                          .sim_scenario = o->sim,
                          .duration_s = 0,
                          .interval_s = 1,
                          .pid = -1,
                          .from = o->from,
                          .from_count = o->from_count};
    char err[4096];
    if (gd_collect(&co, f, err, sizeof err) != 0) {
        gd_facts_free(f);
        return gd_cli_error("%s", err);
    }
    return 0;
}

int gd_cli_print_json(json_t *j)
{
    errno = 0;
    if (j && gd_json_print(stdout, j) == 0 && fflush(stdout) == 0) {
        gd_cli_json_printed();
        return 0;
    }
    int e = j ? errno : ENOMEM;
    return gd_cli_error("cannot write the JSON report%s%s", e ? ": " : "", e ? strerror(e) : "");
}

int gd_cli_print_report(const gd_facts *f, const gd_findings *fs, int json)
{
    return gd_cli_print_report_more(f, fs, json, NULL);
}

int gd_cli_print_report_more(const gd_facts *f, const gd_findings *fs, int json, const gd_cli_report_more *more)
{
    int code = gd_findings_exit_code(fs);
    if (json) {
        json_t *j = gd_report_json(f, fs);
        if (j && more && more->json)
            more->json(j, more->ud);
        if (gd_cli_print_json(j) != 0)
            code = GD_EXIT_ERROR;
        json_decref(j);
    } else {
        gd_text_style st = gd_cli_text_style();
        st.details = more && more->details;
        gd_text_extra x = {.under_verdict = more ? more->top : NULL,
                           .at_end = more ? more->text : NULL,
                           .ud = more ? more->ud : NULL,
                           .said = more ? more->said : NULL};
        gd_report_text_with(stdout, f, fs, &st, &x);
    }
    return code;
}

/* The directory of path ("." for a bare name). */
static void dir_of(const char *path, char *buf, size_t len)
{
    char copy[4096];
    snprintf(copy, sizeof copy, "%s", path);
    snprintf(buf, len, "%s", dirname(copy));
}

/*
 * Where --report PATH goes. A new name or a regular file is replaced by a
 * rename (a reader never sees half a page): *file is the name to rename
 * over, PATH itself or, through a symbolic link, the file it names (the
 * link stays). A FIFO or a character device (/dev/null, a terminal,
 * /dev/stdout) is written in place (*in_place). A directory, a block
 * device or a socket is refused: 0, or GD_EXIT_ERROR after a message.
 */
static int report_target(const char *path, char *file, size_t len, bool *in_place)
{
    struct stat lsb, sb;
    *in_place = false;
    snprintf(file, len, "%s", path);
    if (!path[0])
        return gd_cli_error("--report wants a file name");
    if (lstat(path, &lsb) != 0) {
        if (errno != ENOENT)
            return gd_cli_error("cannot write the report %s: %s", path, strerror(errno));
    } else if (stat(path, &sb) != 0) {
        if (errno != ENOENT)
            return gd_cli_error("cannot write the report %s: %s", path, strerror(errno));
        /* A link to a name not there yet: the link's target is created in place. */
        *in_place = true;
        return 0;
    } else if (S_ISDIR(sb.st_mode)) {
        return gd_cli_error("cannot write the report %s: it is a directory", path);
    } else if (S_ISFIFO(sb.st_mode) || S_ISCHR(sb.st_mode)) {
        *in_place = true;
        if (access(path, W_OK) != 0)
            return gd_cli_error("cannot write the report %s: %s", path, strerror(errno));
        return 0;
    } else if (!S_ISREG(sb.st_mode)) {
        return gd_cli_error("cannot write the report %s: it is a %s, not a file a page can be written to", path,
                            S_ISBLK(sb.st_mode) ? "block device" : "socket");
    } else if (S_ISLNK(lsb.st_mode)) {
        char *real = realpath(path, NULL);
        if (!real)
            return gd_cli_error("cannot write the report %s: %s", path, strerror(errno));
        snprintf(file, len, "%s", real);
        free(real);
    }
    char dir[4096];
    dir_of(file, dir, sizeof dir);
    if (access(dir, W_OK | X_OK) != 0)
        return gd_cli_error("cannot write the report %s: %s", path, strerror(errno));
    return 0;
}

int gd_cli_report_writable(const char *path)
{
    char file[4096];
    bool in_place;
    return report_target(path, file, sizeof file, &in_place);
}

/* Opens a FIFO or a device for writing in place: a FIFO without a reader is
 * waited for, at most GD_INPUT_STREAM_IDLE_S seconds (never for ever). */
static int open_in_place(const char *path)
{
    for (int waited_ms = 0;; waited_ms += 50) {
        int fd = open(path, O_WRONLY | O_CREAT | O_NONBLOCK | O_NOCTTY | O_CLOEXEC, 0666);
        if (fd >= 0) {
            int fl = fcntl(fd, F_GETFL);
            if (fl >= 0)
                fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
            return fd;
        }
        if (errno != ENXIO || waited_ms >= GD_INPUT_STREAM_IDLE_S * 1000)
            return -1;
        usleep(50 * 1000);
    }
}

/* render into out, flushed and closed: 0, or an errno value (EIO for a bare error flag). */
static int render_into(FILE *out, void (*render)(FILE *out, const void *ud), const void *ud)
{
    render(out, ud);
    errno = 0;
    bool failed = fflush(out) != 0 || ferror(out);
    int e = errno;
    if (fclose(out) != 0 && !failed) {
        failed = true;
        e = errno;
    }
    return failed ? (e ? e : EIO) : 0;
}

int gd_cli_write_report(const char *path, void (*render)(FILE *out, const void *ud), const void *ud)
{
    char file[4096];
    bool in_place;
    if (report_target(path, file, sizeof file, &in_place) != 0)
        return GD_EXIT_ERROR;
    int e = 0;
    if (in_place) {
        int fd = open_in_place(path);
        FILE *out = fd >= 0 ? fdopen(fd, "w") : NULL;
        if (!out) {
            e = errno == ENXIO ? ETIMEDOUT : errno;
            if (fd >= 0)
                close(fd);
            return gd_cli_error("cannot write the report %s: %s", path,
                                e == ETIMEDOUT ? "no reader opened the FIFO" : strerror(e));
        }
        e = render_into(out, render, ud);
    } else {
        char tmp[4096 + 16];
        int n = snprintf(tmp, sizeof tmp, "%s.XXXXXX", file);
        if (n < 0 || (size_t)n >= sizeof tmp)
            return gd_cli_error("cannot write the report %s: the name is too long", path);
        int fd = mkstemp(tmp);
        if (fd < 0)
            return gd_cli_error("cannot write the report %s: %s", path, strerror(errno));
        mode_t mask = umask(0);
        umask(mask);
        fchmod(fd, 0666 & ~mask); /* as a file the shell would create, not mkstemp's 0600 */
        FILE *out = fdopen(fd, "w");
        if (!out) {
            e = errno;
            close(fd);
            unlink(tmp);
            return gd_cli_error("cannot write the report %s: %s", path, strerror(e));
        }
        e = render_into(out, render, ud);
        if (!e && rename(tmp, file) != 0)
            e = errno;
        if (e)
            unlink(tmp);
    }
    if (e)
        return gd_cli_error("cannot write the report %s: %s", path, strerror(e));
    fprintf(stderr, "gpudoctor: report written to ");
    gd_write_safe(stderr, path, strlen(path));
    fputc('\n', stderr);
    return 0;
}

typedef struct check_page {
    const gd_facts *f;
    const gd_findings *fs;
} check_page;

static void render_check(FILE *out, const void *ud)
{
    const check_page *p = ud;
    gd_report_html(out, p->f, p->fs);
}

int gd_cli_html_report(const char *path, const gd_facts *f, const gd_findings *fs)
{
    check_page p = {f, fs};
    return gd_cli_write_report(path, render_check, &p);
}

const char *gd_cli_env_lookup(const char *name, void *ud)
{
    (void)ud;
    return getenv(name);
}

void gd_cli_env_settings(const char *const *names, size_t n, size_t switches, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < n; i++) {
        const char *v = getenv(names[i]);
        if (!v || !*v || (i < switches && atoi(v) == 0)) /* a switch at 0 leaves NCCL as it is */
            continue;
        int k = snprintf(buf + used, len - used, "%s%s=%.60s", used ? " " : "", names[i], v);
        if (k < 0 || (size_t)k >= len - used)
            break;
        used += (size_t)k;
    }
}
