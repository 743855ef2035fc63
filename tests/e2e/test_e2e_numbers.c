/* SPDX-License-Identifier: Apache-2.0 */
/*
 * End to end: numbers that agree. The text's GPU table shows medians over
 * the window; the JSON report carries the same statistic under its name
 * (gpus[].window.median) beside the last sample (state), so a reader of
 * either sees the same figure: held on every example scenario. Evidence
 * reads as words with units, in text and in its JSON keys.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "run_tool.h"

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const fast[] = {"GPUDOCTOR_SIM_TIMESCALE=", "NO_COLOR=", "COLUMNS=80", NULL};

/* The number a table cell starts with ("560/700" -> 560), NAN for "-". */
static double cell(const char *tok)
{
    char *end;
    double v = strtod(tok, &end);
    return end == tok ? NAN : v;
}

/* A table row's readings after the name: "62 C 560/700 1980/1980 61000/81559 98% ...". */
static bool row_readings(const char *line, double v[5])
{
    const char *temp = strstr(line, " C ");
    if (!temp)
        return false;
    while (temp > line && (temp[-1] >= '0' && temp[-1] <= '9'))
        temp--;
    char toks[5][32];
    if (sscanf(temp, "%31s C %31s %31s %31s %31s", toks[0], toks[1], toks[2], toks[3], toks[4]) != 5)
        return false;
    for (int k = 0; k < 5; k++)
        v[k] = cell(toks[k]);
    return true;
}

static void median_is_the_same(const char *scenario)
{
    const char *sc = example(scenario);
    tool_result t = run_tool((const char *[]){"check", "--sim", sc, NULL}, fast);
    tool_result j = run_tool((const char *[]){"check", "--json", "--sim", sc, NULL}, fast);
    json_t *gpus = json_object_get(j.json, "gpus");
    if (!json_is_array(gpus) || !strstr(t.out, "(medians over the window")) {
        tool_result_free(&t);
        tool_result_free(&j);
        return; /* no table of medians (one sample, no GPU) */
    }
    static const char *const keys[5] = {"temp_c", "power_w", "sm_clock_mhz", "mem_used_mib", "util_gpu_pct"};
    const char *table = strstr(t.out, "GPU  Name");
    assert_non_null(table);
    size_t rows = 0;
    for (const char *line = strchr(table, '\n'); line && line[1] && line[1] != '('; line = strchr(line + 1, '\n')) {
        int index;
        if (sscanf(line + 1, "%d", &index) != 1)
            continue; /* a notes line */
        double v[5];
        if (!row_readings(line + 1, v))
            fail_msg("%s: no readings in row: %.80s", scenario, line + 1);
        json_t *gpu = NULL, *x;
        size_t i;
        json_array_foreach(gpus, i, x) if (json_integer_value(json_object_get(x, "index")) == index) gpu = x;
        assert_non_null(gpu);
        json_t *med = json_object_get(json_object_get(gpu, "window"), "median");
        for (int k = 0; k < 5; k++) {
            json_t *m = json_object_get(med, keys[k]);
            if (isnan(v[k]) ? !json_is_null(m) : !(json_is_number(m) && fabs(round(json_number_value(m)) - v[k]) < 0.6))
                fail_msg("%s GPU %d %s: the table shows %g, the JSON's window.median %g", scenario, index, keys[k],
                         v[k], json_number_value(m));
        }
        rows++;
    }
    assert_int_equal(rows, json_array_size(gpus));
    tool_result_free(&t);
    tool_result_free(&j);
}

/* Issue 39: "the text table shows medians and the JSON the last sample". */
static void the_gpu_table_and_the_json_show_the_same_medians(void **state)
{
    (void)state;
    DIR *d = opendir(GD_EXAMPLES_DIR);
    assert_non_null(d);
    struct dirent *e;
    size_t n = 0;
    while ((e = readdir(d))) {
        size_t len = strlen(e->d_name);
        if (len < 6 || strcmp(e->d_name + len - 5, ".json") != 0)
            continue;
        median_is_the_same(e->d_name);
        n++;
    }
    closedir(d);
    assert_true(n >= 20);
}

/* Evidence keys in the reader's words: no internal name ("session_"), no
 * share without its unit ("_share": a percentage is "_pct"), no bare
 * "ratio"; a kernel log's seconds since boot say so. Walks nested values. */
static void keys_in_words(const char *where, const char *key, json_t *v)
{
    size_t n = key ? strlen(key) : 0;
    if (key && (strstr(key, "session") || strcmp(key, "ratio") == 0 || (n > 6 && strcmp(key + n - 6, "_share") == 0)))
        fail_msg("%s: evidence key \"%s\"", where, key);
    if (key && (strcmp(key, "first_seen") == 0 || strcmp(key, "last_seen") == 0) && json_is_string(v)) {
        const char *t = json_string_value(v);
        if (t[0] && t[strspn(t, "0123456789.")] == '\0')
            fail_msg("%s: %s \"%s\" says not what it counts from", where, key, t);
    }
    const char *k;
    json_t *x;
    size_t i;
    if (json_is_object(v))
        json_object_foreach(v, k, x) keys_in_words(where, k, x);
    else if (json_is_array(v))
        json_array_foreach(v, i, x) keys_in_words(where, NULL, x);
}

static void evidence_in_words(const char *what, const tool_result *t, const tool_result *j)
{
    /* A structure in text is words, never "N items"; no internal name reaches the reader. */
    if (strstr(t->out, " items") || strstr(t->out, "session_"))
        fail_msg("%s: the text says \"items\" or an internal name:\n%s", what, t->out);
    json_t *f;
    size_t i;
    json_array_foreach(json_object_get(j->json, "findings"), i, f)
    {
        char where[160];
        snprintf(where, sizeof where, "%s %s", what, json_string_value(json_object_get(f, "id")));
        keys_in_words(where, NULL, json_object_get(f, "evidence"));
    }
}

/* Issue 39: "links_down=17", "pairs=gpus 2 items", "first_seen 8734.551035",
 * "session_nvml_events": on every example, and the benches that show pairs. */
static void evidence_reads_as_words(void **state)
{
    (void)state;
    DIR *d = opendir(GD_EXAMPLES_DIR);
    assert_non_null(d);
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t len = strlen(e->d_name);
        if (len < 6 || strcmp(e->d_name + len - 5, ".json") != 0)
            continue;
        const char *sc = example(e->d_name);
        tool_result t = run_tool((const char *[]){"check", "--sim", sc, NULL}, fast);
        tool_result j = run_tool((const char *[]){"check", "--json", "--sim", sc, NULL}, fast);
        evidence_in_words(e->d_name, &t, &j);
        tool_result_free(&t);
        tool_result_free(&j);
    }
    closedir(d);
    static const char *const benches[][2] = {{"p2p", "rtx4090x8-no-p2p.json"},
                                             {"p2p", "pcie-a100x4-slow-switch.json"},
                                             {"nccl", "pcie-a100x4-slow-switch.json"}};
    for (size_t k = 0; k < sizeof benches / sizeof benches[0]; k++) {
        const char *sc = example(benches[k][1]);
        tool_result t = run_tool((const char *[]){"bench", benches[k][0], "--sim", sc, NULL}, fast);
        tool_result j = run_tool((const char *[]){"bench", benches[k][0], "--json", "--sim", sc, NULL}, fast);
        evidence_in_words(benches[k][1], &t, &j);
        tool_result_free(&t);
        tool_result_free(&j);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(the_gpu_table_and_the_json_show_the_same_medians),
        cmocka_unit_test(evidence_reads_as_words),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
