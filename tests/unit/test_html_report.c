/* SPDX-License-Identifier: Apache-2.0 */
/* The HTML report's pure pieces: escaping, downsampling, ticks, the SVG a
 * plot writes, the shaded intervals, and the page of literal facts. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "facts_fixture.h"
#include "gpudoctor/report.h"
#include "report/html_escape.h"
#include "report/report_spans.h"
#include "report/svg_plot.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What fn writes into a memory stream, NUL-terminated (the caller frees). */
#define CAPTURE(buf, stmt)                                                                                             \
    do {                                                                                                               \
        size_t len_;                                                                                                   \
        FILE *out = open_memstream(&(buf), &len_);                                                                     \
        assert_non_null(out);                                                                                          \
        stmt;                                                                                                          \
        fclose(out);                                                                                                   \
    } while (0)

static void escaped(const char *in, const char *want)
{
    char *buf = NULL;
    CAPTURE(buf, gd_html_text(out, in));
    assert_string_equal(buf, want);
    free(buf);
}

static void escape_markup_quotes_and_controls(void **state)
{
    (void)state;
    escaped("<script>alert(1)</script>", "&lt;script&gt;alert(1)&lt;/script&gt;");
    escaped("a & b \"c\" 'd'", "a &amp; b &quot;c&quot; &#39;d&#39;");
    escaped("line\nbreak\033[2J", "line?break?[2J");
    escaped("bad \xff byte", "bad ? byte");
    escaped("NVIDIA H100 \xc2\xb0"
            "C",
            "NVIDIA H100 \xc2\xb0"
            "C"); /* UTF-8 kept */
    escaped("", "");
    /* A long name (past the stack buffers) is escaped whole. */
    char longs[3000], want[3000 * 4 + 1];
    for (size_t i = 0; i < sizeof longs - 1; i++)
        longs[i] = i % 2 ? '<' : 'x';
    longs[sizeof longs - 1] = 0;
    size_t k = 0;
    for (size_t i = 0; i < sizeof longs - 1; i++)
        k += (size_t)sprintf(want + k, "%s", i % 2 ? "&lt;" : "x");
    escaped(longs, want);
}

static void downsample_short_series_keeps_every_sample(void **state)
{
    (void)state;
    double t[] = {0, 1, 2, 3, 4}, v[] = {1, 5, NAN, 2, 3};
    gd_svg_point out[16];
    size_t n = gd_svg_downsample(t, v, 5, 0, 4, 10, GD_SVG_MINMAX, out);
    assert_int_equal(n, 5);
    assert_true(out[1].v == 5 && out[1].t == 1);
    assert_true(isnan(out[2].v));
}

static void downsample_flat_runs_keep_their_ends(void **state)
{
    (void)state;
    double t[6] = {0, 1, 2, 3, 4, 5}, v[6] = {7, 7, 7, 7, 9, 9};
    gd_svg_point out[16];
    size_t n = gd_svg_downsample(t, v, 6, 0, 5, 10, GD_SVG_MINMAX, out);
    assert_int_equal(n, 4); /* 7@0 7@3 9@4 9@5 */
    assert_true(out[0].t == 0 && out[1].t == 3 && out[2].t == 4 && out[3].t == 5);
}

static void downsample_keeps_a_one_sample_spike(void **state)
{
    (void)state;
    enum { N = 10000 };
    double *t = malloc(N * sizeof *t), *v = malloc(N * sizeof *v);
    for (size_t i = 0; i < N; i++) {
        t[i] = (double)i * 0.1;
        v[i] = 60 + (double)(i % 7) * 0.1; /* noise */
    }
    v[4321] = 95; /* one sample too hot */
    v[8765] = 20; /* and one dip */
    gd_svg_point out[2 * 150];
    size_t n = gd_svg_downsample(t, v, N, 0, t[N - 1], 150, GD_SVG_MINMAX, out);
    assert_true(n <= 2 * 150);
    double hi = -INFINITY, lo = INFINITY;
    for (size_t i = 0; i < n; i++) {
        hi = fmax(hi, out[i].v);
        lo = fmin(lo, out[i].v);
        if (i)
            assert_true(out[i].t > out[i - 1].t); /* time order kept */
    }
    assert_true(hi == 95 && lo == 20);
    /* The band edges: the lowest and the highest of each slice. */
    n = gd_svg_downsample(t, v, N, 0, t[N - 1], 150, GD_SVG_MAX, out);
    assert_true(n <= 150);
    hi = -INFINITY;
    for (size_t i = 0; i < n; i++)
        hi = fmax(hi, out[i].v);
    assert_true(hi == 95);
    free(t);
    free(v);
}

