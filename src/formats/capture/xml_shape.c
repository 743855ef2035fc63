/* SPDX-License-Identifier: Apache-2.0 */
/* The linear XML shape pre-scan (xml_shape.h). */
#include "xml_shape.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

/* Index just past `end` searched from i, or len when absent. */
static size_t past(const char *t, size_t len, size_t i, const char *end)
{
    size_t n = strlen(end);
    const char *p = i < len ? memmem(t + i, len - i, end, n) : NULL;
    return p ? (size_t)(p - t) + n : len;
}

const char *gd_xml_shape_refusal(const char *t, size_t len, char *why, size_t whylen)
{
    size_t elements = 0, depth = 0;
    for (size_t i = 0; i < len;) {
        const char *lt = memchr(t + i, '<', len - i);
        if (!lt)
            break;
        i = (size_t)(lt - t);
        size_t rest = len - i;
        if (rest >= 4 && memcmp(t + i, "<!--", 4) == 0) {
            i = past(t, len, i + 4, "-->");
            continue;
        }
        if (rest >= 9 && memcmp(t + i, "<![CDATA[", 9) == 0) {
            i = past(t, len, i + 9, "]]>");
            continue;
        }
        if (rest >= 2 && t[i + 1] == '?') {
            i = past(t, len, i + 2, "?>");
            continue;
        }
        if (rest >= 2 && t[i + 1] == '!') {
            /* <!DOCTYPE ... SYSTEM "nvsmi_device_v12.dtd"> is what nvidia-smi
             * writes; an internal subset [...] is where entities live. */
            size_t j = i + 2;
            char quote = 0;
            for (; j < len && (quote || t[j] != '>'); j++) {
                if (quote && t[j] == quote)
                    quote = 0;
                else if (!quote && (t[j] == '"' || t[j] == '\''))
                    quote = t[j];
                else if (!quote && t[j] == '[') {
                    snprintf(why, whylen,
                             "a DTD internal subset (where entities are declared), which nvidia-smi "
                             "never writes");
                    return why;
                }
            }
            i = j + 1;
            continue;
        }
        if (rest >= 2 && t[i + 1] == '/') {
            if (depth)
                depth--;
            i = past(t, len, i + 2, ">");
            continue;
        }
        /* A start tag: count it, its attributes (an '=' outside quotes), its depth. */
        if (++elements > GD_XML_MAX_ELEMENTS) {
            snprintf(why, whylen, "more than %d elements", GD_XML_MAX_ELEMENTS);
            return why;
        }
        size_t j = i + 1, attrs = 0;
        char quote = 0;
        for (; j < len && (quote || t[j] != '>'); j++) {
            if (quote) {
                if (t[j] == quote)
                    quote = 0;
            } else if (t[j] == '"' || t[j] == '\'') {
                quote = t[j];
            } else if (t[j] == '=' && ++attrs > GD_XML_MAX_ATTRIBUTES) {
                snprintf(why, whylen, "more than %d attributes on one element", GD_XML_MAX_ATTRIBUTES);
                return why;
            }
        }
        bool empty = j < len && j > i + 1 && t[j - 1] == '/';
        if (!empty && ++depth > GD_XML_MAX_DEPTH) {
            snprintf(why, whylen, "elements nested more than %d deep", GD_XML_MAX_DEPTH);
            return why;
        }
        i = j + 1;
    }
    return NULL;
}
