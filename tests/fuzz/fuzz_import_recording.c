/* SPDX-License-Identifier: Apache-2.0 */
/* libFuzzer target: gpudoctor's own recordings (--record FILE.jsonl), the
 * parser of src/formats/capture/recording.c and the facts' JSON tables. */
#include "fuzz_import_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_import_run(gd_import_recording, data, size);
    return 0;
}
