/* SPDX-License-Identifier: Apache-2.0 */
/* The live view of `gpudoctor watch` (watch_view.h). */
#include "analysis/window_acc.h"
#include "report/watch_lines.h"
#include "watch_view.h"

#include "gpudoctor/checks.h"
#include "report/text_util.h"
#include "report/watch_cells.h"
#include "report/watch_scale.h"

#include <curses.h>
#include <langinfo.h>
#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define FINDINGS_SPAN_S GD_WATCH_FINDINGS_SPAN_S

/* The metrics the sparkline can plot (h/l cycles through them). */
static const struct plot {
    gd_metric m;
    const char *label;
} plots[] = {
    {GD_M_TEMP_C, "temperature"},       {GD_M_SM_CLOCK_MHZ, "SM clock"},    {GD_M_POWER_W, "power"},
    {GD_M_UTIL_GPU_PCT, "utilisation"}, {GD_M_MEM_USED_MIB, "memory used"}, {GD_M_PCIE_RX_KBPS, "PCIe rx"},
};
#define NPLOTS (int)(sizeof plots / sizeof plots[0])

enum { C_HEAD = 1, C_WARN, C_CRIT };

/* Columns, in their order on screen; `drop`: the first to go when narrow
 * (higher first). The history keeps its place down to 80 columns. */
enum {
    COL_GPU,
    COL_NAME,
    COL_TEMP,
    COL_MTEMP,
    COL_SM,
    COL_POWER,
    COL_UTIL,
    COL_MEM,
    COL_LINK,
    COL_PCIE,
    COL_REASONS,
    COL_HIST,
    NCOLS
};
static const struct col {
    const char *head;
    int width, drop;
} cols[NCOLS] = {
    [COL_GPU] = {"GPU", 3, 0},          [COL_NAME] = {"NAME", 14, 10},          [COL_TEMP] = {"TEMP", 4, 1},
    [COL_MTEMP] = {"MEMT", 4, 8},       [COL_SM] = {"SM MHz/MAX", 10, 2},       [COL_POWER] = {"POWER W", 9, 3},
    [COL_UTIL] = {"UTIL", 4, 4},        [COL_MEM] = {gd_watch_mem_head, 11, 6}, [COL_LINK] = {"LINK", 5, 9},
    [COL_PCIE] = {"PCIe MB/s", 11, 11}, [COL_REASONS] = {"REASONS", 19, 0},     [COL_HIST] = {"HISTORY", 11, 7},
};

struct gd_watch_view {
    volatile sig_atomic_t *stop;
    double wall_wait_s;
    bool color, utf8, paused, help;
    int plot;
    int sel; /* the selected GPU (its place in gpus[]), -1: all */
    const gd_facts *f;
    bool have; /* f holds a sample */
    size_t last;
    gd_findings findings;
    /* When each finding was first seen (session seconds), shown as a wall-clock time. */
    size_t since_n;
    struct {
        char key[72];
        double t;
    } since[128];
    bool started;
    /* The host line: /proc/stat's CPU totals at the last sample, and the shares since. */
};

static double mono_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The checks over the last minute of the series: a view of the ring, no copy. */
static void judge(gd_watch_view *v)
{
    const gd_facts *f = v->f;
    gd_facts w = gd_window_acc_upto(f, v->last, FINDINGS_SPAN_S); /* a paused view judges what it shows */
    gd_findings_free(&v->findings);
    v->findings = (gd_findings){.where = GD_AT_WATCH};
    double t = gd_series_t(&f->series, v->last);
    w.events.bounded = true; /* a paused view: what came later is not seen yet */
    w.events.until_t = t;
    gd_checks_run_all(&w, &v->findings);
    gd_findings_sort(&v->findings);
    for (size_t k = 0; k < v->findings.n; k++) {
        char key[72];
        snprintf(key, sizeof key, "%s@%d", v->findings.v[k].id, v->findings.v[k].gpu);
        size_t j = 0;
        while (j < v->since_n && strcmp(v->since[j].key, key) != 0)
            j++;
        if (j == v->since_n && j < sizeof v->since / sizeof v->since[0]) {
            snprintf(v->since[j].key, sizeof v->since[j].key, "%s", key);
            v->since[j].t = t;
            v->since_n++;
        }
    }
}

