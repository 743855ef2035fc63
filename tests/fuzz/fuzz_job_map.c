/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libFuzzer target for the job-mapping directory's parsers
 * (src/sources/host/job_map.c): any bytes as a file's text give at most
 * GD_MAX_GPU_JOBS ids of 1-31 safe characters (they become label values),
 * and any bytes as a file name are a GPU (and instance) or nothing.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sources/host/job_map.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    gd_gpu_jobs j;
    size_t n = gd_job_map_ids(text, &j);
    if (n > GD_MAX_GPU_JOBS || n != j.n)
        __builtin_trap();
    for (size_t k = 0; k < n; k++) {
        size_t len = strlen(j.id[k]);
        if (len == 0 || len >= sizeof j.id[k] || strspn(j.id[k], "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-") != len)
            __builtin_trap();
    }
    int gpu, gi;
    if (gd_job_map_name(text, &gpu, &gi) && (gpu < 0 || gpu > 9999 || gi < -1 || gi > 9999))
        __builtin_trap();
    free(text);
    return 0;
}
