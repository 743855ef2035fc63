/* SPDX-License-Identifier: Apache-2.0 */
/* gpudoctor fleet over real `check --json` reports of simulated nodes: 16
 * nodes with one slow and one hot name exactly those two, 16 healthy ones
 * name nothing, a cause on half the nodes is one fleet-wide finding, and bad
 * reports are named without stopping the comparison. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "run_tool.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *const env[] = {NULL};

enum { HEALTHY, SLOW, HOT };

/* The healthy training node, each node's temperatures and power a little
 * apart as real nodes are; SLOW: every GPU at 1650 MHz under load; HOT: GPU 3
 * 13 C warmer. */
static void write_scenario(const char *path, int node, int kind)
{
    json_t *s = json_load_file(example("h100x8-training.json"), 0, NULL);
    assert_non_null(s);
    if (node == 2) /* a report that names its host: that name, not the file's */
        json_object_set_new(json_object_get(s, "host"), "hostname", json_string("gpu-rack4-02"));
    json_t *gpus = json_object_get(s, "gpus");
    for (size_t g = 0; g < json_array_size(gpus); g++) {
        json_t *tl = json_object_get(json_array_get(gpus, g), "timeline");
        for (size_t i = 0; i < json_array_size(tl); i++) {
            json_t *p = json_array_get(tl, i), *t = json_object_get(p, "temp_c"), *w = json_object_get(p, "power_w");
            if (t)
                json_object_set_new(
                    p, "temp_c",
                    json_integer(json_integer_value(t) + (node + (int)g) % 3 + (kind == HOT && g == 3 ? 13 : 0)));
            if (w)
                json_object_set_new(p, "power_w", json_integer(json_integer_value(w) + ((node * 3 + (int)g) % 5) * 4));
            if (kind == SLOW)
                json_object_set_new(p, "sm_clock_mhz", json_integer(1650));
        }
    }
    assert_int_equal(json_dump_file(s, path, 0), 0);
    json_decref(s);
}

/* dir/node-NN.json: the check report of node NN (kinds[NN]), or of `other` where given. */
static void write_reports(const char *dir, const int *kinds, int n, const char *other, int other_from)
{
    for (int k = 0; k < n; k++) {
        char scen[1200], rep[1200];
        snprintf(scen, sizeof scen, "%s/scenario-%02d.json.in", dir, k);
        snprintf(rep, sizeof rep, "%s/node-%02d.json", dir, k);
        if (other && k >= other_from)
            snprintf(scen, sizeof scen, "%s", example(other));
        else
            write_scenario(scen, k, kinds ? kinds[k] : HEALTHY);
        const char *argv[] = {"check", "--sim", scen, "--duration", "10", "--json", NULL};
        tool_result r = run_tool(argv, env);
        assert_non_null(r.out);
        FILE *f = fopen(rep, "w");
        assert_non_null(f);
        fputs(r.out, f);
        fclose(f);
        tool_result_free(&r);
    }
}

static tool_result fleet(const char *dir, const char *extra)
{
    const char *argv[] = {"fleet", dir, "--json", extra, NULL};
    tool_result r = run_tool(argv, env);
    if (!r.json)
        fail_msg("fleet gave no JSON: exit %d, %s", r.exit_code, r.err);
    return r;
}

/* "id node gpu" of each finding, joined by ";". */
static void finding_list(const json_t *root, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = 0;
    json_t *fs = json_object_get(root, "findings"), *f;
    size_t i;
    json_array_foreach(fs, i, f)
    {
        json_t *ev = json_object_get(f, "evidence"), *gpu = json_object_get(f, "gpu");
        const char *node = json_string_value(json_object_get(ev, "node"));
        used += (size_t)snprintf(buf + used, len - used, "%s %s %lld;", json_string_value(json_object_get(f, "id")),
                                 node ? node : "-", json_is_integer(gpu) ? (long long)json_integer_value(gpu) : -1LL);
        if (used >= len)
            break;
    }
}

