/* SPDX-License-Identifier: Apache-2.0 */
/* One finding in the one layout of every text report (text_finding.h). */
#include "text_finding.h"
#include "text_util.h"

#include <math.h>
#include <stdbool.h>
#include <string.h>

static const char *sev_color(gd_severity s)
{
    return s == GD_SEV_CRITICAL ? GD_ANSI_RED : s == GD_SEV_WARNING ? GD_ANSI_YELLOW : GD_ANSI_CYAN;
}

static bool hidden(const char *key, const char *const *hide)
{
    for (size_t i = 0; hide && hide[i]; i++)
        if (strcmp(key, hide[i]) == 0)
            return true;
    return false;
}

static void print_evidence(FILE *out, const gd_text_style *st, const json_t *ev, const char *const *hide)
{
    char line[1024] = "";
    size_t used = 0;
    const char *key;
    json_t *v;
    json_object_foreach((json_t *)ev, key, v)
    {
        if (strcmp(key, "source") == 0 || hidden(key, hide))
            continue;
        char val[400]; /* a structured value's first words (the JSON report has all) */
        gd_json_scalar_text(v, val, sizeof val);
        int n = snprintf(line + used, sizeof line - used, "%s%s=%s", used ? "  " : "", key, val);
        if (n < 0 || (size_t)n >= sizeof line - used)
            break;
        used += (size_t)n;
    }
    if (used) {
        fprintf(out, "    %sevidence%s ", gd_c(st, GD_ANSI_DIM), gd_c(st, GD_ANSI_RESET));
        gd_wrap(out, st, 13, 13, line);
    }
    gd_print_source(out, st, json_object_get(ev, "source"));
}

void gd_text_finding(FILE *out, const gd_text_style *st, const gd_finding *x, const gd_text_finding_how *how)
{
    static const gd_text_finding_how check_how = {.series = true};
    how = how ? how : &check_how;
    bool series = how->series;
    char where[300] = "host";
    if (how->at)
        snprintf(where, sizeof where, "%s", how->at);
    else if (how->where)
        how->where(x, where, sizeof where);
    else
        gd_text_finding_where(x, where, sizeof where); /* a pair's finding is on both its GPUs */
    fprintf(out, "\n%s%-8s%s %-6s %s%s%s%s\n", gd_c(st, sev_color(x->severity)), gd_severity_name(x->severity),
            gd_c(st, GD_ANSI_RESET), gd_safe(where), gd_c(st, GD_ANSI_DIM), gd_safe(x->id), how->mark ? how->mark : "",
            gd_c(st, GD_ANSI_RESET));
    fprintf(out, "    %s", gd_c(st, GD_ANSI_BOLD));
    gd_wrap(out, st, 4, 4, x->title);
    fputs(gd_c(st, GD_ANSI_RESET), out);
    print_evidence(out, st, x->evidence, how->hide);
    if (x->timeline[0] && series) { /* one sample has no timeline to tell */
        fprintf(out, "    %stimeline%s ", gd_c(st, GD_ANSI_DIM), gd_c(st, GD_ANSI_RESET));
        gd_wrap(out, st, 13, 13, x->timeline);
    }
    if (!isnan(x->impact_pct)) {
        char impact[400];
        if (how->impact)
            how->impact(x, impact, sizeof impact);
        else
            snprintf(impact, sizeof impact, "~%.0f%% of training throughput", x->impact_pct);
        fprintf(out, "    %simpact%s   ", gd_c(st, GD_ANSI_DIM), gd_c(st, GD_ANSI_RESET));
        gd_wrap(out, st, 13, 13, impact);
    }
    if (x->fix[0] && !how->no_fix) {
        fprintf(out, "    %sfix%s      ", gd_c(st, GD_ANSI_GREEN), gd_c(st, GD_ANSI_RESET));
        gd_wrap(out, st, 13, 13, x->fix);
    }
}
