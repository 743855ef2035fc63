/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libFuzzer target for the readers of a job's /proc entries
 * (src/sources/proc/proc_parse.c): cmdline and environ (NUL-separated, the last
 * entry perhaps cut), maps lines, fd link targets, thread stat lines and CPU
 * lists. None may crash, read
 * out of bounds or leave a field unterminated, whatever the bytes.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sources/proc/proc_parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *text = (const char *)data;
    gd_job_proc p = {.pid = 1, .rank = -1};
    gd_proc_parse_cmdline(text, size, &p);
    gd_proc_parse_environ(text, size, &p);
    char *line = malloc(size + 1);
    if (!line)
        return 0;
    for (size_t i = 0; i < size;) { /* maps and fd targets: one line, NUL-terminated, at a time */
        const char *nl = memchr(text + i, '\n', size - i);
        size_t n = nl ? (size_t)(nl - (text + i)) : size - i;
        memcpy(line, text + i, n);
        line[n] = '\0';
        gd_proc_parse_maps_line(line, &p);
        gd_proc_parse_fd_target(line, &p);
        char state = 0, comm[32];
        double ticks = 0;
        if (gd_proc_parse_thread_stat(line, &state, &ticks, comm, sizeof comm) &&
            strnlen(comm, sizeof comm) == sizeof comm)
            __builtin_trap();
        if (gd_proc_count_cpu_list(line) < 0)
            __builtin_trap();
        i += n + 1;
    }
    free(line);
    if (strnlen(p.prog, sizeof p.prog) == sizeof p.prog ||
        strnlen(p.cuda_visible, sizeof p.cuda_visible) == sizeof p.cuda_visible ||
        strnlen(p.nvidia_visible, sizeof p.nvidia_visible) == sizeof p.nvidia_visible || p.rank < -1)
        __builtin_trap();
    return 0;
}
