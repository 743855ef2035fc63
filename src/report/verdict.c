/* SPDX-License-Identifier: Apache-2.0 */
/* The verdict of a check report (verdict.h). */
#include "verdict.h"
#include "text_causes.h"

#include "gpudoctor/checks.h"

#include <stdio.h>
#include <string.h>

/* The highest utilisation any GPU read in the window, 0 without one. */
static double busiest(const gd_facts *f)
{
    double top = 0;
    for (size_t i = 0; i < f->series.n; i++)
        for (size_t g = 0; g < f->gpu_count; g++) {
            gd_value u = gd_series_at(&f->series, i, g, GD_M_UTIL_GPU_PCT);
            if (gd_ok(u) && u.v > top)
                top = u.v;
        }
    return top;
}

const char *gd_report_verdict(const gd_facts *f, const gd_findings *fs, const gd_grouped_causes *causes, char *rest,
                              size_t len)
{
    size_t c = gd_findings_count(fs, GD_SEV_CRITICAL), w = gd_findings_count(fs, GD_SEV_WARNING),
           i = gd_findings_count(fs, GD_SEV_INFO);
    char judged[256], missing[256];
    size_t groups = gd_judged_summary(f, fs, judged, sizeof judged, missing, sizeof missing);
    const char *absent = f->captured ? "not in this capture" : "not readable";
    const char *word = gd_facts_no_nvidia_gpu(f) ? "NOT CHECKED"
                       : c                       ? "CRITICAL"
                       : w                       ? "WARNING"
                       : groups == 0             ? "NOT CHECKED"
                                                 : "OK";
    size_t used = 0;
    if (len == 0)
        return word;
    if (gd_facts_no_nvidia_gpu(f))
        used = (size_t)snprintf(rest, len,
                                "- no NVIDIA GPU on this machine: no NVIDIA display or 3D controller on its PCI bus, "
                                "so there is nothing to check (exit 3)");
    else if (c + w == 0 && groups == 0)
        used = (size_t)snprintf(rest, len, "- nothing of the GPUs' own state could be judged: %s %s%s", missing, absent,
                                f->captured && strstr(f->capture_formats, "topo")
                                    ? " (a topology matrix shows how the GPUs are wired, not their state)"
                                    : "");
    else if (c + w == 0 && gd_coverage_all_idle(f))
        /* Slurm health checks run on idle nodes: say what idle GPUs cannot show. */
        used = (size_t)snprintf(rest, len,
                                "on what could be judged; GPUs %s: PCIe links, clocks and throttling need load (%s)",
                                busiest(f) < 10 ? "idle" : "under 50% busy",
                                f->captured ? "a capture under load shows them" : "'bench pcie' loads them");
    else if (c + w == 0 && missing[0])
        used = (size_t)snprintf(rest, len, "on what could be judged: %s", judged);
    else if (c + w == 0)
        used =
            (size_t)snprintf(rest, len, "- no problem found on %zu GPU%s", f->gpu_count, f->gpu_count == 1 ? "" : "s");
    else {
        char phrase[400];
        gd_causes_phrase(fs, causes, phrase, sizeof phrase);
        used = (size_t)snprintf(rest, len, "- %s", phrase);
    }
    if (i && used < len)
        used += (size_t)snprintf(rest + used, len - used, "; %zu info", i);
    size_t ignored = gd_findings_ignored(fs);
    if (ignored && used < len)
        snprintf(rest + used, len - used, ", %zu ignored", ignored);
    return word;
}
