/* SPDX-License-Identifier: Apache-2.0 */
/* `run --profile` (docs/run.md): the job's start-up hook, its traces, the joined report. */
#ifndef GD_CLI_RUN_PROFILE_H
#define GD_CLI_RUN_PROFILE_H

#include "analysis/profile.h"
#include "gpudoctor/findings.h"
#include "gpudoctor/model.h"

#include <stdbool.h>

/* Defaults said in `run --help`. */
#define GD_PROFILE_FIRST_STEP 10
#define GD_PROFILE_LAST_STEP 14

typedef struct gd_run_profile {
    bool on;
    long first, last; /* --profile-steps A:B */
    const char *keep_dir; /* --profile-dir, or NULL: a temporary folder */
    char dir[4096];
    char hook_dir[4096]; /* the folder of the hook's sitecustomize.py */
    char *saved_pythonpath; /* the user's PYTHONPATH while the job's is set, NULL */
    bool had_pythonpath;
    bool details; /* run --details: every check in the text */
    gd_profile prof;
} gd_run_profile;

/* Takes option c ('P', 'S', 'D') of run's parser: 0, or GD_EXIT_ERROR after a message. */
int gd_run_profile_option(gd_run_profile *rp, int c, const char *arg);

/* Before the command starts: the hook found, the traces' folder made, the
 * environment the command inherits set (left alone where argv is Python with
 * -S, which would never run the hook). 0, or GD_EXIT_ERROR after a message. */
int gd_run_profile_prepare(gd_run_profile *rp, char *const *argv);

/* Right after the command started: gpudoctor's own environment back, the
 * wall-clock time of the session's start noted. */
void gd_run_profile_started(gd_run_profile *rp);

/*
 * After the watch: reads the traces, runs the trace checks, joins them with
 * the run's findings and prints the one report (text or JSON; HTML to
 * html_path when given). Returns the exit code of the findings (check's
 * codes), GD_EXIT_ERROR when the report could not be written (*report_failed
 * set for the HTML page).
 */
int gd_run_profile_report(gd_run_profile *rp, const gd_facts *f, const gd_findings *fs, int json, const char *html_path,
                          int *report_failed);

/* Removes a temporary folder and frees what rp holds. */
void gd_run_profile_end(gd_run_profile *rp);

#endif
