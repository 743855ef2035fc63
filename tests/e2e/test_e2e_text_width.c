/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Output that fits: info and check text wrap at 80 columns when not a
 * terminal (COLUMNS sets another width), and an unknown value reads "n/a"
 * once, never glued into a template ("Genn/a xn/a", "n/a/n/a MHz",
 * "n/a-700 W"); evidence is words, never JSON. Over every example scenario
 * and every real capture.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "run_tool.h"

#include <dirent.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

static void fits(const char *what, const char *text, int width)
{
    for (const char *p = text; *p;) {
        size_t n = strcspn(p, "\n");
        /* A line longer than the width is one unbreakable word after its indent. */
        size_t lead = strspn(p, " ");
        bool one_word = memchr(p + lead, ' ', n - lead) == NULL;
        if ((int)n > width && !one_word)
            fail_msg("%s: a line of %zu columns (width %d): %.*s", what, n, width, (int)n, p);
        p += n + (p[n] == '\n');
    }
    /* Evidence in text is words and numbers, never JSON (an Xid's list was
     * a JSON blob cut mid-word). */
    static const char *const json[] = {"{\"", "\":", "[{", "\"}"};
    for (size_t i = 0; i < sizeof json / sizeof json[0]; i++)
        if (strstr(text, json[i]))
            fail_msg("%s: JSON in the text ('%s'): %s", what, json[i], strstr(text, json[i]));
    static const char *const glued[] = {"Genn/a", "xn/a", "n/a/n/a", "n/a-", "n/an/a", "n/a x", "(0 of "};
    for (size_t i = 0; i < sizeof glued / sizeof glued[0]; i++)
        if (strstr(text, glued[i]))
            fail_msg("%s: placeholder glued into a template: '%s'", what, glued[i]);
}

static void run_both(const char *flag, const char *path)
{
    char what[1200];
    tool_result r = run_tool((const char *[]){"info", flag, path, NULL}, NULL);
    snprintf(what, sizeof what, "info %s %s", flag, path);
    fits(what, r.out, 80);
    tool_result_free(&r);
    r = run_tool((const char *[]){"check", "--duration", "2", "--interval", "1000", flag, path, NULL}, NULL);
    snprintf(what, sizeof what, "check %s %s", flag, path);
    fits(what, r.out, 80);
    tool_result_free(&r);
    r = run_tool((const char *[]){"check", "--duration", "2", "--interval", "1000", flag, path, NULL},
                 (const char *[]){"COLUMNS=120", NULL});
    snprintf(what, sizeof what, "COLUMNS=120 check %s %s", flag, path);
    fits(what, r.out, 120);
    tool_result_free(&r);
    /* topo, at both widths (a capture it cannot read says so on stderr). */
    static const char *const widths[] = {"COLUMNS=80", "COLUMNS=120"};
    for (int w = 0; w < 2; w++) {
        r = run_tool((const char *[]){"topo", flag, path, NULL}, (const char *[]){widths[w], NULL});
        snprintf(what, sizeof what, "%s topo %s %s", widths[w], flag, path);
        fits(what, r.out, w ? 120 : 80);
        tool_result_free(&r);
    }
}

static void every_scenario_fits(void **state)
{
    (void)state;
    DIR *d = opendir(GD_EXAMPLES_DIR);
    assert_non_null(d);
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t len = strlen(e->d_name);
        if (len > 5 && strcmp(e->d_name + len - 5, ".json") == 0)
            run_both("--sim", example(e->d_name));
    }
    closedir(d);
}

static void every_capture_fits(void **state)
{
    (void)state;
    need_realdata();
    static const char *const subdirs[] = {"smi-xml", "smi-text", "smi-csv", "lspci"};
    for (size_t s = 0; s < 4; s++) {
        char dir[1024];
        snprintf(dir, sizeof dir, "%s/%s", GD_REALDATA_DIR, subdirs[s]);
        DIR *d = opendir(dir);
        assert_non_null(d);
        struct dirent *e;
        while ((e = readdir(d))) {
            if (e->d_name[0] == '.')
                continue;
            char rel[600];
            snprintf(rel, sizeof rel, "%s/%s", subdirs[s], e->d_name);
            run_both("--from", realdata(rel));
        }
        closedir(d);
    }
}

/* info fits one screen: the 8-GPU machine in one table (a line per GPU,
 * notes for what the columns cannot say), the details behind --details;
 * check shows the same table, medians over its window, under the verdict
 * and its causes. */
