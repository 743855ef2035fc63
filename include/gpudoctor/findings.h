/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Findings: what the checks conclude, with evidence and a fix.
 */
#ifndef GPUDOCTOR_FINDINGS_H
#define GPUDOCTOR_FINDINGS_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

typedef enum gd_severity {
    GD_SEV_INFO = 0,
    GD_SEV_WARNING = 1,
    GD_SEV_CRITICAL = 2,
} gd_severity;

const char *gd_severity_name(gd_severity s);

#define GD_NO_GPU (-1)

typedef struct gd_finding {
    char id[48]; /* stable id (docs/checks.md), e.g. "thermal.hot" */
    gd_severity severity;
    int gpu; /* GPU index or GD_NO_GPU */
    char title[200];
    json_t *evidence; /* object; owned */
    double impact_pct; /* NAN when it cannot be estimated */
    char fix[768];
    char timeline[256]; /* one line: when it began, how long, at what temperature and clock */
    bool ignored; /* accepted by the user (--ignore, config file): shown, not counted */
} gd_finding;

/* "Not checked, because ...": a check that could not judge. */
typedef struct gd_skip {
    char check[48];
    int gpu;
    char reason[256];
} gd_skip;

/* Where the findings are read: the command whose report prints them. Its
 * caller says so before the checks run, so that each fix names the next step
 * from there, never the command the reader just ran (docs/checks.md, "A fix
 * fits where it is read"). Whether a job is watched (--pid) and whether the
 * facts are a capture are facts of their own (gd_facts' pid, captured). */
typedef enum gd_where {
    GD_AT_CHECK = 0, /* check (and a caller that does not say) */
    GD_AT_RUN, /* run: the job started and watched */
    GD_AT_PROFILE, /* run --profile: watched and profiled */
    GD_AT_BENCH, /* bench KIND: which ran is in the facts (gd_bench_facts) */
    GD_AT_TRACE, /* trace: a profiler trace alone */
    GD_AT_WATCH, /* watch: the live view's and lines' last minute */
    GD_AT_EXPORT, /* export: the exporter's metrics */
} gd_where;

typedef struct gd_findings {
    size_t n, cap;
    gd_finding *v;
    size_t nskips, skipcap;
    gd_skip *skips;
    gd_where where; /* set by the caller before the checks run */
} gd_findings;

/*
 * Adds a finding. `evidence` (may be NULL) is taken over. title and fix are
 * printf formats sharing one argument list would be awkward, so the title is
 * formatted and the fix is copied. Returns the new finding, or NULL on
 * allocation failure.
 */
gd_finding *gd_finding_add(gd_findings *fs, const char *id, gd_severity sev, int gpu, json_t *evidence,
                           double impact_pct, const char *fix, const char *title_fmt, ...)
    __attribute__((format(printf, 8, 9)));

/* Records that `check` could not judge (gpu may be GD_NO_GPU). */
void gd_skip_add(gd_findings *fs, const char *check, int gpu, const char *reason_fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Copies text into buf (truncating) with every `placeholder` replaced by
 * `value`: a fix written for any GPU ("-i N") made concrete. */
void gd_fill_placeholder(char *buf, size_t len, const char *text, const char *placeholder, const char *value);

/* Sorts by severity (critical first), then impact (largest first), then GPU. */
void gd_findings_sort(gd_findings *fs);

/* Counts findings of severity s, the ignored ones left out. */
size_t gd_findings_count(const gd_findings *fs, gd_severity s);

/* Counts the ignored findings. */
size_t gd_findings_ignored(const gd_findings *fs);

/* Exit code of `check` (docs/interface.md): 0, 1 (warning) or 2 (critical);
 * ignored findings do not count. */
int gd_findings_exit_code(const gd_findings *fs);

/*
 * What the user accepts (--ignore ID[@GPU], the config file): findings to
 * ignore and severities to change, by finding id. A rule's gpu is a GPU
 * index, or GD_NO_GPU for every GPU and the host.
 */
#define GD_POLICY_MAX 64
typedef struct gd_policy_rule {
    char id[48];
    int gpu;
    gd_severity severity; /* severity rules only */
} gd_policy_rule;

typedef struct gd_policy {
    size_t nignore, nseverity;
    gd_policy_rule ignore[GD_POLICY_MAX];
    gd_policy_rule severity[GD_POLICY_MAX];
} gd_policy;

/* Changes severities, marks what is ignored, and sorts again (ignored last). */
void gd_findings_apply_policy(gd_findings *fs, const gd_policy *p);

/* "info", "warning", "critical" into *out; 0 or -1. */
int gd_severity_parse(const char *s, gd_severity *out);

void gd_findings_free(gd_findings *fs);

#endif
