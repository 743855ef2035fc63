/* SPDX-License-Identifier: Apache-2.0 */
/* Every registered check is documented in docs/checks.md, by its id, with
 * the severity rule of its registry row. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "facts_fixture.h"
#include "gpudoctor/checks.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void every_check_id_is_documented(void **state)
{
    (void)state;
    char *doc = fx_read_file(GD_DOCS_DIR "/checks.md");
    assert_non_null(doc);
    for (size_t i = 0; i < gd_checks_count; i++) {
        char quoted[64];
        snprintf(quoted, sizeof quoted, "`%s`", gd_checks[i].id);
        if (!strstr(doc, quoted))
            fail_msg("docs/checks.md does not describe %s", gd_checks[i].id);
    }
    free(doc);
}

/* The severities a docs/checks.md row names in its severity column. */
static unsigned documented_severities(const char *doc, const char *id)
{
    char quoted[64];
    snprintf(quoted, sizeof quoted, "| `%s` |", id);
    const char *row = strstr(doc, quoted);
    if (!row)
        return ~0u;
    const char *cell = row + strlen(quoted), *end = strchr(cell, '|');
    size_t len = end ? (size_t)(end - cell) : strlen(cell);
    char text[1024];
    snprintf(text, sizeof text, "%.*s", (int)(len < sizeof text - 1 ? len : sizeof text - 1), cell);
    static const char *const words[] = {"info", "warning", "critical"};
    unsigned m = 0;
    for (unsigned s = 0; s < 3; s++)
        for (const char *p = text; (p = strstr(p, words[s])); p++) {
            bool starts = p == text || !isalpha((unsigned char)p[-1]);
            bool ends = !isalpha((unsigned char)p[strlen(words[s])]);
            if (starts && ends)
                m |= 1u << s;
        }
    return m;
}

static void severity_rules_match_the_docs(void **state)
{
    (void)state;
    char *doc = fx_read_file(GD_DOCS_DIR "/checks.md");
    assert_non_null(doc);
    for (size_t i = 0; i < gd_checks_count; i++) {
        const gd_check *c = &gd_checks[i];
        if (c->severities == GD_SEVS_NONE)
            continue; /* notes only (the capture pseudo-check) */
        unsigned m = documented_severities(doc, c->id);
        if (m != c->severities)
            fail_msg("%s: the registry's severity rule is %#x, docs/checks.md names %#x (info 1, warning 2, "
                     "critical 4)",
                     c->id, c->severities, m);
    }
    free(doc);
}

/* A fix template is a sentence or more of advice, and fits a finding's fix. */
static void fix_templates_are_actions(void **state)
{
    (void)state;
    size_t with = 0;
    for (size_t i = 0; i < gd_checks_count; i++) {
        const gd_check *c = &gd_checks[i];
        if (!c->fix)
            continue;
        with++;
        if (strlen(c->fix) < 40 || strlen(c->fix) >= 768)
            fail_msg("%s: a fix template of %zu characters", c->id, strlen(c->fix));
    }
    assert_true(with > 0);
}

static void check_ids_are_unique(void **state)
{
    (void)state;
    for (size_t i = 0; i < gd_checks_count; i++)
        for (size_t j = i + 1; j < gd_checks_count; j++)
            if (strcmp(gd_checks[i].id, gd_checks[j].id) == 0)
                fail_msg("check %s registered twice", gd_checks[i].id);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_check_id_is_documented),
        cmocka_unit_test(check_ids_are_unique),
        cmocka_unit_test(severity_rules_match_the_docs),
        cmocka_unit_test(fix_templates_are_actions),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
