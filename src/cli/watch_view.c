/* SPDX-License-Identifier: Apache-2.0 */
/* The live view of `gpudoctor watch` (watch_view.h). */
#include "watch_view.h"

#include "gpudoctor/checks.h"

#include <curses.h>
#include <langinfo.h>
#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define FINDINGS_SPAN_S 60.0

/* The metrics the sparkline can plot (h/l cycles through them). */
static const struct plot {
    gd_metric m;
    const char *label;
} plots[] = {
    {GD_M_TEMP_C, "temperature"},       {GD_M_SM_CLOCK_MHZ, "SM clock"},    {GD_M_POWER_W, "power"},
    {GD_M_UTIL_GPU_PCT, "utilisation"}, {GD_M_MEM_USED_MIB, "memory used"}, {GD_M_PCIE_RX_KBPS, "PCIe rx"},
};
#define NPLOTS (int)(sizeof plots / sizeof plots[0])

/* Short names of the clock-event reasons; `slow` ones are drawn as alarms. */
static const struct reason {
    const char *name, *shown;
    bool slow;
} reasons[] = {
    {"gpu_idle", "idle", false},
    {"applications_clocks_setting", "app-clocks", false},
    {"sw_power_cap", "power-cap", true},
    {"hw_slowdown", "hw-slowdown", true},
    {"sync_boost", "sync-boost", false},
    {"sw_thermal_slowdown", "sw-thermal", true},
    {"hw_thermal_slowdown", "hw-thermal", true},
    {"hw_power_brake_slowdown", "power-brake", true},
    {"display_clock_setting", "display", false},
};

enum { C_HEAD = 1, C_WARN, C_CRIT };

/* Columns, in their order on screen; `drop`: the first to go when narrow (higher first). */
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
    [COL_GPU] = {"GPU", 3, 0},          [COL_NAME] = {"NAME", 14, 9},       [COL_TEMP] = {"TEMP", 4, 1},
    [COL_MTEMP] = {"MEMT", 4, 7},       [COL_SM] = {"SM MHz/MAX", 10, 2},   [COL_POWER] = {"POWER W", 9, 3},
    [COL_UTIL] = {"UTIL", 4, 4},        [COL_MEM] = {"MEM GiB", 9, 6},      [COL_LINK] = {"LINK", 5, 8},
    [COL_PCIE] = {"PCIe MB/s", 11, 10}, [COL_REASONS] = {"REASONS", 16, 0}, [COL_HIST] = {"HISTORY", 10, 11},
};

