/* SPDX-License-Identifier: Apache-2.0 */
/*
 * --from FILE...: reads captured files, recognises each by content, parses
 * it with its parser and merges everything into one gd_facts, marked as
 * captured so the checks and reports say what a capture cannot show.
 */
#include "capture_formats.h"
#include "import.h"
#include "core/input.h"
#include "paste_parts.h"
#include "shell_lines.h"
#include "formats/trace/trace_input.h"

#include <ctype.h>
#include <stdbool.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Far above any real capture (lspci -vvv of an 8-GPU server is ~1 MiB).
 * A recording is streamed instead, whatever its size. */
#define MAX_FILE_BYTES (64u << 20)
/* What is read of an input before it is recognised (detection reads its first lines). */
#define HEAD_BYTES (256u << 10)

/* An input opened for reading, inflated when it starts as gzip; NULL with a message. */
static gd_tsrc *open_input(const char *path, char *err, size_t errlen)
{
    int gz = 0;
    gd_tsrc *src = gd_tsrc_file(path, &gz, err, errlen);
    return src && gz ? gd_tsrc_gzip(src, 1, err, errlen) : src;
}

/* Up to `want` more bytes of src appended to buf (of capacity cap). 0, or -1 with a message. */
static int read_into(gd_tsrc *src, char *buf, size_t *len, size_t want, const char *path, char *err, size_t errlen)
{
    while (want > 0) {
        char why[400] = "";
        long got = src->read(src, buf + *len, want, why, sizeof why);
        if (got < 0) {
            snprintf(err, errlen, "%s: %s", gd_input_name(path), why);
            return -1;
        }
        if (got == 0)
            break;
        *len += (size_t)got;
        want -= (size_t)got;
    }
    return 0;
}

/* The first HEAD_BYTES of src (fewer when it is shorter), NUL-terminated. */
static char *read_head(gd_tsrc *src, const char *path, size_t *len, char *err, size_t errlen)
{
    char *head = malloc(HEAD_BYTES + 1);
    *len = 0;
    if (!head) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    if (read_into(src, head, len, HEAD_BYTES, path, err, errlen) != 0) {
        free(head);
        return NULL;
    }
    head[*len] = '\0';
    return head;
}

/* All of an input that is not streamed: its head and the rest, at most MAX_FILE_BYTES. */
static char *read_rest(gd_tsrc *src, const char *path, char *head, size_t *len, char *err, size_t errlen)
{
    if (*len < HEAD_BYTES)
        return head; /* the whole of it */
    size_t cap = HEAD_BYTES;
    for (;;) {
        size_t next = cap * 2 < MAX_FILE_BYTES + 1 ? cap * 2 : MAX_FILE_BYTES + 1;
        char *bigger = realloc(head, next + 1);
        if (!bigger) {
            free(head);
            snprintf(err, errlen, "%s: out of memory", gd_input_name(path));
            return NULL;
        }
        head = bigger;
        size_t before = *len;
        if (read_into(src, head, len, next - *len, path, err, errlen) != 0) {
            free(head);
            return NULL;
        }
        if (*len > MAX_FILE_BYTES) {
            free(head);
            snprintf(err, errlen, "%s: larger than %u MiB: not an input gpudoctor reads", gd_input_name(path),
                     MAX_FILE_BYTES >> 20);
            return NULL;
        }
        head[*len] = '\0';
        if (*len - before < next - before)
            return head; /* the end came first */
        cap = next;
    }
}

static void note_format(gd_facts *f, gd_import_kind k)
{
    const char *name = gd_import_kind_name(k);
    if (strstr(f->capture_formats, name))
        return;
    size_t used = strlen(f->capture_formats);
    snprintf(f->capture_formats + used, sizeof f->capture_formats - used, "%s%s", used ? ", " : "", name);
}

/* What import_kind's failure means for the other files. */
enum { REFUSED = -1, FATAL = -2 };

/* One file's bytes, already recognised as kind k, into f: 0; REFUSED when
 * this file cannot be read (err says where and why: the others still
 * count); FATAL when nothing can be judged (files of two machines, a
 * recording with other files, no memory). */
static int import_kind(const char *name, const char *text, size_t len, gd_import_kind k, gd_facts *f, char *err,
                       size_t errlen)
{
    /* A UTF-8 byte order mark (Windows editors add one to pasted captures)
     * would hide the first line from every line-based parser. */
    if (len >= 3 && memcmp(text, "\xef\xbb\xbf", 3) == 0)
        text += 3, len -= 3;
    const gd_capture_format *c = gd_capture_format_of(k);
    if (!c) {
        gd_import_undetected(name, text, len, err, errlen);
        return REFUSED;
    }
    if (c->role == GD_CAPTURE_ALONE) {
        snprintf(err, errlen, "%s: a gpudoctor recording is read alone (--from FILE.jsonl, no other --from file)",
                 name);
        return FATAL;
    }
    if (k == GD_IMPORT_SMI_XML) {
        /* Blanked shell lines before the document: XML allows nothing before its declaration. */
        while (len && isspace((unsigned char)*text))
            text++, len--;
    }
    if (c->role == GD_CAPTURE_ONTO_GPUS) {
        if (c->read(name, text, len, f, err, errlen) != 0)
            return REFUSED;
        note_format(f, k);
        return 0;
    }
    gd_facts part;
    memset(&part, 0, sizeof part);
    if (c->read(name, text, len, &part, err, errlen) != 0) {
        gd_facts_free(&part);
        return REFUSED;
    }
    if (gd_import_merge(f, &part, err, errlen) != 0)
        return FATAL;
    f->driver_loaded = true; /* nvidia-smi printed it: a driver was answering */
    note_format(f, k);
    return 0;
}

