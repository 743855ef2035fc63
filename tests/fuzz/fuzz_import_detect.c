/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libFuzzer target: the --from input path as a user drives it. The input
 * is handed over as a file (a memfd, like a pipe or a FIFO it is read once
 * through core/input), given twice as two captures of one machine, so
 * detection, the format's parser, the pass order and the merge all run.
 */
#include "fuzz_import_common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    int fd = memfd_create("fuzz-capture", MFD_CLOEXEC);
    if (fd < 0)
        return 0;
    size_t done = 0;
    while (done < size) {
        ssize_t n = write(fd, data + done, size - done);
        if (n <= 0)
            break;
        done += (size_t)n;
    }
    char path[64];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    const char *const paths[] = {path, path};
    gd_facts f;
    memset(&f, 0, sizeof f);
    char err[1024] = "";
    if (done == size) {
        if (gd_import_files(paths, 2, &f, err, sizeof err) == 0)
            fuzz_import_check(&f);
        else if (err[0] == '\0')
            __builtin_trap(); /* every refusal says why */
    }
    gd_facts_free(&f);
    close(fd);
    return 0;
}
