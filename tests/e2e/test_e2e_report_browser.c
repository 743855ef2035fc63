/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The HTML report in a real browser: Debian's Chromium, headless. The page
 * renders whole with every request refused, the screenshot is not blank
 * and shows the plots, the DOM holds nothing that fetches, the SVG series
 * match the scenario's values (point count and extremes), and a hostile
 * process name stays text. Skipped without Chromium; a failure under
 * CI=true.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "report_fixture.h"
#include "run_tool.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const env[] = {"NO_COLOR=", "GPUDOCTOR_SIM_TIMESCALE=", NULL};

/* A proxy that answers nothing: any request the page made would fail. */
static const char *const offline[] = {"--proxy-server=127.0.0.1:9", "--proxy-bypass-list=<-loopback>", NULL};

/* The page of `check` on scenario for duration seconds at interval ms, into dir/name. */
static void write_page(const char *dir, const char *name, const char *scenario, const char *duration,
                       const char *interval, char *page, size_t len)
{
    snprintf(page, len, "%s/%s", dir, name);
    const char *argv[] = {"check",      "--sim",  scenario,   "--duration", duration,
                          "--interval", interval, "--report", page,         NULL};
    tool_result r = run_tool(argv, env);
    assert_true(r.exit_code >= 0 && r.exit_code <= 2);
    tool_result_free(&r);
}

/* Chromium's DOM of page (--dump-dom), offline; the caller frees. */
static char *dom_of(const char *dir, const char *page)
{
    char out[1200], profile[1200];
    snprintf(out, sizeof out, "%s/dom.html", dir);
    snprintf(profile, sizeof profile, "%s/profile-dom", dir);
    const char *args[] = {offline[0], offline[1], "--dump-dom", NULL};
    assert_int_equal(chromium_run(page, args, out, profile), 0);
    char *dom = slurp(out, NULL);
    assert_non_null(dom);
    return dom;
}

typedef struct rgb {
    int r, g, b;
} rgb;

static size_t pixels_near(const unsigned char *px, size_t n, rgb c, int tol)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        const unsigned char *p = px + 3 * i;
        k += abs(p[0] - c.r) <= tol && abs(p[1] - c.g) <= tol && abs(p[2] - c.b) <= tol;
    }
    return k;
}

static void demo_screenshot_shows_the_plots(void **state)
{
    (void)state;
    need_chromium();
    char *dir = temp_dir(), page[1200], shot[1200], shot_arg[1300], profile[1200];
    write_page(dir, "demo.html", example("demo.json"), "10", "100", page, sizeof page);
    snprintf(shot, sizeof shot, "%s/demo.png", dir);
    snprintf(shot_arg, sizeof shot_arg, "--screenshot=%s", shot);
    snprintf(profile, sizeof profile, "%s/profile-shot", dir);
    const char *args[] = {offline[0], offline[1], shot_arg, "--window-size=1200,2000", "--hide-scrollbars", NULL};
    assert_int_equal(chromium_run(page, args, NULL, profile), 0);
    unsigned w = 0, h = 0;
    unsigned char *px = NULL;
    need_component(png_rgb(shot, &w, &h, &px) == 0, "libpng (the screenshot's decoder)",
                   "make test installs libpng-dev (sudo bash scripts/install-deps.sh test), then configures again");
    assert_int_equal(w, 1200);
    assert_int_equal(h, 2000);
    size_t n = (size_t)w * h, white = pixels_near(px, n, (rgb){255, 255, 255}, 3);
    print_message("screenshot %ux%u: %.1f %% white\n", w, h, 100.0 * (double)white / (double)n);
    assert_true(white < n * 97 / 100); /* not blank */
    assert_true(white > n / 3); /* and not a failure page of one colour */
    /* The plot area: each GPU's line (Okabe-Ito blue), its peers' grey band
     * and the dashed limits (vermillion), all drawn. */
    size_t blue = pixels_near(px, n, (rgb){0x00, 0x72, 0xb2}, 40), band = pixels_near(px, n, (rgb){214, 214, 214}, 12),
           ref = pixels_near(px, n, (rgb){0xd5, 0x5e, 0x00}, 40);
    print_message("plot pixels: line %zu, peer band %zu, limits %zu\n", blue, band, ref);
    assert_true(blue > 1000);
    assert_true(band > 5000);
    assert_true(ref > 300);
    /* The plots lie below the findings: the lower half holds most of the line. */
    size_t lower = pixels_near(px + 3 * (n / 2), n / 2, (rgb){0x00, 0x72, 0xb2}, 40);
    assert_true(lower > blue / 3);
    free(px);
    remove_tree(dir);
    free(dir);
}

