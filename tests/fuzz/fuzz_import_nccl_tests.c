/* SPDX-License-Identifier: Apache-2.0 */
/* libFuzzer target: the nccl-tests reader (src/formats/nccl_tests/). Any
 * bytes give tables or a message, never a crash, a leak, undefined
 * behaviour or an unbounded allocation. */
#include "fuzz_import_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_import_run(gd_import_nccl_tests, data, size);
    return 0;
}
