/* SPDX-License-Identifier: Apache-2.0 */
#include "abi_compare.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

int gd_abi_compare(const struct gd_abi_side *ours, const struct gd_abi_side *theirs)
{
    int diffs = 0;
    if (ours->n_consts != theirs->n_consts || ours->n_types != theirs->n_types ||
        ours->n_members != theirs->n_members) {
        fprintf(stderr, "ABI tables of %s and %s do not line up\n", ours->label, theirs->label);
        return 1;
    }
    for (size_t i = 0; i < ours->n_consts; i++) {
        const struct gd_abi_const *a = &ours->consts[i], *b = &theirs->consts[i];
        if (a->value != b->value) {
            fprintf(stderr, "constant %s: %s says %lld, %s says %lld\n", a->name, ours->label, a->value, theirs->label,
                    b->value);
            diffs++;
        }
    }
    for (size_t i = 0; i < ours->n_types; i++) {
        const struct gd_abi_type *a = &ours->types[i], *b = &theirs->types[i];
        if (a->size != b->size || a->align != b->align) {
            fprintf(stderr, "type %s: %s has size %zu align %zu, %s has size %zu align %zu\n", a->name, ours->label,
                    a->size, a->align, theirs->label, b->size, b->align);
            diffs++;
        }
    }
    for (size_t i = 0; i < ours->n_members; i++) {
        const struct gd_abi_member *a = &ours->members[i], *b = &theirs->members[i];
        if (a->offset != b->offset || a->size != b->size) {
            fprintf(stderr, "member %s.%s: %s has offset %zu size %zu, %s has offset %zu size %zu\n", a->type,
                    a->member, ours->label, a->offset, a->size, theirs->label, b->offset, b->size);
            diffs++;
        }
    }
    return diffs;
}

enum gd_abi_kind { KIND_CONST, KIND_TYPE, KIND_FN };

static bool listed(const struct gd_abi_side *side, enum gd_abi_kind kind, const char *name, const char *const *ignored)
{
    for (size_t i = 0; ignored && ignored[i]; i++)
        if (strcmp(ignored[i], name) == 0)
            return true;
    if (kind == KIND_CONST) {
        for (size_t i = 0; i < side->n_consts; i++)
            if (strcmp(side->consts[i].name, name) == 0)
                return true;
    } else if (kind == KIND_TYPE) {
        for (size_t i = 0; i < side->n_types; i++)
            if (strcmp(side->types[i].name, name) == 0)
                return true;
    } else {
        for (size_t i = 0; i < side->n_fns; i++)
            if (strcmp(side->fns[i].type_name, name) == 0)
                return true;
    }
    return false;
}

/* Copies the identifier at s into out; returns its length (0 if none). */
static size_t ident(const char *s, char *out, size_t outlen)
{
    size_t n = 0;
    if (!(isalpha((unsigned char)s[0]) || s[0] == '_'))
        return 0;
    while ((isalnum((unsigned char)s[n]) || s[n] == '_') && n + 1 < outlen) {
        out[n] = s[n];
        n++;
    }
    out[n] = '\0';
    return n;
}

static const char *skip_space(const char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    return s;
}

/*
 * Classifies one line of a header. Writes the declared name into name and
 * returns true when the line declares something the tables must list.
 */
static bool declared_name(const char *line, bool in_enum, enum gd_abi_kind *kind, char *name, size_t namelen)
{
    const char *s = skip_space(line);
    size_t n;
    if (strncmp(s, "#define", 7) == 0) {
        s = skip_space(s + 7);
        n = ident(s, name, namelen);
        /* object-like and with a value: "#define NAME value" */
        if (n == 0 || (s[n] != ' ' && s[n] != '\t') || *skip_space(s + n) == '\0' || *skip_space(s + n) == '\n')
            return false;
        *kind = KIND_CONST;
        return true;
    }
    if (s[0] == '}') {
        n = ident(skip_space(s + 1), name, namelen);
        *kind = KIND_TYPE;
        return n > 0;
    }
    if (strncmp(s, "typedef", 7) == 0) {
        const char *fp = strstr(s, "(*");
        if (fp) {
            *kind = KIND_FN;
            return ident(fp + 2, name, namelen) > 0;
        }
        const char *semi = strchr(s, ';');
        if (!semi)
            return false; /* typedef enum/struct ... { : named at the closing brace */
        const char *p = semi;
        while (p > s && (isalnum((unsigned char)p[-1]) || p[-1] == '_'))
            p--;
        *kind = KIND_TYPE;
        return ident(p, name, namelen) > 0;
    }
    if (in_enum) {
        n = ident(s, name, namelen);
        const char *after = skip_space(s + n);
        *kind = KIND_CONST;
        return n > 0 && (*after == '=' || *after == ',' || *after == '\n' || *after == '\0');
    }
    return false;
}

int gd_abi_check_coverage(const char *header_path, const struct gd_abi_side *side, const char *const *ignored,
                          bool with_newer)
{
    FILE *f = fopen(header_path, "r");
    if (!f) {
        perror(header_path);
        return -1;
    }
    char line[1024], name[256];
    bool in_enum = false;
    int missing = 0;
    unsigned lineno = 0;
    while (fgets(line, sizeof line, f)) {
        lineno++;
        const char *s = skip_space(line);
        if (strncmp(s, "typedef enum", 12) == 0)
            in_enum = true;
        enum gd_abi_kind kind;
        bool has = declared_name(line, in_enum, &kind, name, sizeof name);
        if (s[0] == '}')
            in_enum = false;
        if (!has || (!with_newer && strstr(line, "newer")))
            continue;
        if (kind == KIND_FN && side->n_fns == 0)
            continue;
        if (!listed(side, kind, name, ignored)) {
            fprintf(stderr, "%s:%u: %s is declared but not compared: add it to the ABI list\n", header_path, lineno,
                    name);
            missing++;
        }
    }
    fclose(f);
    return missing;
}
