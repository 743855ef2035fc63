/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Shell lines in a pasted capture. Recognised by their shape, never by
 * where they stand (a paste may put a prompt between two outputs):
 *   root@node1:~# dmesg -T | grep NVRM      user@host:path then # $ % or >
 *   [user@host dir]$ nvidia-smi -q          the bracketed form (Fedora, RHEL)
 *   user@host ~ % lspci -vv                 zsh's
 *   (base) user@host:~$ ...                 a Python environment before it
 *   $ sudo lspci -vvv                       a bare prompt before a command
 *   $ sonata@coyote2:~$ nvidia-smi topo -m  a bare prompt before a prompt
 *   PS C:\Users\me> nvidia-smi -q           PowerShell
 *   dmesg -T | grep -i xid                  a command line alone
 *   [sudo] password for sonata:             sudo's prompt ("Password:" too)
 *   ^C                                      the echo of the Ctrl-C that stopped "-l 1" 
 * A bare "$", "#", "%" or ">" counts only before a command a capture is
 * taken with ("# gpu pwr" is dmon's header, "> [ 5.1] NVRM: ..." a quoted
 * log line): what follows it must be one of the commands below.
 */
#include "shell_lines.h"
#include "core/text_safe.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

/* Commands a capture is taken or filtered with; a path before them counts too. */
static const char *const commands[] = {
    "sudo",
    "nvidia-smi",
    "lspci",
    "dmesg",
    "journalctl",
    "nvidia-bug-report.sh",
    "dcgmi",
    "cat",
    "zcat",
    "grep",
    "egrep",
    "zgrep",
    "tail",
    "head",
    "less",
    "more",
    "ssh",
    "kubectl",
    "docker",
    "srun",
    "gpudoctor",
    "tee",
    "awk",
    "sed",
    "watch",
    "sh",
    "bash",
    /* the node's RDMA NICs, GPUDirect's module, its interfaces */
    "ibstat",
    "ibstatus",
    "ibv_devinfo",
    "ibdev2netdev",
    "show_gids",
    "lsmod",
    "ip",
    "column",
    "rdma",
};

/* What lone commands (no prompt before them) may open a line: the capture
 * tools only, so a log message starting with "cat" is never taken. */
static const char *const lone_commands[] = {
    "sudo",     "nvidia-smi",  "lspci",        "dmesg",     "journalctl", "dcgmi", "nvidia-bug-report.sh",
    "ibstatus", "ibv_devinfo", "ibdev2netdev", "show_gids", "lsmod",
};

typedef struct cur {
    const char *p, *end;
} cur;

static bool word_char(char c)
{
    return isalnum((unsigned char)c) || c == '.' || c == '_' || c == '-';
}

static size_t run_of(const cur *c, bool (*ok)(char))
{
    size_t n = 0;
    while (c->p + n < c->end && ok(c->p[n]))
        n++;
    return n;
}

static bool not_space(char c)
{
    return c != ' ' && c != '\t';
}

static bool prompt_char(char c)
{
    return c == '$' || c == '#' || c == '%' || c == '>';
}

/* A prompt's last character, then a blank or the end of the line. */
static bool prompt_end(cur *c)
{
    if (c->p >= c->end || !prompt_char(*c->p))
        return false;
    c->p++;
    if (c->p < c->end && *c->p != ' ' && *c->p != '\t')
        return false;
    while (c->p < c->end && (*c->p == ' ' || *c->p == '\t'))
        c->p++;
    return true;
}

/* "user@host", consumed. */
static bool user_host(cur *c)
{
    size_t u = run_of(c, word_char);
    if (u == 0 || c->p + u >= c->end || c->p[u] != '@')
        return false;
    cur h = {c->p + u + 1, c->end};
    size_t n = run_of(&h, word_char);
    if (n == 0)
        return false;
    c->p = h.p + n;
    return true;
}

/* The prompt forms with a user and host; c->p after the prompt. */
static bool user_prompt(cur *c)
{
    cur s = *c;
    if (s.p < s.end && *s.p == '(') { /* "(base) ", "((env-0.5) ) " (nested, as conda stacks them) */
        const char *close = NULL;
        int depth = 0;
        for (const char *q = s.p; q < s.end && q - s.p <= 40 && !close; q++) {
            depth += *q == '(' ? 1 : *q == ')' ? -1 : 0;
            if (depth == 0)
                close = q;
        }
        if (!close || *close != ')' || close + 1 >= s.end || close[1] != ' ')
            return false;
        s.p = close + 2;
    }
    if (s.p < s.end && *s.p == '[') { /* [user@host dir]$ */
        cur t = {s.p + 1, s.end};
        if (!user_host(&t))
            return false;
        const char *close = memchr(t.p, ']', (size_t)(t.end - t.p));
        if (!close || close - t.p > 200)
            return false;
        t.p = close + 1;
        if (!prompt_end(&t))
            return false;
        *c = t;
        return true;
    }
    if (!user_host(&s) || s.p >= s.end)
        return false;
    if (*s.p == ':') { /* user@host:path$ */
        s.p++;
        size_t n = run_of(&s, not_space);
        if (n == 0 || !prompt_char(s.p[n - 1]))
            return false;
        s.p += n - 1;
    } else if (*s.p == ' ') { /* user@host ~ % */
        s.p++;
        size_t n = run_of(&s, not_space);
        if (n == 0 || s.p + n >= s.end || s.p[n] != ' ')
            return false;
        s.p += n + 1;
    } else {
        return false;
    }
    if (!prompt_end(&s))
        return false;
    *c = s;
    return true;
}

