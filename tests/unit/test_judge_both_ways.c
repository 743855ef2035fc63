/* SPDX-License-Identifier: Apache-2.0 */
/*
 * One set of rules, two ways to reach it (issue 40): every example
 * scenario is played by a session whose window's running statistics keep
 * its last 10 s, sample by sample, samples leaving as new ones come, and
 * are judged at every tick (as watch and export judge); the last tick's
 * findings must be exactly what the checks say of the same 10 s judged
 * once, from statistics built afresh (as a replay or a capture is judged).
 * Findings are compared whole: id, GPU, severity, title, impact and
 * evidence.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "analysis/window_acc.h"
#include "gpudoctor/checks.h"
#include "gpudoctor/findings.h"
#include "gpudoctor/session.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EXAMPLES GD_DOCS_DIR "/../examples"
#define SPAN_S 10.0 /* judged: the last 10 s of 30 */

typedef struct ticks {
    char *last; /* the last tick's findings, as text */
    size_t judged;
} ticks;

/* The findings as text, one line each, sorted as the checks sort them. */
static char *findings_text(const gd_facts *f)
{
    gd_findings fs = {.where = GD_AT_WATCH};
    gd_checks_run_all(f, &fs);
    size_t cap = 4096, used = 0;
    char *out = malloc(cap);
    assert_non_null(out);
    out[0] = '\0';
    for (size_t k = 0; k < fs.n; k++) {
        const gd_finding *x = &fs.v[k];
        char *ev = x->evidence ? json_dumps(x->evidence, JSON_SORT_KEYS | JSON_COMPACT) : NULL;
        size_t need = strlen(x->id) + strlen(x->title) + (ev ? strlen(ev) : 0) + 128;
        if (used + need >= cap) {
            cap = 2 * (used + need);
            out = realloc(out, cap);
            assert_non_null(out);
        }
        used += (size_t)snprintf(out + used, cap - used, "%s@%d %d %s %.6g %s\n", x->id, x->gpu, (int)x->severity,
                                 x->title, x->impact_pct, ev ? ev : "");
        free(ev);
    }
    gd_findings_free(&fs);
    return out;
}

static void on_sample(void *ud, const gd_facts *f, size_t i)
{
    ticks *t = ud;
    gd_facts w = gd_window_acc_upto(f, i, SPAN_S);
    assert_true(w.acc == f->acc); /* the session's own statistics */
    free(t->last);
    t->last = findings_text(&w);
    t->judged++;
}

static size_t judged;

static void judged_both_ways(const char *scenario)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", EXAMPLES, scenario);
    gd_ctx ctx = {.sim_dir = GD_BUILD_DIR, .kernel_log = GD_DOCS_DIR "/../tests/fixtures/kernel-log/no-such-log"};
    gd_session_opts o = {.ctx = &ctx, .sim_scenario = path, .duration_s = 30, .interval_s = 0.5, .judge_s = SPAN_S, .pid = -1};
    gd_facts f;
    char err[1024];
    gd_session *s = gd_session_open(&o, &f, err, sizeof err);
    if (!s)
        fail_msg("%s: %s", scenario, err);
    ticks t = {0};
    gd_sink sink = {.on_sample = on_sample, .ud = &t};
    assert_int_equal(gd_session_add_sink(s, &sink), 0);
    int rc;
    while ((rc = gd_session_step(s, err, sizeof err)) > 0)
        ;
    assert_int_equal(rc, 0);
    if (t.judged) {
        gd_facts once = gd_facts_window(&f, gd_series_last(&f.series, SPAN_S));
        once.acc = NULL; /* judged once: the statistics built from the series */
        once.acc_free = NULL;
        assert_int_equal(once.series.n, 21);
        char *batch = findings_text(&once);
        if (strcmp(batch, t.last) != 0)
            fail_msg("%s: judged at every tick and judged once differ\n--- every tick:\n%s--- once:\n%s", scenario,
                     t.last, batch);
        free(batch);
    }
    judged += t.judged;
    free(t.last);
    gd_session_close(s, NULL, 0);
    gd_facts_free(&f);
}

static void every_example_is_judged_the_same_both_ways(void **state)
{
    (void)state;
    DIR *d = opendir(EXAMPLES);
    assert_non_null(d);
    struct dirent *e;
    size_t played = 0;
    while ((e = readdir(d))) {
        size_t n = strlen(e->d_name);
        if (n < 6 || strcmp(e->d_name + n - 5, ".json") != 0)
            continue;
        judged_both_ways(e->d_name);
        played++;
    }
    closedir(d);
    assert_true(played >= 40);
    assert_true(judged >= 40 * 61);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_example_is_judged_the_same_both_ways),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