/* The wall-clock time finding x was first seen, "" when unknown. */
static void first_seen(const gd_watch_view *v, const gd_finding *x, char *buf, size_t len)
{
    char key[72];
    snprintf(key, sizeof key, "%s@%d", x->id, x->gpu);
    buf[0] = '\0';
    for (size_t j = 0; j < v->since_n; j++)
        if (strcmp(v->since[j].key, key) == 0)
            gd_event_clock(&v->f->events, v->since[j].t, buf, len);
}

static void text(int y, int x, const char *s, int attr)
{
    if (y >= LINES || x >= COLS)
        return;
    if (attr)
        attron(attr);
    mvaddnstr(y, x, s, COLS - x);
    if (attr)
        attroff(attr);
}

/* PREFIX, the value scaled with `dec` decimals, SUFFIX; "-" when not valid. */
static void fmt_value(char *buf, size_t len, gd_value v, const char *prefix, int dec, const char *suffix, double scale)
{
    if (gd_ok(v))
        snprintf(buf, len, "%s%.*f%s", prefix, dec, v.v * scale, suffix);
    else
        snprintf(buf, len, "-");
}

/* The history of GPU g on the shared scale sc; a sample at or over the
 * metric's limit is drawn as an alarm. */
static void sparkline(gd_watch_view *v, const gd_watch_scale *sc, size_t g, int y, int x, size_t from)
{
    static const char *const blocks[] = {"\u2581", "\u2582", "\u2583", "\u2584",
                                         "\u2585", "\u2586", "\u2587", "\u2588"};
    static const char ascii[] = "_.-:=+*#";
    const gd_series *s = &v->f->series;
    gd_metric m = plots[v->plot].m;
    const char *name;
    double limit = gd_watch_limit(&v->f->gpus[g], m, &name);
    int alarm = v->color ? COLOR_PAIR(C_CRIT) | A_BOLD : A_BOLD;
    move(y, x);
    for (size_t i = from; i <= v->last && getcurx(stdscr) < COLS - 1; i++) {
        gd_value x1 = gd_series_at(s, i, g, m);
        int level = gd_watch_level(sc, x1, 8);
        bool over = level >= 0 && isfinite(limit) && x1.v >= limit;
        if (over)
            attron(alarm);
        if (level < 0)
            addch(' ');
        else if (v->utf8)
            addstr(blocks[level]);
        else
            addch((chtype)ascii[level]);
        if (over)
            attroff(alarm);
    }
}

/* "50-87 C, top = slowdown", or "50-95 C, slowdown 87 C in bold" when a sample exceeds the limit. */
static void scale_text(const gd_watch_scale *sc, char *buf, size_t len)
{
    if (sc->hi <= sc->lo) {
        snprintf(buf, len, "no samples yet");
        return;
    }
    bool kb = strcmp(sc->unit, "KB/s") == 0;
    double k = kb ? 1.0 / 1000 : 1;
    const char *unit = kb ? "MB/s" : sc->unit;
    int n = snprintf(buf, len, "%.0f-%.0f %s", sc->lo * k, sc->hi * k, unit);
    if (n < 0 || (size_t)n >= len || !isfinite(sc->limit))
        return;
    if (sc->hi <= sc->limit)
        snprintf(buf + n, len - (size_t)n, ", top = %s", sc->limit_name);
    else
        snprintf(buf + n, len - (size_t)n, ", %s %.0f %s in bold", sc->limit_name, sc->limit * k, unit);
}

/* Which columns fit in COLS (the least useful go first, never a wrap);
 * returns the history's width, 0 when it does not fit. */
static int layout(bool shown[NCOLS])
{
    int total = 0;
    for (int c = 0; c < NCOLS; c++)
        shown[c] = true, total += cols[c].width + 1;
    while (total > COLS) {
        int worst = -1;
        for (int c = 0; c < NCOLS; c++)
            if (shown[c] && cols[c].drop > 0 && (worst < 0 || cols[c].drop > cols[worst].drop))
                worst = c;
        if (worst < 0)
            break;
        shown[worst] = false;
        total -= cols[worst].width + 1;
    }
    return shown[COL_HIST] ? cols[COL_HIST].width + (COLS - total) : 0;
}

/* text wrapped to the screen's width from column x (continuation lines at
 * x + indent), from row y; returns the next free row. */
