/*
 * libFuzzer target: format detection and the dispatcher. The input is
 * recognised, parsed and merged twice into one set of facts (the second as
 * another capture of the same machine). lspci and topo inputs stop after
 * detection: their parsers have their owner's fuzz targets.
 */
#include "fuzz_import_common.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    gd_import_kind k = gd_import_detect((const char *)data, size);
    if (k == GD_IMPORT_LSPCI || k == GD_IMPORT_TOPO)
        return 0;
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    gd_facts f;
    memset(&f, 0, sizeof f);
    char err[1024] = "";
    for (int i = 0; i < 2; i++) {
        err[0] = '\0';
        if (gd_import_buffer("fuzz", text, size, &f, err, sizeof err) != 0) {
            if (err[0] == '\0')
                __builtin_trap();
            break;
        }
        fuzz_import_check(&f);
    }
    gd_facts_free(&f);
    free(text);
    return 0;
}