static void info_is_one_screen_and_check_has_the_table(void **state)
{
    (void)state;
    tool_result r =
        run_tool((const char *[]){"info", "--sim", GD_EXAMPLES_DIR "/h100x8-misconfigured.json", NULL}, NULL);
    assert_int_equal(r.exit_code, 0);
    size_t lines = 0;
    for (const char *p = r.out; *p; p++)
        lines += *p == '\n';
    if (lines > 40) /* it was 148 */
        fail_msg("info is %zu lines for 8 GPUs: %s", lines, r.out);
    assert_non_null(strstr(r.out, "GPU  Name"));
    assert_non_null(strstr(r.out, "  0  H100 80GB HBM3 60 C 520/700   1980/1980 61000/81559    - Gen5 x16"));
    assert_non_null(strstr(r.out, "MIG, persistence off"));
    assert_non_null(strstr(r.out, "ECC off"));
    assert_null(strstr(r.out, "Identity"));
    tool_result_free(&r);
    r = run_tool((const char *[]){"info", "--details", "--sim", GD_EXAMPLES_DIR "/h100x8-misconfigured.json", NULL},
                 NULL);
    assert_non_null(strstr(r.out, "Identity"));
    assert_non_null(strstr(r.out, "GPU  Name"));
    tool_result_free(&r);
    r = run_tool(
        (const char *[]){"check", "--duration", "20", "--sim", GD_EXAMPLES_DIR "/h100x8-thermal-throttling.json", NULL},
        NULL);
    /* The answer first: the verdict, the cause with what to do, then the
     * table, then the findings' evidence. */
    const char *verdict = strstr(r.out, "Verdict:"), *table = strstr(r.out, "GPU  Name"),
               *cause = strstr(r.out, "1. critical GPU 2  thermal.throttling"),
               *finding = strstr(r.out, "\nFindings, by cause");
    assert_true(verdict && table && cause && finding && verdict < cause && cause < table && table < finding);
    assert_non_null(strstr(table, "  2  H100 80GB HBM3 84 C 480/700   1410/1980"));
    assert_non_null(strstr(table, "sw_thermal_slowdown"));
    assert_non_null(strstr(table, "(medians over the window"));
    tool_result_free(&r);
}

/* The commands that read no machine fit too: vram's plans (the fits-on
 * table, suggestions, inference, QLoRA) and fleet's comparison of reports,
 * at 80 and 120 columns. */
static void plans_and_fleet_fit(void **state)
{
    (void)state;
    static const char *const plans[][16] = {
        {"vram", "--params", "7B", "--shape-from", "llama", NULL},
        {"vram", "--params", "70B", "--shape-from", "llama", "--gpus", "8", "--gpu", "h100", NULL},
        {"vram", "--params", "70B", "--shape-from", "llama", "--inference", "--seq", "4096", "--gpus", "2", "--tp", "2",
         "--gpu", "h100", NULL},
        {"vram", "--config", GD_EXAMPLES_DIR "/models/llama-2-7b.json", "--method", "qlora", "--gpu", "4090", NULL},
    };
    static const char *const widths[] = {"COLUMNS=80", "COLUMNS=120"};
    char what[256];
    for (size_t i = 0; i < sizeof plans / sizeof plans[0]; i++)
        for (int w = 0; w < 2; w++) {
            tool_result r = run_tool(plans[i], (const char *[]){widths[w], NULL});
            snprintf(what, sizeof what, "%s vram plan %zu", widths[w], i);
            fits(what, r.out, w ? 120 : 80);
            tool_result_free(&r);
        }
    /* fleet over three nodes' reports: two examples and a power-capped one. */
    char *dir = temp_dir();
    static const char *const nodes[] = {"h100x8-training.json", "h100x8-power-capped-normal.json",
                                        "h100x8-thermal-throttling.json"};
    for (size_t i = 0; i < 3; i++) {
        tool_result r =
            run_tool((const char *[]){"check", "--json", "--duration", "5", "--sim", example(nodes[i]), NULL}, NULL);
        char name[32];
        snprintf(name, sizeof name, "node-%zu.json", i);
        free(write_temp_file(dir, name, r.out));
        tool_result_free(&r);
    }
    for (int w = 0; w < 2; w++) {
        tool_result r = run_tool((const char *[]){"fleet", dir, NULL}, (const char *[]){widths[w], NULL});
        snprintf(what, sizeof what, "%s fleet", widths[w]);
        fits(what, r.out, w ? 120 : 80);
        tool_result_free(&r);
    }
    remove_tree(dir);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_scenario_fits),
        cmocka_unit_test(every_capture_fits),
        cmocka_unit_test(info_is_one_screen_and_check_has_the_table),
        cmocka_unit_test(plans_and_fleet_fit),
    };
    return realdata_exit(cmocka_run_group_tests(tests, NULL, NULL));
}