static int wrapped(int y, int x, int indent, int first_col, const char *prefix, const char *body, int attr)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&buf, &len);
    if (!mem)
        return y;
    gd_text_style st = {.color = false, .width = COLS - x - 1};
    fputs(prefix, mem);
    gd_wrap(mem, &st, indent, first_col, body);
    fclose(mem);
    for (char *save = NULL, *l = strtok_r(buf, "\n", &save); l && y < LINES; l = strtok_r(NULL, "\n", &save))
        text(y++, x, l, attr);
    free(buf);
    return y;
}

static void fmt_cell(gd_watch_view *v, int c, size_t g, const gd_value *at, char *cell, size_t len, int *attr)
{
    const gd_gpu *gpu = &v->f->gpus[g];
    char a[32], b[32];
    switch (c) {
    case COL_GPU: snprintf(cell, len, "%3d", gpu->index); break;
    case COL_NAME:
        snprintf(cell, len, "%.14s", strncmp(gpu->name, "NVIDIA ", 7) == 0 ? gpu->name + 7 : gpu->name);
        break;
    case COL_TEMP:
    case COL_MTEMP: fmt_value(cell, len, at[c == COL_TEMP ? GD_M_TEMP_C : GD_M_MEM_TEMP_C], "", 0, "C", 1); break;
    case COL_SM:
        fmt_value(a, sizeof a, at[GD_M_SM_CLOCK_MHZ], "", 0, "", 1);
        fmt_value(b, sizeof b, gpu->clock_max_sm_mhz, "", 0, "", 1);
        snprintf(cell, len, "%s/%s", a, b);
        break;
    case COL_POWER:
        fmt_value(a, sizeof a, at[GD_M_POWER_W], "", 0, "", 1);
        fmt_value(b, sizeof b, gpu->power_limit_w, "", 0, "", 1);
        snprintf(cell, len, "%s/%s", a, b);
        break;
    case COL_UTIL: fmt_value(cell, len, at[GD_M_UTIL_GPU_PCT], "", 0, "%", 1); break;
    case COL_MEM: gd_watch_mem_cell(at[GD_M_MEM_USED_MIB], gpu->mem_total_mib, cell, len); break;
    case COL_LINK:
        fmt_value(a, sizeof a, at[GD_M_PCIE_GEN], "G", 0, "", 1);
        fmt_value(b, sizeof b, at[GD_M_PCIE_WIDTH], "x", 0, "", 1);
        snprintf(cell, len, "%s%s", a, b);
        break;
    case COL_PCIE:
        fmt_value(a, sizeof a, at[GD_M_PCIE_TX_KBPS], "", 0, "", 1.0 / 1000);
        fmt_value(b, sizeof b, at[GD_M_PCIE_RX_KBPS], "", 0, "", 1.0 / 1000);
        snprintf(cell, len, "%s/%s", a, b);
        break;
    case COL_REASONS:
        if (gpu->lost) {
            snprintf(cell, len, "GPU LOST");
            *attr = v->color ? COLOR_PAIR(C_CRIT) | A_BOLD : A_BOLD;
        } else if (gd_ok(at[GD_M_EVENT_REASONS]) &&
                   gd_watch_reasons_cell((unsigned long long)at[GD_M_EVENT_REASONS].v, cols[c].width, cell, len)) {
            *attr = v->color ? COLOR_PAIR(C_WARN) | A_BOLD : A_BOLD;
        }
        break;
    default: break;
    }
}

