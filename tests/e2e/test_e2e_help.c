/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Help and discovery: 'gpudoctor help CMD' is CMD's help; --help lists every
 * command; every option a command's parser accepts ('help --options CMD',
 * the getopt table itself) is in its help; every path a help text or a
 * report names exists in the repository.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "run_tool.h"

#include <ctype.h>
#include <dirent.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* The lines of text as a NULL-terminated array (in place). */
static char **lines(char *text, size_t *n)
{
    char **v = calloc(256, sizeof *v);
    *n = 0;
    for (char *save = NULL, *l = strtok_r(text, "\n", &save); l && *n < 255; l = strtok_r(NULL, "\n", &save))
        v[(*n)++] = l;
    return v;
}

/* Whether text names --opt as a whole word. */
static bool names_option(const char *text, const char *opt)
{
    size_t len = strlen(opt);
    for (const char *p = strstr(text, opt); p; p = strstr(p + 1, opt)) {
        char after = p[len];
        if (!(isalnum((unsigned char)after) || after == '-'))
            return true;
    }
    return false;
}

static void help_names_every_command_and_option(void **state)
{
    (void)state;
    tool_result top = run_tool((const char *[]){"--help", NULL}, NULL);
    tool_result bare = run_tool((const char *[]){"help", NULL}, NULL);
    assert_int_equal(top.exit_code, 0);
    assert_string_equal(top.out, bare.out);
    tool_result cmds = run_tool((const char *[]){"help", "--commands", NULL}, NULL);
    assert_int_equal(cmds.exit_code, 0);
    size_t n;
    char **names = lines(cmds.out, &n);
    assert_true(n >= 6);
    for (size_t i = 0; i < n; i++) {
        char want[64];
        snprintf(want, sizeof want, "\n  %s ", names[i]);
        if (!strstr(top.out, want))
            fail_msg("'gpudoctor --help' does not list %s", names[i]);
        tool_result h = run_tool((const char *[]){"help", names[i], NULL}, NULL);
        tool_result own = run_tool((const char *[]){names[i], "--help", NULL}, NULL);
        assert_int_equal(h.exit_code, 0);
        assert_int_equal(own.exit_code, 0);
        if (strcmp(h.out, own.out) != 0)
            fail_msg("'gpudoctor help %s' differs from 'gpudoctor %s --help'", names[i], names[i]);
        assert_non_null(strstr(h.out, "usage: gpudoctor"));
        tool_result o = run_tool((const char *[]){"help", "--options", names[i], NULL}, NULL);
        assert_int_equal(o.exit_code, 0);
        size_t m;
        char **opts = lines(o.out, &m);
        assert_true(m >= 1);
        for (size_t k = 0; k < m; k++) {
            opts[k][strcspn(opts[k], "=")] = '\0';
            if (strcmp(opts[k], "--help") == 0)
                continue; /* how the help is shown */
            if (!names_option(h.out, opts[k]))
                fail_msg("'gpudoctor %s' accepts %s, which its help does not name", names[i], opts[k]);
        }
        free(opts);
        tool_result_free(&o);
        tool_result_free(&h);
        tool_result_free(&own);
    }
    free(names);
    tool_result u = run_tool((const char *[]){"help", "frobnicate", NULL}, NULL);
    assert_int_equal(u.exit_code, 3);
    tool_result_free(&u);
    /* Commands of later versions are not listed, and no command says "not in this version". */
    tool_result w = run_tool((const char *[]){"fleet", NULL}, NULL);
    assert_int_equal(w.exit_code, 3);
    assert_null(strstr(w.err, "not available"));
    tool_result_free(&w);
    tool_result_free(&cmds);
    tool_result_free(&top);
    tool_result_free(&bare);
}

