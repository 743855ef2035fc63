/* SPDX-License-Identifier: Apache-2.0 */
/* What the user accepts: --ignore ID[@GPU], --fail-on, and the config file
 * (docs/interface.md, "The config file"), an INI file read with inih. */
#include "cli.h"
#include "gpudoctor/checks.h"
#include "core/input.h"
#include "core/numparse.h"

#include <ini.h>

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "ID" or "ID@GPU" into a rule; 0, or -1 with a message in err. */
static int parse_target(const char *arg, gd_policy_rule *r, char *err, size_t len)
{
    const char *at = strchr(arg, '@');
    size_t n = at ? (size_t)(at - arg) : strlen(arg);
    if (n == 0 || n >= sizeof r->id) {
        snprintf(err, len, "'%s' is not a finding id", arg);
        return -1;
    }
    memcpy(r->id, arg, n);
    r->id[n] = '\0';
    if (!gd_check_find(r->id)) {
        snprintf(err, len, "'%s' is not a finding id (docs/checks.md lists them)", r->id);
        return -1;
    }
    r->gpu = GD_NO_GPU;
    if (at) {
        unsigned long g;
        if (gd_parse_uint(at + 1, 1023, &g) != 0) {
            snprintf(err, len, "'%s': the GPU after '@' is an index like 0 or 3", arg);
            return -1;
        }
        r->gpu = (int)g;
    }
    return 0;
}

static int add_rule(gd_policy_rule *rules, size_t *n, const gd_policy_rule *r, char *err, size_t len)
{
    if (*n == GD_POLICY_MAX) {
        snprintf(err, len, "at most %d rules of one kind", GD_POLICY_MAX);
        return -1;
    }
    rules[(*n)++] = *r;
    return 0;
}

int gd_cli_ignore_arg(const char *arg, gd_policy *p)
{
    char err[256];
    gd_policy_rule r = {0};
    if (parse_target(arg, &r, err, sizeof err) != 0 || add_rule(p->ignore, &p->nignore, &r, err, sizeof err) != 0)
        return gd_cli_error("--ignore %s", err);
    return 0;
}

int gd_cli_fail_on(const char *arg, gd_severity *out)
{
    if (strcmp(arg, "warning") == 0 || strcmp(arg, "critical") == 0)
        return gd_severity_parse(arg, out);
    return -1;
}

int gd_cli_exit_code(const gd_findings *fs, gd_severity fail_on)
{
    int code = gd_findings_exit_code(fs);
    return code == GD_EXIT_WARNING && fail_on == GD_SEV_CRITICAL ? GD_EXIT_OK : code;
}

int gd_cli_refused(const gd_facts *f)
{
    if (!f->capture_refused_count)
        return GD_EXIT_OK;
    for (size_t i = 0; i < f->capture_refused_count && i < GD_CAPTURE_REFUSED; i++)
        fprintf(stderr, "gpudoctor: not read: %s\n", f->capture_refused[i]);
    fprintf(stderr, "gpudoctor: %zu of the --from files %s not read: what %s is missing from the report\n",
            f->capture_refused_count, f->capture_refused_count == 1 ? "was" : "were",
            f->capture_refused_count == 1 ? "it holds" : "they hold");
    return GD_EXIT_ERROR;
}

int gd_cli_no_nvidia_gpu(const gd_facts *f, int code)
{
    if (!gd_facts_no_nvidia_gpu(f))
        return code;
    fprintf(stderr, "gpudoctor: no NVIDIA GPU on this machine (no NVIDIA display or 3D controller on its PCI bus): "
                    "nothing to check, exit 3\n");
    return GD_EXIT_ERROR;
}

int gd_cli_judged_exit(const gd_facts *f, const gd_findings *fs, int code)
{
    char judged[256], missing[256];
    if (gd_facts_no_nvidia_gpu(f))
        return gd_cli_no_nvidia_gpu(f, code);
    /* A file not read may hold what would change the verdict: only a
     * critical finding stands without it. */
    if (f->capture_refused_count && code != GD_EXIT_CRITICAL && code != GD_EXIT_ERROR) {
        gd_cli_refused(f);
        fprintf(stderr, "gpudoctor: exit 3 (could not check), not %d (what the files read show)\n", code);
        return GD_EXIT_ERROR;
    }
    if (code != GD_EXIT_OK || gd_judged_summary(f, fs, judged, sizeof judged, missing, sizeof missing) > 0)
        return code;
    bool matrix = f->captured && strstr(f->capture_formats, "topo");
    fprintf(stderr,
            "gpudoctor: nothing of the GPUs' own state could be judged (%s %s%s): exit 3 (could not check), "
            "not 0 (healthy)\n",
            missing, f->captured ? "not in this capture" : "not readable",
            matrix ? "; a topology matrix shows how the GPUs are wired, not their state" : "");
    return GD_EXIT_ERROR;
}

typedef struct reader {
    gd_cli_settings *s;
    char err[512];
} reader;