/* The header, the column heads and one row per GPU; returns the next row. */
static int draw_table(gd_watch_view *v)
{
    const gd_facts *f = v->f;
    bool shown[NCOLS];
    int hist_w = layout(shown);
    gd_metric m = plots[v->plot].m;
    size_t n = v->have ? v->last + 1 : 0, from = n > (size_t)hist_w ? n - (size_t)hist_w : 0;
    gd_watch_scale sc = gd_watch_scale_of(f, from, n, m); /* one scale for every GPU's row */
    char line[1024], scale[96];
    scale_text(&sc, scale, sizeof scale);
    /* What changes first, the source last and only whole; wrapped, never cut. */
    int used = snprintf(line, sizeof line, "gpudoctor watch  t=%.1fs%s  plot (h/l): %s %s  ? help  q quit",
                        v->have ? gd_series_t(&f->series, v->last) : 0.0, v->paused ? "  [paused]" : "",
                        plots[v->plot].label, hist_w ? scale : "(needs 80 columns)");
    if (used > 0 && used + 2 + (int)strlen(f->source) <= COLS && (size_t)used < sizeof line)
        snprintf(line + used, sizeof line - (size_t)used, "  %s", gd_safe(f->source));
    int top = wrapped(0, 0, 2, 0, "", line, v->color ? COLOR_PAIR(C_HEAD) | A_BOLD : A_BOLD);
    int x = 0;
    for (int c = 0; c < NCOLS; c++)
        if (shown[c]) {
            text(top, x, cols[c].head, A_UNDERLINE);
            x += cols[c].width + 1;
        }
    int y = top + 1;
    for (size_t g = 0; g < f->gpu_count && y < LINES; g++, y++) {
        gd_value at[GD_M_COUNT];
        for (int k = 0; k < GD_M_COUNT; k++)
            at[k] = v->have ? gd_series_at(&f->series, v->last, g, (gd_metric)k) : gd_missing(GD_ST_UNREAD);
        x = 0;
        for (int c = 0; c < NCOLS; c++) {
            if (!shown[c])
                continue;
            char cell[128] = "";
            int attr = c == COL_GPU && v->sel == (int)g ? A_REVERSE : 0;
            if (c == COL_HIST && v->have)
                sparkline(v, &sc, g, y, x, from);
            else if (c != COL_HIST) {
                fmt_cell(v, c, g, at, cell, sizeof cell, &attr);
                cell[cols[c].width < (int)sizeof cell ? cols[c].width : (int)sizeof cell - 1] = '\0';
                text(y, x, cell, attr);
            }
            x += cols[c].width + 1;
        }
    }
    return y;
}

/* The selected GPU's details (or a line that says how to select one) and
 * the processes on the GPUs shown, in at most `rows` rows; returns the next row. */
static int draw_processes(gd_watch_view *v, int y, int rows)
{
    const gd_facts *f = v->f;
    int end = y + rows < LINES ? y + rows : LINES;
    char line[1024];
    if (v->sel >= 0) {
        const gd_gpu *gpu = &f->gpus[v->sel];
        char lim[4][32];
        fmt_value(lim[0], sizeof lim[0], gpu->temp_slowdown_c, "", 0, " C", 1);
        fmt_value(lim[1], sizeof lim[1], gpu->power_limit_w, "", 0, " W", 1);
        fmt_value(lim[2], sizeof lim[2], gpu->clock_max_sm_mhz, "", 0, " MHz", 1);
        fmt_value(lim[3], sizeof lim[3], gpu->mem_total_mib, "", 0, " MiB", 1);
        snprintf(line, sizeof line, "GPU %d selected (Esc: all): ", gpu->index);
        char body[768];
        snprintf(body, sizeof body, "%s, %s, serial %s; slowdown at %s, power limit %s, SM clock max %s, memory %s",
                 gd_safe(gpu->name), gd_safe(gpu->pci_bus_id), gpu->serial[0] ? gd_safe(gpu->serial) : "n/a", lim[0],
                 lim[1], lim[2], lim[3]);
        y = wrapped(y, 0, 4, (int)strlen(line), line, body, A_BOLD);
    }
    if (y >= end)
        return y;
    size_t total = 0;
    for (size_t g = 0; g < f->gpu_count; g++)
        if (v->sel < 0 || v->sel == (int)g)
            total += f->gpus[g].process_count;
    snprintf(line, sizeof line, "Processes (%zu, as read at the start)%s", total,
             v->sel < 0 ? "  Up/Down or 0-9 select a GPU" : "");
    text(y++, 0, line, A_BOLD);
    if (y >= end)
        return y;
    if (total == 0) {
        text(y++, 2, "none seen", 0);
        return y;
    }
#define PROC_ROW "%3s  %-8s %-10.10s %10s  %s"
    snprintf(line, sizeof line, PROC_ROW, "GPU", "PID", "USER", "MEMORY", "NAME");
    text(y++, 2, line, A_UNDERLINE);
    size_t shown = 0;
    for (size_t g = 0; g < f->gpu_count; g++) {
        if (v->sel >= 0 && v->sel != (int)g)
            continue;
        for (size_t k = 0; k < f->gpus[g].process_count; k++) {
            if (y >= end - (total - shown > 1 ? 1 : 0))
                break;
            const gd_process *p = &f->gpus[g].processes[k];
            char mem[32];
            fmt_value(mem, sizeof mem, p->used_mib, "", 0, " MiB", 1);
            char gi[16], pid[16];
            snprintf(gi, sizeof gi, "%d", f->gpus[g].index);
            snprintf(pid, sizeof pid, "%u", p->pid);
            snprintf(line, sizeof line, PROC_ROW, gi, pid, p->user[0] ? gd_safe(p->user) : "-", mem,
                     p->name[0] ? gd_safe(p->name) : "-");
            text(y++, 2, line, 0);
            shown++;
        }
    }
    if (shown < total && y < LINES) {
        snprintf(line, sizeof line, "+%zu more (select a GPU to see its own)", total - shown);
        text(y++, 2, line, 0);
    }
    return y;
}

