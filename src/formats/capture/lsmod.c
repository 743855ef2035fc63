/* SPDX-License-Identifier: Apache-2.0 */
/*
 * lsmod, whole or through grep -> f->net->peermem: GPUDirect RDMA's
 * module, nvidia_peermem (driver 470 and newer) or the older nv_peer_mem,
 * loaded or not. The module is the first column of a row; a row that only
 * names it under "Used by" (ib_core's) does not load it. What is pasted
 * is often only the prompts of "lsmod | grep nvidia_peermem" with nothing
 * after them: a grep that printed nothing says its module is absent, so
 * this reader reads the prompt lines (the only one that does) for the
 * pattern each grep looked for. A grep for something else says nothing
 * about peermem; neither does a paste that never looked for it.
 */
#include "import.h"
#include "net_capture.h"
#include "net_readers.h"
#include "shell_lines.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char *const modules[] = {"nvidia_peermem", "nv_peer_mem"};
#define NMOD 2

/* What one command looked for: the whole list, or the lines grep kept. */
typedef struct look {
    bool lsmod; /* an lsmod command */
    bool whole; /* no grep: every module listed */
    bool ignore_case, invert;
    char pattern[4][64]; /* grep's alternatives ("a\|b", -E "a|b", -e a -e b) */
    size_t npattern;
} look;

bool gd_lsmod_header(const char *line)
{
    return strncmp(line, "Module", 6) == 0 && strstr(line, "Size") && strstr(line, "Used by");
}

