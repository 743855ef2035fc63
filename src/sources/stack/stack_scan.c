/* SPDX-License-Identifier: Apache-2.0 */
/* System CUDA runtimes (toolkits, the linker's cache) and library architectures. */
#include "stack_internal.h"

#include "core/input.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A toolkit's version: version.json (11.1+), version.txt (older), the
 * nvidia_cuda_runtime dist-info of toolkits assembled from wheels, else
 * the directory's own name (cuda-12.8). */
static void toolkit_version(const char *dir, const char *name, gd_cuda_runtime *rt)
{
    static const char *const files[] = {"version.json", "version.txt"};
    char path[PATH_MAX + 64];
    for (size_t i = 0; i < 2; i++) {
        gd_strf(path, sizeof path, "%s/%s", dir, files[i]);
        size_t len;
        char *buf = gd_stack_read_file(path, 1u << 20, &len);
        bool ok = buf && gd_toolkit_version_parse(buf, len, rt->version_text, sizeof rt->version_text);
        free(buf);
        if (ok) {
            gd_strf(rt->framework, sizeof rt->framework, "%s", files[i]);
            rt->version = gd_cuda_version_parse(rt->version_text);
            return;
        }
    }
    gd_strf(path, sizeof path, "%s/dist-info", dir);
    DIR *d = opendir(path);
    struct dirent *de;
    while (d && (de = readdir(d))) {
        static const char pfx[] = "nvidia_cuda_runtime-";
        if (strncmp(de->d_name, pfx, sizeof pfx - 1) == 0) {
            gd_strf(rt->version_text, sizeof rt->version_text, "%.*s", (int)strcspn(de->d_name + sizeof pfx - 1, "-"),
                    de->d_name + sizeof pfx - 1);
            rt->version = gd_cuda_version_parse(rt->version_text);
            if (rt->version) {
                gd_strf(rt->framework, sizeof rt->framework, "dist-info/%s", de->d_name);
                break;
            }
        }
    }
    if (d)
        closedir(d);
    if (!rt->version && strncmp(name, "cuda-", 5) == 0) {
        gd_strf(rt->version_text, sizeof rt->version_text, "%s", name + 5);
        rt->version = gd_cuda_version_parse(rt->version_text);
        gd_strf(rt->framework, sizeof rt->framework, "directory name");
    }
}

/* compat/libcuda.so.570.124.06: the forward-compatibility package. */
static void toolkit_compat(const char *dir, gd_cuda_runtime *rt)
{
    char path[PATH_MAX + 16];
    gd_strf(path, sizeof path, "%s/compat", dir);
    DIR *d = opendir(path);
    struct dirent *de;
    while (d && (de = readdir(d))) {
        static const char pfx[] = "libcuda.so.";
        const char *v = de->d_name + sizeof pfx - 1;
        /* The full driver version has dots; libcuda.so.1 is the soname link. */
        if (strncmp(de->d_name, pfx, sizeof pfx - 1) == 0 && strchr(v, '.') && strlen(v) > strlen(rt->compat_driver)) {
            gd_strf(rt->compat_driver, sizeof rt->compat_driver, "%s", v);
            gd_strf(rt->compat_lib, sizeof rt->compat_lib, "%s/%s", path, de->d_name);
        }
    }
    if (d)
        closedir(d);
}

void gd_stack_scan_toolkits(gd_stack_facts *s)
{
    char base[PATH_MAX];
    gd_stack_root_path(s, "/usr/local", base, sizeof base);
    DIR *d = opendir(base);
    if (!d)
        return;
    struct dirent *de;
    char seen[GD_STACK_MAX_RUNTIMES][PATH_MAX / 4];
    size_t nseen = 0;
    while ((de = readdir(d))) {
        if (strcmp(de->d_name, "cuda") != 0 && strncmp(de->d_name, "cuda-", 5) != 0)
            continue;
        char dir[PATH_MAX], real[PATH_MAX];
        gd_strf(dir, sizeof dir, "/usr/local/%s", de->d_name);
        struct stat st;
        if (gd_root_realpath(s->root, dir, real, sizeof real) != 0 || stat(real, &st) != 0 || !S_ISDIR(st.st_mode))
            continue;
        /* /usr/local/cuda is usually a link to one of the others. */
        bool dup = false;
        for (size_t i = 0; i < nseen; i++)
            dup |= strcmp(seen[i], real) == 0;
        if (dup || nseen == GD_STACK_MAX_RUNTIMES)
            continue;
        gd_strf(seen[nseen++], sizeof seen[0], "%s", real);
        const char *name = strrchr(real, '/') ? strrchr(real, '/') + 1 : real;
        gd_cuda_runtime tmp = {.python = -1};
        toolkit_version(real, name, &tmp);
        if (!tmp.version)
            continue;
        gd_cuda_runtime *rt = gd_stack_add_runtime(s, GD_RT_TOOLKIT, real);
        if (!rt)
            break;
        gd_strf(tmp.path, sizeof tmp.path, "%s", real);
        *rt = tmp;
        rt->kind = GD_RT_TOOLKIT;
        toolkit_compat(real, rt);
    }
    closedir(d);
}