/* One "key = value" of the file; 1 goes on, 0 stops with r->err set. */
static int on_entry(void *ud, const char *section, const char *key, const char *value)
{
    reader *rd = ud;
    gd_policy *p = &rd->s->policy;
    char err[256];
    if (strcmp(section, "") == 0 || strcmp(section, "check") == 0) {
        if (strcmp(key, "fail_on") == 0) {
            if (gd_cli_fail_on(value, &rd->s->fail_on) == 0)
                return 1;
            snprintf(rd->err, sizeof rd->err, "fail_on wants warning or critical, not '%s'", value);
            return 0;
        }
        snprintf(rd->err, sizeof rd->err,
                 "unknown key '%s'%s%s%s (known: fail_on; sections [ignore], [severity], "
                 "[thresholds])",
                 key, section[0] ? " in [" : "", section, section[0] ? "]" : "");
        return 0;
    }
    if (strcmp(section, "ignore") == 0) {
        /* id = all | yes | GPU,GPU,... */
        gd_policy_rule r = {0};
        if (parse_target(key, &r, err, sizeof err) != 0) {
            snprintf(rd->err, sizeof rd->err, "[ignore] %s", err);
            return 0;
        }
        if (strcmp(value, "all") == 0 || strcmp(value, "yes") == 0 || strcmp(value, "true") == 0)
            return add_rule(p->ignore, &p->nignore, &r, rd->err, sizeof rd->err) == 0;
        char list[256];
        snprintf(list, sizeof list, "%s", value);
        char *save = NULL;
        int n = 0;
        for (char *tok = strtok_r(list, ", ", &save); tok; tok = strtok_r(NULL, ", ", &save), n++) {
            unsigned long g;
            if (gd_parse_uint(tok, 1023, &g) != 0) {
                snprintf(rd->err, sizeof rd->err, "[ignore] %s wants all or GPU indexes like 0,3, not '%s'", key,
                         value);
                return 0;
            }
            r.gpu = (int)g;
            if (add_rule(p->ignore, &p->nignore, &r, rd->err, sizeof rd->err) != 0)
                return 0;
        }
        if (n == 0)
            snprintf(rd->err, sizeof rd->err, "[ignore] %s wants all or GPU indexes like 0,3", key);
        return n > 0;
    }
    if (strcmp(section, "severity") == 0) {
        gd_policy_rule r = {0};
        if (parse_target(key, &r, err, sizeof err) != 0) {
            snprintf(rd->err, sizeof rd->err, "[severity] %s", err);
            return 0;
        }
        if (gd_severity_parse(value, &r.severity) != 0) {
            snprintf(rd->err, sizeof rd->err, "[severity] %s wants info, warning or critical, not '%s'", key, value);
            return 0;
        }
        return add_rule(p->severity, &p->nseverity, &r, rd->err, sizeof rd->err) == 0;
    }
    if (strcmp(section, "thresholds") == 0) {
        double v, lo = 0, hi = 0;
        if (gd_parse_decimal(value, &v) != 0) {
            snprintf(rd->err, sizeof rd->err, "[thresholds] %s wants a number, not '%s'", key, value);
            return 0;
        }
        int rc = gd_threshold_set(key, v, &lo, &hi);
        if (rc == -1)
            snprintf(rd->err, sizeof rd->err, "[thresholds] unknown threshold '%s' (docs/checks.md lists them)", key);
        else if (rc == -2)
            snprintf(rd->err, sizeof rd->err, "[thresholds] %s wants a number from %g to %g, not '%s'", key, lo, hi,
                     value);
        return rc == 0;
    }
    snprintf(rd->err, sizeof rd->err, "unknown section [%s] (known: [check], [ignore], [severity], [thresholds])",
             section);
    return 0;
}

/* A config file is small: more than this is not one. */
#define CONFIG_MAX_BYTES (1u << 20)

/* Reads one file (through the bounded reader: a FIFO or /dev/zero is
 * refused, not waited on or read for ever); 0, 1 when it does not exist and
 * need not, or exit code 3. */
static int read_file(const char *path, bool required, gd_cli_settings *s)
{
    char why[PATH_MAX + 128];
    size_t len;
    char *text = gd_input_read(path, GD_INPUT_FILE, CONFIG_MAX_BYTES, &len, why, sizeof why);
    if (!text) {
        if (!required && (errno == ENOENT || errno == ENOTDIR))
            return 1;
        if (!required && errno == EACCES) {
            /* An unreadable home (a job run as another user) is no reason not to check. */
            fprintf(stderr, "gpudoctor: note: %s: %s; its settings are not applied\n", path, strerror(EACCES));
            return 1;
        }
        return gd_cli_error("%s", why);
    }
    if (memchr(text, '\0', len)) {
        free(text);
        return gd_cli_error("%s: holds a NUL byte: not a config file", path);
    }
    reader rd = {.s = s};
    int line = ini_parse_string(text, on_entry, &rd);
    free(text);
    if (line == 0)
        return 0;
    if (line < 0)
        return gd_cli_error("%s: cannot read it", path);
    return gd_cli_error("%s:%d: %s", path, line,
                        rd.err[0] ? rd.err : "not 'key = value', a '[section]' or a comment (# or ;)");
}

int gd_cli_settings_load(const char *config, const char *xdg_config_home, const char *home, gd_cli_settings *s)
{
    if (config)
        return read_file(config, true, s);
    int rc = read_file("/etc/gpudoctor.conf", false, s);
    if (rc > 1)
        return rc;
    char path[PATH_MAX];
    if (xdg_config_home && *xdg_config_home)
        snprintf(path, sizeof path, "%s/gpudoctor.conf", xdg_config_home);
    else if (home && *home)
        snprintf(path, sizeof path, "%s/.config/gpudoctor.conf", home);
    else
        return 0;
    rc = read_file(path, false, s);
    return rc > 1 ? rc : 0;
}