static void renders_whole_with_every_request_refused(void **state)
{
    (void)state;
    need_chromium();
    char *dir = temp_dir(), page[1200];
    write_page(dir, "demo.html", example("demo.json"), "10", "100", page, sizeof page);
    char *dom = dom_of(dir, page);
    assert_non_null(strstr(dom, "this page fetches nothing")); /* the footer: parsed to the end */
    assert_int_equal(count_of(dom, "<svg class=\"plot\""), 8 * 6); /* every plot */
    assert_non_null(strstr(dom, "Verdict: CRITICAL"));
    assert_self_contained(dom);
    assert_null(strstr(dom, "=\"http"));
    assert_null(strstr(dom, "=\"//"));
    free(dom);
    remove_tree(dir);
    free(dir);
}

/* The number in attribute name="..." after p. */
static double attr_num(const char *p, const char *name)
{
    char key[64];
    snprintf(key, sizeof key, " %s=\"", name);
    const char *a = strstr(p, key);
    assert_non_null(a);
    return strtod(a + strlen(key), NULL);
}

static void svg_series_match_the_scenario(void **state)
{
    (void)state;
    need_chromium();
    char *dir = temp_dir(), page[1200];
    scenario_opts so = {.gpus = 2, .points = 31};
    char *scen = write_scenario(dir, "known.json", &so);
    write_page(dir, "known.html", scen, "30", "1000", page, sizeof page);
    char *dom = dom_of(dir, page);
    /* GPU 0's temperature: its <svg> (the axes) and its line. */
    const char *svg = strstr(dom, "data-gpu=\"0\" data-metric=\"temp_c\"><title>Temperature");
    assert_non_null(svg);
    while (svg > dom && strncmp(svg, "<svg", 4) != 0)
        svg--;
    const char *line = strstr(svg, "<path class=\"line c0\"");
    assert_non_null(line);
    size_t n = (size_t)attr_num(line, "data-n");
    assert_int_equal(n, 31); /* a sample a second from 0 to 30 s */
    double lo = INFINITY, hi = -INFINITY;
    size_t expect_points = 0;
    for (size_t i = 0; i < n; i++) {
        double v = scenario_temp(0, i);
        lo = fmin(lo, v);
        hi = fmax(hi, v);
        /* the middle of a flat run draws nothing */
        bool flat = i > 0 && i + 1 < n && scenario_temp(0, i - 1) == v && scenario_temp(0, i + 1) == v;
        expect_points += !flat;
    }
    assert_true(attr_num(line, "data-min") == lo);
    assert_true(attr_num(line, "data-max") == hi);
    /* The points themselves, mapped back through the axes. */
    double py0 = attr_num(svg, "data-py"), v0 = attr_num(svg, "data-y");
    const char *py = strstr(svg, " data-py=\"") + 10, *vy = strstr(svg, " data-y=\"") + 9;
    char *end;
    strtod(py, &end);
    double py1 = strtod(end, NULL);
    strtod(vy, &end);
    double v1 = strtod(end, NULL);
    const char *d = strstr(line, " d=\"M") + 5;
    size_t points = 0;
    double ymin = INFINITY, ymax = -INFINITY;
    while (*d && *d != '"') {
        strtod(d, &end); /* x */
        double y = strtod(end, &end);
        ymin = fmin(ymin, y);
        ymax = fmax(ymax, y);
        points++;
        d = end;
        while (*d == ' ' || *d == 'M')
            d++;
    }
    assert_int_equal(points, expect_points);
    double per_px = (v1 - v0) / (py0 - py1), top = v0 + (py0 - ymin) * per_px, bottom = v0 + (py0 - ymax) * per_px;
    print_message("GPU 0 temperature: %zu points, %g to %g C drawn (data %g to %g)\n", points, bottom, top, lo, hi);
    assert_true(fabs(top - hi) <= 0.051 * per_px); /* y is written to a tenth of a pixel */
    assert_true(fabs(bottom - lo) <= 0.051 * per_px);
    free(dom);
    free(scen);
    remove_tree(dir);
    free(dir);
}