static void one_slow_and_one_hot_node_are_named_exactly(void **state)
{
    (void)state;
    char *dir = temp_dir();
    int kinds[16] = {0};
    kinds[6] = SLOW;
    kinds[11] = HOT;
    write_reports(dir, kinds, 16, NULL, 0);
    tool_result r = fleet(dir, NULL);
    assert_int_equal(r.exit_code, 0);
    char got[4096];
    finding_list(r.json, got, sizeof got);
    assert_string_equal(got, "fleet.clocks_low node-06 0;fleet.clocks_low node-06 1;fleet.clocks_low node-06 2;"
                             "fleet.clocks_low node-06 3;fleet.clocks_low node-06 4;fleet.clocks_low node-06 5;"
                             "fleet.clocks_low node-06 6;fleet.clocks_low node-06 7;fleet.hot node-11 3;");
    json_t *ev = json_object_get(json_array_get(json_object_get(r.json, "findings"), 8), "evidence");
    assert_float_equal(json_number_value(json_object_get(ev, "value")), 77, 3); /* 60-64 C + 13 */
    assert_int_equal(json_integer_value(json_object_get(json_object_get(r.json, "summary"), "outlier_nodes")), 2);
    json_t *g = json_array_get(json_object_get(r.json, "groups"), 0);
    assert_int_equal(json_integer_value(json_object_get(g, "gpus")), 128);
    assert_float_equal(json_number_value(json_object_get(json_object_get(g, "median"), "sm_clock_mhz")), 1980, 0);
    tool_result_free(&r);
    /* The text names them too, and --exit-findings says warning. */
    const char *argv[] = {"fleet", dir, "--exit-findings", NULL};
    r = run_tool(argv, env);
    assert_int_equal(r.exit_code, 1);
    assert_non_null(strstr(r.out, "node-06 GPUs 0-7 (8): SM clock under load 1650 MHz"));
    assert_non_null(strstr(r.out, "node-11 GPU 3: temperature under load"));
    tool_result_free(&r);
    remove_tree(dir);
    free(dir);
}

static void sixteen_healthy_nodes_give_nothing(void **state)
{
    (void)state;
    char *dir = temp_dir();
    write_reports(dir, NULL, 16, NULL, 0);
    tool_result r = fleet(dir, "--exit-findings");
    assert_int_equal(r.exit_code, 0);
    assert_int_equal(json_array_size(json_object_get(r.json, "findings")), 0);
    assert_int_equal(json_array_size(json_object_get(r.json, "not_compared")), 0);
    assert_int_equal(json_array_size(json_object_get(r.json, "nodes")), 16);
    json_t *nodes = json_object_get(r.json, "nodes");
    assert_string_equal(json_string_value(json_object_get(json_array_get(nodes, 1), "name")), "node-01");
    assert_string_equal(json_string_value(json_object_get(json_array_get(nodes, 2), "name")), "gpu-rack4-02");
    tool_result_free(&r);
    remove_tree(dir);
    free(dir);
}

static void a_cause_on_half_the_nodes_is_fleet_wide(void **state)
{
    (void)state;
    char *dir = temp_dir();
    write_reports(dir, NULL, 8, "h100x8-power-limit-lowered.json", 4); /* 4 healthy, 4 lowered */
    tool_result r = fleet(dir, NULL);
    json_t *fs = json_object_get(r.json, "findings"), *f;
    size_t i, common = 0;
    json_array_foreach(fs, i, f)
    {
        if (strcmp(json_string_value(json_object_get(f, "id")), "fleet.common_finding") != 0)
            continue;
        json_t *ev = json_object_get(f, "evidence");
        assert_string_equal(json_string_value(json_object_get(ev, "finding")), "power.limit_lowered");
        assert_int_equal(json_integer_value(json_object_get(ev, "nodes")), 4);
        assert_true(json_is_null(json_object_get(f, "gpu")));
        common++;
    }
    assert_int_equal(common, 1);
    tool_result_free(&r);
    remove_tree(dir);
    free(dir);
}

