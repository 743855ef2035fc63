/* SPDX-License-Identifier: Apache-2.0 */
/* Expat through dl_table, once per process (expat_loader.h). */
#include "expat_loader.h"

#define AT(field) offsetof(gd_expat_api, field)

static const gd_dl_sym syms[] = {
    {AT(ParserCreate), true, {"XML_ParserCreate", NULL}},
    {AT(ParserFree), true, {"XML_ParserFree", NULL}},
    {AT(SetUserData), true, {"XML_SetUserData", NULL}},
    {AT(SetElementHandler), true, {"XML_SetElementHandler", NULL}},
    {AT(SetCharacterDataHandler), true, {"XML_SetCharacterDataHandler", NULL}},
    {AT(SetEntityDeclHandler), true, {"XML_SetEntityDeclHandler", NULL}},
    {AT(StopParser), true, {"XML_StopParser", NULL}},
    {AT(Parse), true, {"XML_Parse", NULL}},
    {AT(GetErrorCode), true, {"XML_GetErrorCode", NULL}},
    {AT(ErrorString), true, {"XML_ErrorString", NULL}},
    {AT(GetCurrentLineNumber), true, {"XML_GetCurrentLineNumber", NULL}},
};

static const gd_dl_table table = {"libexpat (needed to read nvidia-smi XML)", syms, sizeof syms / sizeof syms[0]};

/* The soname of every Expat 2.x (Debian's libexpat1). */
static const char *const paths[] = {"libexpat.so.1"};

/* Process-wide, like the library itself: loaded once, never unloaded. */
static gd_expat_api api;
static gd_dl_lazy lazy = GD_DL_LAZY(&table, paths, &api.lib, &api);

const gd_expat_api *gd_expat_api_get(char *err, size_t errlen)
{
    return gd_dl_lazy_get(&lazy, err, errlen);
}