/* Every docs/, examples/ or data/ path in text exists under the source tree. */
static void paths_exist(const char *what, const char *text)
{
    static const char *const roots[] = {"docs/", "examples/", "data/"};
    for (size_t r = 0; r < sizeof roots / sizeof roots[0]; r++)
        for (const char *p = strstr(text, roots[r]); p; p = strstr(p + 1, roots[r])) {
            if (p > text && (isalnum((unsigned char)p[-1]) || p[-1] == '/' || p[-1] == '_' || p[-1] == '-'))
                continue; /* inside a longer path (@SRC@/examples/... is checked from its own start) */
            size_t len = strspn(p, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./");
            while (len && (p[len - 1] == '.' || p[len - 1] == '/'))
                len--; /* the sentence's full stop */
            char path[1024];
            snprintf(path, sizeof path, "%s/%.*s", GD_SOURCE_DIR, (int)len, p);
            struct stat st;
            if (stat(path, &st) != 0)
                fail_msg("%s names %.*s, which does not exist", what, (int)len, p);
        }
}

static char *read_all(const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
        return NULL;
    FILE *f = fopen(path, "r");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    rewind(f);
    char *buf = malloc((size_t)n + 1);
    size_t got = fread(buf, 1, (size_t)n, f);
    buf[got] = '\0';
    fclose(f);
    return buf;
}

/* paths_exist over every file under dir, its subfolders included. */
static void paths_exist_under(const char *dir)
{
    DIR *dp = opendir(dir);
    assert_non_null(dp);
    struct dirent *e;
    while ((e = readdir(dp))) {
        if (e->d_name[0] == '.')
            continue;
        char path[2048];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        struct stat st;
        if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
            paths_exist_under(path);
            continue;
        }
        char *text = read_all(path);
        if (text)
            paths_exist(path, text);
        free(text);
    }
    closedir(dp);
}

static void every_named_path_exists(void **state)
{
    (void)state;
    tool_result cmds = run_tool((const char *[]){"help", "--commands", NULL}, NULL);
    size_t n;
    char **names = lines(cmds.out, &n);
    for (size_t i = 0; i < n; i++) {
        tool_result h = run_tool((const char *[]){"help", names[i], NULL}, NULL);
        char what[64];
        snprintf(what, sizeof what, "'gpudoctor help %s'", names[i]);
        paths_exist(what, h.out);
        tool_result_free(&h);
    }
    free(names);
    tool_result_free(&cmds);
    tool_result top = run_tool((const char *[]){"--help", NULL}, NULL);
    paths_exist("'gpudoctor --help'", top.out);
    tool_result_free(&top);
    /* What the reports say: the pinned outputs, and the texts they come from
     * (every folder of the library and the command line, walked). */
    paths_exist_under(GD_SOURCE_DIR "/tests/golden");
    paths_exist_under(GD_SOURCE_DIR "/src");
}

/* judge(command, its help text, width) over every command's help, 'help' and
 * '--help' ("-"), at each of the nw widths (env NULL: a pipe's 80 columns). */
static void each_help(const char *const *env, const int *width, size_t nw,
                      void (*judge)(const char *c, char *text, int width))
{
    tool_result cmds = run_tool((const char *[]){"help", "--commands", NULL}, NULL);
    assert_int_equal(cmds.exit_code, 0);
    for (size_t w = 0; w < nw; w++) {
        char list[4096];
        snprintf(list, sizeof list, "%s\nhelp\n-", cmds.out);
        for (char *save = NULL, *c = strtok_r(list, "\n", &save); c; c = strtok_r(NULL, "\n", &save)) {
            tool_result r = strcmp(c, "-") == 0
                                ? run_tool((const char *[]){"--help", NULL}, (const char *[]){env[w], NULL})
                                : run_tool((const char *[]){"help", c, NULL}, (const char *[]){env[w], NULL});
            judge(c, r.out, width[w]);
            tool_result_free(&r);
        }
    }
    tool_result_free(&cmds);
}

static void lines_fit(const char *c, char *text, int width)
{
    size_t n;
    char **v = lines(text, &n);
    for (size_t i = 0; i < n; i++) {
        size_t lead = strspn(v[i], " ");
        bool one_word = strchr(v[i] + lead, ' ') == NULL;
        if ((int)strlen(v[i]) > width && !one_word)
            fail_msg("help %s at %d columns: a line of %zu: %s", c, width, strlen(v[i]), v[i]);
    }
    free(v);
}

/* Help fits the terminal as the reports do: every command's help (and the
 * command list) within 80 columns in a pipe and within COLUMNS=120 and 60
 * (help lines of 83-101 columns before); the man page within 80 columns
 * (149 lines over before). */