static void bad_reports_are_named_and_the_rest_compared(void **state)
{
    (void)state;
    char *dir = temp_dir();
    write_reports(dir, NULL, 4, NULL, 0);
    char path[1200];
    snprintf(path, sizeof path, "%s/node-01.json", dir);
    truncate(path, 300); /* a half-written report */
    free(write_temp_file(dir, "other.json", "{\"hello\": [1, 2, 3]}"));
    free(write_temp_file(dir, "newer.json",
                         "{\"schema_version\": 99, \"tool\": {\"name\": \"gpudoctor\"}, \"gpus\": [], "
                         "\"findings\": []}"));
    snprintf(path, sizeof path, "%s/fifo.json", dir);
    assert_int_equal(mkfifo(path, 0600), 0); /* nobody writes it: must not hang */
    tool_result r = fleet(dir, NULL);
    assert_int_equal(r.exit_code, 0);
    assert_int_equal(json_array_size(json_object_get(r.json, "nodes")), 3);
    json_t *nr = json_object_get(r.json, "not_read");
    assert_int_equal(json_array_size(nr), 4);
    char all[4096] = "";
    for (size_t i = 0; i < json_array_size(nr); i++) {
        strncat(all, json_string_value(json_array_get(nr, i)), sizeof all - strlen(all) - 2);
        strcat(all, "\n");
    }
    assert_non_null(strstr(all, "node-01.json: not JSON"));
    assert_non_null(strstr(all, "other.json: not a 'gpudoctor check --json' report"));
    assert_non_null(strstr(all, "newer.json: schema_version above"));
    assert_non_null(strstr(all, "fifo.json"));
    /* 3 nodes of 8 GPUs: compared; 24 GPUs on 3 nodes is enough. */
    assert_int_equal(json_array_size(json_object_get(r.json, "not_compared")), 0);
    tool_result_free(&r);
    /* Nothing readable at all, or an empty directory: exit 3 with a message. */
    const char *argv[] = {"fleet", path, NULL};
    r = run_tool(argv, env);
    assert_int_equal(r.exit_code, 3);
    assert_non_null(strstr(r.err, "no report could be read"));
    tool_result_free(&r);
    char *empty = temp_dir();
    const char *argv2[] = {"fleet", empty, NULL};
    r = run_tool(argv2, env);
    assert_int_equal(r.exit_code, 3);
    assert_non_null(strstr(r.err, "holds no report"));
    tool_result_free(&r);
    const char *argv3[] = {"fleet", NULL};
    r = run_tool(argv3, env);
    assert_int_equal(r.exit_code, 3);
    tool_result_free(&r);
    remove_tree(empty);
    free(empty);
    remove_tree(dir);
    free(dir);
}

static void one_node_is_not_compared_and_says_why(void **state)
{
    (void)state;
    char *dir = temp_dir();
    write_reports(dir, NULL, 1, NULL, 0);
    tool_result r = fleet(dir, NULL);
    assert_int_equal(r.exit_code, 0);
    assert_int_equal(json_array_size(json_object_get(r.json, "findings")), 0);
    const char *why = json_string_value(json_array_get(json_object_get(r.json, "not_compared"), 0));
    assert_non_null(why);
    assert_non_null(strstr(why, "8 GPUs on 1 node (comparing needs 4 GPUs on 2 nodes)"));
    tool_result_free(&r);
    /* The HTML page: written, with the groups and nodes. */
    char page[1200];
    snprintf(page, sizeof page, "%s/fleet.html", dir);
    const char *argv[] = {"fleet", dir, "--report", page, NULL};
    r = run_tool(argv, env);
    assert_int_equal(r.exit_code, 0);
    tool_result_free(&r);
    FILE *f = fopen(page, "r");
    assert_non_null(f);
    char buf[65536];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = 0;
    fclose(f);
    assert_non_null(strstr(buf, "<h2>Groups</h2>"));
    assert_non_null(strstr(buf, "node-00"));
    remove_tree(dir);
    free(dir);
}

/* dir/NAME: the check report of `scenario` (an example) for `seconds`, under
 * extra environment (NULL: none). */
static void write_report(const char *dir, const char *name, const char *scenario, const char *const *extra)
{
    char rep[1200];
    snprintf(rep, sizeof rep, "%s/%s", dir, name);
    const char *argv[] = {"check",
                          "--json",
                          "--duration",
                          scenario ? "10" : "0.2",
                          scenario ? "--sim" : NULL,
                          scenario ? example(scenario) : NULL,
                          NULL};
    tool_result r = run_tool(argv, extra);
    assert_true(r.json != NULL);
    FILE *f = fopen(rep, "w");
    assert_non_null(f);
    fputs(r.out, f);
    fclose(f);
    tool_result_free(&r);
}

/* s with every run of spaces and newlines made one space: text wrapped to 80 columns, as one line. */
static void squeeze(char *s)
{
    char *o = s;
    for (char *p = s; *p; p++) {
        bool ws = *p == ' ' || *p == '\n';
        if (ws && o > s && o[-1] == ' ')
            continue;
        *o++ = ws ? ' ' : *p;
    }
    *o = '\0';
}

