/* SPDX-License-Identifier: Apache-2.0 */
/* libFuzzer target: the nvidia-smi -q (text) parser. Any bytes give facts or a message,
 * never a crash, a leak, undefined behaviour or an unbounded allocation. */
#include "fuzz_import_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_import_run(gd_import_smi_text, data, size);
    return 0;
}
