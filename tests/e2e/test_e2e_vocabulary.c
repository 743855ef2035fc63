/* SPDX-License-Identifier: Apache-2.0 */
/*
 * One vocabulary across commands (docs/interface.md, "One vocabulary";
 * issue 39): every command that judges (check, run, bench, trace, fleet)
 * says one verdict line, "Verdict: WORD - ..." with WORD one of OK,
 * WARNING, CRITICAL, NOT CHECKED, the worst of its findings; shows each
 * finding in one layout, its severity in the words critical, warning,
 * info; exits 0 once its report is made (check: by the word), and with
 * --exit-findings by the word (OK 0, WARNING 1, CRITICAL 2, NOT CHECKED
 * 3). The commands that answer rather than judge (info, topo, vram,
 * watch) have no verdict line and exit 0. Memory a GPU holds is in MiB
 * everywhere, a plan's sizes in GB beside the board's MiB, clock event
 * reasons by NVML's names.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "run_tool.h"

#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const env[] = {"GPUDOCTOR_SIM_TIMESCALE=", "NO_COLOR=1", "COLUMNS=", "GPUDOCTOR_ROOT=", NULL};

static const char *const words[] = {"OK", "WARNING", "CRITICAL", "NOT CHECKED"};
static const int word_code[] = {0, 1, 2, 3};

/* The one "Verdict: " line of text, checked against the grammar; its word's index. */
static int verdict_of(const char *what, const char *text)
{
    const char *line = NULL;
    for (const char *p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
        if (strncmp(p, "Verdict: ", 9) == 0) {
            if (line)
                fail_msg("%s: two verdict lines:\n%s", what, text);
            line = p;
        }
    if (!line)
        fail_msg("%s: no verdict line:\n%s", what, text);
    regex_t re;
    assert_int_equal(regcomp(&re, "^Verdict: (OK|WARNING|CRITICAL|NOT CHECKED)( - [^ ]| on what [^ ])", REG_EXTENDED),
                     0);
    char first[512];
    snprintf(first, sizeof first, "%.*s", (int)strcspn(line, "\n"), line);
    if (regexec(&re, first, 0, NULL, 0) != 0)
        fail_msg("%s: the verdict line is not 'Verdict: WORD - ...': %s", what, first);
    regfree(&re);
    for (int w = 3; w >= 0; w--)
        if (strncmp(first + 9, words[w], strlen(words[w])) == 0)
            return w;
    return -1;
}

/* The worst severity of the findings that count, as a word's index (0: none). */
static int worst_of(json_t *findings)
{
    int worst = 0;
    for (size_t i = 0; i < json_array_size(findings); i++) {
        json_t *x = json_array_get(findings, i);
        const char *sev = json_string_value(json_object_get(x, "severity"));
        int w = json_is_true(json_object_get(x, "ignored")) ? 0
                : sev && strcmp(sev, "critical") == 0       ? 2
                : sev && strcmp(sev, "warning") == 0        ? 1
                                                            : 0;
        worst = w > worst ? w : worst;
    }
    return worst;
}

/*
 * Each finding of the JSON is in the text in the one layout: a header line
 * "SEVERITY WHERE  ID" with the severity in lower case, then its lines
 * indented by four, "fix" among them; no other layout's marks ("[id]",
 * "fix:", an upper-case severity) anywhere.
 */
static void findings_in_one_layout(const char *what, const char *text, json_t *findings)
{
    size_t i;
    json_t *x;
    json_array_foreach(findings, i, x)
    {
        if (json_is_true(json_object_get(x, "ignored")))
            continue;
        const char *id = json_string_value(json_object_get(x, "id"));
        const char *sev = json_string_value(json_object_get(x, "severity"));
        bool found = false;
        for (const char *p = text; p && *p && !found; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
            size_t n = strcspn(p, "\n"), k = strlen(id);
            /* The findings come by cause: a mark may follow the id ("  (cause 1)"). */
            if (n > 3 && p[n - 1] == ')' && memchr(p, '(', n)) {
                const char *mark = p + n;
                while (mark > p && *mark != '(')
                    mark--;
                if (mark - p > 2 && mark[-1] == ' ' && mark[-2] == ' ')
                    n = (size_t)(mark - 2 - p);
            }
            found = strncmp(p, sev, strlen(sev)) == 0 && p[strlen(sev)] == ' ' && n > k && p[n - k - 1] == ' ' &&
                    strncmp(p + n - k, id, k) == 0 && strncmp(p + strcspn(p, "\n") + 1, "    ", 4) == 0;
        }
        if (!found)
            fail_msg("%s: no '%s ... %s' header line with its block:\n%s", what, sev, id, text);
    }
    /* A cause's fix is said once: in the causes ranked under the verdict
     * ("   fix      ", check and run) or with its finding's block. */
    if (json_array_size(findings) && !strstr(text, "\n    fix      ") && !strstr(text, "\n   fix      "))
        fail_msg("%s: no '    fix      ' line:\n%s", what, text);
    static const char *const old[] = {"\nCRITICAL ", "\nWARNING ", "  CRITICAL ",  "  WARNING ",
                                      "fix: ",       "] GPU",      "fleet finding"};
    for (size_t k = 0; k < sizeof old / sizeof old[0]; k++)
        if (strstr(text, old[k]))
            fail_msg("%s: another layout's '%s':\n%s", what, old[k], strstr(text, old[k]));
}

/* args with flag inserted at n (before a "--"), in a buffer of its own. */
static const char *const *with_flag(const char *const *args, size_t n, const char *flag)
{
    static const char *v[34];
    size_t k = 0;
    for (; k < n; k++)
        v[k] = args[k];
    v[n] = flag;
    for (; args[k] && k < 32; k++)
        v[k + 1] = args[k];
    v[k + 1] = NULL;
    return v;
}

/* Runs argv[] as text and --json (and with --exit-findings when flag is not
 * NULL), holds them to the rules; returns the verdict word's index. */
static int judged(const char *what, const char *const *argv, const char *flag, const char *findings_key)
{
    const char *const *args = argv;
    size_t n = 0; /* where a flag goes: before run's "--" */
    while (args[n] && strcmp(args[n], "--") != 0)
        n++;
    tool_result text = run_tool(args, env);
    int w = verdict_of(what, text.out);
    tool_result js = run_tool(with_flag(args, n, "--json"), env);
    if (!js.json)
        fail_msg("%s --json: no JSON (exit %d): %s", what, js.exit_code, js.err);
    json_t *fs = json_object_get(js.json, findings_key);
    findings_in_one_layout(what, text.out, fs);
    /* The word is the worst finding's (NOT CHECKED only where nothing was found). */
    int worst = worst_of(fs);
    if (!(w == worst || (w == 3 && worst == 0) || (w > worst && strcmp(argv[0], "fleet") == 0)))
        fail_msg("%s: verdict %s, but the worst finding is %s", what, words[w], words[worst]);
    if (!flag) { /* check: its exit code is the word's */
        if (text.exit_code != word_code[w])
            fail_msg("%s: verdict %s, exit %d", what, words[w], text.exit_code);
    } else {
        if (text.exit_code != 0)
            fail_msg("%s: exit %d without %s (its report was made: 0)", what, text.exit_code, flag);
        tool_result coded = run_tool(with_flag(args, n, flag), env);
        if (coded.exit_code != word_code[w])
            fail_msg("%s %s: verdict %s, exit %d", what, flag, words[w], coded.exit_code);
        tool_result_free(&coded);
    }
    tool_result_free(&text);
    tool_result_free(&js);
    return w;
}

static void check_and_run_say_one_verdict(void **state)
{
    (void)state;
    const char *hot = example("h100x8-thermal-throttling.json"), *idle = example("h100x8-idle.json");
    assert_int_equal(judged("check (throttling)", (const char *[]){"check", "--sim", hot, NULL}, NULL, "findings"), 2);
    assert_int_equal(judged("check (idle)", (const char *[]){"check", "--sim", idle, NULL}, NULL, "findings"), 0);
    judged("check (misconfigured)", (const char *[]){"check", "--sim", example("h100x8-misconfigured.json"), NULL},
           NULL, "findings");
    /* A capture that holds nothing of the GPUs' state: NOT CHECKED, exit 3. */
    char *dir = temp_dir();
    char *topo = write_temp_file(dir, "topo.txt",
                                 "\tGPU0\tGPU1\tCPU Affinity\tNUMA Affinity\n"
                                 "GPU0\t X \tNV18\t0-31\t0\n"
                                 "GPU1\tNV18\t X \t0-31\t0\n");
    assert_int_equal(
        judged("check (a topo capture)", (const char *[]){"check", "--from", topo, NULL}, NULL, "findings"), 3);
    free(topo);
    remove_tree(dir);
    free(dir);
    /* run: the command's own code, and the word's with --exit-findings. */
    judged("run", (const char *[]){"run", "--duration", "1", "--sim", hot, "--", "true", NULL}, "--exit-findings",
           "findings");
}

static void bench_says_its_verdict_first(void **state)
{
    (void)state;
    static const struct {
        const char *what, *scenario;
        int word;
    } cases[] = {
        {"gemm", "bench-h100x8-one-slow.json", 2},
        {"pcie", "pcie-a100x4-x8.json", 2},
        {"membw", "h100x8-idle.json", 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char what[64];
        snprintf(what, sizeof what, "bench %s", cases[i].what);
        const char *argv[] = {"bench", cases[i].what, "--sim", example(cases[i].scenario), NULL};
        assert_int_equal(judged(what, argv, "--exit-findings", "findings"), cases[i].word);
        /* The verdict comes first, before the tables. */
        tool_result r = run_tool(argv, env);
        const char *v = strstr(r.out, "\nVerdict: ");
        assert_non_null(v);
        assert_true(v - r.out < 200);
        tool_result_free(&r);
    }
}

static void trace_and_fleet_say_the_same_words(void **state)
{
    (void)state;
    assert_int_equal(judged("trace",
                            (const char *[]){"trace", GD_FIXTURES_DIR "/trace-tf/tf1_timeline_streams.json", NULL},
                            "--exit-findings", "findings"),
                     2);
    /* Four nodes: the fleet's own findings are warnings, two nodes' own reports critical. */
    int w = judged("fleet", (const char *[]){"fleet", GD_FIXTURES_DIR "/fleet", NULL}, "--exit-findings", "findings");
    assert_int_equal(w, 2);
    tool_result r = run_tool((const char *[]){"fleet", GD_FIXTURES_DIR "/fleet", NULL}, env);
    /* The fleet's findings counted by severity, not "11 fleet findings" for 11 warnings. */
    assert_non_null(strstr(r.out, "Verdict: CRITICAL - 0 critical, 11 warnings across the fleet"));
    tool_result_free(&r);
    /* Its page says the same verdict, one of it (the fleet's findings alone said WARNING there). */
    char *pages = temp_dir(), page[1200];
    snprintf(page, sizeof page, "%s/fleet.html", pages);
    r = run_tool((const char *[]){"fleet", GD_FIXTURES_DIR "/fleet", "--report", page, NULL}, env);
    tool_result_free(&r);
    FILE *f = fopen(page, "r");
    assert_non_null(f);
    static char html[1 << 20];
    html[fread(html, 1, sizeof html - 1, f)] = '\0';
    fclose(f);
    assert_non_null(strstr(html, "Verdict: CRITICAL &ndash; 0 critical, 11 warnings across the fleet"));
    assert_null(strstr(html, "Verdict: WARNING"));
    remove_tree(pages);
    free(pages);
    /* Nothing compared (one idle node): NOT CHECKED, never CRITICAL; --exit-findings 3. */
    char *dir = temp_dir();
    r = run_tool((const char *[]){"check", "--json", "--sim", example("h100x8-idle.json"), NULL}, env);
    free(write_temp_file(dir, "idle.json", r.out));
    tool_result_free(&r);
    assert_int_equal(
        judged("fleet (nothing compared)", (const char *[]){"fleet", dir, NULL}, "--exit-findings", "findings"), 3);
    remove_tree(dir);
    free(dir);
}

/* The commands that answer (info, topo, vram, watch) have no verdict line
 * and exit 0, "does not fit" included; memory in MiB, a plan in GB beside
 * the board's MiB, clock event reasons by NVML's names. */
static void answers_and_units(void **state)
{
    (void)state;
    const char *hot = example("h100x8-thermal-throttling.json");
    static const char *const other_names[] = {"power-cap", "sw-thermal", "hw-thermal", "power-brake", "GiB"};
    const char *const runs[][12] = {
        {"info", "--sim", hot, NULL},
        {"info", "--details", "--sim", hot, NULL},
        {"topo", "--sim", example("pcie-h100x8-switches.json"), NULL},
        {"watch", "--count", "3", "--format", "csv", "--sim", hot, NULL},
        {"vram", "--params", "70B", "--gpu", "h100", NULL},
        {"check", "--sim", hot, NULL},
    };
    for (size_t i = 0; i < sizeof runs / sizeof runs[0]; i++) {
        tool_result r = run_tool(runs[i], env);
        bool judges = strcmp(runs[i][0], "check") == 0;
        if (!judges && r.exit_code != 0)
            fail_msg("%s: exit %d", runs[i][0], r.exit_code);
        if (!judges && strstr(r.out, "Verdict"))
            fail_msg("%s answers, it has no verdict line:\n%s", runs[i][0], r.out);
        for (size_t k = 0; k < sizeof other_names / sizeof other_names[0]; k++)
            if (strstr(r.out, other_names[k]) || strstr(r.err, other_names[k]))
                fail_msg("%s: '%s', not the word every command uses:\n%s", runs[i][0], other_names[k], r.out);
        if (strcmp(runs[i][0], "info") == 0 || judges)
            assert_non_null(strstr(r.out, "Memory MiB"));
        if (strcmp(runs[i][0], "watch") == 0)
            assert_non_null(strstr(r.out, "mem_used_mib"));
        if (judges) /* the GPU table's notes: GPU 2 throttles */
            assert_non_null(strstr(r.out, "sw_thermal_slowdown"));
        if (strcmp(runs[i][0], "vram") == 0) {
            assert_non_null(strstr(r.out, "1 GPU of 85.5 GB (81559 MiB)"));
            assert_non_null(strstr(r.out, "Does not fit"));
            assert_null(strstr(r.out, "NOT"));
        }
        tool_result_free(&r);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(check_and_run_say_one_verdict),
        cmocka_unit_test(bench_says_its_verdict_first),
        cmocka_unit_test(trace_and_fleet_say_the_same_words),
        cmocka_unit_test(answers_and_units),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
