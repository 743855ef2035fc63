/* SPDX-License-Identifier: Apache-2.0 */
/* The per-GPU table (gpu_table.h). */
#include "gpu_table.h"
#include "core/json_util.h"
#include "core/text_safe.h"
#include "gpudoctor/pcie.h"
#include "text_util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The median of metric m of GPU g over [from, n); not ok when no sample has it. */
static gd_value median(const gd_facts *f, size_t g, gd_metric m, size_t from, double *buf)
{
    const gd_series *s = &f->series;
    size_t k = 0;
    for (size_t i = from; i < s->n; i++) {
        gd_value v = gd_series_at(s, i, g, m);
        if (gd_ok(v))
            buf[k++] = v.v;
    }
    if (k == 0)
        return gd_missing(GD_ST_UNREAD);
    qsort(buf, k, sizeof *buf, by_value);
    return gd_val(k % 2 ? buf[k / 2] : (buf[k / 2 - 1] + buf[k / 2]) / 2);
}

/* The table's columns of readings, in its order. */
static const gd_metric table_metrics[] = {GD_M_TEMP_C, GD_M_POWER_W, GD_M_SM_CLOCK_MHZ, GD_M_MEM_USED_MIB,
                                          GD_M_UTIL_GPU_PCT};

json_t *gd_gpu_table_median_json(const gd_facts *f, size_t g, size_t from)
{
    json_t *o = json_object();
    double *buf = malloc((f->series.n + 1) * sizeof *buf);
    for (size_t k = 0; buf && k < sizeof table_metrics / sizeof table_metrics[0]; k++) {
        gd_value v = median(f, g, table_metrics[k], from, buf);
        json_object_set_new(o, gd_metric_describe(table_metrics[k])->key,
                            gd_ok(v) ? gd_json_number(round(v.v * 10) / 10) : json_null());
    }
    free(buf);
    return o;
}

/* "520/700", "520", "-/700" or "-": a reading and its ceiling. */
const char *gd_reading_pair(gd_value x, gd_value y, char *buf, size_t len)
{
    char a[24] = "-", b[24] = "";
    if (gd_ok(x))
        snprintf(a, sizeof a, "%.0f", x.v);
    if (gd_ok(y))
        snprintf(b, sizeof b, "/%.0f", y.v);
    snprintf(buf, len, "%s%s", a, b);
    return buf;
}

/* What the table's columns cannot say: a lost GPU, MIG, ECC or persistence
 * off, a compute mode that is not the default, clocks held back (reasons
 * other than an idle GPU). */
static void notes(const gd_gpu *gpu, gd_value reasons, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
#define NOTE(cond, text)                                                                                               \
    if ((cond) && used < len)                                                                                          \
    used += (size_t)snprintf(buf + used, len - used, "%s%s", used ? ", " : "", text)
    NOTE(gpu->lost, "LOST");
    NOTE(gd_ok(gpu->mig_mode) && gpu->mig_mode.v != 0, "MIG");
    NOTE(gd_ok(gpu->ecc_enabled) && gpu->ecc_enabled.v == 0, "ECC off");
    NOTE(gd_ok(gpu->persistence_mode) && gpu->persistence_mode.v == 0, "persistence off");
    /* nvml.h's nvmlComputeMode_t: 1 exclusive thread, 2 prohibited, 3 exclusive process */
    static const char *const modes[] = {"", "compute mode exclusive thread", "compute mode prohibited",
                                        "compute mode exclusive process"};
    int mode = gd_ok(gpu->compute_mode) ? (int)gpu->compute_mode.v : 0;
    NOTE(mode > 0, mode < 4 ? modes[mode] : "compute mode not default");
    if (gd_ok(reasons))
        for (size_t i = 0; i < gd_reason_names_count; i++) {
            unsigned long long bit = gd_reason_names[i].bit;
            NOTE(((unsigned long long)reasons.v & bit) && strcmp(gd_reason_names[i].name, "gpu_idle") != 0,
                 gd_reason_names[i].name);
        }
#undef NOTE
}

/* The name without "NVIDIA ", cut to w columns with "~" at the cut. */
static void short_name(const char *name, int w, char *buf, size_t len)
{
    char safe[200];
    gd_text_safe(name[0] ? name : "?", safe, sizeof safe);
    const char *s = strncmp(safe, "NVIDIA ", 7) == 0 ? safe + 7 : safe;
    size_t n = strlen(s), max = w > 1 && (size_t)w < len ? (size_t)w : len - 1;
    if (n <= max) {
        memcpy(buf, s, n + 1);
    } else {
        memcpy(buf, s, max - 1);
        buf[max - 1] = '~';
        buf[max] = '\0';
    }
}

/* "Gen4 x16", "x16" or "-": GPU g's link in sample i; a width below what
 * card and slot allow gets its maximum ("Gen1 x8/16"): an idle link slows
 * down on purpose, it seldom narrows. */
