/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Help texts fit the terminal as the reports do: a line wider than the
 * width (80 for a file or a pipe; COLUMNS) wraps at a word, its rest hanging
 * under what it continues (an option's description, a usage's arguments).
 */
#include "cli.h"

#include <stdlib.h>
#include <string.h>

/* Where the continuation of line (n bytes) starts: an option's description
 * ("  --x VAL   text": after the gap of two spaces or more), a usage's
 * arguments (after "usage: gpudoctor CMD "), else 4 past its own indent. */
static size_t hang_of(const char *line, size_t n, int width)
{
    size_t lead = strspn(line, " ");
    if (strncmp(line, "usage: ", 7) == 0) {
        const char *arg = line + 7;
        for (int words = 0; words < 2 && (size_t)(arg - line) < n; words++) {
            arg += strcspn(arg, " ");
            arg += strspn(arg, " ");
        }
        size_t h = (size_t)(arg - line);
        return h < (size_t)width / 2 ? h : 7;
    }
    if (lead >= 1 && lead <= 4 && line[lead] != '\0') {
        const char *gap = strstr(line + lead, "  ");
        if (gap && (size_t)(gap - line) < n) {
            size_t h = (size_t)(gap - line) + strspn(gap, " ");
            if (h < n && h < (size_t)width / 2)
                return h;
        }
    }
    /* A usage's continuation is aligned under its arguments already. */
    return lead > 0 && lead <= 4 ? lead + 4 : lead < (size_t)width / 2 ? lead : 4;
}

/* One line (without its newline) wrapped to width. */
static void wrap_line(FILE *out, const char *line, size_t n, int width)
{
    if ((int)n <= width) {
        fprintf(out, "%.*s\n", (int)n, line);
        return;
    }
    size_t hang = hang_of(line, n, width), col = 0, at = 0;
    bool first = true;
    while (at < n) {
        size_t room = (size_t)width - col, rest = n - at;
        if (rest <= room) {
            fprintf(out, "%.*s\n", (int)rest, line + at);
            return;
        }
        /* The last space that leaves the line within the width (not the indent). */
        size_t cut = room;
        while (cut > 0 && line[at + cut] != ' ')
            cut--;
        size_t indent = first ? strspn(line, " ") : 0;
        if (cut <= indent) { /* one word wider than the room: it stays whole */
            cut = strcspn(line + at + indent, " ") + indent;
            if (at + cut > n)
                cut = n - at;
        }
        size_t end = cut;
        while (end > 0 && line[at + end - 1] == ' ')
            end--;
        fprintf(out, "%.*s\n", (int)end, line + at);
        at += cut;
        at += strspn(line + at, " ");
        if (at < n)
            fprintf(out, "%*s", (int)hang, "");
        col = hang;
        first = false;
    }
}

/* Where an option line's description starts (after the gap of two spaces
 * or more that ends the option), 0 when the line is no option with one. */
static size_t description_column(const char *line, size_t n)
{
    size_t lead = strspn(line, " ");
    if (lead < 1 || lead > 4 || lead >= n || line[lead] != '-')
        return 0;
    const char *gap = strstr(line + lead, "  ");
    if (!gap || (size_t)(gap - line) >= n)
        return 0;
    return (size_t)(gap - line) + strspn(gap, " ");
}

/*
 * Whether line (n bytes) continues the paragraph that prev (pn bytes, hang
 * its description column or continuation indent) began: a description's
 * next line under its option's text, or prose after prose at the margin.
 * The texts are written at 80 columns; joined, a paragraph fills the width
 * it is shown at, with no stub of one word where a line was too long.
 * A usage's lines, lists and examples keep their lines.
 */
static bool continues(const char *prev, size_t pn, size_t hang, bool usage, const char *line, size_t n)
{
    size_t lead = strspn(line, " ");
    if (usage || pn == 0 || lead >= n)
        return false;
    if (lead >= 5)
        return hang > 0 && lead <= hang; /* under a long option's text: "--ignore ID[@GPU]  accept" */
    bool heading = prev[pn - 1] == ':' && pn < 50; /* "Examples:", "Model:" */
    return lead == 0 && prev[0] != ' ' && !heading && strncmp(line, "Exit", 4) != 0;
}

void gd_cli_help_print(FILE *out, const char *text)
{
    int width = gd_cli_text_style().width;
    char *para = malloc(strlen(text) + 1);
    if (!para)
        return;
    size_t plen = 0, hang = 0;
    bool usage = false;
    const char *prev = "";
    size_t pn = 0;
    for (const char *p = text; *p;) {
        size_t n = strcspn(p, "\n");
        if (plen && continues(prev, pn, hang, usage, p, n)) {
            size_t lead = strspn(p, " ");
            para[plen++] = ' ';
            memcpy(para + plen, p + lead, n - lead);
            plen += n - lead;
            para[plen] = '\0'; /* wrap_line reads it as a string too (never longer than text) */
        } else {
            if (plen)
                wrap_line(out, para, plen, width);
            memcpy(para, p, n);
            plen = n;
            para[plen] = '\0';
            if (n == 0)
                fputc('\n', out);
        }
        usage = strncmp(p, "usage:", 6) == 0 || (usage && n > 0);
        size_t lead = strspn(p, " "), dc = description_column(p, n);
        hang = dc ? dc : lead >= 5 ? lead : 0;
        prev = p;
        pn = n;
        p += n + (p[n] == '\n');
    }
    if (plen)
        wrap_line(out, para, plen, width);
    free(para);
}
