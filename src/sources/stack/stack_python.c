/* SPDX-License-Identifier: Apache-2.0 */
/* Python environments and what they carry: torch, tensorflow, CUDA wheels. */
#include "stack_internal.h"
#include "stack_collect.h"

#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static bool is_dir(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

static bool add_site(gd_stack_facts *s, const char *path, const char *origin, const char *site)
{
    for (size_t i = 0; i < s->python_count; i++)
        if (strcmp(s->pythons[i].site_packages, site) == 0)
            return true;
    if (s->python_count >= GD_STACK_MAX_PYTHONS)
        return false;
    gd_python_env *e = &s->pythons[s->python_count++];
    gd_strf(e->path, sizeof e->path, "%s", path);
    gd_strf(e->origin, sizeof e->origin, "%s", origin);
    gd_strf(e->site_packages, sizeof e->site_packages, "%s", site);
    return true;
}

/* prefix/lib/python3.X/site-packages (venv, conda), lib/python3/dist-packages
 * (Debian). Returns how many were added. */
static size_t add_prefix(gd_stack_facts *s, const char *path, const char *origin, const char *prefix)
{
    size_t added = 0;
    static const char *const libs[] = {"lib", "lib64", "local/lib"};
    for (size_t l = 0; l < 3; l++) {
        char dir[PATH_MAX];
        gd_strf(dir, sizeof dir, "%s/%s", prefix, libs[l]);
        DIR *d = opendir(dir);
        struct dirent *de;
        while (d && (de = readdir(d))) {
            if (strncmp(de->d_name, "python3", 7) != 0)
                continue;
            static const char *const kinds[] = {"site-packages", "dist-packages"};
            for (size_t k = 0; k < 2; k++) {
                char site[PATH_MAX + 300];
                gd_strf(site, sizeof site, "%s/%s/%s", dir, de->d_name, kinds[k]);
                if (is_dir(site) && add_site(s, path, origin, site))
                    added++;
            }
        }
        if (d)
            closedir(d);
    }
    return added;
}

/* A --python PATH: a site-packages directory, an environment's prefix, or
 * its interpreter (prefix/bin/python). */
static void add_given(gd_stack_facts *s, const char *path)
{
    const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
    char probe[PATH_MAX];
    gd_strf(probe, sizeof probe, "%s/torch", path);
    bool site = strcmp(base, "site-packages") == 0 || strcmp(base, "dist-packages") == 0 || is_dir(probe);
    gd_strf(probe, sizeof probe, "%s/tensorflow", path);
    site |= is_dir(probe);
    if (site) {
        add_site(s, path, "--python", path);
        return;
    }
    char prefix[PATH_MAX];
    gd_strf(prefix, sizeof prefix, "%s", path);
    if (!is_dir(path)) { /* an interpreter: two levels up */
        for (int i = 0; i < 2; i++) {
            char *sl = strrchr(prefix, '/');
            if (sl)
                *sl = '\0';
        }
    }
    if (add_prefix(s, path, "--python", prefix) == 0 && s->python_count < GD_STACK_MAX_PYTHONS)
        add_site(s, path, "--python", ""); /* named, but nothing found: the check says so */
}

/* The job's own environment: VIRTUAL_ENV, CONDA_PREFIX, then each python3
 * on its PATH (prefix = the bin directory's parent; /usr also has /usr/local). */
static void add_active(gd_stack_facts *s)
{
    static const char *const vars[] = {"VIRTUAL_ENV", "CONDA_PREFIX"};
    char prefix[PATH_MAX];
    for (size_t i = 0; i < 2; i++) {
        const char *v = gd_stack_getenv(s, vars[i]);
        if (v && *v) {
            gd_stack_root_path(s, v, prefix, sizeof prefix);
            add_prefix(s, v, vars[i], prefix);
        }
    }
    const char *path = gd_stack_getenv(s, "PATH");
    for (const char *p = path; p && *p;) {
        size_t n = strcspn(p, ":");
        char shown[PATH_MAX], py[PATH_MAX];
        gd_strf(shown, sizeof shown, "%.*s/python3", (int)n, p);
        gd_stack_root_path(s, shown, py, sizeof py);
        struct stat st;
        if (n > 1 && stat(py, &st) == 0 && S_ISREG(st.st_mode)) {
            char dir[PATH_MAX];
            gd_strf(dir, sizeof dir, "%.*s", (int)n, p);
            char *sl = strrchr(dir, '/');
            if (sl && sl != dir) {
                *sl = '\0';
                gd_stack_root_path(s, dir, prefix, sizeof prefix);
                add_prefix(s, shown, "PATH", prefix);
                if (strcmp(dir, "/usr") == 0) {
                    gd_stack_root_path(s, "/usr/local", prefix, sizeof prefix);
                    add_prefix(s, shown, "PATH", prefix);
                }
            }
        }
        p += n;
        if (*p == ':')
            p++;
    }
}

