/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Text, JSON and HTML of the same report agree on every number (issue 39):
 * for every example scenario, `check` is run three ways and compared. Each
 * finding's title numbers and evidence numbers are in the text and in the
 * HTML, as shown (four significant digits agree with the JSON's value to
 * the digit shown); each GPU's table row says the medians the JSON gives
 * (gpus[].window.median); the verdict and the coverage line are the same
 * sentence in text and HTML, and the verdict counts the causes the JSON
 * lists.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "report_fixture.h"
#include "run_tool.h"

#include <ctype.h>
#include <dirent.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const fast[] = {"GPUDOCTOR_SIM_TIMESCALE=", "NO_COLOR=", "COLUMNS=1000", NULL};

/* Scenarios about a job, judged with its pid (as test_e2e_verdicts.c does). */
static const struct {
    const char *scenario, *pid;
} jobs[] = {
    {"h100x8-input-io-wait.json", "41000"},
    {"pcie-h100x8-numa-far-job.json", "41003"},
    {"vram-foreign-process.json", "41000"},
};

/* A number as printed: its value and how many decimals it was shown with. */
typedef struct shown {
    double v;
    int decimals;
} shown;

typedef struct numbers {
    shown *v;
    size_t n, cap;
} numbers;

static void numbers_of(const char *text, numbers *out)
{
    for (const char *p = text; *p;) {
        if (!isdigit((unsigned char)*p) || (p > text && (isalnum((unsigned char)p[-1]) || p[-1] == '_'))) {
            p++;
            continue;
        }
        char *end;
        double v = strtod(p, &end);
        const char *dot = memchr(p, '.', (size_t)(end - p));
        if (out->n == out->cap) {
            out->cap = out->cap ? 2 * out->cap : 256;
            out->v = realloc(out->v, out->cap * sizeof *out->v);
        }
        out->v[out->n++] = (shown){v, dot ? (int)(end - dot - 1) : 0};
        p = end > p ? end : p + 1;
    }
}

/* Is x among the numbers shown, to the digits each was shown with? */
static bool has(const numbers *ns, double x)
{
    for (size_t i = 0; i < ns->n; i++) {
        double tol = 0.5 * pow(10, -ns->v[i].decimals) + 1e-9 * fabs(x);
        /* Four significant digits: 1234.5 shown "1234"; 0.00012345 shown "0.0001234". */
        if (fabs(ns->v[i].v - x) <= tol || fabs(ns->v[i].v - fabs(x)) <= tol)
            return true;
    }
    return false;
}

/* s[from, to) of the first `from` marker to the next `to` marker, copied; "" when absent. */
static char *between(const char *s, const char *from, const char *to)
{
    const char *a = strstr(s, from);
    if (!a)
        return strdup("");
    const char *b = strstr(a + strlen(from), to);
    size_t n = b ? (size_t)(b - a) : strlen(a);
    char *out = malloc(n + 1);
    memcpy(out, a, n);
    out[n] = '\0';
    return out;
}

/* HTML text with its tags dropped and the entities gpudoctor writes read back. */
static char *html_text(const char *html)
{
    static const char *const ents[][2] = {{"&amp;", "&"}, {"&lt;", "<"},    {"&gt;", ">"},    {"&quot;", "\""},
                                          {"&#39;", "'"}, {"&ndash;", "-"}, {"&middot;", "."}};
    char *out = malloc(2 * strlen(html) + 1);
    size_t n = 0;
    for (const char *p = html; *p;) {
        if (*p == '<') { /* a tag ends a word */
            const char *e = strchr(p, '>');
            p = e ? e + 1 : p + strlen(p);
            if (n && out[n - 1] != ' ' && strncmp(p, "</div>", 6) != 0)
                out[n++] = ' ';
            continue;
        }
        size_t k = 0;
        for (; k < sizeof ents / sizeof *ents; k++)
            if (strncmp(p, ents[k][0], strlen(ents[k][0])) == 0)
                break;
        if (k < sizeof ents / sizeof *ents) {
            out[n++] = ents[k][1][0];
            p += strlen(ents[k][0]);
        } else {
            out[n++] = *p++;
        }
    }
    out[n] = '\0';
    return out;
}

