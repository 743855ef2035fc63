/* SPDX-License-Identifier: Apache-2.0 */
/* Where the simulated libraries of --sim are: beside the binary in the build
 * tree, in its libexec folder once installed. */
#include "sim_libs.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int gd_sim_dir(const gd_ctx *ctx, char *out, size_t len)
{
    if (ctx && ctx->sim_dir && *ctx->sim_dir) {
        snprintf(out, len, "%s", ctx->sim_dir);
        return 0;
    }
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0)
        return -1;
    exe[n] = '\0';
    char *slash = strrchr(exe, '/');
    if (!slash)
        return -1;
    *slash = '\0';
    /* Beside the binary (the build tree), else where make install puts them. */
    char probe[PATH_MAX + 64];
    snprintf(probe, sizeof probe, "%s/libnvidia-ml.so.1", exe);
#ifdef GD_LIBEXEC_FROM_BIN
    if (access(probe, F_OK) != 0) {
        snprintf(probe, sizeof probe, "%s/%s/libnvidia-ml.so.1", exe, GD_LIBEXEC_FROM_BIN);
        if (access(probe, F_OK) == 0) {
            snprintf(out, len, "%s/%s", exe, GD_LIBEXEC_FROM_BIN);
            return 0;
        }
    }
#endif
    snprintf(out, len, "%s", exe);
    return 0;
}
