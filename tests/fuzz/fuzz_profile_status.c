/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libFuzzer target for the reader of run --profile's status files (what the
 * job's start-up hook writes, src/formats/trace/profile_read.c): any bytes
 * give a process or -1, never a crash, a leak or undefined behaviour; an
 * accepted process goes through the summary that explains the profile.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "analysis/profile.h"
#include "formats/trace/profile_read.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static gd_profile p;
    memset(&p, 0, sizeof p);
    p.first = 10;
    p.last = 14;
    if (gd_profile_parse_status((const char *)data, size, &p.procs[0]) == 0) {
        /* a name in the folder, nothing else */
        if (strchr(p.procs[0].trace, '/'))
            __builtin_trap();
        p.nprocs = 1;
    }
    gd_profile_explain(&p);
    return 0;
}
