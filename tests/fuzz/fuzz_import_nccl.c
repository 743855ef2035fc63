/* SPDX-License-Identifier: Apache-2.0 */
/* libFuzzer target: the NCCL log reader (NCCL_DEBUG=INFO output behind any
 * launcher's prefix). Any bytes give facts or a message, never a crash, a
 * leak, undefined behaviour or an unbounded allocation. */
#include "fuzz_import_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_import_run(gd_import_nccl_log, data, size);
    return 0;
}