/* The line of text that starts with prefix, without its newline. */
static char *line_of(const char *text, const char *prefix)
{
    const char *a = strstr(text, prefix);
    if (!a)
        return strdup("");
    size_t n = strcspn(a, "\n");
    char *out = malloc(n + 1);
    memcpy(out, a, n);
    out[n] = '\0';
    return out;
}

/* The findings' numbers: each title's, each top-level evidence number. */
static void findings_agree(const char *name, json_t *report, const numbers *text, const numbers *html)
{
    size_t i;
    json_t *x;
    json_array_foreach(json_object_get(report, "findings"), i, x)
    {
        if (json_is_true(json_object_get(x, "ignored")))
            continue;
        const char *id = json_string_value(json_object_get(x, "id"));
        numbers title = {0};
        numbers_of(json_string_value(json_object_get(x, "title")), &title);
        for (size_t k = 0; k < title.n; k++) {
            if (!has(text, title.v[k].v))
                fail_msg("%s: %s's title says %g, the text report does not", name, id, title.v[k].v);
            if (!has(html, title.v[k].v))
                fail_msg("%s: %s's title says %g, the HTML report does not", name, id, title.v[k].v);
        }
        free(title.v);
        const char *key;
        json_t *v;
        json_object_foreach(json_object_get(x, "evidence"), key, v)
        {
            if (!json_is_number(v))
                continue;
            double d = json_number_value(v);
            if (!has(text, d))
                fail_msg("%s: %s's evidence %s=%g is not in the text report", name, id, key, d);
            if (!has(html, d))
                fail_msg("%s: %s's evidence %s=%g is not in the HTML report", name, id, key, d);
        }
    }
}

/* Each GPU's row: Temp, Power, SM, Memory, Util as the JSON's window medians. */
static void tables_agree(const char *name, json_t *report, const char *text, const char *html_table)
{
    static const char *const keys[] = {"temp_c", "power_w", "sm_clock_mhz", "mem_used_mib", "util_gpu_pct"};
    size_t i;
    json_t *g;
    const char *table = strstr(text, "GPU  Name");
    if (!table)
        return; /* no sample, no table */
    json_array_foreach(json_object_get(report, "gpus"), i, g)
    {
        char head[16];
        snprintf(head, sizeof head, "\n%3lld  ", json_integer_value(json_object_get(g, "index")));
        const char *row = strstr(table, head);
        if (!row)
            fail_msg("%s: no text table row for GPU %zu", name, i);
        char line[512];
        snprintf(line, sizeof line, "%.*s", (int)strcspn(row + 1, "\n"), row + 1);
        json_t *med = json_object_get(json_object_get(g, "window"), "median");
        for (size_t k = 0; k < sizeof keys / sizeof *keys; k++) {
            json_t *v = json_object_get(med, keys[k]);
            if (!json_is_number(v))
                continue;
            char want[32];
            snprintf(want, sizeof want, "%.0f", json_number_value(v));
            /* As a cell: " 62 C", " 560/", " 98%", ... */
            char cell[40];
            bool found = false;
            static const char *const after[] = {" C", "/", "%", " "};
            for (size_t a = 0; a < 4 && !found; a++) {
                snprintf(cell, sizeof cell, " %s%s", want, after[a]);
                found = strstr(line, cell) != NULL;
            }
            if (!found)
                fail_msg("%s: GPU %zu %s: the JSON's median %s is not in its text row '%s'", name, i, keys[k], want,
                         line);
            snprintf(want, sizeof want, "%.10g", json_number_value(v));
            char med_cell[48], one_cell[48];
            snprintf(med_cell, sizeof med_cell, "(median %s)", want);
            snprintf(one_cell, sizeof one_cell, "<td>%s", want);
            if (!strstr(html_table, med_cell) && !strstr(html_table, one_cell))
                fail_msg("%s: GPU %zu %s: the JSON's median %s is not in the HTML table", name, i, keys[k], want);
        }
    }
}