/* One of `list` as the first word (a path before it allowed), then a blank or the end. */
static bool command_word(const cur *c, const char *const *list, size_t n)
{
    size_t len = run_of(c, not_space);
    const char *w = c->p;
    for (size_t i = len; i > 0; i--)
        if (w[i - 1] == '/') {
            len -= i;
            w += i;
            break;
        }
    for (size_t i = 0; i < n; i++)
        if (strlen(list[i]) == len && memcmp(w, list[i], len) == 0)
            return true;
    return false;
}

/* "PS C:\Users\me> " or "C:\Users\me> ". */
static bool windows_prompt(cur *c)
{
    cur s = *c;
    if (s.end - s.p > 3 && memcmp(s.p, "PS ", 3) == 0)
        s.p += 3;
    if (s.end - s.p < 3 || !isalpha((unsigned char)s.p[0]) || s.p[1] != ':' || s.p[2] != '\\')
        return false;
    const char *gt = memchr(s.p, '>', (size_t)(s.end - s.p));
    if (!gt)
        return false;
    s.p = gt;
    if (!prompt_end(&s))
        return false;
    *c = s;
    return true;
}

/* Whether the line is a shell line; *cmd where its command starts (NULL: none). */
static bool shell_parse(const char *line, size_t len, const char **cmd, const char **cmd_end)
{
    cur c = {line, line + len};
    *cmd = NULL;
    *cmd_end = line + len;
    while (c.end > c.p && (c.end[-1] == '\r' || c.end[-1] == ' ' || c.end[-1] == '\t'))
        c.end--;
    while (c.p < c.end && (*c.p == ' ' || *c.p == '\t'))
        c.p++;
    size_t n = (size_t)(c.end - c.p);
    if (n == 0)
        return false;
    if ((n >= 20 && memcmp(c.p, "[sudo] password for ", 20) == 0) || (n == 9 && memcmp(c.p, "Password:", 9) == 0))
        return true;
    if (n == 2 && c.p[0] == '^' && (c.p[1] == 'C' || c.p[1] == 'Z'))
        return true; /* the terminal's echo of Ctrl-C that stopped a looping command */
    *cmd_end = c.end;
    if (user_prompt(&c) || windows_prompt(&c)) {
        *cmd = c.p;
        return true;
    }
    if (prompt_char(*c.p)) {
        cur s = c;
        if (!prompt_end(&s) || s.p >= s.end)
            return false;
        if (user_prompt(&s) || command_word(&s, commands, sizeof commands / sizeof commands[0])) {
            *cmd = s.p;
            return true;
        }
        return false;
    }
    if (command_word(&c, lone_commands, sizeof lone_commands / sizeof lone_commands[0])) {
        *cmd = c.p;
        return true;
    }
    return false;
}

bool gd_shell_line(const char *line, size_t len)
{
    const char *cmd, *end;
    return shell_parse(line, len, &cmd, &end);
}

int gd_shell_command(const char *line, size_t len, char *out, size_t outlen)
{
    const char *cmd, *end;
    out[0] = '\0';
    if (!shell_parse(line, len, &cmd, &end))
        return 0;
    if (!cmd)
        return 1;
    size_t n = (size_t)(end - cmd) < outlen - 1 ? (size_t)(end - cmd) : outlen - 1;
    memcpy(out, cmd, n);
    out[n] = '\0';
    return 2;
}

void gd_shell_lines_blank(char *text, size_t len, gd_shell_skip *out)
{
    memset(out, 0, sizeof *out);
    long line = 0;
    for (size_t pos = 0; pos < len;) {
        char *nl = memchr(text + pos, '\n', len - pos);
        size_t n = nl ? (size_t)(nl - (text + pos)) : len - pos;
        line++;
        if (n < 4096 && gd_shell_line(text + pos, n)) {
            if (out->count++ == 0) {
                out->first_line = line;
                char raw[sizeof out->first];
                size_t k = n < sizeof raw - 1 ? n : sizeof raw - 1;
                memcpy(raw, text + pos, k);
                while (k && (raw[k - 1] == ' ' || raw[k - 1] == '\r' || raw[k - 1] == '\t'))
                    k--;
                raw[k] = '\0';
                gd_text_safe(raw, out->first, sizeof out->first); /* shown in reports: no control or stray bytes */
            }
            for (size_t i = 0; i < n; i++)
                if (text[pos + i] != '\r')
                    text[pos + i] = ' ';
        }
        pos += n + 1;
    }
}
