/* SPDX-License-Identifier: Apache-2.0 */
#include "sim_test_util.h"

#include <ftw.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

char *simt_mkdtemp(void)
{
    const char *base = getenv("TMPDIR");
    char *dir = NULL;
    if (!base || !*base)
        base = "/tmp";
    if (asprintf(&dir, "%s/gd-simtest-XXXXXX", base) < 0)
        return NULL;
    if (!mkdtemp(dir)) {
        free(dir);
        return NULL;
    }
    return dir;
}

char *simt_write(const char *dir, const char *name, const char *content)
{
    char *path = NULL;
    if (asprintf(&path, "%s/%s", dir, name) < 0)
        return NULL;
    FILE *f = fopen(path, "w");
    bool ok = f && fputs(content, f) >= 0;
    if (f && fclose(f) != 0)
        ok = false;
    if (!ok) {
        free(path);
        return NULL;
    }
    return path;
}

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(path);
}

void simt_rmtree(char *dir)
{
    if (dir)
        nftw(dir, remove_one, 16, FTW_DEPTH | FTW_PHYS);
    free(dir);
}