static void hostile_process_name_stays_text(void **state)
{
    (void)state;
    need_chromium();
    char *dir = temp_dir(), page[1200];
    scenario_opts so = {.gpus = 2,
                        .points = 10,
                        .process_name = "<script>alert(1)</script>",
                        .gpu_name = "H100<img src=x onerror=alert(2)>"};
    char *scen = write_scenario(dir, "hostile.json", &so);
    write_page(dir, "hostile.html", scen, "5", "1000", page, sizeof page);
    char *dom = dom_of(dir, page);
    /* The browser's DOM holds the name as text in the process table... */
    assert_non_null(strstr(dom, "<td>&lt;script&gt;alert(1)&lt;/script&gt;</td>"));
    assert_non_null(strstr(dom, "H100&lt;img src=x onerror=alert(2)&gt;"));
    /* ...and no element it would have made. */
    assert_null(strcasestr(dom, "<script"));
    assert_null(strcasestr(dom, "<img"));
    assert_self_contained(dom);
    free(dom);
    free(scen);
    remove_tree(dir);
    free(dir);
}

/*
 * The page laid out at width px: a copy of it with a measuring script (the
 * page itself has none, and its Content-Security-Policy would refuse one),
 * whose report Chromium's DOM carries. Returns "doc W win W" and one
 * "table I id ID sw W cw W" line per table (scrollWidth, clientWidth); the
 * caller frees.
 */
static char *layout_of(const char *dir, const char *page, int px)
{
    char *html = slurp(page, NULL);
    assert_non_null(html);
    char *csp = strstr(html, "<meta http-equiv=\"Content-Security-Policy\"");
    assert_non_null(csp);
    memset(csp, ' ', (size_t)(strchr(csp, '>') + 1 - csp));
    char *end = strstr(html, "</body>");
    assert_non_null(end);
    *end = '\0';
    char copy[1300], out[1300], profile[1300], size[64];
    snprintf(copy, sizeof copy, "%s/measured.html", dir);
    FILE *f = fopen(copy, "w");
    assert_non_null(f);
    fprintf(f,
            "%s<script>const o=['doc '+document.documentElement.scrollWidth+' win '+innerWidth];"
            "document.querySelectorAll('table').forEach((t,i)=>o.push('table '+i+' id '+(t.id||'-')+' sw '+"
            "t.scrollWidth+' cw '+t.clientWidth));const p=document.createElement('pre');p.id='layout';"
            "p.textContent=o.join('\\n');document.body.appendChild(p);</script></body></html>\n",
            html);
    fclose(f);
    free(html);
    snprintf(out, sizeof out, "%s/layout.html", dir);
    snprintf(profile, sizeof profile, "%s/profile-layout", dir);
    snprintf(size, sizeof size, "--window-size=%d,900", px);
    const char *args[] = {offline[0], offline[1], size, "--dump-dom", NULL};
    assert_int_equal(chromium_run(copy, args, out, profile), 0);
    char *dom = slurp(out, NULL);
    assert_non_null(dom);
    char *at = strstr(dom, "<pre id=\"layout\">");
    assert_non_null(at);
    char *res = strdup(at + strlen("<pre id=\"layout\">"));
    res[strcspn(res, "<")] = '\0';
    free(dom);
    return res;
}

/* The GPU table of 8 GPUs fits a 1400-pixel window, no scrolling (issue 39:
 * 1744 pixels of table in a 1180-pixel box), nor does the page overflow. */
static void gpu_table_fits_the_page(void **state)
{
    (void)state;
    need_chromium();
    char *dir = temp_dir(), page[1200];
    write_page(dir, "t.html", example("h100x8-thermal-throttling.json"), "10", "100", page, sizeof page);
    char *lay = layout_of(dir, page, 1400);
    print_message("layout at 1400 px:\n%s\n", lay);
    int doc = 0, win = 0;
    assert_int_equal(sscanf(lay, "doc %d win %d", &doc, &win), 2);
    assert_true(doc <= win);
    const char *t = strstr(lay, " id gpu-table ");
    assert_non_null(t);
    int sw = 0, cw = 0;
    assert_int_equal(sscanf(t, " id gpu-table sw %d cw %d", &sw, &cw), 2);
    if (sw > cw)
        fail_msg("the GPU table is %d pixels wide in a box of %d", sw, cw);
    free(lay);
    remove_tree(dir);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(demo_screenshot_shows_the_plots), cmocka_unit_test(renders_whole_with_every_request_refused),
        cmocka_unit_test(svg_series_match_the_scenario),   cmocka_unit_test(hostile_process_name_stays_text),
        cmocka_unit_test(gpu_table_fits_the_page),
    };
    return realdata_exit(cmocka_run_group_tests(tests, NULL, NULL));
}
