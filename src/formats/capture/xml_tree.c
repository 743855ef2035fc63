/* SPDX-License-Identifier: Apache-2.0 */
/* The element tree of an nvidia-smi XML dump, built with Expat (xml_tree.h). */
#include "xml_tree.h"

#include "loaders/expat_loader.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct builder {
    const gd_expat_api *x;
    XML_Parser parser;
    gd_xml_node *root, *open; /* the innermost open element */
    bool entity, no_memory;
} builder;

static void stop(builder *b)
{
    b->x->StopParser(b->parser, XML_FALSE);
}

static gd_xml_node *append(builder *b)
{
    gd_xml_node *n = calloc(1, sizeof *n);
    if (!n) {
        b->no_memory = true;
        stop(b);
        return NULL;
    }
    n->parent = b->open;
    if (b->open) {
        if (b->open->last)
            b->open->last->next = n;
        else
            b->open->first = n;
        b->open->last = n;
    }
    return n;
}

static char **copy_attrs(const XML_Char **atts)
{
    size_t n = 0;
    while (atts[n])
        n++;
    char **a = calloc(n + 1, sizeof *a);
    for (size_t i = 0; a && i < n; i++) {
        if (!(a[i] = strdup(atts[i]))) {
            for (size_t k = 0; k < i; k++)
                free(a[k]);
            free(a);
            return NULL;
        }
    }
    return a;
}

static void XMLCALL on_start(void *ud, const XML_Char *name, const XML_Char **atts)
{
    builder *b = ud;
    if (b->no_memory || b->entity)
        return;
    gd_xml_node *n = append(b);
    if (!n)
        return;
    n->line = (long)b->x->GetCurrentLineNumber(b->parser);
    n->name = strdup(name);
    n->attrs = copy_attrs(atts);
    if (!b->root)
        b->root = n;
    b->open = n;
    if (!n->name || !n->attrs) {
        b->no_memory = true;
        stop(b);
    }
}

static void XMLCALL on_end(void *ud, const XML_Char *name)
{
    (void)name;
    builder *b = ud;
    if (b->open)
        b->open = b->open->parent;
}

/* Expat hands text in pieces: consecutive pieces make one text node. */
static void XMLCALL on_text(void *ud, const XML_Char *s, int len)
{
    builder *b = ud;
    if (!b->open || len <= 0 || b->no_memory)
        return;
    gd_xml_node *t = b->open->last;
    if (!t || t->name) {
        if (!(t = append(b)))
            return;
    }
    if (t->len + (size_t)len + 1 > t->cap) {
        size_t cap = t->cap ? t->cap : 64;
        while (cap < t->len + (size_t)len + 1)
            cap *= 2;
        char *grown = realloc(t->text, cap);
        if (!grown) {
            b->no_memory = true;
            stop(b);
            return;
        }
        t->text = grown;
        t->cap = cap;
    }
    memcpy(t->text + t->len, s, (size_t)len);
    t->len += (size_t)len;
    t->text[t->len] = '\0';
}

static void XMLCALL on_entity(void *ud, const XML_Char *name, int is_param, const XML_Char *value, int value_len,
                              const XML_Char *base, const XML_Char *system_id, const XML_Char *public_id,
                              const XML_Char *notation)
{
    (void)name, (void)is_param, (void)value, (void)value_len, (void)base, (void)system_id, (void)public_id,
        (void)notation;
    builder *b = ud;
    b->entity = true;
    stop(b);
}

gd_xml_status gd_xml_parse(const char *text, size_t len, gd_xml_node **root, char *why, size_t whylen, long *line)
{
    *root = NULL;
    *line = 0;
    if (whylen)
        why[0] = '\0';
    builder b = {.x = gd_expat_api_get(why, whylen)};
    if (!b.x)
        return GD_XML_NO_LIBRARY;
    if (len > INT_MAX) {
        snprintf(why, whylen, "larger than %d bytes", INT_MAX);
        return GD_XML_MALFORMED;
    }
    /* "UTF-8" here overrides the document's encoding declaration. */
    b.parser = b.x->ParserCreate("UTF-8");
    if (!b.parser)
        return GD_XML_NO_MEMORY;
    b.x->SetUserData(b.parser, &b);
    b.x->SetElementHandler(b.parser, on_start, on_end);
    b.x->SetCharacterDataHandler(b.parser, on_text);
    b.x->SetEntityDeclHandler(b.parser, on_entity);
    enum XML_Status st = b.x->Parse(b.parser, text, (int)len, XML_TRUE);
    gd_xml_status rc = GD_XML_OK;
    if (b.entity) {
        rc = GD_XML_ENTITY;
    } else if (b.no_memory) {
        rc = GD_XML_NO_MEMORY;
    } else if (st != XML_STATUS_OK) {
        /* Expat's words, with the element it was in ("unclosed token in <link_widths>"). */
        const char *what = b.x->ErrorString(b.x->GetErrorCode(b.parser));
        if (b.open)
            snprintf(why, whylen, "%s in <%s>", what ? what : "not well-formed", b.open->name);
        else
            snprintf(why, whylen, "%s", what ? what : "not well-formed");
        *line = (long)b.x->GetCurrentLineNumber(b.parser);
        rc = GD_XML_MALFORMED;
    }
    b.x->ParserFree(b.parser);
    if (rc == GD_XML_OK)
        *root = b.root;
    else
        gd_xml_free(b.root);
    return rc;
}

void gd_xml_free(gd_xml_node *n)
{
    while (n) {
        gd_xml_free(n->first); /* depth is bounded by the shape scan (xml_shape.h) */
        gd_xml_node *next = n->next;
        free(n->name);
        free(n->text);
        for (char **a = n->attrs; a && *a; a++)
            free(*a);
        free(n->attrs);
        free(n);
        n = next;
    }
}

bool gd_xml_is_element(const gd_xml_node *n)
{
    return n && n->name;
}

static size_t content_len(const gd_xml_node *n)
{
    size_t len = n->name ? 0 : n->len;
    for (const gd_xml_node *c = n->first; c; c = c->next)
        len += content_len(c);
    return len;
}

static char *content_copy(const gd_xml_node *n, char *at)
{
    if (!n->name && n->len) {
        memcpy(at, n->text, n->len);
        at += n->len;
    }
    for (const gd_xml_node *c = n->first; c; c = c->next)
        at = content_copy(c, at);
    return at;
}

char *gd_xml_content(const gd_xml_node *n)
{
    char *s = malloc(content_len(n) + 1);
    if (s)
        *content_copy(n, s) = '\0';
    return s;
}

const char *gd_xml_attr(const gd_xml_node *n, const char *name)
{
    for (char **a = n && n->attrs ? n->attrs : NULL; a && a[0] && a[1]; a += 2)
        if (strcmp(a[0], name) == 0)
            return a[1];
    return NULL;
}
