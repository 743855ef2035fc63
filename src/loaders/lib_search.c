/* SPDX-License-Identifier: Apache-2.0 */
/* The candidate list of lib_search.h. */
#include "lib_search.h"

#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>

static void add(char buf[][512], size_t cap, size_t *n, const char *dir, const char *name)
{
    if (*n >= cap)
        return;
    int len = dir ? snprintf(buf[*n], 512, "%s/%s", dir, name) : snprintf(buf[*n], 512, "%s", name);
    if (len > 0 && len < 512)
        (*n)++;
}

static void add_dir(char buf[][512], size_t cap, size_t *n, const char *root, const char *sub, const gd_lib_names *s)
{
    char dir[480];
    snprintf(dir, sizeof dir, "%s/%s", root, sub);
    for (size_t k = 0; k < s->soname_count; k++)
        add(buf, cap, n, dir, s->sonames[k]);
}

size_t gd_lib_search_candidates(const gd_lib_where *w, const gd_lib_names *s, char buf[][512], size_t cap)
{
    static const gd_lib_where nowhere = {0};
    size_t n = 0;
    if (!w)
        w = &nowhere;
    if (w->path && *w->path) {
        add(buf, cap, &n, NULL, w->path);
        return n;
    }
    for (size_t i = 0; i < w->site_count; i++) {
        if (!w->site_packages[i] || !*w->site_packages[i])
            continue;
        for (size_t d = 0; d < s->wheel_dir_count; d++)
            add_dir(buf, cap, &n, w->site_packages[i], s->wheel_dirs[d], s);
    }
    for (size_t k = 0; k < s->soname_count; k++)
        add(buf, cap, &n, NULL, s->sonames[k]);
    struct utsname u;
    char targets[128] = "";
    if (uname(&u) == 0)
        snprintf(targets, sizeof targets, "targets/%s-linux/lib", u.machine);
    const char *roots[] = {w->toolkit && *w->toolkit ? w->toolkit : NULL, "/usr/local/cuda"};
    for (size_t r = 0; r < 2; r++) {
        if (!roots[r] || (r == 1 && roots[0] && strcmp(roots[0], roots[1]) == 0))
            continue;
        add_dir(buf, cap, &n, roots[r], "lib64", s);
        if (targets[0])
            add_dir(buf, cap, &n, roots[r], targets, s);
    }
    return n;
}

#define GD_LIB_MAX_CANDIDATES 64

int gd_lib_search_open(gd_dl_lib *lib, const gd_dl_table *table, const gd_lib_where *w, const gd_lib_names *n,
                       void *fns, char *err, size_t errlen)
{
    char buf[GD_LIB_MAX_CANDIDATES][512];
    const char *paths[GD_LIB_MAX_CANDIDATES];
    size_t count = gd_lib_search_candidates(w, n, buf, GD_LIB_MAX_CANDIDATES);
    for (size_t i = 0; i < count; i++)
        paths[i] = buf[i];
    return gd_dl_open(lib, table, paths, count, fns, NULL, err, errlen);
}