static void scan_torch(gd_stack_facts *s, int py, const char *site)
{
    char path[PATH_MAX + 64];
    gd_strf(path, sizeof path, "%s/torch/version.py", site);
    size_t len;
    char *buf = gd_stack_read_file(path, 1u << 20, &len);
    char version[64], cuda[32];
    bool ok = buf && gd_torch_version_parse(buf, len, version, sizeof version, cuda, sizeof cuda);
    free(buf);
    if (!ok)
        return;
    gd_cuda_runtime *rt = gd_stack_add_runtime(s, GD_RT_TORCH, path);
    if (!rt)
        return;
    rt->python = py;
    gd_strf(rt->framework, sizeof rt->framework, "torch %s", version);
    gd_strf(rt->version_text, sizeof rt->version_text, "%s", cuda);
    rt->version = gd_cuda_version_parse(cuda); /* 0: a CPU-only build */
    /* The kernels live in libtorch_cuda.so (libtorch.so before 1.8's split;
     * libtorch_cuda_cu.so for a while in between). */
    static const char *const libs[] = {"libtorch_cuda.so", "libtorch_cuda_cu.so", "libtorch.so"};
    for (size_t i = 0; rt->version && i < 3; i++) {
        gd_strf(path, sizeof path, "%s/torch/lib/%s", site, libs[i]);
        gd_stack_library_archs(path, rt);
    }
}

static void scan_tensorflow(gd_stack_facts *s, int py, const char *site)
{
    char path[PATH_MAX + 64];
    gd_strf(path, sizeof path, "%s/tensorflow/python/platform/build_info.py", site);
    size_t len;
    char *buf = gd_stack_read_file(path, 1u << 20, &len);
    char cuda[32];
    gd_arch archs[GD_STACK_MAX_ARCHS];
    size_t n = 0;
    bool ok = buf && gd_tf_build_info_parse(buf, len, cuda, sizeof cuda, archs, GD_STACK_MAX_ARCHS, &n);
    free(buf);
    if (!ok)
        return;
    gd_cuda_runtime *rt = gd_stack_add_runtime(s, GD_RT_TENSORFLOW, path);
    if (!rt)
        return;
    rt->python = py;
    gd_strf(rt->framework, sizeof rt->framework, "tensorflow");
    gd_strf(rt->version_text, sizeof rt->version_text, "%s", cuda);
    rt->version = gd_cuda_version_parse(cuda);
    if (n) {
        rt->arch_known = true;
        memcpy(rt->archs, archs, n * sizeof archs[0]);
        rt->arch_count = n;
        gd_strf(rt->arch_source, sizeof rt->arch_source, "%s (cuda_compute_capabilities)", path);
    }
}

/* nvidia_cuda_runtime_cu12-12.8.90.dist-info (CUDA 12 wheels) or
 * nvidia_cuda_runtime-13.0.96.dist-info (CUDA 13 dropped the suffix): the
 * libcudart the frameworks of this environment load. */
static void scan_wheels(gd_stack_facts *s, int py, const char *site)
{
    DIR *d = opendir(site);
    struct dirent *de;
    while (d && (de = readdir(d))) {
        static const char pfx[] = "nvidia_cuda_runtime", sfx[] = ".dist-info";
        size_t nlen = strlen(de->d_name);
        /* The name must end in .dist-info, with a version between '-' and it. */
        if (strncmp(de->d_name, pfx, sizeof pfx - 1) != 0 || nlen < sizeof pfx + sizeof sfx ||
            strcmp(de->d_name + nlen - (sizeof sfx - 1), sfx) != 0)
            continue;
        const char *rest = de->d_name + sizeof pfx - 1, *end = de->d_name + nlen - (sizeof sfx - 1);
        if (strncmp(rest, "_cu", 3) == 0)
            rest += strcspn(rest, "-");
        if (*rest != '-' || rest + 1 >= end)
            continue;
        char version[48];
        gd_strf(version, sizeof version, "%.*s", (int)(end - rest - 1), rest + 1);
        char meta[PATH_MAX + 300];
        gd_strf(meta, sizeof meta, "%s/%s/METADATA", site, de->d_name);
        size_t len;
        char *buf = gd_stack_read_file(meta, 1u << 20, &len);
        if (buf)
            gd_metadata_version_parse(buf, len, version, sizeof version);
        free(buf);
        gd_cuda_runtime *rt = gd_stack_add_runtime(s, GD_RT_WHEEL, meta);
        if (!rt)
            break;
        rt->python = py;
        gd_strf(rt->framework, sizeof rt->framework, "%.*s", (int)strcspn(de->d_name, "-"), de->d_name);
        gd_strf(rt->version_text, sizeof rt->version_text, "%s", version);
        rt->version = gd_cuda_version_parse(version);
    }
    if (d)
        closedir(d);
}

void gd_stack_scan_pythons(gd_stack_facts *s, const gd_stack_opts *o, bool system)
{
    for (size_t i = 0; o && i < o->python_count; i++)
        add_given(s, o->python[i]);
    if (system)
        add_active(s);
    for (size_t i = 0; i < s->python_count; i++) {
        const char *site = s->pythons[i].site_packages;
        if (!site[0])
            continue;
        scan_torch(s, (int)i, site);
        scan_tensorflow(s, (int)i, site);
        scan_wheels(s, (int)i, site);
    }
}
