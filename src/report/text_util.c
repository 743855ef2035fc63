/* SPDX-License-Identifier: Apache-2.0 */
/* Word wrapping, colours and scalar formatting for the text renderers. */
#include "text_util.h"
#include "core/text_safe.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

const char *gd_c(const gd_text_style *st, const char *code)
{
    return st->color ? code : "";
}

const char *gd_safe(const char *s)
{
    static char buf[8][4096];
    static unsigned next;
    char *out = buf[next++ % 8];
    return gd_text_safe(s, out, sizeof buf[0]);
}

void gd_wrap(FILE *out, const gd_text_style *st, int indent, int first_col, const char *text)
{
    int width = st->width > 40 ? st->width : 40;
    int col = first_col;
    bool first = true;
    for (const char *p = text; *p;) {
        while (*p == ' ')
            p++;
        size_t w = strcspn(p, " ");
        if (w == 0)
            break;
        if (!first && col + 1 + (int)w > width) {
            fprintf(out, "\n%*s", indent, "");
            col = indent;
        } else if (!first) {
            fputc(' ', out);
            col++;
        }
        /* A word wider than what is left of the line (a long file name) is
         * cut where the line ends, never inside a UTF-8 character. */
        while (col + (int)w > width && width - indent >= 8) {
            size_t k = 0;
            for (int c = col; k < w && c < width; c++)
                for (k++; k < w && ((unsigned char)p[k] & 0xC0) == 0x80;)
                    k++;
            if (k == 0)
                break;
            gd_write_safe(out, p, k);
            p += k;
            w -= k;
            fprintf(out, "\n%*s", indent, "");
            col = indent;
        }
        gd_write_safe(out, p, w);
        col += (int)w;
        p += w;
        first = false;
    }
    fputc('\n', out);
}

/* Columns that s[0..n) takes on a terminal: ESC [ ... m takes none. */
static int visible(const char *s, size_t n)
{
    int w = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '\033' && i + 1 < n && s[i + 1] == '[') {
            while (i < n && s[i] != 'm')
                i++;
            continue;
        }
        w += ((unsigned char)s[i] & 0xC0) != 0x80; /* UTF-8 continuation bytes take no column */
    }
    return w;
}

/* Writes the word s[0..n) from column *col: a word wider than the rest of
 * the line (a long path) is cut where the line ends and goes on at column
 * hang, never across a colour escape or inside a UTF-8 character. */
static void put_word(FILE *out, int width, int hang, int *col, const char *s, size_t n)
{
    if (*col + visible(s, n) <= width || width - hang < 8) {
        fwrite(s, 1, n, out);
        *col += visible(s, n);
        return;
    }
    for (size_t i = 0; i < n;) {
        size_t k = i;
        if (s[k] == '\033' && k + 1 < n && s[k + 1] == '[') {
            while (k < n && s[k] != 'm')
                k++;
            k += k < n;
            fwrite(s + i, 1, k - i, out);
            i = k;
            continue;
        }
        k++;
        while (k < n && ((unsigned char)s[k] & 0xC0) == 0x80)
            k++;
        if (*col >= width) {
            fprintf(out, "\n%*s", hang, "");
            *col = hang;
        }
        fwrite(s + i, 1, k - i, out);
        (*col)++;
        i = k;
    }
}

static void wrap_line(FILE *out, int width, const char *line, size_t n)
{
    if (visible(line, n) <= width) {
        fwrite(line, 1, n, out);
        fputc('\n', out);
        return;
    }
    size_t lead = 0;
    while (lead < n && line[lead] == ' ')
        lead++;
    int hang = (int)lead + 4;
    size_t word = lead; /* else under the second word: "  Temperature GPU 60 C" */
    while (word < n && line[word] != ' ')
        word++;
    if (word + 1 < n && line[word + 1] != ' ' && visible(line, word + 1) < width / 2)
        hang = visible(line, word + 1);
    for (size_t i = lead; i + 1 < n; i++)
        if (line[i] != ' ' && line[i + 1] == ' ' && i + 2 < n && line[i + 2] == ' ') {
            size_t v = i + 1;
            while (v < n && line[v] == ' ')
                v++;
            int col = visible(line, v);
            if (v < n && col < width / 2)
                hang = col;
            break;
        }
    int col = 0;
    size_t p = 0;
    /* The leading spaces and the first word as they are. */
    bool first = true;
    while (p < n) {
        size_t sp = p;
        while (!first && sp < n && line[sp] == ' ')
            sp++;
        size_t end = sp;
        while (end < n && line[end] != ' ')
            end++;
        if (first) {
            /* up to the first space after the first word, keeping inner runs (labels) */
            end = lead;
            while (end < n && line[end] != ' ')
                end++;
            fwrite(line, 1, end, out);
            col = visible(line, end);
            p = end;
            first = false;
            continue;
        }
        if (sp == n)
            break;
        int w = visible(line + sp, end - sp);
        int gap = visible(line + p, sp - p);
        if (col + gap + w > width && col > hang) {
            fprintf(out, "\n%*s", hang, "");
            col = hang;
        } else {
            fwrite(line + p, 1, sp - p, out); /* the spaces as written (label columns) */
            col += gap;
        }
        put_word(out, width, hang, &col, line + sp, end - sp);
        p = end;
    }
    fputc('\n', out);
}