static void help_and_man_page_fit(void **state)
{
    (void)state;
    static const char *const widths[] = {NULL, "COLUMNS=120", "COLUMNS=60"};
    each_help(widths, (const int[]){80, 120, 60}, 3, lines_fit);
    char man[600], cmd[1400];
    snprintf(man, sizeof man, "%s", GD_BINARY);
    char *slash = strrchr(man, '/');
    if (!slash || system("command -v man >/dev/null 2>&1") != 0)
        return; /* no man(1) here: the help texts above are what it shows */
    snprintf(slash + 1, sizeof man - (size_t)(slash + 1 - man), "gpudoctor.1");
    snprintf(cmd, sizeof cmd, "MANWIDTH=80 man -l '%s' 2>/dev/null | awk 'length($0) > 80' | wc -l", man);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    int over = -1;
    assert_int_equal(fscanf(p, "%d", &over), 1);
    pclose(p);
    if (over != 0)
        fail_msg("the man page has %d lines over 80 columns", over);
}

/* Where an option line's description starts (after its gap of two spaces), 0: none. */
static size_t description_column(const char *line)
{
    size_t lead = strspn(line, " ");
    if (lead < 1 || lead > 4 || line[lead] != '-')
        return 0;
    const char *gap = strstr(line + lead, "  ");
    return gap ? (size_t)(gap - line) + strspn(gap, " ") : 0;
}

/* Whether the line after prev continues its paragraph: a description that
 * hangs under its option's, or prose after prose (issue 39: "--record FILE
 * ... anywhere with" left "with" alone on a line, a paragraph at 120
 * columns kept its 80-column breaks). */
static bool continues(const char *prev, size_t prev_hang, const char *cur)
{
    size_t lead = strspn(cur, " ");
    if (!*prev || !cur[lead])
        return false;
    if (lead >= 5)
        return lead <= prev_hang;
    size_t plen = strlen(prev);
    bool heading = prev[plen - 1] == ':' && plen < 50;
    return lead == 0 && prev[0] != ' ' && strncmp(prev, "usage:", 6) != 0 && !heading && strncmp(cur, "Exit", 4) != 0;
}

/* Help wraps a paragraph at words to the width: no line of a paragraph
 * ends where the next line's first word would still have fitted. */
static void paragraphs_fill(const char *c, char *text, int width)
{
    /* Lines with the blank ones kept: a blank line ends a paragraph. */
    size_t hang = 0;
    bool usage = false; /* the usage's lines keep their groups of options */
    const char *prev = "";
    for (char *l = text; *l;) {
        char *nl = strchr(l, '\n');
        if (nl)
            *nl = '\0';
        size_t lead = strspn(l, " ");
        usage = strncmp(l, "usage:", 6) == 0 || (usage && *l);
        if (!usage && continues(prev, hang, l)) {
            size_t word = strcspn(l + lead, " ");
            if ((int)(strlen(prev) + 1 + word) <= width)
                fail_msg("help %s at %d columns: '%s' ends early: '%.*s' fits after it", c, width, prev, (int)word,
                         l + lead);
        }
        /* A description of one line at 80 columns that wraps a last word alone
         * ("  topo  how the GPUs connect ... and their" / "NICs") is one word too long. */
        char *next = nl ? nl + 1 : NULL;
        size_t dc = description_column(l);
        if (width == 80 && dc && next && strspn(next, " ") == dc && !strchr(next + dc, ' ')) {
            char *after = strchr(next, '\n');
            if (!after || strspn(after + 1, " ") != dc)
                fail_msg("help %s at 80 columns: '%s' wraps one word: '%.*s'", c, l, (int)strcspn(next + dc, "\n"),
                         next + dc);
        }
        hang = dc ? dc : lead >= 5 ? lead : 0;
        prev = l;
        if (!nl)
            break;
        l = nl + 1;
    }
}

static void help_wraps_paragraphs_to_the_width(void **state)
{
    (void)state;
    static const char *const widths[] = {NULL, "COLUMNS=120"};
    each_help(widths, (const int[]){80, 120}, 2, paragraphs_fill);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(help_names_every_command_and_option),
        cmocka_unit_test(every_named_path_exists),
        cmocka_unit_test(help_and_man_page_fit),
        cmocka_unit_test(help_wraps_paragraphs_to_the_width),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