/* GPUs never under load (all medians "-"), a node without a driver, a node
 * whose own report is critical (a power brake on 8 GPUs): nothing was
 * compared, and the verdict says so, with the nodes it could not judge and
 * the critical one; --exit-findings exits 2, not 0. */
static void nothing_compared_is_never_no_outlier(void **state)
{
    (void)state;
    static const char *const no_driver[] = {"GPUDOCTOR_NVML_LIBRARY=/nonexistent/libnvidia-ml.so.1",
                                            "GPUDOCTOR_SYS_ROOT=" GD_EXAMPLES_DIR "/sysfs/hgx-h100x8", NULL};
    char *dir = temp_dir();
    write_report(dir, "idle-a.json", "h100x8-idle.json", NULL);
    write_report(dir, "idle-b.json", "h100x8-idle.json", NULL);
    write_report(dir, "no-driver.json", NULL, no_driver);
    write_report(dir, "brake.json", "h100x8-power-brake.json", NULL);
    const char *argv[] = {"fleet", dir, "--exit-findings", NULL};
    tool_result r = run_tool(argv, env);
    assert_int_equal(r.exit_code, 2);
    for (const char *p = r.out; *p;) { /* 80 columns in a pipe */
        size_t n = strcspn(p, "\n");
        if (n > 80)
            fail_msg("a line of %zu columns: %.*s", n, (int)n, p);
        p += n + (p[n] == '\n');
    }
    squeeze(r.out);
    assert_null(strstr(r.out, "no outlier"));
    assert_non_null(strstr(r.out, "Verdict: CRITICAL"));
    assert_non_null(strstr(r.out, "nothing could be compared"));
    assert_non_null(strstr(r.out, "critical in their own reports: 2 nodes"));
    assert_non_null(strstr(r.out, "not judged: 4 of 4 nodes"));
    assert_non_null(strstr(r.out, "no driver, no GPU in its report"));
    assert_non_null(strstr(r.out, "no GPU under load in its window"));
    tool_result_free(&r);
    r = fleet(dir, NULL);
    assert_int_equal(r.exit_code, 0); /* without --exit-findings: it ran */
    json_t *sum = json_object_get(r.json, "summary");
    assert_int_equal(json_integer_value(json_object_get(sum, "not_judged_nodes")), 4);
    assert_int_equal(json_integer_value(json_object_get(sum, "nodes_critical")), 2);
    json_t *node = json_array_get(json_object_get(r.json, "nodes"), 0);
    assert_true(json_is_false(json_object_get(node, "judged")));
    assert_non_null(json_string_value(json_object_get(node, "not_judged")));
    tool_result_free(&r);
    remove_tree(dir);
    free(dir);
    /* Idle nodes alone: no finding, nothing judged: exit 3 (could not check), and said. */
    dir = temp_dir();
    write_report(dir, "idle-a.json", "h100x8-idle.json", NULL);
    write_report(dir, "idle-b.json", "h100x8-idle.json", NULL);
    const char *idle[] = {"fleet", dir, "--exit-findings", NULL};
    r = run_tool(idle, env);
    if (r.exit_code != 3 || !strstr(r.out, "Verdict: NOT CHECKED"))
        fail_msg("idle nodes alone: exit %d, %s (stderr %s)", r.exit_code, r.out, r.err);
    assert_non_null(strstr(r.err, "not every node could be judged"));
    tool_result_free(&r);
    remove_tree(dir);
    free(dir);
}

/* A node's own critical finding counts with --exit-findings even where the
 * comparison finds no outlier. */
static void a_node_with_its_own_critical_finding_counts(void **state)
{
    (void)state;
    char *dir = temp_dir();
    write_reports(dir, NULL, 4, NULL, 0);
    write_report(dir, "node-xid.json", "h100x8-xid.json", NULL);
    const char *argv[] = {"fleet", dir, "--exit-findings", NULL};
    tool_result r = run_tool(argv, env);
    assert_int_equal(r.exit_code, 2);
    squeeze(r.out);
    assert_non_null(strstr(r.out, "critical in their own reports: 1 node (node-xid)"));
    tool_result_free(&r);
    remove_tree(dir);
    free(dir);
}

/* A node name longer than its column is cut with a mark (U+2026), never
 * silently; the column takes what the width has (at 60 columns 24, at 80 the
 * whole name of 40). */