void gd_wrap_block(FILE *out, const gd_text_style *st, const char *text)
{
    int width = st->width > 40 ? st->width : 40;
    for (const char *p = text; *p;) {
        size_t n = strcspn(p, "\n");
        wrap_line(out, width, p, n);
        p += n;
        if (*p == '\n')
            p++;
    }
}

FILE *gd_wrapped_open(gd_wrapped *w, FILE *out)
{
    *w = (gd_wrapped){.out = out};
    w->mem = open_memstream(&w->buf, &w->len);
    return w->mem ? w->mem : out;
}

void gd_wrapped_close(gd_wrapped *w, const gd_text_style *st)
{
    if (!w->mem)
        return;
    if (fclose(w->mem) == 0 && w->buf)
        gd_wrap_block(w->out, st, w->buf);
    free(w->buf);
    *w = (gd_wrapped){0};
}

void gd_print_source(FILE *out, const gd_text_style *st, const json_t *src)
{
    if (!json_is_string(src))
        return;
    char spaced[2048], item[2048];
    gd_fill_placeholder(item, sizeof item, gd_safe(json_string_value(src)), ",", ", ");
    gd_fill_placeholder(spaced, sizeof spaced, item, ":<", ": <"); /* a capture's file, then its fields */
    fprintf(out, "    %ssource%s   ", gd_c(st, GD_ANSI_DIM), gd_c(st, GD_ANSI_RESET));
    gd_wrap(out, st, 13, 13, spaced);
}

/* Appends text to buf (of len, *used so far); false once it no longer fits. */
static bool put(char *buf, size_t len, size_t *used, const char *text)
{
    size_t n = strlen(text);
    if (*used + n >= len)
        return false;
    memcpy(buf + *used, text, n + 1);
    *used += n;
    return true;
}

static bool is_scalar(const json_t *v)
{
    return !json_is_object(v) && !json_is_array(v);
}

/* A structure two levels down is the JSON report's to show (the newest
 * messages of each Xid): text leaves it out rather than say "2 items". A
 * list of plain values is shown at any depth. */
static bool shown(const json_t *v, int depth)
{
    if (depth < 2 || is_scalar(v))
        return true;
    if (json_is_object(v))
        return false;
    size_t i;
    json_t *x;
    json_array_foreach((json_t *)v, i, x) if (!is_scalar(x)) return false;
    return true;
}

/* v in words: an object as "key value, key value", an array as its items
 * joined by ", " (objects by "; "); a list of plain values inside another
 * value in parentheses, "gpus (0, 1)", so that its commas are not the
 * outer ones. False when it did not fit. */
static bool words(const json_t *v, int depth, char *buf, size_t len, size_t *used)
{
    char item[512];
    if (json_is_object(v)) {
        const char *key;
        json_t *x;
        bool first = true;
        json_object_foreach((json_t *)v, key, x)
        {
            if (!shown(x, depth + 1))
                continue;
            gd_text_safe(key, item, sizeof item);
            if ((!first && !put(buf, len, used, ", ")) || !put(buf, len, used, item) || !put(buf, len, used, " ") ||
                !words(x, depth + 1, buf, len, used))
                return false;
            first = false;
        }
        return true;
    }
    if (json_is_array(v)) {
        size_t n = json_array_size(v);
        if (n == 0)
            return put(buf, len, used, "none");
        bool inner = depth > 0 && shown(v, 2); /* plain values inside another value */
        if (inner && !put(buf, len, used, "("))
            return false;
        bool first = true;
        for (size_t i = 0; i < n; i++) {
            const json_t *x = json_array_get(v, i);
            if (!shown(x, depth + 1))
                continue;
            if ((!first && !put(buf, len, used, json_is_object(x) ? "; " : ", ")) ||
                !words(x, depth + 1, buf, len, used))
                return false;
            first = false;
        }
        return !inner || put(buf, len, used, ")");
    }
    gd_json_scalar_text(v, item, sizeof item);
    return put(buf, len, used, item);
}