static void draw_findings(gd_watch_view *v, int y)
{
    char line[1024];
    snprintf(line, sizeof line, "Findings over the last minute (%zu):", v->findings.n);
    text(y++, 0, line, A_BOLD);
    if (v->findings.n == 0)
        text(y++, 2, v->have ? "none" : "waiting for the first sample", 0);
    for (size_t k = 0; k < v->findings.n && y < LINES; k++) {
        const gd_finding *x1 = &v->findings.v[k];
        int attr = x1->severity == GD_SEV_CRITICAL  ? (v->color ? COLOR_PAIR(C_CRIT) | A_BOLD : A_BOLD)
                   : x1->severity == GD_SEV_WARNING ? (v->color ? COLOR_PAIR(C_WARN) : 0)
                                                    : 0;
        char gpu[16] = "host";
        if (x1->gpu >= 0)
            snprintf(gpu, sizeof gpu, "GPU %d", x1->gpu);
        char at[32];
        first_seen(v, x1, at, sizeof at);
        int n = snprintf(line, sizeof line, "%-8s %-8s %-22s %-6s ", at, gd_severity_name(x1->severity), x1->id, gpu);
        /* The title wraps under itself where there is room, else under the id. */
        int indent = COLS - 2 - n >= 30 ? n : 4;
        y = wrapped(y, 2, indent, n, line, x1->title, attr);
    }
}

static void draw_help(void)
{
    static const char *const lines[] = {
        "gpudoctor watch: keys",
        "",
        "  q              quit",
        "  p, Space       pause / resume the display (sampling goes on)",
        "  h, Left        plot the previous metric",
        "  l, Right       plot the next metric",
        "  Up, k / Down, j  select the previous / next GPU",
        "  0-9            select that GPU",
        "  Esc, a         all GPUs again",
        "  ?              this help (any key closes it)",
        "",
        "The history plots every GPU on one scale, given in the top line: its",
        "top is the metric's limit (slowdown temperature, maximum SM clock,",
        "power limit, 100 %, the memory size); samples at or over the limit",
        "are drawn in bold. The process pane lists the processes on the GPUs",
        "(the selected one's alone) as read when the watch started.",
    };
    erase();
    for (int k = 0; k < (int)(sizeof lines / sizeof lines[0]); k++)
        text(k, 0, lines[k], k == 0 ? A_BOLD : 0);
    refresh();
}

static void draw(gd_watch_view *v)
{
    if (v->help) {
        draw_help(); /* alone on a cleared screen, never over the table */
        return;
    }
    erase();
    const gd_facts *f = v->f;
    int y = draw_table(v);
    /* The host beside the GPUs: a busy CPU next to idle GPUs is the pattern of a starved job. */
    if (y < LINES) {
        char busy[16] = "n/a", io[16] = "n/a", line[96];
        const gd_host_series *hs = &f->host_series; /* the session samples the host once a second */
        const gd_host_sample *h = hs->n ? gd_host_at(hs, hs->n - 1) : NULL;
        if (h && !isnan(h->busy))
            snprintf(busy, sizeof busy, "%.0f%%", 100 * h->busy);
        if (h && !isnan(h->iowait))
            snprintf(io, sizeof io, "%.0f%%", 100 * h->iowait);
        snprintf(line, sizeof line, "host  CPU %s busy, iowait %s", busy, io);
        text(y++, 0, line, 0);
    }
    y++;
    /* The processes take at most about half of what is left: the findings come first. */
    int left = LINES - y;
    y = draw_processes(v, y, left / 2 > 3 ? left / 2 : 3);
    draw_findings(v, y + 1);
    refresh();
}