static void downsample_marks_gaps(void **state)
{
    (void)state;
    enum { N = 1000 };
    double t[N], v[N];
    for (size_t i = 0; i < N; i++) {
        t[i] = (double)i;
        v[i] = i >= 400 && i < 600 ? NAN : (double)(i % 3);
    }
    gd_svg_point out[200];
    size_t n = gd_svg_downsample(t, v, N, 0, N - 1, 100, GD_SVG_MINMAX, out), gaps = 0;
    for (size_t i = 0; i < n; i++)
        gaps += isnan(out[i].v);
    assert_int_equal(gaps, 20); /* the slices of the unread stretch */
}

static void ticks_are_round(void **state)
{
    (void)state;
    double lo = 48, hi = 88, t[16], step;
    size_t n = gd_svg_ticks(&lo, &hi, 4, t, 16, &step);
    assert_true(step == 10 && lo == 40 && hi == 90);
    assert_int_equal(n, 6);
    assert_true(t[0] == 40 && t[5] == 90);
    lo = hi = 5; /* a flat series still gets an axis */
    n = gd_svg_ticks(&lo, &hi, 4, t, 16, &step);
    assert_true(n >= 2 && lo < 5 && hi > 5);
    lo = 0.02, hi = 0.07;
    gd_svg_ticks(&lo, &hi, 4, t, 16, &step);
    char buf[32];
    gd_svg_number(0.05, step, buf, sizeof buf);
    assert_string_equal(buf, "0.05");
    gd_svg_number(1980, 500, buf, sizeof buf);
    assert_string_equal(buf, "1980");
}

/* A series flat but for float noise (4200 +- 1e-9) gets the axis of a flat
 * one: distinct round labels, not "4200.000000" five times, and a straight
 * line, not noise drawn across the whole height (issue 39). */
static void near_flat_series_is_drawn_flat(void **state)
{
    (void)state;
    double lo = 4200 - 1e-9, hi = 4200 + 2e-9, t[16], step;
    size_t n = gd_svg_ticks(&lo, &hi, 4, t, 16, &step);
    assert_true(n >= 2);
    assert_true(hi - lo >= 1);
    char prev[32] = "", buf[32];
    for (size_t i = 0; i < n; i++) {
        gd_svg_number(t[i], step, buf, sizeof buf);
        assert_null(strchr(buf, '.'));
        assert_string_not_equal(buf, prev);
        snprintf(prev, sizeof prev, "%s", buf);
    }
    double tt[] = {0, 1, 2, 3, 4, 5}, v[] = {4200, 4200 + 1e-9, 4200 - 1e-9, 4200 + 2e-9, 4200, 4200 - 2e-9};
    gd_svg_series sr = {.label = "rate", .cls = "c0", .t = tt, .v = v, .n = 6};
    gd_svg_plot p = {
        .title = "flat", .unit = "KB/s", .t0 = 0, .t1 = 5, .ymin = NAN, .ymax = NAN, .series = &sr, .nseries = 1};
    char *svg = NULL;
    CAPTURE(svg, gd_svg_plot_write(out, &p));
    const char *d = strstr(svg, "class=\"line c0\" d=\"M");
    assert_non_null(d);
    /* Every point of the path at one height. */
    double y0 = NAN;
    for (const char *q = d + strlen("class=\"line c0\" d=\"M"); *q && *q != '"';) {
        double x, y;
        int used = 0;
        if (sscanf(q, " %lf %lf%n", &x, &y, &used) != 2)
            break;
        if (isnan(y0))
            y0 = y;
        assert_true(fabs(y - y0) < 0.5);
        q += used;
    }
    assert_false(isnan(y0));
    free(svg);
}