typedef struct ld_ctx {
    gd_stack_facts *s;
} ld_ctx;

static void ld_entry(void *ud, const char *path)
{
    gd_stack_facts *s = ((ld_ctx *)ud)->s;
    char real[PATH_MAX];
    /* The version is in the name the soname link points to
     * (libcudart.so.12 -> libcudart.so.12.8.90); else the soname's major. */
    const char *name = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
    if (gd_root_realpath(s->root, path, real, sizeof real) == 0) {
        const char *rn = strrchr(real, '/') ? strrchr(real, '/') + 1 : real;
        if (strncmp(rn, "libcudart.so.", 13) == 0)
            name = rn;
        /* A toolkit already found: the same runtime. */
        for (size_t i = 0; i < s->runtime_count; i++)
            if (s->runtimes[i].kind == GD_RT_TOOLKIT &&
                strncmp(real, s->runtimes[i].path, strlen(s->runtimes[i].path)) == 0 &&
                real[strlen(s->runtimes[i].path)] == '/')
                return;
    }
    const char *v = name + 13;
    int version = gd_cuda_version_parse(v);
    if (!version)
        return;
    for (size_t i = 0; i < s->runtime_count; i++)
        if (s->runtimes[i].kind == GD_RT_LDCACHE && strcmp(s->runtimes[i].path, path) == 0)
            return;
    gd_cuda_runtime *rt = gd_stack_add_runtime(s, GD_RT_LDCACHE, path);
    if (!rt)
        return;
    rt->version = version;
    gd_strf(rt->version_text, sizeof rt->version_text, "%s", v);
}

void gd_stack_scan_ldcache(gd_stack_facts *s)
{
    char path[PATH_MAX];
    gd_stack_root_path(s, "/etc/ld.so.cache", path, sizeof path);
    size_t len;
    unsigned char *buf = (unsigned char *)gd_stack_read_file(path, 64u << 20, &len);
    if (!buf)
        return;
    ld_ctx c = {s};
    gd_ldcache_parse(buf, len, "libcudart.so.", ld_entry, &c);
    free(buf);
}

/* A library read in blocks for gd_fatbin_walk, at most cap bytes in all. */
typedef struct fd_src {
    int fd;
    uint64_t size; /* the file's */
    unsigned char *buf;
    size_t block; /* buf's size */
    uint64_t boff;
    size_t blen;
    uint64_t read, cap;
    bool capped; /* stopped by cap before the end of what was asked */
    int err; /* errno of a failed read */
} fd_src;

static const unsigned char *fd_view(void *ud, uint64_t off, size_t need, size_t want, size_t *got)
{
    fd_src *s = ud;
    if (off > s->size || need > s->size - off || need > s->block)
        return NULL;
    size_t at = off >= s->boff && off - s->boff <= s->blen ? (size_t)(off - s->boff) : s->blen + 1;
    if (at <= s->blen && s->blen - at >= need) {
        *got = s->blen - at;
        return s->buf + at;
    }
    /* Keep what is already read (a header across the end of the block). */
    size_t keep = at <= s->blen ? s->blen - at : 0;
    memmove(s->buf, s->buf + (keep ? at : 0), keep);
    s->boff = off;
    s->blen = keep;
    uint64_t left = s->size - off;
    size_t n = want < need ? need : want;
    n = n > s->block ? s->block : n;
    n = n > left ? (size_t)left : n;
    while (s->blen < n) {
        size_t chunk = n - s->blen;
        if (s->read + chunk > s->cap)
            chunk = (size_t)(s->cap - s->read);
        if (chunk == 0) {
            s->capped = s->blen < need;
            break;
        }
        ssize_t r = pread(s->fd, s->buf + s->blen, chunk, (off_t)(off + s->blen));
        if (r <= 0) {
            s->err = r < 0 ? errno : 0;
            break;
        }
        s->blen += (size_t)r;
        s->read += (uint64_t)r;
    }
    if (s->blen < need)
        return NULL;
    *got = s->blen;
    return s->buf;
}

