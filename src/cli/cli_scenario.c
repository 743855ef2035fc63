/* SPDX-License-Identifier: Apache-2.0 */
/* --sim NAME: an installed example found by name (cli.h). */
#include "cli.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Where the examples are, from the binary's folder: examples/ beside it (the
 * build tree links the source's), else where make install puts them. */
static const char *const example_dirs[] = {"examples",
#ifdef GD_EXAMPLES_FROM_BIN
                                           GD_EXAMPLES_FROM_BIN
#endif
};

const char *gd_cli_scenario(const char *arg)
{
    /* A path, or a file here, is taken as it is. */
    if (!arg || strchr(arg, '/') || access(arg, F_OK) == 0)
        return arg;
    static char found[PATH_MAX];
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0)
        return arg;
    exe[n] = '\0';
    char *slash = strrchr(exe, '/');
    if (!slash)
        return arg;
    *slash = '\0';
    size_t len = strlen(arg);
    bool has_ext = len > 5 && strcmp(arg + len - 5, ".json") == 0;
    for (size_t i = 0; i < sizeof example_dirs / sizeof *example_dirs; i++) {
        char probe[2 * PATH_MAX];
        int k = snprintf(probe, sizeof probe, "%s/%s/%s%s", exe, example_dirs[i], arg, has_ext ? "" : ".json");
        /* Canonical (no bin/../share): the path is the evidence's source. */
        if (k > 0 && (size_t)k < sizeof probe && access(probe, R_OK) == 0 && realpath(probe, found))
            return found;
    }
    return arg; /* opening it says what is missing */
}
