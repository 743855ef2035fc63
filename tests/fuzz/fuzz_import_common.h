/* SPDX-License-Identifier: Apache-2.0 */
/* Shared by the --from fuzz targets: run one parser, demand a message on
 * failure and a sane result on success. */
#ifndef FUZZ_IMPORT_COMMON_H
#define FUZZ_IMPORT_COMMON_H

#include <stddef.h>
#include <stdint.h>

#include "formats/capture/import.h"

typedef int (*fuzz_parser)(const char *, const char *, size_t, gd_facts *, char *, size_t);

/* Parses a NUL-terminated copy of data (as the file reader hands it over). */
void fuzz_import_run(fuzz_parser parse, const uint8_t *data, size_t size);

/* Checks the invariants of parsed facts; traps when one fails. */
void fuzz_import_check(const gd_facts *f);

#endif