size_t gd_stack_fatbin_fd(int fd, uint64_t off, uint64_t size, size_t block, uint64_t cap, gd_cuda_runtime *rt,
                          bool *capped, int *err)
{
    struct stat st;
    fd_src src = {.fd = fd, .block = block < 64 ? 64 : block, .cap = cap};
    src.buf = fstat(fd, &st) == 0 ? malloc(src.block) : NULL;
    if (!src.buf) {
        *err = errno;
        return 0;
    }
    src.size = (uint64_t)st.st_size;
    size_t n = rt->arch_count;
    size_t entries = gd_fatbin_walk(fd_view, &src, off, size > UINT64_MAX - off ? UINT64_MAX : off + size, rt->archs,
                                    GD_STACK_MAX_ARCHS, &n);
    rt->arch_count = n;
    free(src.buf);
    *capped = src.capped;
    *err = src.err;
    return entries;
}

static uint64_t le(const unsigned char *p, int n)
{
    uint64_t v = 0;
    for (int i = n - 1; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

/* The .nv_fatbin section of a little-endian ELF64 file: [*off, *off+*size).
 * *elf says whether the file is one (whose section table could be read). */
static bool elf_fatbin_section(int fd, uint64_t *off, uint64_t *size, bool *elf)
{
    unsigned char eh[64], sh[64];
    *elf = false;
    if (pread(fd, eh, 64, 0) != 64 || memcmp(eh, "\177ELF", 4) != 0 || eh[4] != 2 || eh[5] != 1)
        return false;
    uint64_t shoff = le(eh + 0x28, 8);
    unsigned shentsize = (unsigned)le(eh + 0x3A, 2), shnum = (unsigned)le(eh + 0x3C, 2),
             shstrndx = (unsigned)le(eh + 0x3E, 2);
    if (shentsize < 64 || shstrndx >= shnum || pread(fd, sh, 64, (off_t)(shoff + (uint64_t)shstrndx * shentsize)) != 64)
        return false;
    uint64_t stroff = le(sh + 24, 8);
    for (unsigned i = 0; i < shnum; i++) {
        char name[16] = "";
        if (pread(fd, sh, 64, (off_t)(shoff + (uint64_t)i * shentsize)) != 64)
            return false;
        if (pread(fd, name, sizeof name - 1, (off_t)(stroff + le(sh, 4))) <= 0)
            continue;
        if (strcmp(name, ".nv_fatbin") == 0) {
            *off = le(sh + 24, 8);
            *size = le(sh + 32, 8);
            return *elf = true;
        }
    }
    *elf = true;
    return false;
}

bool gd_stack_library_archs(const char *path, gd_cuda_runtime *rt)
{
    /* Not open(): a FIFO named like a library would hang it for ever. */
    char why[sizeof rt->arch_error];
    int fd = gd_input_open(path, GD_INPUT_FILE, why, sizeof why);
    if (fd < 0) {
        if (errno != ENOENT && errno != ENOTDIR && !rt->arch_error[0])
            gd_strf(rt->arch_error, sizeof rt->arch_error, "%s", why);
        return false;
    }
    uint64_t off = 0, size = UINT64_MAX; /* Not ELF (a test fixture, a bare .fatbin): the whole file */
    bool elf;
    if (!elf_fatbin_section(fd, &off, &size, &elf) && elf) {
        close(fd); /* a library without CUDA code (libtorch.so, a shim since the split) */
        return false;
    }
    bool capped = false;
    int err = 0;
    size_t entries = gd_stack_fatbin_fd(fd, off, size, GD_FATBIN_BLOCK, GD_FATBIN_READ_MAX, rt, &capped, &err);
    close(fd);
    /* A list cut short is not the build's: no verdict from it. */
    if (capped && !rt->arch_error[0])
        gd_strf(rt->arch_error, sizeof rt->arch_error,
                "reading %s stopped at %d MiB, the most read of one library, before its CUDA fatbins ended", path,
                (int)(GD_FATBIN_READ_MAX >> 20));
    else if (err && !rt->arch_error[0])
        gd_strf(rt->arch_error, sizeof rt->arch_error, "%s: %s", path, strerror(err));
    if (rt->arch_error[0]) {
        rt->arch_known = false;
        return false;
    }
    if (entries == 0)
        return false;
    rt->arch_known = true;
    gd_strf(rt->arch_source, sizeof rt->arch_source, "%s (.nv_fatbin)", path);
    return true;
}
