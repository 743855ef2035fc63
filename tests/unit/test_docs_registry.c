/* Every registered check is documented in docs/checks.md, by its id. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "gpudoctor/checks.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *read_all(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    rewind(f);
    char *buf = calloc(1, (size_t)n + 1);
    if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
        free(buf);
        buf = NULL;
    }
    fclose(f);
    return buf;
}

static void every_check_id_is_documented(void **state)
{
    (void)state;
    char *doc = read_all(GD_DOCS_DIR "/checks.md");
    assert_non_null(doc);
    for (size_t i = 0; i < gd_checks_count; i++) {
        char quoted[64];
        snprintf(quoted, sizeof quoted, "`%s`", gd_checks[i].id);
        if (!strstr(doc, quoted))
            fail_msg("docs/checks.md does not describe %s", gd_checks[i].id);
    }
    free(doc);
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
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
