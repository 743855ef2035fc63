/* SPDX-License-Identifier: Apache-2.0 */
/* The job-mapping directory (job_map.h). */
#include "job_map.h"

#include "core/input.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A decimal number of at most 4 digits at *s; -1 when none. */
static int small_number(const char **s)
{
    int v = 0, digits = 0;
    while (**s >= '0' && **s <= '9' && digits < 5) {
        v = v * 10 + (**s - '0');
        (*s)++;
        digits++;
    }
    return digits == 0 || digits > 4 ? -1 : v;
}

bool gd_job_map_name(const char *name, int *gpu, int *gi)
{
    const char *s = name;
    int g = small_number(&s), i = -1;
    if (g < 0)
        return false;
    if (*s == '.') {
        s++;
        if ((i = small_number(&s)) < 0)
            return false;
    }
    if (*s)
        return false;
    *gpu = g;
    *gi = i;
    return true;
}

static bool id_char(char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '.' ||
           c == '-';
}

size_t gd_job_map_ids(const char *text, gd_gpu_jobs *j)
{
    j->n = 0;
    for (const char *line = text; line && *line && j->n < GD_MAX_GPU_JOBS;) {
        const char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) : strlen(line);
        size_t a = 0, b = len;
        while (a < b && (line[a] == ' ' || line[a] == '\t'))
            a++;
        while (b > a && (line[b - 1] == ' ' || line[b - 1] == '\t' || line[b - 1] == '\r'))
            b--;
        bool ok = b > a && b - a < sizeof j->id[0] && line[a] != '#';
        for (size_t k = a; ok && k < b; k++)
            ok = id_char(line[k]);
        for (size_t k = 0; ok && k < j->n; k++)
            ok = strlen(j->id[k]) != b - a || memcmp(j->id[k], line + a, b - a) != 0;
        if (ok) {
            memcpy(j->id[j->n], line + a, b - a);
            j->id[j->n++][b - a] = '\0';
        }
        line = end ? end + 1 : line + len;
    }
    return j->n;
}

static int by_gpu(const void *a, const void *b)
{
    const gd_gpu_jobs *x = a, *y = b;
    return x->gpu != y->gpu ? (x->gpu > y->gpu) - (x->gpu < y->gpu)
                            : (x->gpu_instance > y->gpu_instance) - (x->gpu_instance < y->gpu_instance);
}

int gd_job_map_read(const char *dir, const gd_job_map_want *want, size_t nwant, gd_gpu_jobs **out, size_t *n, char *err,
                    size_t errlen)
{
    *out = NULL;
    *n = 0;
    DIR *d = opendir(dir); /* an unreadable directory is said, not taken for an empty one */
    if (!d) {
        snprintf(err, errlen, "%s: %s", dir, strerror(errno));
        return -1;
    }
    closedir(d);
    gd_gpu_jobs *v = nwant ? calloc(nwant, sizeof *v) : NULL;
    size_t count = 0;
    /* The names the GPUs need, each opened by name: a directory of
     * thousands of other files costs nothing and hides none of them. */
    for (size_t k = 0; v && k < nwant; k++) {
        char path[4096], why[256];
        if (want[k].gpu_instance < 0)
            snprintf(path, sizeof path, "%s/%d", dir, want[k].gpu);
        else
            snprintf(path, sizeof path, "%s/%d.%d", dir, want[k].gpu, want[k].gpu_instance);
        size_t len;
        char *text = gd_input_read(path, GD_INPUT_FILE, 64 * 1024, &len, why, sizeof why);
        if (!text)
            continue; /* absent, a FIFO, a directory, a file too large: not a mapping */
        gd_gpu_jobs *j = &v[count];
        j->gpu = want[k].gpu;
        j->gpu_instance = want[k].gpu_instance;
        if (gd_job_map_ids(text, j) > 0)
            count++;
        free(text);
    }
    if (count)
        qsort(v, count, sizeof *v, by_gpu);
    else {
        free(v);
        v = NULL;
    }
    *out = v;
    *n = count;
    return 0;
}
