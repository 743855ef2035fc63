/* SPDX-License-Identifier: Apache-2.0 */
/*
 * docs/architecture.md's "where a new thing goes", held by the code: every
 * capture format is one row of gd_capture_formats[] and every source is the
 * session's machine source or one of its side sources. A reader or a source
 * written outside its table fails here.
 */
#include "facts_fixture.h"
#include "formats/capture/capture_formats.h"
#include "sources/source.h"

#include <dirent.h>
#include <regex.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#define SRC_DIR GD_DOCS_DIR "/../src"

/* Calls fn(path, text) for every .c file under dir. */
static void each_source(const char *dir, void (*fn)(const char *path, const char *text, void *ud), void *ud)
{
    DIR *d = opendir(dir);
    assert_non_null(d);
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        size_t n = strlen(e->d_name);
        if (e->d_type == DT_DIR) {
            each_source(path, fn, ud);
            continue;
        }
        if (n < 2 || strcmp(e->d_name + n - 2, ".c") != 0)
            continue;
        char *text = fx_read_file(path);
        assert_non_null(text);
        fn(path, text, ud);
        free(text);
    }
    closedir(d);
}

static void each_format_kind_has_one_row(void **state)
{
    (void)state;
    for (int k = GD_IMPORT_UNKNOWN + 1; k <= GD_IMPORT_RECORDING; k++) {
        size_t rows = 0;
        for (size_t i = 0; i < gd_capture_format_count; i++)
            if ((int)gd_capture_formats[i].kind == k) {
                rows++;
                assert_non_null(gd_capture_formats[i].detect);
                assert_non_null(gd_capture_formats[i].read);
                assert_in_range(gd_capture_formats[i].pass, 0, GD_CAPTURE_PASSES - 1); /* else never read */
                assert_string_not_equal(gd_import_kind_name((gd_import_kind)k), "unknown");
            }
        if (rows != 1)
            fail_msg("capture kind %d has %zu rows in gd_capture_formats[]", k, rows);
    }
    assert_null(gd_capture_format_of(GD_IMPORT_UNKNOWN));
    assert_string_equal(gd_import_kind_name(GD_IMPORT_UNKNOWN), "unknown");
}

/* What the reader walk keeps: the table's file, read once, and the count. */
typedef struct readers {
    char *table;
    size_t found;
} readers;

/* A reader has the reader's signature; the dispatcher is not one. */
static void readers_in_file(const char *path, const char *text, void *ud)
{
    readers *rd = ud;
    regex_t re;
    assert_int_equal(regcomp(&re,
                             "^int (gd_import_[a-z0-9_]+)\\(const char \\*name, const char \\*text, size_t len, "
                             "gd_facts \\*f, char \\*err, size_t errlen\\)",
                             REG_EXTENDED | REG_NEWLINE),
                     0);
    regmatch_t m[2];
    for (const char *p = text; regexec(&re, p, 2, m, 0) == 0; p += m[0].rm_eo) {
        char name[128];
        snprintf(name, sizeof name, "%.*s", (int)(m[1].rm_eo - m[1].rm_so), p + m[1].rm_so);
        if (strcmp(name, "gd_import_buffer") == 0)
            continue;
        rd->found++;
        /* Its name in the table's file: the row that reads it. */
        char needle[160];
        snprintf(needle, sizeof needle, " %s,", name);
        if (!strstr(rd->table, needle))
            fail_msg("%s: reader %s is in no row of gd_capture_formats[]", path, name);
    }
    regfree(&re);
}

static void every_reader_is_a_row(void **state)
{
    (void)state;
    readers rd = {.table = fx_read_file(SRC_DIR "/formats/capture/capture_formats.c")};
    assert_non_null(rd.table);
    each_source(SRC_DIR "/formats/capture", readers_in_file, &rd);
    each_source(SRC_DIR "/formats/nccl_tests", readers_in_file, &rd); /* a format of its own folder */
    free(rd.table);
    assert_int_equal(rd.found, gd_capture_format_count);
}

/* Every gd_source_ops defined under src/sources is the machine's (NVML or
 * captures, which gd_session_open picks) or a side source of the session. */
static void sources_in_file(const char *path, const char *text, void *ud)
{
    size_t *found = ud;
    for (const char *p = text; (p = strstr(p, "const gd_source_ops gd_source_")); p++) {
        const char *q = strstr(p, ".name = \"");
        assert_non_null(q);
        q += strlen(".name = \"");
        char name[64];
        snprintf(name, sizeof name, "%.*s", (int)strcspn(q, "\""), q);
        (*found)++;
        bool listed = strcmp(name, gd_source_nvml.name) == 0 || strcmp(name, gd_source_capture.name) == 0;
        for (size_t k = 0; gd_session_side_source(k); k++)
            listed = listed || strcmp(name, gd_session_side_source(k)->name) == 0;
        if (!listed)
            fail_msg("%s: source \"%s\" is neither the machine's nor one of the session's side sources", path, name);
    }
}

static void every_source_is_the_sessions(void **state)
{
    (void)state;
    size_t found = 0, sides = 0;
    each_source(SRC_DIR "/sources", sources_in_file, &found);
    while (gd_session_side_source(sides))
        sides++;
    assert_int_equal(sides, 3);
    assert_int_equal(found, 2 + sides);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(each_format_kind_has_one_row),
        cmocka_unit_test(every_reader_is_a_row),
        cmocka_unit_test(every_source_is_the_sessions),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