static void long_node_names_are_cut_with_a_mark(void **state)
{
    (void)state;
    char *dir = temp_dir();
    write_reports(dir, NULL, 2, NULL, 0);
    write_report(dir, "gpu-node-with-a-very-long-name-in-rack-7.json", "h100x8-xid.json", NULL);
    const char *argv[] = {"fleet", dir, NULL};
    tool_result r = run_tool(argv, (const char *[]){"NO_COLOR=1", "COLUMNS=60", NULL});
    assert_int_equal(r.exit_code, 0);
    assert_non_null(strstr(r.out, "  gpu-node-with-a-very-lo\u2026 "));
    assert_null(strstr(r.out, "  gpu-node-with-a-very-lon "));
    tool_result_free(&r);
    r = run_tool(argv, env);
    assert_non_null(strstr(r.out, "  gpu-node-with-a-very-long-name-in-rack-7 "));
    tool_result_free(&r);
    remove_tree(dir);
    free(dir);
}

/* A report given twice (the file and its directory) or a node's report
 * given again (the same host name, else file name) is read once, and said. */
static void a_report_given_twice_counts_once(void **state)
{
    (void)state;
    char *dir = temp_dir();
    write_reports(dir, NULL, 4, NULL, 0);
    char one[1200], copy[1200];
    snprintf(one, sizeof one, "%s/node-01.json", dir);
    snprintf(copy, sizeof copy, "%s/again", dir);
    make_dirs(copy);
    snprintf(copy, sizeof copy, "%s/again/node-01.json", dir);
    FILE *in = fopen(one, "r"), *out = fopen(copy, "w");
    assert_non_null(in);
    assert_non_null(out);
    int c;
    while ((c = fgetc(in)) != EOF)
        fputc(c, out);
    fclose(in);
    fclose(out);
    const char *argv[] = {"fleet", dir, one, copy, "--json", NULL};
    tool_result r = run_tool(argv, env);
    assert_int_equal(r.exit_code, 0);
    assert_int_equal(json_array_size(json_object_get(r.json, "nodes")), 4);
    assert_int_equal(json_array_size(json_object_get(r.json, "duplicates")), 2);
    assert_non_null(strstr(r.err, "the same file as"));
    assert_non_null(strstr(r.err, "the same node (node-01) as"));
    tool_result_free(&r);
    const char *text[] = {"fleet", dir, one, copy, NULL};
    r = run_tool(text, env);
    assert_non_null(strstr(r.out, "4 reports read"));
    assert_non_null(strstr(r.out, "Given twice (read once):"));
    tool_result_free(&r);
    remove_tree(dir);
    free(dir);
}

/* dir/NAME.json: report (a check report, parsed) under another host name. */
static void write_as(const char *dir, const json_t *report, const char *name)
{
    json_t *copy = json_deep_copy(report);
    json_object_set_new(json_object_get(copy, "host"), "hostname", json_string(name));
    char path[1200];
    snprintf(path, sizeof path, "%s/%s.json", dir, name);
    assert_int_equal(json_dump_file(copy, path, JSON_INDENT(2)), 0);
    json_decref(copy);
}

static size_t occurrences(const char *s, const char *needle)
{
    size_t n = 0;
    for (const char *p = s; (p = strstr(p, needle)); p++)
        n++;
    return n;
}

static size_t lines_of(const char *s)
{
    size_t n = 0;
    for (; *s; s++)
        n += *s == '\n';
    return n;
}

/* 300 idle nodes beside 6 under load, 7 reports that cannot be read, 7 of
 * a node given again: the text counts them and names a few, in a bounded
 * number of lines (it was one line per node: 10 000 lines for 10 000 idle
 * reports); the JSON lists every one; stderr names a few. */