static void plot_writes_points_attributes_and_escaped_text(void **state)
{
    (void)state;
    double t[] = {0, 10, 20, 30}, v[] = {50, 88, 60, 60};
    gd_svg_series s = {.label = "GPU <0>", .cls = "c0", .t = t, .v = v, .n = 4, .attrs = "data-gpu=\"0\""};
    gd_svg_ref ref = {89, "slowdown 89 C"};
    gd_svg_span span = {10, 20, "sw_thermal_slowdown<x>", 5};
    gd_svg_plot p = {.title = "Temp & more",
                     .unit = "C",
                     .t0 = 0,
                     .t1 = 30,
                     .ymin = NAN,
                     .ymax = NAN,
                     .series = &s,
                     .nseries = 1,
                     .refs = &ref,
                     .nrefs = 1,
                     .spans = &span,
                     .nspans = 1};
    char *buf = NULL;
    CAPTURE(buf, gd_svg_plot_write(out, &p));
    assert_non_null(strstr(buf, "<svg class=\"plot\""));
    assert_non_null(strstr(buf, "Temp &amp; more (C)"));
    assert_non_null(strstr(buf, "data-n=\"4\" data-min=\"50\" data-max=\"88\" data-gpu=\"0\""));
    assert_non_null(strstr(buf, "sw_thermal_slowdown&lt;x&gt;"));
    assert_null(strstr(buf, "<x>"));
    assert_non_null(strstr(buf, "slowdown 89 C"));
    assert_non_null(strstr(buf, "<rect class=\"span r5\""));
    /* Four samples, four points in one path (no flat run of three). */
    const char *d = strstr(buf, "<path class=\"line c0\" d=\"M");
    assert_non_null(d);
    d += strlen("<path class=\"line c0\" d=\"M");
    size_t numbers = 0;
    for (const char *q = d; *q != '"'; q++)
        if ((*q >= '0' && *q <= '9') && (q == d || q[-1] == ' ' || q[-1] == 'M'))
            numbers++;
    assert_int_equal(numbers, 8);
    free(buf);
}

static void bars_stack_segments(void **state)
{
    (void)state;
    double v[] = {5, 3, 2, 6, 1, 1};
    double dl[] = {1, 4};
    static const char *const seg[] = {"compute", "non-compute", "idle"}, *const cls[] = {"c2", "c1", "peer"};
    static const char *const cat[] = {"#1", "<#2>"};
    gd_svg_bars b = {.title = "Steps",
                     .unit = "ms",
                     .ncat = 2,
                     .nseg = 3,
                     .v = v,
                     .seg_label = seg,
                     .seg_cls = cls,
                     .cat_label = cat,
                     .overlay = dl,
                     .overlay_label = "DataLoader",
                     .overlay_cls = "c5"};
    char *buf = NULL;
    CAPTURE(buf, gd_svg_bars_write(out, &b));
    size_t rects = 0;
    for (const char *q = buf; (q = strstr(q, "<rect class=\"bar ")); q++)
        rects++;
    assert_int_equal(rects, 6 + 2 + 4); /* segments, overlays, legend swatches */
    assert_non_null(strstr(buf, "&lt;#2&gt;"));
    free(buf);
}

