/* SPDX-License-Identifier: Apache-2.0 */
/* The fleet's text report (report/fleet_report.c) over a made-up fleet: what
 * grows with the fleet (finding blocks, nodes with findings of their own,
 * reports given twice or not read) is shown for a few and counted for the
 * rest; the JSON keeps every one. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "analysis/fleet.h"
#include "report/fleet_report.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { NODES = 40, SLOW = 12, OWN = 7, MSGS = 9 };

/* NODES nodes of 8 H100s; GPUs 1 and 2 of the first SLOW slow; the last OWN with a warning of their own. */
static gd_fleet make(void)
{
    gd_fleet f = {NODES, calloc(NODES, sizeof(gd_fleet_node))};
    for (size_t n = 0; n < NODES; n++) {
        gd_fleet_node *node = &f.nodes[n];
        snprintf(node->name, sizeof node->name, "node-%02zu", n);
        snprintf(node->file, sizeof node->file, "r/node-%02zu.json", n);
        node->ngpus = 8;
        node->gpus = calloc(8, sizeof(gd_fleet_gpu));
        node->findings = calloc(1, sizeof(gd_fleet_finding));
        for (size_t g = 0; g < 8; g++) {
            node->gpus[g] = (gd_fleet_gpu){(int)g, "H100", "", 100, 1980, 60, 600};
            if (n < SLOW && (g == 1 || g == 2))
                node->gpus[g].sm_clock_mhz = 1500;
        }
        if (n >= NODES - OWN)
            node->findings[node->nfindings++] = (gd_fleet_finding){"thermal.hot", GD_SEV_WARNING, 3};
    }
    return f;
}

static size_t occurrences(const char *s, const char *needle)
{
    size_t n = 0;
    for (const char *p = s; (p = strstr(p, needle)); p++)
        n++;
    return n;
}

static void what_grows_with_the_fleet_is_counted(void **state)
{
    (void)state;
    gd_fleet f = make();
    gd_fleet_result r;
    assert_int_equal(gd_fleet_analyze(&f, &r), 0);
    assert_int_equal(r.findings.n, 2 * SLOW);
    const char *msgs[MSGS];
    char bufs[MSGS][64];
    for (size_t i = 0; i < MSGS; i++) {
        snprintf(bufs[i], sizeof bufs[i], "r/bad-%zu.json: not JSON", i);
        msgs[i] = bufs[i];
    }
    gd_fleet_run run = {&f, &r, MSGS, msgs, MSGS, msgs};
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    gd_text_style st = {.width = 200}; /* the verdict on one line */
    gd_fleet_report_text(out, &run, &st);
    fclose(out);
    /* One block per cause and node, its GPUs together; 10 shown, the other 2 counted. */
    assert_int_equal(occurrences(text, "fleet.clocks_low\n"), 10);
    assert_non_null(strstr(text, "warning  node-00 GPUs 1-2 fleet.clocks_low"));
    assert_non_null(strstr(text, "warning  node-09 GPUs 1-2 fleet.clocks_low"));
    assert_null(strstr(text, "node-10 GPUs"));
    assert_non_null(strstr(text, "and 2 more (fleet.clocks_low 2), one per cause and node: see --json"));
    /* Nodes with findings of their own: 5 named, 2 counted. */
    assert_non_null(strstr(text, "  node-37"));
    assert_null(strstr(text, "  node-38"));
    assert_non_null(strstr(text, "and 2 more with findings: see --json"));
    assert_non_null(strstr(text, "33 nodes: none"));
    /* Given twice and not read: 5 of 9 each. */
    assert_int_equal(occurrences(text, "r/bad-4.json"), 2);
    assert_null(strstr(text, "r/bad-5.json"));
    assert_int_equal(occurrences(text, "and 4 more: see --json"), 2);
    /* The verdict counts the outlier nodes, and names 5 of the 7 that warn of their own. */
    assert_non_null(strstr(text, "outliers on 12 of 40"));
    assert_non_null(strstr(
        text, "warnings in their own reports: 7 nodes (node-33, node-34, node-35, node-36, node-37 and 2 more)"));
    free(text);
    json_t *j = gd_fleet_report_json(&run);
    json_t *sum = json_object_get(j, "summary");
    assert_int_equal(json_integer_value(json_object_get(sum, "outlier_nodes")), SLOW);
    assert_int_equal(json_integer_value(json_object_get(sum, "nodes_warning")), OWN);
    assert_int_equal(json_array_size(json_object_get(j, "findings")), 2 * SLOW);
    assert_int_equal(json_array_size(json_object_get(j, "not_read")), MSGS);
    assert_int_equal(json_array_size(json_object_get(j, "duplicates")), MSGS);
    json_decref(j);
    gd_fleet_result_free(&r);
    gd_fleet_free(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(what_grows_with_the_fleet_is_counted),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