static void one_scenario(const char *file, const char *pid)
{
    char path[4096], html_path[4200];
    snprintf(path, sizeof path, "%s/%s", GD_EXAMPLES_DIR, file);
    char *dir = temp_dir();
    snprintf(html_path, sizeof html_path, "%s/report.html", dir);
    const char *json_argv[] = {"check", "--json", "--sim", path, pid ? "--pid" : NULL, pid, NULL};
    const char *text_argv[] = {"check", "--report", html_path, "--sim", path, pid ? "--pid" : NULL, pid, NULL};
    tool_result j = run_tool(json_argv, fast), t = run_tool(text_argv, fast);
    if (!j.json)
        fail_msg("%s: no JSON report (exit %d): %s", file, j.exit_code, j.err);
    assert_int_equal(j.exit_code, t.exit_code);
    size_t len;
    char *page = slurp(html_path, &len);
    if (!page)
        fail_msg("%s: no HTML page", file);
    char *html_findings = between(page, "<h2 id=\"findings\">", "<h2"),
         *html_table = between(page, "<h2 id=\"gpus\">", "</table>"),
         *verdict_html = between(page, "id=\"verdict\"", "</div>"),
         *coverage_html = between(page, "<p class=\"coverage\">", "</p>");
    char *verdict_plain = html_text(verdict_html + strlen("id=\"verdict\">")),
         *coverage_plain = html_text(coverage_html);
    const char *text_findings = strstr(t.out, "Verdict:");
    numbers tn = {0}, hn = {0};
    numbers_of(text_findings ? text_findings : "", &tn);
    char *hf = html_text(html_findings);
    numbers_of(hf, &hn);
    findings_agree(file, j.json, &tn, &hn);
    tables_agree(file, j.json, t.out, html_table);
    /* One verdict, one coverage line, in both. */
    char *verdict_text = line_of(t.out, "Verdict:");
    if (strcmp(verdict_text, verdict_plain) != 0)
        fail_msg("%s: the verdicts differ:\n text: %s\n html: %s", file, verdict_text, verdict_plain);
    char *coverage_text = line_of(t.out, "    Judged ");
    const char *tail = "; each check: --details";
    size_t n = strlen(coverage_text);
    if (n > strlen(tail) && strcmp(coverage_text + n - strlen(tail), tail) == 0)
        coverage_text[n - strlen(tail)] = '\0';
    char *cut = strstr(coverage_plain, " ( every check");
    if (cut)
        *cut = '\0';
    if (strcmp(coverage_text + 4, coverage_plain) != 0)
        fail_msg("%s: the coverage lines differ:\n text: %s\n html: %s", file, coverage_text + 4, coverage_plain);
    /* The verdict counts the causes the JSON lists. */
    json_t *causes = json_object_get(json_object_get(j.json, "summary"), "causes");
    long counted = (long)(json_integer_value(json_object_get(causes, "critical")) +
                          json_integer_value(json_object_get(causes, "warning")));
    char phrase[64];
    snprintf(phrase, sizeof phrase, "- %ld cause%s", counted, counted == 1 ? "," : "s");
    if (counted && !strstr(verdict_text, phrase))
        fail_msg("%s: the JSON counts %ld causes, the verdict says: %s", file, counted, verdict_text);
    free(verdict_text);
    free(coverage_text);
    free(tn.v);
    free(hn.v);
    free(hf);
    free(verdict_plain);
    free(coverage_plain);
    free(html_findings);
    free(html_table);
    free(verdict_html);
    free(coverage_html);
    free(page);
    tool_result_free(&j);
    tool_result_free(&t);
    remove_tree(dir);
    free(dir);
}

static void every_example_agrees(void **state)
{
    (void)state;
    DIR *d = opendir(GD_EXAMPLES_DIR);
    assert_non_null(d);
    size_t n = 0;
    for (struct dirent *e; (e = readdir(d));) {
        size_t len = strlen(e->d_name);
        if (len < 6 || strcmp(e->d_name + len - 5, ".json") != 0)
            continue;
        const char *pid = NULL;
        for (size_t k = 0; k < sizeof jobs / sizeof *jobs; k++)
            if (strcmp(jobs[k].scenario, e->d_name) == 0)
                pid = jobs[k].pid;
        one_scenario(e->d_name, pid);
        n++;
    }
    closedir(d);
    assert_true(n >= 40);
}

int main(void)
{
    hermetic_environment();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_example_agrees),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