void gd_json_scalar_text(const json_t *v, char *buf, size_t len)
{
    if (!len)
        return;
    if (json_is_integer(v))
        snprintf(buf, len, "%lld", (long long)json_integer_value(v));
    else if (json_is_real(v)) {
        /* Four significant digits, never an exponent for a time or a count
         * (13336.3 ms reads "13336", not "1.334e+04"). */
        double x = json_real_value(v);
        if (fabs(x) >= 1e4 && fabs(x) < 1e15)
            snprintf(buf, len, "%.0f", x);
        else
            snprintf(buf, len, "%.4g", x);
    } else if (json_is_string(v))
        gd_text_safe(json_string_value(v), buf, len);
    else if (json_is_true(v))
        snprintf(buf, len, "yes");
    else if (json_is_false(v))
        snprintf(buf, len, "no");
    else if (json_is_null(v))
        snprintf(buf, len, "n/a");
    else {
        /* Text is words and numbers, never JSON: a value that does not fit
         * ends at a word with " ..." (the JSON report has all of it). */
        size_t used = 0;
        buf[0] = '\0';
        if (!words(v, 0, buf, len, &used) && len > 8) {
            size_t cut = used < len - 5 ? used : len - 5;
            while (cut > 0 && buf[cut - 1] != ' ')
                cut--;
            while (cut > 0 && (buf[cut - 1] == ' ' || buf[cut - 1] == ',' || buf[cut - 1] == ';'))
                cut--;
            snprintf(buf + cut, len - cut, " ...");
        }
    }
}

void gd_gpu_ranges(const int *g, size_t n, bool ranges, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < n && used < len;) {
        size_t j = i;
        while (ranges && j + 1 < n && g[j + 1] == g[j] + 1)
            j++;
        used += (size_t)(j > i ? snprintf(buf + used, len - used, "%s%d-%d", i ? "," : "", g[i], g[j])
                               : snprintf(buf + used, len - used, "%s%d", i ? "," : "", g[i]));
        i = j + 1;
    }
}

/* The file a banner names: as given, or its last part where the whole line
 * would not fit the width (a deep path wrapped the banner over three lines,
 * cut inside the name; the JSON report keeps the path whole). */
static const char *banner_file(const char *path, size_t rest, const gd_text_style *st)
{
    const char *slash = strrchr(path, '/');
    int width = st->width > 40 ? st->width : 40;
    return slash && slash[1] && strlen(path) + rest > (size_t)width ? slash + 1 : path;
}

void gd_text_banner(FILE *out, const gd_facts *f, const char *what, const gd_text_style *st)
{
    fprintf(out, "%sgpudoctor %s%s%s", gd_c(st, GD_ANSI_BOLD), GD_VERSION, what, gd_c(st, GD_ANSI_RESET));
    size_t head = strlen("gpudoctor ") + strlen(GD_VERSION) + strlen(what);
    if (f->simulated) {
        const char *tail = ": no real GPU was read";
        fprintf(out, "  %sSIMULATION%s of %s%s", gd_c(st, GD_ANSI_YELLOW), gd_c(st, GD_ANSI_RESET),
                gd_safe(banner_file(f->source + 4, head + strlen("  SIMULATION of ") + strlen(tail), st)), tail);
    }
    if (f->captured) {
        const char *formats = gd_safe(f->capture_formats), *tail = "): read from files, not this machine";
        fprintf(out, "  %sCAPTURE%s %s (%s%s", gd_c(st, GD_ANSI_YELLOW), gd_c(st, GD_ANSI_RESET),
                gd_safe(banner_file(f->source + 8, head + strlen("  CAPTURE  (") + strlen(formats) + strlen(tail), st)),
                formats, tail);
    }
    fputc('\n', out);
}
