/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A document's element tree, built by Expat (loaders/expat_loader.h) for the
 * nvidia-smi XML importer: elements with their attributes and start-tag
 * lines, and the text between them (entities and character references
 * decoded, CDATA as text). The bytes are read as UTF-8 whatever the document
 * declares. Any entity declaration stops the parse (nvidia-smi never writes
 * one; entity expansion is a known attack on XML parsers); no external DTD
 * or entity is ever loaded.
 */
#ifndef GD_FORMATS_CAPTURE_XML_TREE_H
#define GD_FORMATS_CAPTURE_XML_TREE_H

#include <stdbool.h>
#include <stddef.h>

typedef struct gd_xml_node {
    char *name; /* the element's; NULL for a text node */
    char *text; /* a text node's characters (NUL-terminated) */
    size_t len, cap;
    char **attrs; /* an element's: name, value, ..., NULL */
    long line; /* of the element's start tag */
    struct gd_xml_node *parent, *first, *last, *next;
} gd_xml_node;

typedef enum gd_xml_status {
    GD_XML_OK,
    GD_XML_MALFORMED, /* not well-formed or cut short: Expat's message and line */
    GD_XML_ENTITY, /* declares an entity */
    GD_XML_NO_MEMORY,
    GD_XML_NO_LIBRARY, /* libexpat cannot be opened: the loader's message */
} gd_xml_status;

/* Parses text[0..len) (len <= INT_MAX) into *root (freed with gd_xml_free,
 * NULL unless GD_XML_OK). For MALFORMED and NO_LIBRARY, why says why and
 * *line where (0 when not known). */
gd_xml_status gd_xml_parse(const char *text, size_t len, gd_xml_node **root, char *why, size_t whylen, long *line);

void gd_xml_free(gd_xml_node *root);

/* An element node (not text). */
bool gd_xml_is_element(const gd_xml_node *n);

/* The text of n and all below it, in document order (a malloc'd string),
 * or NULL when out of memory. */
char *gd_xml_content(const gd_xml_node *n);

/* The value of n's attribute name, or NULL. */
const char *gd_xml_attr(const gd_xml_node *n, const char *name);

#endif
