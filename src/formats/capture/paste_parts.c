/* SPDX-License-Identifier: Apache-2.0 */
/* Cutting a paste of several commands' outputs (paste_parts.h). */
#include "paste_parts.h"
#include "net_readers.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* One command's output: its prompt line, the lines after it. */
typedef struct section {
    size_t prompt, begin, end; /* byte offsets: the prompt line (== begin: none), the output, its end */
    long prompt_line, line; /* 1-based */
    char command[96];
    gd_import_kind kind;
} section;

/* A copy of raw[from, to) with `lines` newlines before it (the file's line
 * numbers kept), shell lines blanked unless keep_shell. */
static char *part_text(const char *raw, size_t from, size_t to, long lines, bool keep_shell, size_t *len)
{
    size_t n = (size_t)lines + (to - from);
    char *t = malloc(n + 1);
    if (!t)
        return NULL;
    memset(t, '\n', (size_t)lines);
    memcpy(t + lines, raw + from, to - from);
    t[n] = '\0';
    if (!keep_shell) {
        gd_shell_skip sk;
        gd_shell_lines_blank(t, n, &sk);
    }
    *len = n;
    return t;
}

/* The sections of raw: the lines before the first prompt, then one a prompt line with a command. */
static size_t sections(const char *raw, size_t len, section *s, size_t cap)
{
    size_t count = 1;
    memset(&s[0], 0, sizeof s[0]);
    s[0].line = 1;
    long line = 0;
    for (size_t pos = 0; pos < len;) {
        const char *nl = memchr(raw + pos, '\n', len - pos);
        size_t n = nl ? (size_t)(nl - (raw + pos)) : len - pos;
        line++;
        char cmd[96];
        if (n < 4096 && count < cap && gd_shell_command(raw + pos, n, cmd, sizeof cmd) == 2) {
            s[count - 1].end = pos;
            section *t = &s[count++];
            memset(t, 0, sizeof *t);
            t->prompt = pos;
            t->prompt_line = line;
            t->begin = pos + n + (nl ? 1 : 0);
            t->line = line + 1;
            memcpy(t->command, cmd, sizeof t->command);
        }
        pos += n + 1;
    }
    s[count - 1].end = len;
    return count;
}

/* Whether raw[from, to) holds anything but blanks. */
static bool has_text(const char *raw, size_t from, size_t to)
{
    for (size_t i = from; i < to; i++)
        if (raw[i] != ' ' && raw[i] != '\t' && raw[i] != '\r' && raw[i] != '\n')
            return true;
    return false;
}

static int whole(const char *raw, size_t len, gd_paste *p, gd_import_kind fallback)
{
    gd_paste_part *w = &p->part[0];
    char *t = part_text(raw, 0, len, 0, false, &w->len);
    if (!t)
        return -1;
    w->kind = gd_import_detect(t, w->len);
    w->line = 1;
    if (w->kind == GD_IMPORT_UNKNOWN && fallback != GD_IMPORT_UNKNOWN)
        w->kind = fallback; /* lsmod's greps that printed nothing: only their prompts say what was asked */
    if (w->kind == GD_IMPORT_LSMOD) {
        free(t);
        t = part_text(raw, 0, len, 0, true, &w->len);
        if (!t)
            return -1;
    }
    w->text = t;
    p->count = 1;
    return 0;
}

int gd_paste_cut(const char *raw, size_t len, gd_paste *p)
{
    memset(p, 0, sizeof *p);
    char *blank = malloc(len + 1);
    section *s = malloc(GD_PASTE_MAX_PARTS * sizeof *s);
    if (!blank || !s) {
        free(blank);
        free(s);
        return -1;
    }
    memcpy(blank, raw, len);
    blank[len] = '\0';
    gd_shell_lines_blank(blank, len, &p->shell);
    size_t n = sections(raw, len, s, GD_PASTE_MAX_PARTS);
    gd_import_kind kinds[GD_PASTE_MAX_PARTS], lsmod = GD_IMPORT_UNKNOWN;
    size_t distinct = 0;
    for (size_t i = 0; i < n; i++) {
        s[i].kind = has_text(blank, s[i].begin, s[i].end) ? gd_import_detect(blank + s[i].begin, s[i].end - s[i].begin)
                                                          : GD_IMPORT_UNKNOWN;
        if (s[i].kind == GD_IMPORT_UNKNOWN && gd_lsmod_command(s[i].command))
            s[i].kind = lsmod = GD_IMPORT_LSMOD;
        bool seen = s[i].kind == GD_IMPORT_UNKNOWN;
        for (size_t k = 0; k < distinct && !seen; k++)
            seen = kinds[k] == s[i].kind;
        if (!seen)
            kinds[distinct++] = s[i].kind;
    }
    free(blank);
    if (distinct < 2) {
        free(s);
        return whole(raw, len, p, lsmod);
    }
    for (size_t i = 0; i < n; i++) {
        if (s[i].kind == GD_IMPORT_UNKNOWN) {
            if (has_text(raw, s[i].begin, s[i].end) && p->unread++ == 0) {
                p->unread_line = s[i].line;
                memcpy(p->unread_command, s[i].command, sizeof p->unread_command);
            }
            continue;
        }
        gd_paste_part *t = &p->part[p->count];
        bool lsm = s[i].kind == GD_IMPORT_LSMOD;
        size_t from = lsm && s[i].prompt_line ? s[i].prompt : s[i].begin;
        t->text = part_text(raw, from, s[i].end, lsm && s[i].prompt_line ? s[i].prompt_line - 1 : s[i].line - 1, lsm,
                            &t->len);
        if (!t->text) {
            free(s);
            gd_paste_free(p);
            return -1;
        }
        t->kind = s[i].kind;
        t->line = s[i].line;
        memcpy(t->command, s[i].command, sizeof t->command);
        p->count++;
    }
    free(s);
    return 0;
}

void gd_paste_free(gd_paste *p)
{
    for (size_t i = 0; i < p->count; i++)
        free(p->part[i].text);
    p->count = 0;
}
