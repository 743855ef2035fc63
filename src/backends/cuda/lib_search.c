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

static void add_dir(char buf[][512], size_t cap, size_t *n, const char *root, const char *sub,
                    const gd_lib_search_spec *s)
{
    char dir[480];
    snprintf(dir, sizeof dir, "%s/%s", root, sub);
    for (size_t k = 0; k < s->soname_count; k++)
        add(buf, cap, n, dir, s->sonames[k]);
}

size_t gd_lib_search_candidates(const gd_lib_search_spec *s, char buf[][512], size_t cap)
{
    size_t n = 0;
    if (!s)
        return 0;
    if (s->path && *s->path) {
        add(buf, cap, &n, NULL, s->path);
        return n;
    }
    for (size_t i = 0; i < s->site_count; i++) {
        if (!s->site_packages[i] || !*s->site_packages[i])
            continue;
        for (size_t d = 0; d < s->wheel_dir_count; d++)
            add_dir(buf, cap, &n, s->site_packages[i], s->wheel_dirs[d], s);
    }
    for (size_t k = 0; k < s->soname_count; k++)
        add(buf, cap, &n, NULL, s->sonames[k]);
    struct utsname u;
    char targets[128] = "";
    if (uname(&u) == 0)
        snprintf(targets, sizeof targets, "targets/%s-linux/lib", u.machine);
    const char *roots[] = {s->toolkit && *s->toolkit ? s->toolkit : NULL, "/usr/local/cuda"};
    for (size_t r = 0; r < 2; r++) {
        if (!roots[r] || (r == 1 && roots[0] && strcmp(roots[0], roots[1]) == 0))
            continue;
        add_dir(buf, cap, &n, roots[r], "lib64", s);
        if (targets[0])
            add_dir(buf, cap, &n, roots[r], targets, s);
    }
    return n;
}