static void link_text(const gd_facts *f, size_t g, size_t i, char *buf, size_t len)
{
    const gd_series *s = &f->series;
    gd_value gen = i < s->n ? gd_series_at(s, i, g, GD_M_PCIE_GEN) : gd_missing(GD_ST_UNREAD);
    gd_value lanes = i < s->n ? gd_series_at(s, i, g, GD_M_PCIE_WIDTH) : gd_missing(GD_ST_UNREAD);
    char max[16] = "";
    int mg, mw;
    if (gd_ok(lanes) && gd_pcie_expected_link(f, g, &mg, &mw) && lanes.v < mw)
        snprintf(max, sizeof max, "/%d", mw);
    if (gd_ok(gen) && gd_ok(lanes))
        snprintf(buf, len, "Gen%.0f x%.0f%s", gen.v, lanes.v, max);
    else if (gd_ok(lanes))
        snprintf(buf, len, "x%.0f%s", lanes.v, max);
    else
        snprintf(buf, len, "-");
}

void gd_gpu_table(FILE *out, const gd_facts *f, size_t from, const gd_text_style *st)
{
    if (f->gpu_count == 0)
        return;
    int width = st && st->width > 0 ? st->width : 80;
    double *buf = malloc((f->series.n + 1) * sizeof *buf);
    if (!buf)
        return;
    size_t n = f->series.n;
    if (from >= n)
        from = n ? n - 1 : 0;
    /* The PCIe column widens for a link shown against its maximum width. */
    int link_w = 8;
    for (size_t g = 0; g < f->gpu_count; g++) {
        char link[24];
        link_text(f, g, n ? n - 1 : 0, link, sizeof link);
        link_w = (int)strlen(link) > link_w ? (int)strlen(link) : link_w;
    }
    /* The other columns take 48 and the link's; the name takes what the
     * longest needs of the rest (at least 14, at most 40): notes that do
     * not fit beside it go on the line below ("GeForce RTX 4090" was cut to
     * 14 columns at 80 for notes' sake, with 10 of them left empty). */
    int longest = 4;
    for (size_t g = 0; g < f->gpu_count; g++) {
        const char *nm = f->gpus[g].name;
        int len = (int)strlen(strncmp(nm, "NVIDIA ", 7) == 0 ? nm + 7 : nm);
        longest = len > longest ? len : longest;
    }
    int room = width - 48 - link_w < 14 ? 14 : width - 48 - link_w;
    int name_w = longest < room ? longest : room > 40 ? 40 : room;
    /* "Notes" where a note can stand beside the columns; a long name leaves
     * none, and the notes go on the line below. */
    bool notes_col = 48 + link_w + name_w + 6 <= width;
    fprintf(out, "%s%-3s  %-*s %4s %-9s %-9s %-11s %4s %-*s%s%s\n", gd_c(st, GD_ANSI_DIM), "GPU", name_w, "Name",
            "Temp", "Power W", "SM MHz", "Memory MiB", "Util", notes_col ? link_w : 0, "PCIe",
            notes_col ? " Notes" : "", gd_c(st, GD_ANSI_RESET));
    for (size_t g = 0; g < f->gpu_count; g++) {
        const gd_gpu *gpu = &f->gpus[g];
        char name[64], temp[16] = "-", power[32], sm[32], mem[40], util[16] = "-", link[24] = "-", note[256];
        short_name(gpu->name, name_w, name, sizeof name);
        gd_value t = median(f, g, GD_M_TEMP_C, from, buf), u = median(f, g, GD_M_UTIL_GPU_PCT, from, buf);
        if (gd_ok(t))
            snprintf(temp, sizeof temp, "%.0f C", t.v);
        if (gd_ok(u))
            snprintf(util, sizeof util, "%.0f%%", u.v);
        gd_reading_pair(median(f, g, GD_M_POWER_W, from, buf), gpu->power_limit_w, power, sizeof power);
        gd_reading_pair(median(f, g, GD_M_SM_CLOCK_MHZ, from, buf), gpu->clock_max_sm_mhz, sm, sizeof sm);
        gd_reading_pair(median(f, g, GD_M_MEM_USED_MIB, from, buf), gpu->mem_total_mib, mem, sizeof mem);
        link_text(f, g, n ? n - 1 : 0, link, sizeof link);
        notes(gpu, n ? gd_series_at(&f->series, n - 1, g, GD_M_EVENT_REASONS) : gd_missing(GD_ST_UNREAD), note,
              sizeof note);
        char line[512];
        int used = snprintf(line, sizeof line, "%3d  %-*s %4s %-9s %-9s %-11s %4s %-*s", gpu->index, name_w, name, temp,
                            power, sm, mem, util, link_w, link);
        if (used < 0)
            continue;
        /* Notes that do not fit after the columns go on the lines below. */
        if (!note[0]) {
            while (used > 0 && line[used - 1] == ' ')
                line[--used] = '\0';
            fprintf(out, "%s\n", line);
        } else if (used + 1 + (int)strlen(note) <= width) {
            fprintf(out, "%s %s\n", line, note);
        } else {
            while (used > 0 && line[used - 1] == ' ')
                line[--used] = '\0';
            fprintf(out, "%s\n     ", line);
            gd_wrap(out, st, 5, 5, note);
        }
    }
    free(buf);
    if (n > 1 && from + 1 < n)
        fprintf(out, "%s(medians over the window, the JSON's window.median; PCIe: the last sample)%s\n",
                gd_c(st, GD_ANSI_DIM), gd_c(st, GD_ANSI_RESET));
}