static void key(gd_watch_view *v, int ch)
{
    /* The terminal's cells after a resize are unknown (tmux reflows the old lines into the
       new width): repaint every cell, not only those curses thinks have changed. */
    if (ch == KEY_RESIZE)
        clearok(curscr, TRUE);
    if (v->help && ch != KEY_RESIZE) {
        v->help = false;
        return;
    }
    int gpus = v->f ? (int)v->f->gpu_count : 0;
    switch (ch) {
    case 'q':
    case 'Q': *v->stop = 1; break;
    case 'p':
    case ' ': v->paused = !v->paused; break;
    case 'h':
    case KEY_LEFT: v->plot = (v->plot + NPLOTS - 1) % NPLOTS; break;
    case 'l':
    case KEY_RIGHT: v->plot = (v->plot + 1) % NPLOTS; break;
    case 'j':
    case KEY_DOWN:
        if (gpus)
            v->sel = v->sel + 1 < gpus ? v->sel + 1 : gpus - 1;
        break;
    case 'k':
    case KEY_UP:
        if (gpus)
            v->sel = v->sel > 0 ? v->sel - 1 : 0;
        break;
    case 'a':
    case 27: v->sel = -1; break; /* Esc */
    case '?': v->help = true; break;
    case KEY_RESIZE: break; /* repainted whole, above */
    default:
        if (ch >= '0' && ch <= '9')
            for (int g = 0; g < gpus; g++)
                if (v->f->gpus[g].index == ch - '0')
                    v->sel = g;
        break;
    }
}

/* Reads keys until the next sample is due (or once, under the fast clock). */
static void wait_keys(gd_watch_view *v)
{
    double deadline = mono_s() + v->wall_wait_s;
    do {
        double left = deadline - mono_s();
        timeout(left > 0.1 ? 100 : left > 0 ? (int)(left * 1000) : 0);
        int ch = getch();
        if (ch != ERR) {
            key(v, ch);
            if (v->f)
                draw(v);
        }
    } while (!*v->stop && mono_s() < deadline);
}

static void on_snapshot(void *ud, const gd_facts *f)
{
    gd_watch_view *v = ud;
    v->f = f;
    draw(v);
}

static void on_sample(void *ud, const gd_facts *f, size_t i)
{
    gd_watch_view *v = ud;
    v->f = f;
    if (!v->paused) {
        v->have = true;
        v->last = i;
        judge(v);
        draw(v);
    } else if (v->last >= f->series.n) {
        v->last = f->series.n - 1; /* the ring moved under a paused view */
    }
    wait_keys(v);
}

gd_watch_view *gd_watch_view_open(volatile sig_atomic_t *stop, double wall_wait_s, bool color)
{
    gd_watch_view *v = calloc(1, sizeof *v);
    if (!v)
        return NULL;
    setlocale(LC_CTYPE, "");
    v->utf8 = strcmp(nl_langinfo(CODESET), "UTF-8") == 0;
    if (!initscr()) {
        free(v);
        return NULL;
    }
    v->started = true;
    v->stop = stop;
    v->sel = -1;
    set_escdelay(25); /* Esc alone: answered at once, not after a second */
    v->wall_wait_s = wall_wait_s;
    cbreak();
    noecho();
    keypad(stdscr, TRUE);
    curs_set(0);
    v->color = color && has_colors();
    if (v->color) {
        start_color();
        use_default_colors();
        init_pair(C_HEAD, COLOR_CYAN, -1);
        init_pair(C_WARN, COLOR_YELLOW, -1);
        init_pair(C_CRIT, COLOR_RED, -1);
    }
    return v;
}

gd_sink gd_watch_view_sink(gd_watch_view *v)
{
    return (gd_sink){.on_snapshot = on_snapshot, .on_sample = on_sample, .ud = v};
}

void gd_watch_view_close(gd_watch_view *v)
{
    if (!v)
        return;
    if (v->started)
        endwin();
    gd_findings_free(&v->findings);
    free(v);
}
