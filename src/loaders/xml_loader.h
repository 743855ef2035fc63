/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libxml2, for the nvidia-smi XML importer only, opened with dlopen on first
 * use (dl_table): the binary does not link it, so the commands that read no
 * XML (most) do not pay the dynamic loader for libxml2 and ICU at start-up.
 * The prototypes are libxml2's own (its headers, at build time).
 */
#ifndef GD_LOADERS_XML_LOADER_H
#define GD_LOADERS_XML_LOADER_H

#include "dl_table.h"

#include <libxml/parser.h>
#include <libxml/tree.h>
#include <stddef.h>

typedef struct gd_xml_api {
    gd_dl_lib lib;
    __typeof__(xmlSetGenericErrorFunc) *SetGenericErrorFunc;
    __typeof__(xmlNewParserCtxt) *NewParserCtxt;
    __typeof__(xmlCtxtReadMemory) *CtxtReadMemory;
    __typeof__(xmlCtxtGetLastError) *CtxtGetLastError;
    __typeof__(xmlDocGetRootElement) *DocGetRootElement;
    __typeof__(xmlFreeDoc) *FreeDoc;
    __typeof__(xmlFreeParserCtxt) *FreeParserCtxt;
    __typeof__(xmlGetLineNo) *GetLineNo;
    __typeof__(xmlGetProp) *GetProp;
    __typeof__(xmlNodeGetContent) *NodeGetContent;
    __typeof__(xmlStopParser) *StopParser;
    xmlFreeFunc *FreeVar; /* the address of libxml2's variable xmlFree (what frees its strings) */
} gd_xml_api;

/* libxml2's functions, loaded once per process (thread-safe); NULL with the
 * reason in err when libxml2.so cannot be opened or lacks a function. */
const gd_xml_api *gd_xml_api_get(char *err, size_t errlen);

#endif