/* "nvidia_peermem   16384  0" (a module, its size in bytes, its use count): the module into name. */
bool gd_lsmod_row(const char *line, char *name, size_t cap)
{
    size_t n = strspn(line, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-");
    if (n == 0 || line[n] != ' ' || !isalpha((unsigned char)line[0]))
        return false;
    const char *s = gd_net_skip_blanks(line + n);
    size_t size = strspn(s, "0123456789");
    if (size < 4 || s[size] != ' ')
        return false; /* a module's size in bytes: thousands at the least */
    s = gd_net_skip_blanks(s + size);
    size_t used = strspn(s, "0123456789-");
    if (used == 0 || (s[used] != ' ' && s[used] != '\0'))
        return false;
    snprintf(name, cap, "%.*s", (int)(n < cap ? n : cap - 1), line);
    return true;
}

/* One word of a command line, quotes taken off; s after it. */
static const char *word(const char *s, char *out, size_t cap)
{
    s = gd_net_skip_blanks(s);
    size_t k = 0;
    char quote = 0;
    for (; *s && (quote || (*s != ' ' && *s != '|')); s++) {
        if (!quote && (*s == '\'' || *s == '"')) {
            quote = *s;
            continue;
        }
        if (quote && *s == quote) {
            quote = 0;
            continue;
        }
        if (k + 1 < cap)
            out[k++] = *s;
    }
    out[k] = '\0';
    return s;
}

static void add_alternatives(look *l, const char *p)
{
    while (*p && l->npattern < 4) {
        size_t n = strcspn(p, "|\\");
        if (n)
            snprintf(l->pattern[l->npattern++], sizeof l->pattern[0], "%.*s", (int)(n < 63 ? n : 63), p);
        p += n;
        p += strspn(p, "|\\");
    }
}

/* The command of a prompt line: "lsmod", "sudo lsmod | grep -i peer", "lsmod | egrep 'a|b'". */
static look parse_command(const char *cmd)
{
    look l;
    memset(&l, 0, sizeof l);
    char w[256];
    const char *s = word(cmd, w, sizeof w);
    if (strcmp(w, "sudo") == 0)
        s = word(s, w, sizeof w);
    const char *slash = strrchr(w, '/');
    if (strcmp(slash ? slash + 1 : w, "lsmod") != 0)
        return l;
    l.lsmod = true;
    s = gd_net_skip_blanks(s);
    if (*s != '|') {
        l.whole = *s == '\0';
        return l;
    }
    s = word(s + 1, w, sizeof w);
    if (strcmp(w, "grep") != 0 && strcmp(w, "egrep") != 0)
        return l; /* | head, | sort ...: a part of the list, whose part is not known */
    bool pattern_next = false;
    while (*(s = gd_net_skip_blanks(s)) && *s != '|') {
        s = word(s, w, sizeof w);
        if (pattern_next || w[0] != '-') {
            add_alternatives(&l, w);
            pattern_next = false;
            continue;
        }
        l.ignore_case |= strchr(w, 'i') != NULL;
        l.invert |= strchr(w, 'v') != NULL;
        pattern_next = strcmp(w, "-e") == 0;
    }
    if (*s == '|')
        l.npattern = 0; /* a second filter: what it kept is not known */
    return l;
}

/* Whether the command's grep would print module m's row. */
static bool looks_for(const look *l, const char *m)
{
    if (l->invert)
        return false;
    for (size_t i = 0; i < l->npattern; i++) {
        const char *p = l->pattern[i];
        if (p[0] == '^')
            p++;
        if (l->ignore_case ? strcasestr(m, p) != NULL : strstr(m, p) != NULL)
            return true;
    }
    return false;
}

int gd_import_lsmod(const char *name, const char *text, size_t len, gd_facts *f, char *err, size_t errlen)
{
    gd_net_facts *n = gd_net_capture_facts(f);
    if (!n) {
        snprintf(err, errlen, "%s: out of memory", name);
        return -1;
    }
    gd_net_lines it = {text, text + len, 0};
    char line[512], cmd[256], mod[64];
    look cur = {.lsmod = true, .whole = true}; /* before any prompt: lsmod's, whole when its header is there */
    bool seen[NMOD] = {false}, checked[NMOD] = {false}, any = false, in_lsmod = true;
    while (gd_net_next_line(&it, line, sizeof line)) {
        const char *s = gd_net_skip_blanks(line);
        int shell = gd_shell_command(s, strlen(s), cmd, sizeof cmd);
        if (shell == 1)
            continue; /* sudo's password prompt, ^C */
        if (shell == 2) {
            cur = parse_command(cmd);
            in_lsmod = cur.lsmod;
            any |= in_lsmod;
            /* What this command looked for is checked, whether it printed anything or not. */
            for (size_t m = 0; m < NMOD && in_lsmod; m++)
                checked[m] |= cur.whole || looks_for(&cur, modules[m]);
            continue;
        }
        if (!in_lsmod)
            continue;
        if (gd_lsmod_header(s)) {
            any = true;
            for (size_t m = 0; m < NMOD && cur.whole; m++)
                checked[m] = true; /* the header opens the whole list (not lsmod | head's part of it) */
        } else if (gd_lsmod_row(s, mod, sizeof mod)) {
            any = true;
            for (size_t m = 0; m < NMOD; m++)
                seen[m] |= strcmp(mod, modules[m]) == 0;
        }
    }
    if (!any) {
        snprintf(err, errlen, "%s: no lsmod command, header or module row: not lsmod output", name);
        return -1;
    }
    gd_net_capture_source(n->peermem_source, sizeof n->peermem_source, "lsmod", gd_import_base(name));
    for (size_t m = 0; m < NMOD; m++)
        if (seen[m]) {
            n->peermem = GD_PEERMEM_LOADED;
            snprintf(n->peermem_module, sizeof n->peermem_module, "%s", modules[m]);
            return 0;
        }
    /* Absent once nvidia_peermem is known absent: nv_peer_mem is the module
     * of drivers before 470, which a grep for the new name does not see. */
    if (checked[0] && n->peermem != GD_PEERMEM_LOADED)
        n->peermem = GD_PEERMEM_ABSENT;
    else if (!checked[0] && !checked[1])
        gd_import_note(f,
                       "%s: lsmod read, but no command listed nvidia_peermem or nv_peer_mem: GPUDirect RDMA's "
                       "module not known",
                       gd_import_base(name));
    return 0;
}
