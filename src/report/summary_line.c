/* SPDX-License-Identifier: Apache-2.0 */
/* One line that names what is wrong and on which GPUs, for tools that show
 * a single line: a Slurm drain reason, a node-problem-detector condition
 * message, an NHC failure. */
#include "gpudoctor/report.h"

#include <stdio.h>
#include <string.h>

/* Whether finding i is the first of its id among those that count. */
static bool first_of_id(const gd_findings *fs, size_t i, gd_severity min)
{
    for (size_t k = 0; k < i; k++)
        if (!fs->v[k].ignored && fs->v[k].severity >= min && strcmp(fs->v[k].id, fs->v[i].id) == 0)
            return false;
    return true;
}

/* "ID" or "ID GPU 3,4": the GPUs of every finding with this id, in report order. */
static void group_text(const gd_findings *fs, size_t i, gd_severity min, char *g, size_t len)
{
    size_t n = (size_t)snprintf(g, len, "%s", fs->v[i].id);
    const char *sep = " GPU ";
    for (size_t k = i; k < fs->n && n < len; k++) {
        const gd_finding *x = &fs->v[k];
        if (x->ignored || x->severity < min || x->gpu == GD_NO_GPU || strcmp(x->id, fs->v[i].id) != 0)
            continue;
        bool seen = false; /* the same GPU twice (two episodes) is named once */
        for (size_t j = i; j < k && !seen; j++)
            seen = !fs->v[j].ignored && fs->v[j].severity >= min && fs->v[j].gpu == x->gpu &&
                   strcmp(fs->v[j].id, x->id) == 0;
        if (seen)
            continue;
        n += (size_t)snprintf(g + n, len - n, "%s%d", sep, x->gpu);
        sep = ",";
    }
    /* A finding of no GPU names its subject where its evidence has a short
     * one ("mlx5_3 port 1 Down"): a drain reason says which part is dead. */
    sep = " ";
    for (size_t k = i; k < fs->n && n < len; k++) {
        const gd_finding *x = &fs->v[k];
        if (x->ignored || x->severity < min || x->gpu != GD_NO_GPU || strcmp(x->id, fs->v[i].id) != 0)
            continue;
        const char *subject = json_string_value(json_object_get(x->evidence, "summary"));
        if (!subject || !*subject)
            continue;
        n += (size_t)snprintf(g + n, len - n, "%s%s", sep, subject);
        sep = ", ";
    }
}

size_t gd_report_summary_line(char *buf, size_t len, const gd_findings *fs, gd_severity min)
{
    if (len == 0)
        return 0;
    buf[0] = '\0';
    size_t n = 0, groups = 0, left_out = 0;
    for (size_t i = 0; i < fs->n; i++) {
        const gd_finding *x = &fs->v[i];
        if (x->ignored || x->severity < min || !first_of_id(fs, i, min))
            continue;
        char g[512];
        group_text(fs, i, min, g, sizeof g);
        /* Room for this group and, should a later one not fit, "; +N more". */
        size_t need = strlen(g) + (groups ? 2 : 0);
        if (left_out == 0 && n + need + 12 < len) {
            n += (size_t)snprintf(buf + n, len - n, "%s%s", groups ? "; " : "", g);
            groups++;
        } else {
            left_out++;
        }
    }
    if (left_out && n + 12 < len)
        n += (size_t)snprintf(buf + n, len - n, "%s+%zu more", groups ? "; " : "", left_out);
    return n;
}