static void hundreds_of_idle_nodes_are_counted_not_listed(void **state)
{
    (void)state;
    static const char *const argv_idle[] = {"check", "--json", "--duration", "10", "--sim", NULL, NULL};
    const char *argv[7];
    memcpy(argv, argv_idle, sizeof argv);
    argv[5] = example("h100x8-idle.json");
    tool_result idle = run_tool(argv, env);
    argv[5] = example("h100x8-training.json");
    tool_result loaded = run_tool(argv, env);
    assert_non_null(idle.json);
    assert_non_null(loaded.json);
    char *dir = temp_dir(), name[64];
    for (int k = 0; k < 300; k++) {
        snprintf(name, sizeof name, "idle-%03d", k);
        write_as(dir, idle.json, name);
    }
    for (int k = 0; k < 6; k++) {
        snprintf(name, sizeof name, "busy-%d", k);
        write_as(dir, loaded.json, name);
    }
    for (int k = 0; k < 7; k++) {
        snprintf(name, sizeof name, "zz-again-%d", k); /* file name: after the first; host name: a node read */
        json_t *copy = json_deep_copy(idle.json);
        json_object_set_new(json_object_get(copy, "host"), "hostname", json_string("idle-000"));
        char path[1200];
        snprintf(path, sizeof path, "%s/%s.json", dir, name);
        assert_int_equal(json_dump_file(copy, path, 0), 0);
        json_decref(copy);
        snprintf(name, sizeof name, "zz-bad-%d.json", k);
        free(write_temp_file(dir, name, "{\"truncated\": "));
    }
    tool_result_free(&idle);
    tool_result_free(&loaded);

    const char *text[] = {"fleet", dir, NULL};
    tool_result r = run_tool(text, env);
    assert_int_equal(r.exit_code, 0);
    if (lines_of(r.out) > 100)
        fail_msg("%zu lines for 306 nodes:\n%s", lines_of(r.out), r.out);
    char screen[4096]; /* the first screen: the verdict and the groups */
    size_t cut = 0;
    for (size_t n = 0; r.out[cut] && n < 24; cut++)
        n += r.out[cut] == '\n';
    snprintf(screen, sizeof screen, "%.*s", (int)cut, r.out);
    assert_non_null(strstr(screen, "Verdict: NOT CHECKED"));
    assert_non_null(strstr(screen, "Groups"));
    squeeze(screen);
    assert_non_null(strstr(screen, "not judged: 300 of 306 nodes: idle-000, idle-001, idle-002, idle-003, "
                                   "idle-004 and 295 more (no GPU under load in its window)"));
    assert_null(strstr(r.out, "idle-005"));
    squeeze(r.out);
    assert_non_null(strstr(r.out, "and 295 more (295: no GPU under load in its window): see --json"));
    assert_non_null(strstr(r.out, "Given twice (read once):"));
    assert_non_null(strstr(r.out, "Not read:"));
    assert_int_equal(occurrences(r.out, "and 2 more: see --json"), 2); /* 7 given twice, 7 not read: 5 each shown */
    if (lines_of(r.err) > 8)
        fail_msg("stderr of %zu lines: %s", lines_of(r.err), r.err);
    assert_non_null(strstr(r.err, "and 2 more given twice"));
    tool_result_free(&r);

    r = fleet(dir, NULL);
    assert_int_equal(r.exit_code, 0);
    json_t *nodes = json_object_get(r.json, "nodes"), *node;
    assert_int_equal(json_array_size(nodes), 306);
    size_t i, unjudged = 0;
    json_array_foreach(nodes, i, node)
    {
        const char *why = json_string_value(json_object_get(node, "not_judged"));
        unjudged += why && strcmp(why, "no GPU under load in its window") == 0;
    }
    assert_int_equal(unjudged, 300);
    json_t *sum = json_object_get(r.json, "summary");
    assert_int_equal(json_integer_value(json_object_get(sum, "not_judged_nodes")), 300);
    assert_int_equal(json_array_size(json_object_get(r.json, "not_read")), 7);
    assert_int_equal(json_array_size(json_object_get(r.json, "duplicates")), 7);
    tool_result_free(&r);
    remove_tree(dir);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(one_slow_and_one_hot_node_are_named_exactly),
        cmocka_unit_test(sixteen_healthy_nodes_give_nothing),
        cmocka_unit_test(a_cause_on_half_the_nodes_is_fleet_wide),
        cmocka_unit_test(bad_reports_are_named_and_the_rest_compared),
        cmocka_unit_test(one_node_is_not_compared_and_says_why),
        cmocka_unit_test(nothing_compared_is_never_no_outlier),
        cmocka_unit_test(a_node_with_its_own_critical_finding_counts),
        cmocka_unit_test(long_node_names_are_cut_with_a_mark),
        cmocka_unit_test(a_report_given_twice_counts_once),
        cmocka_unit_test(hundreds_of_idle_nodes_are_counted_not_listed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