/* The shell lines blanked out of a file, said once for it. */
static void note_shell(gd_facts *f, const char *name, const gd_shell_skip *sk)
{
    if (sk->count)
        gd_import_note(f,
                       "%s:%ld: %zu shell line%s skipped (a prompt, a command line or sudo's password prompt; "
                       "the first: '%s')",
                       gd_import_base(name), sk->first_line, sk->count, sk->count == 1 ? "" : "s", sk->first);
}

/* What a cut paste passed over: outputs in no format gpudoctor reads. */
static void note_unread(gd_facts *f, const char *name, const gd_paste *p)
{
    if (p->unread)
        gd_import_note(f,
                       "%s:%ld: %zu command output%s of this paste in no format gpudoctor reads, passed over "
                       "(the first: '%s')",
                       gd_import_base(name), p->unread_line, p->unread, p->unread == 1 ? "" : "s",
                       p->unread_command[0] ? p->unread_command : "before the first prompt");
}

/* Reading order: the formats that bring GPUs first, since lspci, topo and
 * kernel logs map onto the GPUs they name (capture_formats.c). */
static int import_pass(gd_import_kind k)
{
    const gd_capture_format *c = gd_capture_format_of(k);
    return c ? c->pass : 0;
}

int gd_import_buffer(const char *name, const char *text, size_t len, gd_facts *f, char *err, size_t errlen)
{
    gd_paste *p = malloc(sizeof *p);
    if (!p || gd_paste_cut(text, len, p) != 0) {
        free(p);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    int rc = 0;
    for (int pass = 0; rc == 0 && pass < GD_CAPTURE_PASSES; pass++)
        for (size_t i = 0; rc == 0 && i < p->count; i++)
            if (import_pass(p->part[i].kind) == pass)
                rc = import_kind(name, p->part[i].text, p->part[i].len, p->part[i].kind, f, err, errlen);
    if (rc == 0) {
        note_shell(f, name, &p->shell);
        note_unread(f, name, p);
    }
    gd_paste_free(p);
    free(p);
    return rc == 0 ? 0 : -1;
}

static void set_source(gd_facts *f, const char *const *paths, size_t n)
{
    size_t used = (size_t)snprintf(f->source, sizeof f->source, "capture:");
    for (size_t i = 0; i < n && used < sizeof f->source; i++) {
        const char *slash = strrchr(paths[i], '/');
        const char *base = strcmp(paths[i], "-") == 0 ? "stdin" : slash ? slash + 1 : paths[i];
        used += (size_t)snprintf(f->source + used, sizeof f->source - used, "%s%s", i ? "," : "", base);
    }
}

/* A file not read: named with its reason (by its base name, as the report
 * names the files it read), the others still judged. */
static void refuse(gd_facts *f, const char *name, const char *why)
{
    size_t n = strlen(name);
    const char *base = gd_import_base(name);
    bool named = base != name && strncmp(why, name, n) == 0;
    if (f->capture_refused_count < GD_CAPTURE_REFUSED)
        snprintf(f->capture_refused[f->capture_refused_count], sizeof f->capture_refused[0], "%s%s", named ? base : "",
                 named ? why + n : why);
    f->capture_refused_count++;
}

/* Every refusal, one a line, and what was expected where detection failed: the error when no file could be read. */
static void all_refused(const gd_facts *f, bool undetected, char *err, size_t errlen)
{
    size_t used = 0, n = f->capture_refused_count < GD_CAPTURE_REFUSED ? f->capture_refused_count : GD_CAPTURE_REFUSED;
    err[0] = '\0';
    for (size_t i = 0; i < n && used < errlen; i++)
        used += (size_t)snprintf(err + used, errlen - used, "%s%s", i ? "\n" : "", f->capture_refused[i]);
    if (undetected && used < errlen)
        snprintf(err + used, errlen - used, "\n%s", gd_import_formats_help);
}

int gd_import_files(const char *const *paths, size_t n, gd_facts *f, char *err, size_t errlen)
{
    f->captured = true;
    f->cuda_driver_version = gd_missing(GD_ST_NOT_SUPPORTED);
    set_source(f, paths, n);
    /* Each input is read and recognised once (a pipe or "-" cannot be read
     * twice), then parsed in the order the formats depend on each other. */
    char **text = calloc(n + 1, sizeof *text);
    size_t *len = calloc(n + 1, sizeof *len);
    gd_import_kind *kind = calloc(n + 1, sizeof *kind);
    gd_paste **paste = calloc(n + 1, sizeof *paste); /* each file's parts (paste_parts.h) */
    int rc = text && len && kind && paste ? 0 : FATAL;
    bool undetected = false;
    char why[GD_CAPTURE_NOTE_LEN * 2];
    if (rc != 0)
        snprintf(err, errlen, "out of memory");
    gd_tsrc *stream = NULL; /* a recording alone: read as it streams */
    for (size_t i = 0; rc == 0 && i < n; i++) {
        if (strcmp(paths[i], "-") == 0)
            for (size_t k = 0; k < i; k++)
                if (strcmp(paths[k], "-") == 0) {
                    snprintf(err, errlen, "--from -: standard input can be read only once");
                    rc = FATAL;
                }
        if (rc != 0)
            break;
        gd_tsrc *src = open_input(paths[i], why, sizeof why);
        if (!src) {
            refuse(f, "", why); /* as the system said it: the path helps find the file */
            continue;
        }
        /* A recording alone is streamed, whatever its size; any other input is read whole. */
        text[i] = read_head(src, paths[i], &len[i], why, sizeof why);
        const gd_capture_format *c = text[i] ? gd_capture_format_of(gd_import_detect(text[i], len[i])) : NULL;
        if (n == 1 && c && c->role == GD_CAPTURE_ALONE) {
            kind[i] = c->kind;
            stream = src;
            break;
        }
        if (text[i])
            text[i] = read_rest(src, paths[i], text[i], &len[i], why, sizeof why);
        src->close(src);
        if (!text[i]) {
            refuse(f, "", why);
            continue;
        }
        paste[i] = malloc(sizeof *paste[i]);
        if (!paste[i] || gd_paste_cut(text[i], len[i], paste[i]) != 0) {
            free(paste[i]);
            paste[i] = NULL;
            snprintf(err, errlen, "out of memory");
            rc = FATAL;
        }
    }
    /* A recording holds the whole run: its facts are the live run's own. */
    if (stream) {
        memset(f, 0, sizeof *f);
        char note[200] = "";
        rc = gd_import_recording_stream(gd_input_name(paths[0]), text[0], len[0], stream, f, note, sizeof note, err,
                                        errlen);
        stream->close(stream);
        if (rc == 0) {
            /* The live run's source ("sim:FILE" stays first: the reports read it), then the recording. */
            size_t used = strnlen(f->source, 300);
            const char *slash = strrchr(paths[0], '/');
            snprintf(f->source + used, sizeof f->source - used, ", replayed from recording:%.120s%s%s%s",
                     strcmp(paths[0], "-") == 0 ? "stdin"
                     : slash                    ? slash + 1
                                                : paths[0],
                     note[0] ? " (" : "", note, note[0] ? ")" : "");
        }
        free(text[0]);
        free(text);
        free(len);
        free(kind);
        free(paste);
        return rc;
    }
    size_t read = 0;
    for (int pass = 0; rc == 0 && pass < GD_CAPTURE_PASSES; pass++)
        for (size_t i = 0; rc == 0 && i < n; i++)
            for (size_t j = 0; rc == 0 && paste[i] && j < paste[i]->count; j++) {
                const gd_paste_part *part = &paste[i]->part[j];
                if (import_pass(part->kind) != pass)
                    continue;
                const char *name = gd_input_name(paths[i]);
                int k = import_kind(name, part->text, part->len, part->kind, f, why, sizeof why);
                if (k == FATAL) {
                    snprintf(err, errlen, "%s", why);
                    rc = FATAL;
                } else if (k == REFUSED) {
                    undetected |= part->kind == GD_IMPORT_UNKNOWN;
                    refuse(f, name, why);
                } else if (read++, !kind[i]) {
                    kind[i] = part->kind; /* the file's first part read: its shell lines said once */
                    note_shell(f, name, &paste[i]->shell);
                    note_unread(f, name, paste[i]);
                }
            }
    for (size_t i = 0; text && paste && i < n; i++) {
        free(text[i]);
        if (paste[i])
            gd_paste_free(paste[i]);
        free(paste[i]);
    }
    free(text);
    free(len);
    free(kind);
    free(paste);
    if (rc == 0 && read == 0) {
        all_refused(f, undetected, err, errlen);
        rc = REFUSED;
    }
    if (rc != 0)
        return -1;
    if (!f->driver_loaded)
        snprintf(f->driver_error, sizeof f->driver_error,
                 "the captured files hold no nvidia-smi output: the GPUs' own state is not known");
    const gd_series *s = &f->series;
    f->window_s = s->n ? gd_series_t(s, s->n - 1) : 0;
    f->interval_s = s->n > 1 ? f->window_s / (double)(s->n - 1) : 0;
    return 0;
}