struct gd_watch_view {
    volatile sig_atomic_t *stop;
    double wall_wait_s;
    bool color, utf8, paused, help;
    int plot;
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
    gd_series upto = gd_series_window(&f->series, 0, v->last + 1); /* a paused view judges what it shows */
    gd_facts w = gd_facts_window(f, gd_series_last(&upto, FINDINGS_SPAN_S));
    gd_findings_free(&v->findings);
    memset(&v->findings, 0, sizeof v->findings);
    double t = gd_series_t(&f->series, v->last);
    while (w.events.n && w.events.v[w.events.n - 1].t > t + 1e-9) /* a paused view: not yet */
        w.events.n--;
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

static void sparkline(gd_watch_view *v, size_t g, int y, int x, int width)
{
    static const char *const blocks[] = {"\u2581", "\u2582", "\u2583", "\u2584",
                                         "\u2585", "\u2586", "\u2587", "\u2588"};
    static const char ascii[] = "_.-:=+*#";
    const gd_series *s = &v->f->series;
    gd_metric m = plots[v->plot].m;
    size_t n = v->last + 1, from = n > (size_t)width ? n - (size_t)width : 0;
    double lo = INFINITY, hi = -INFINITY;
    for (size_t i = from; i < n; i++) {
        gd_value x1 = gd_series_at(s, i, g, m);
        if (gd_ok(x1))
            lo = fmin(lo, x1.v), hi = fmax(hi, x1.v);
    }
    if (lo > 0 && m != GD_M_SM_CLOCK_MHZ && m != GD_M_TEMP_C)
        lo = 0; /* amounts start at zero; clocks and temperatures show their swing */
    move(y, x);
    for (size_t i = from; i < n && getcurx(stdscr) < COLS - 1; i++) {
        gd_value x1 = gd_series_at(s, i, g, m);
        int level = !gd_ok(x1) ? -1 : hi > lo ? (int)((x1.v - lo) / (hi - lo) * 7.0 + 0.5) : 3;
        if (level < 0)
            addch(' ');
        else if (v->utf8)
            addstr(blocks[level]);
        else
            addch((chtype)ascii[level]);
    }
}

static int reasons_text(unsigned long long mask, char *buf, size_t len)
{
    int slow = 0;
    buf[0] = '\0';
    for (size_t k = 0; k < sizeof reasons / sizeof reasons[0]; k++)
        if (mask & gd_reason_bit(reasons[k].name)) {
            size_t used = strlen(buf);
            snprintf(buf + used, len - used, "%s%s", used ? "," : "", reasons[k].shown);
            slow |= reasons[k].slow;
        }
    return slow;
}

static void draw(gd_watch_view *v)
{
    erase();
    const gd_facts *f = v->f;
    bool shown[NCOLS];
    int total = 0;
    for (int c = 0; c < NCOLS; c++)
        shown[c] = true, total += cols[c].width + 1;
    /* Narrow terminals: drop columns, widest-drop first, never wrap. */
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
    int hist_w = shown[COL_HIST] ? cols[COL_HIST].width + (COLS - total) : 0;

    char line[1024];
    /* What changes first, the source last: a narrow terminal clips the end. */
    snprintf(line, sizeof line, "gpudoctor watch  t=%.1fs%s  plot: %s (h/l)  ? help  q quit  %.300s",
             v->have ? gd_series_t(&f->series, v->last) : 0.0, v->paused ? "  [paused]" : "", plots[v->plot].label,
             f->source);
    text(0, 0, line, v->color ? COLOR_PAIR(C_HEAD) | A_BOLD : A_BOLD);
    int x = 0;
    for (int c = 0; c < NCOLS; c++)
        if (shown[c]) {
            text(1, x, cols[c].head, A_UNDERLINE);
            x += cols[c].width + 1;
        }
    int y = 2;
    for (size_t g = 0; g < f->gpu_count && y < LINES; g++, y++) {
        const gd_gpu *gpu = &f->gpus[g];
        const gd_series *s = &f->series;
        size_t i = v->last;
        gd_value at[GD_M_COUNT];
        for (int m = 0; m < GD_M_COUNT; m++)
            at[m] = v->have ? gd_series_at(s, i, g, (gd_metric)m) : gd_missing(GD_ST_UNREAD);
        x = 0;
        for (int c = 0; c < NCOLS; c++) {
            if (!shown[c])
                continue;
            char cell[128] = "", a[32], b[32];
            int attr = 0;
            switch (c) {
            case COL_GPU: snprintf(cell, sizeof cell, "%3d", gpu->index); break;
            case COL_NAME: {
                const char *name = strncmp(gpu->name, "NVIDIA ", 7) == 0 ? gpu->name + 7 : gpu->name;
                snprintf(cell, sizeof cell, "%.14s", name);
                break;
            }
            case COL_TEMP:
            case COL_MTEMP:
                fmt_value(cell, sizeof cell, at[c == COL_TEMP ? GD_M_TEMP_C : GD_M_MEM_TEMP_C], "", 0, "C", 1);
                break;
            case COL_SM:
                fmt_value(a, sizeof a, at[GD_M_SM_CLOCK_MHZ], "", 0, "", 1);
                fmt_value(b, sizeof b, gpu->clock_max_sm_mhz, "", 0, "", 1);
                snprintf(cell, sizeof cell, "%s/%s", a, b);
                break;
            case COL_POWER:
                fmt_value(a, sizeof a, at[GD_M_POWER_W], "", 0, "", 1);
                fmt_value(b, sizeof b, gpu->power_limit_w, "", 0, "", 1);
                snprintf(cell, sizeof cell, "%s/%s", a, b);
                break;
            case COL_UTIL: fmt_value(cell, sizeof cell, at[GD_M_UTIL_GPU_PCT], "", 0, "%", 1); break;
            case COL_MEM:
                fmt_value(a, sizeof a, at[GD_M_MEM_USED_MIB], "", 1, "", 1.0 / 1024);
                fmt_value(b, sizeof b, gpu->mem_total_mib, "", 0, "", 1.0 / 1024);
                snprintf(cell, sizeof cell, "%s/%s", a, b);
                break;
            case COL_LINK:
                fmt_value(a, sizeof a, at[GD_M_PCIE_GEN], "G", 0, "", 1);
                fmt_value(b, sizeof b, at[GD_M_PCIE_WIDTH], "x", 0, "", 1);
                snprintf(cell, sizeof cell, "%s%s", a, b);
                break;
            case COL_PCIE:
                fmt_value(a, sizeof a, at[GD_M_PCIE_TX_KBPS], "", 0, "", 1.0 / 1000);
                fmt_value(b, sizeof b, at[GD_M_PCIE_RX_KBPS], "", 0, "", 1.0 / 1000);
                snprintf(cell, sizeof cell, "%s/%s", a, b);
                break;
            case COL_REASONS:
                if (gpu->lost) {
                    snprintf(cell, sizeof cell, "GPU LOST");
                    attr = v->color ? COLOR_PAIR(C_CRIT) | A_BOLD : A_BOLD;
                } else if (gd_ok(at[GD_M_EVENT_REASONS])) {
                    if (reasons_text((unsigned long long)at[GD_M_EVENT_REASONS].v, cell, sizeof cell))
                        attr = v->color ? COLOR_PAIR(C_WARN) | A_BOLD : A_BOLD;
                }
                break;
            case COL_HIST:
                if (v->have)
                    sparkline(v, g, y, x, hist_w);
                break;
            }
            if (c != COL_HIST) {
                cell[cols[c].width < (int)sizeof cell ? cols[c].width : (int)sizeof cell - 1] = '\0';
                text(y, x, cell, attr);
            }
            x += cols[c].width + 1;
        }
    }
    /* The host beside the GPUs: a busy CPU next to idle GPUs is the pattern of a starved job. */
    if (y < LINES) {
        char busy[16] = "n/a", io[16] = "n/a";
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
    snprintf(line, sizeof line, "Findings over the last minute (%zu):", v->findings.n);
    text(y++, 0, line, A_BOLD);
    if (v->findings.n == 0)
        text(y++, 2, v->have ? "none" : "waiting for the first sample", 0);
    for (size_t k = 0; k < v->findings.n && y < LINES; k++, y++) {
        const gd_finding *x1 = &v->findings.v[k];
        int attr = x1->severity == GD_SEV_CRITICAL  ? (v->color ? COLOR_PAIR(C_CRIT) | A_BOLD : A_BOLD)
                   : x1->severity == GD_SEV_WARNING ? (v->color ? COLOR_PAIR(C_WARN) : 0)
                                                    : 0;
        char gpu[16] = "host";
        if (x1->gpu >= 0)
            snprintf(gpu, sizeof gpu, "GPU %d", x1->gpu);
        char at[32];
        first_seen(v, x1, at, sizeof at);
        snprintf(line, sizeof line, "%-8s %-8s %-22s %-6s %s", at, gd_severity_name(x1->severity), x1->id, gpu,
                 x1->title);
        text(y, 2, line, attr);
    }
    if (v->help) {
        static const char *const lines[] = {
            " keys ",
            " q        quit",
            " p        pause / resume the display",
            " h, Left  plot the previous metric",
            " l, Right plot the next metric",
            " ?        this help (any key closes it)",
        };
        for (int k = 0; k < (int)(sizeof lines / sizeof lines[0]); k++)
            text(3 + k, 4, lines[k], A_REVERSE);
    }
    refresh();
}

static void key(gd_watch_view *v, int ch)
{
    if (v->help && ch != KEY_RESIZE) {
        v->help = false;
        return;
    }
    switch (ch) {
    case 'q':
    case 'Q': *v->stop = 1; break;
    case 'p':
    case ' ': v->paused = !v->paused; break;
    case 'h':
    case KEY_LEFT: v->plot = (v->plot + NPLOTS - 1) % NPLOTS; break;
    case 'l':
    case KEY_RIGHT: v->plot = (v->plot + 1) % NPLOTS; break;
    case '?': v->help = true; break;
    case KEY_RESIZE: break;
    default: return;
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
