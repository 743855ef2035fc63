/* SPDX-License-Identifier: Apache-2.0 */
/* gd_collect: a whole session in one call (info, topo, vram, bench). */
#include "collect.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
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

int gd_collect(const gd_collect_opts *o, gd_facts *f, char *err, size_t errlen)
{
    gd_session *s = gd_session_open(o, f, err, errlen);
    if (!s)
        return -1;
    int rc;
    while ((rc = gd_session_step(s, err, errlen)) > 0)
        ;
    if (rc < 0) {
        gd_session_close(s, NULL, 0);
        return -1;
    }
    return gd_session_close(s, err, errlen);
}
