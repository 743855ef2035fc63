/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A linear pre-scan of an XML document's shape, before the parser (Expat,
 * xml_tree.h) sees it: inputs beyond what any nvidia-smi dump has (an XML
 * parser's duplicate-attribute check can be quadratic: libxml2 took tens of
 * seconds on 60 000 attributes on one element; the element tree's depth)
 * are refused in one pass. The bytes are what the parser will read: the
 * caller forces UTF-8 (an encoding declaration such as UTF-7 cannot hide
 * markup from this scan).
 */
#ifndef GD_FORMATS_CAPTURE_XML_SHAPE_H
#define GD_FORMATS_CAPTURE_XML_SHAPE_H

#include <stddef.h>

/* An 8-GPU nvidia-smi -q -x dump has ~6 000 elements, depth 7 and one
 * attribute per element at most. */
#define GD_XML_MAX_ELEMENTS 1000000
#define GD_XML_MAX_DEPTH 64
#define GD_XML_MAX_ATTRIBUTES 32

/*
 * NULL when the document's shape is within the limits; otherwise why not
 * ("12000 attributes on one element (at most 32)", "a DTD internal subset,
 * which nvidia-smi never writes"), written into why.
 */
const char *gd_xml_shape_refusal(const char *text, size_t len, char *why, size_t whylen);

#endif
