/* SPDX-License-Identifier: Apache-2.0 */
/* libFuzzer target: the two log parsers, --query-gpu CSV and dmon. Both
 * get every input: each must cope with the other's format too. */
#include "fuzz_import_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_import_run(gd_import_smi_csv, data, size);
    fuzz_import_run(gd_import_dmon, data, size);
    return 0;
}
