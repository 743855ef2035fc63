/* SPDX-License-Identifier: Apache-2.0 */
/* The report of `gpudoctor fleet`: text, JSON and one HTML page. */
#ifndef GD_REPORT_FLEET_REPORT_H
#define GD_REPORT_FLEET_REPORT_H

#include "analysis/fleet.h"
#include "gpudoctor/report.h"

#include <jansson.h>
#include <stdio.h>

typedef struct gd_fleet_run {
    const gd_fleet *fleet;
    const gd_fleet_result *result;
    size_t nunread;
    const char *const *unread; /* "FILE: why", one per report that could not be read */
    size_t nduplicates;
    const char *const *duplicates; /* "FILE: the same report as FILE", one per report given again */
} gd_fleet_run;

void gd_fleet_report_text(FILE *out, const gd_fleet_run *run, const gd_text_style *st);
json_t *gd_fleet_report_json(const gd_fleet_run *run);
void gd_fleet_report_html(FILE *out, const gd_fleet_run *run);

#endif
