/* SPDX-License-Identifier: Apache-2.0 */
/*
 * --report on real captures and traces (../shared/realdata, SOURCES.md
 * there): an H100's nvidia-smi -q with its dmon log (curves), an 8-GPU
 * snapshot with throttling findings, and a PyTorch profiler trace of two
 * ranks; the capture's page in Chromium too. Skipped without the captures
 * (or without Chromium, for the browser case); failures under CI=true.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "report_fixture.h"
#include "run_tool.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const env[] = {"NO_COLOR=", NULL};

/* check --from the files (NULL-terminated) --report dir/name; the page, read back. */
static char *capture_page(const char *dir, const char *name, const char *const *files, char *page, size_t len)
{
    snprintf(page, len, "%s/%s", dir, name);
    const char *argv[16] = {"check"};
    size_t n = 1;
    for (size_t i = 0; files[i]; i++) {
        argv[n++] = "--from";
        argv[n++] = files[i];
    }
    argv[n++] = "--report";
    argv[n++] = page;
    argv[n] = NULL;
    tool_result r = run_tool(argv, env);
    assert_true(r.exit_code >= 0 && r.exit_code <= 2);
    assert_non_null(strstr(r.err, "report written to"));
    tool_result_free(&r);
    char *html = slurp(page, NULL);
    assert_non_null(html);
    assert_self_contained(html);
    assert_non_null(strstr(html, "CAPTURE"));
    return html;
}

static void h100_capture_with_its_dmon_log_has_curves(void **state)
{
    (void)state;
    need_realdata();
    char *dir = temp_dir(), page[1200], smi[1024], dmon[1024];
    snprintf(smi, sizeof smi, "%s", realdata("smi-text/h100-sxm-load-utku.txt"));
    snprintf(dmon, sizeof dmon, "%s", realdata("smi-csv/h100-load-dmon-utku.txt"));
    const char *files[] = {smi, dmon, NULL};
    char *html = capture_page(dir, "h100.html", files, page, sizeof page);
    assert_non_null(strstr(html, "NVIDIA H100 80GB HBM3"));
    assert_non_null(strstr(html, "5 samples"));
    assert_int_equal(count_of(html, "<svg class=\"plot\""), 6);
    assert_non_null(strstr(html, "data-n=\"5\""));
    assert_non_null(strstr(html, "id=\"checked\""));
    free(html);
    remove_tree(dir);
    free(dir);
}

static void eight_gpu_snapshot_shows_its_findings(void **state)
{
    (void)state;
    need_realdata();
    char *dir = temp_dir(), page[1200], smi[1024];
    snprintf(smi, sizeof smi, "%s", realdata("smi-text/h100x8-one-gpu-swcap-brake-swthermal-gpud.txt"));
    const char *files[] = {smi, NULL};
    char *html = capture_page(dir, "h100x8.html", files, page, sizeof page);
    assert_non_null(strstr(html, "One snapshot"));
    assert_true(count_of(html, "<article class=\"finding") >= 1);
    assert_non_null(strstr(html, "power.brake"));
    assert_int_equal(count_of(html, "<svg"), 0);
    free(html);
    remove_tree(dir);
    free(dir);
}

static void real_trace_page(void **state)
{
    (void)state;
    need_realdata();
    char *dir = temp_dir(), page[1200];
    snprintf(page, sizeof page, "%s/trace.html", dir);
    const char *argv[] = {"trace", realdata("traces/kineto_tb_plugin/samples/resnet50_num_workers_0"), "--report", page,
                          NULL};
    tool_result r = run_tool(argv, env);
    assert_int_equal(r.exit_code, 0);
    tool_result_free(&r);
    char *html = slurp(page, NULL);
    assert_non_null(html);
    assert_self_contained(html);
    assert_non_null(strstr(html, "data-id=\"trace.dataloader\""));
    assert_non_null(strstr(html, "GPU time by rank"));
    assert_non_null(strstr(html, "Steps of rank 0"));
    assert_non_null(strstr(html, "Steps of rank 1"));
    assert_non_null(strstr(html, "Top kernels"));
    assert_true(count_of(html, "<rect class=\"bar c5\"") >= 5); /* the DataLoader beside each step */
    free(html);
    remove_tree(dir);
    free(dir);
}

static void capture_page_renders_in_chromium(void **state)
{
    (void)state;
    need_realdata();
    need_chromium();
    char *dir = temp_dir(), page[1200], smi[1024], dmon[1024];
    snprintf(smi, sizeof smi, "%s", realdata("smi-text/h100-sxm-load-utku.txt"));
    snprintf(dmon, sizeof dmon, "%s", realdata("smi-csv/h100-load-dmon-utku.txt"));
    const char *files[] = {smi, dmon, NULL};
    free(capture_page(dir, "h100.html", files, page, sizeof page));
    char out[1200], profile[1200], shot[1200], shot_arg[1300];
    snprintf(out, sizeof out, "%s/dom.html", dir);
    snprintf(profile, sizeof profile, "%s/profile", dir);
    snprintf(shot, sizeof shot, "%s/h100.png", dir);
    snprintf(shot_arg, sizeof shot_arg, "--screenshot=%s", shot);
    const char *dump[] = {"--proxy-server=127.0.0.1:9", "--dump-dom", NULL};
    assert_int_equal(chromium_run(page, dump, out, profile), 0);
    char *dom = slurp(out, NULL);
    assert_non_null(dom);
    assert_non_null(strstr(dom, "this page fetches nothing"));
    assert_int_equal(count_of(dom, "<svg class=\"plot\""), 6);
    assert_self_contained(dom);
    free(dom);
    const char *snap[] = {"--proxy-server=127.0.0.1:9", shot_arg, "--window-size=1200,2000", NULL};
    assert_int_equal(chromium_run(page, snap, NULL, profile), 0);
    unsigned w, h;
    unsigned char *px = NULL;
    need_component(png_rgb(shot, &w, &h, &px) == 0, "libpng (the screenshot's decoder)",
                   "make test installs libpng-dev (sudo bash scripts/install-deps.sh test), then configures again");
    size_t n = (size_t)w * h, white = 0, blue = 0;
    for (size_t i = 0; i < n; i++) {
        const unsigned char *p = px + 3 * i;
        white += p[0] > 250 && p[1] > 250 && p[2] > 250;
        blue += abs(p[0] - 0x00) < 40 && abs(p[1] - 0x72) < 40 && abs(p[2] - 0xb2) < 40;
    }
    assert_true(white < n * 97 / 100);
    assert_true(blue > 300); /* the GPU's curves */
    free(px);
    remove_tree(dir);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(h100_capture_with_its_dmon_log_has_curves),
        cmocka_unit_test(eight_gpu_snapshot_shows_its_findings),
        cmocka_unit_test(real_trace_page),
        cmocka_unit_test(capture_page_renders_in_chromium),
    };
    return realdata_exit(cmocka_run_group_tests(tests, NULL, NULL));
}
