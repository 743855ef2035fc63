/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Expat, for the nvidia-smi XML importer only, opened with dlopen on first
 * use (dl_table): the binary does not link it, so the commands that read no
 * XML (most) do not pay the dynamic loader for it at start-up. The
 * prototypes are Expat's own (its header, at build time).
 */
#ifndef GD_LOADERS_EXPAT_LOADER_H
#define GD_LOADERS_EXPAT_LOADER_H

#include "dl_table.h"

#include <expat.h>
#include <stddef.h>

typedef struct gd_expat_api {
    gd_dl_lib lib;
    __typeof__(XML_ParserCreate) *ParserCreate;
    __typeof__(XML_ParserFree) *ParserFree;
    __typeof__(XML_SetUserData) *SetUserData;
    __typeof__(XML_SetElementHandler) *SetElementHandler;
    __typeof__(XML_SetCharacterDataHandler) *SetCharacterDataHandler;
    __typeof__(XML_SetEntityDeclHandler) *SetEntityDeclHandler;
    __typeof__(XML_StopParser) *StopParser;
    __typeof__(XML_Parse) *Parse;
    __typeof__(XML_GetErrorCode) *GetErrorCode;
    __typeof__(XML_ErrorString) *ErrorString;
    __typeof__(XML_GetCurrentLineNumber) *GetCurrentLineNumber;
} gd_expat_api;

/* Expat's functions, loaded once per process (thread-safe); NULL with the
 * reason in err when libexpat cannot be opened or lacks a function. */
const gd_expat_api *gd_expat_api_get(char *err, size_t errlen);

#endif
