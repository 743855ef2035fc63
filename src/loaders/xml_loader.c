/* SPDX-License-Identifier: Apache-2.0 */
/* libxml2 through dl_table, once per process (xml_loader.h). */
#include "xml_loader.h"


#define AT(field) offsetof(gd_xml_api, field)

static const gd_dl_sym syms[] = {
    {AT(SetGenericErrorFunc), true, {"xmlSetGenericErrorFunc", NULL}},
    {AT(NewParserCtxt), true, {"xmlNewParserCtxt", NULL}},
    {AT(CtxtReadMemory), true, {"xmlCtxtReadMemory", NULL}},
    {AT(CtxtGetLastError), true, {"xmlCtxtGetLastError", NULL}},
    {AT(DocGetRootElement), true, {"xmlDocGetRootElement", NULL}},
    {AT(FreeDoc), true, {"xmlFreeDoc", NULL}},
    {AT(FreeParserCtxt), true, {"xmlFreeParserCtxt", NULL}},
    {AT(GetLineNo), true, {"xmlGetLineNo", NULL}},
    {AT(GetProp), true, {"xmlGetProp", NULL}},
    {AT(NodeGetContent), true, {"xmlNodeGetContent", NULL}},
    {AT(StopParser), true, {"xmlStopParser", NULL}},
    {AT(FreeVar), true, {"xmlFree", NULL}},
};

static const gd_dl_table table = {"libxml2 (needed to read nvidia-smi XML)", syms, sizeof syms / sizeof syms[0]};

/* Sonames: Debian 12's libxml2 2.9, and 2.14's. */
static const char *const paths[] = {"libxml2.so.2", "libxml2.so.16"};

/* Process-wide, like the library itself: loaded once, never unloaded. */
static gd_xml_api api;
static gd_dl_lazy lazy = GD_DL_LAZY(&table, paths, &api.lib, &api);

const gd_xml_api *gd_xml_api_get(char *err, size_t errlen)
{
    return gd_dl_lazy_get(&lazy, err, errlen);
}