static void spans_follow_the_reasons(void **state)
{
    (void)state;
    gd_facts f;
    fx_facts(&f, 2, 20);
    unsigned long long thermal = gd_reason_bit("sw_thermal_slowdown"), idle = gd_reason_bit("gpu_idle");
    fx_set(&f, 0, GD_M_EVENT_REASONS, 0, 20, 0);
    fx_set(&f, 0, GD_M_EVENT_REASONS, 5, 9, (double)thermal);
    fx_set(&f, 0, GD_M_EVENT_REASONS, 10, 12, (double)thermal); /* one sample after: merged with merge_s 2 */
    fx_set(&f, 0, GD_M_EVENT_REASONS, 15, 20, (double)idle); /* idle is no throttle */
    gd_report_span s[8];
    size_t n = gd_reason_spans(&f, 0, 0.5, s, 8);
    assert_int_equal(n, 2);
    assert_true(s[0].t0 == 5 && s[0].t1 == 9 && s[1].t0 == 10 && s[1].t1 == 12);
    assert_string_equal(s[0].label, "sw_thermal_slowdown");
    n = gd_reason_spans(&f, 0, 2, s, 8);
    assert_int_equal(n, 1);
    assert_true(s[0].t0 == 5 && s[0].t1 == 12);
    /* A link at Gen1 under load is shaded; at full speed it is not. */
    f.gpus[1].pcie_gen_max = gd_val(5);
    f.gpus[1].pcie_width_max = gd_val(16);
    fx_set(&f, 1, GD_M_PCIE_GEN, 0, 20, 5);
    fx_set(&f, 1, GD_M_PCIE_WIDTH, 0, 20, 16);
    fx_set(&f, 1, GD_M_PCIE_GEN, 3, 6, 1);
    n = gd_pcie_spans(&f, 1, 0, s, 8);
    assert_int_equal(n, 1);
    assert_true(s[0].t0 == 3 && s[0].t1 == 6);
    assert_non_null(strstr(s[0].label, "Gen1"));
    gd_facts_free(&f);
}

static void page_escapes_outside_names(void **state)
{
    (void)state;
    gd_facts f;
    fx_facts(&f, 2, 30);
    snprintf(f.gpus[1].name, sizeof f.gpus[1].name, "<img src=x onerror=alert(1)>");
    snprintf(f.host.hostname, sizeof f.host.hostname, "<script>alert(1)</script>");
    gd_findings fs = {0};
    gd_checks_run_all(&f, &fs);
    char *buf = NULL;
    CAPTURE(buf, gd_report_html(out, &f, &fs));
    assert_null(strstr(buf, "<script"));
    assert_null(strstr(buf, "<img"));
    assert_non_null(strstr(buf, "&lt;script&gt;alert(1)&lt;/script&gt;"));
    assert_non_null(strstr(buf, "&lt;img src=x onerror=alert(1)&gt;"));
    assert_non_null(strstr(buf, "id=\"gpu-1\""));
    assert_non_null(strstr(buf, "data-metric=\"temp_c\""));
    assert_null(strstr(buf, "http://"));
    assert_null(strstr(buf, "https://"));
    assert_non_null(strstr(buf, "</html>"));
    free(buf);
    gd_findings_free(&fs);
    gd_facts_free(&f);
}

/* Evidence in the page reads as the text writes it, in words, never JSON
 * ("[{\"gpus\":[0,1]..." was dumped as is). */
static void page_evidence_is_words(void **state)
{
    (void)state;
    gd_facts f;
    fx_facts(&f, 2, 30);
    gd_findings fs = {0};
    json_t *ev =
        json_pack("{s:[{s:[i,i],s:f}], s:[i]}", "pairs", "gpus", 0, 1, "path_gbps", 31.5, "down_link_indices", 17);
    gd_finding_add(&fs, "p2p.unsupported", GD_SEV_INFO, GD_NO_GPU, ev, NAN, "fix", "No P2P between 1 GPU pair");
    char *buf = NULL;
    CAPTURE(buf, gd_report_html(out, &f, &fs));
    assert_non_null(strstr(buf, "<b>pairs</b> gpus (0, 1), path_gbps 31.5</span>"));
    assert_non_null(strstr(buf, "<b>down_link_indices</b> 17</span>"));
    assert_null(strstr(buf, "&quot;gpus&quot;"));
    free(buf);
    gd_findings_free(&fs);
    gd_facts_free(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(escape_markup_quotes_and_controls),
        cmocka_unit_test(page_evidence_is_words),
        cmocka_unit_test(downsample_short_series_keeps_every_sample),
        cmocka_unit_test(downsample_flat_runs_keep_their_ends),
        cmocka_unit_test(downsample_keeps_a_one_sample_spike),
        cmocka_unit_test(downsample_marks_gaps),
        cmocka_unit_test(ticks_are_round),
        cmocka_unit_test(near_flat_series_is_drawn_flat),
        cmocka_unit_test(plot_writes_points_attributes_and_escaped_text),
        cmocka_unit_test(bars_stack_segments),
        cmocka_unit_test(spans_follow_the_reasons),
        cmocka_unit_test(page_escapes_outside_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
