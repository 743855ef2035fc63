/* SPDX-License-Identifier: Apache-2.0 */
/* Paths and files inside GPUDOCTOR_ROOT: symbolic links resolve against the
 * root, and a file is read bounded, regular files only. */
#include "stack_internal.h"
#include "core/input.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* As Linux's own path walk: more links than this is a loop. */
#define MAX_LINKS 40

int gd_root_realpath(const char *root, const char *path, char *out, size_t len)
{
    if (!root[0]) { /* this machine: the kernel resolves */
        char real[PATH_MAX];
        if (!realpath(path, real))
            return -1;
        gd_strf(out, len, "%s", real);
        return 0;
    }
    /* done: the resolved part, relative to root ("" or "/a/b"); todo: what
     * is left to walk, the targets of links spliced in front of it. */
    char done[PATH_MAX] = "", todo[PATH_MAX], host[2 * PATH_MAX];
    if (strlen(path) >= sizeof todo) {
        errno = ENAMETOOLONG;
        return -1;
    }
    memcpy(todo, path, strlen(path) + 1);
    int links = 0;
    for (char *p = todo; *p;) {
        while (*p == '/')
            p++;
        size_t n = strcspn(p, "/");
        if (n == 0)
            break;
        if (n == 1 && p[0] == '.') {
            p += n;
            continue;
        }
        if (n == 2 && p[0] == '.' && p[1] == '.') { /* never above the root */
            char *sl = strrchr(done, '/');
            if (sl)
                *sl = '\0';
            p += n;
            continue;
        }
        size_t dl = strlen(done);
        if (dl + 1 + n >= sizeof done) {
            errno = ENAMETOOLONG;
            return -1;
        }
        done[dl] = '/';
        memcpy(done + dl + 1, p, n);
        done[dl + 1 + n] = '\0';
        p += n;
        gd_strf(host, sizeof host, "%s%s", root, done);
        struct stat st;
        if (lstat(host, &st) != 0)
            return -1;
        if (S_ISLNK(st.st_mode)) {
            char target[PATH_MAX];
            ssize_t t = readlink(host, target, sizeof target - 1);
            if (t <= 0)
                return -1;
            if (++links > MAX_LINKS) {
                errno = ELOOP;
                return -1;
            }
            target[t] = '\0';
            if (target[0] == '/')
                done[0] = '\0'; /* absolute: from the root, not this machine's / */
            else
                done[dl] = '\0'; /* relative: from the link's directory */
            size_t rest = strlen(p);
            if ((size_t)t + 1 + rest >= sizeof todo) {
                errno = ENAMETOOLONG;
                return -1;
            }
            memmove(todo + t + 1, p, rest + 1); /* p lies inside todo */
            memcpy(todo, target, (size_t)t);
            todo[t] = '/';
            p = todo;
        } else if (!S_ISDIR(st.st_mode) && p[strspn(p, "/")]) {
            errno = ENOTDIR;
            return -1;
        }
    }
    gd_strf(out, len, "%s%s", root, done[0] ? done : "/");
    return 0;
}

void gd_stack_root_path(const gd_stack_facts *s, const char *path, char *out, size_t len)
{
    if (!s->root[0] || gd_root_realpath(s->root, path, out, len) != 0)
        gd_strf(out, len, "%s%s", s->root, path); /* as given: it fails to open */
}

char *gd_stack_read_file(const char *path, size_t max, size_t *len)
{
    /* Regular files only: a FIFO under a root would block, a directory is no file. */
    char why[16];
    int fd = gd_input_open(path, GD_INPUT_FILE, why, sizeof why);
    if (fd < 0)
        return NULL;
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap + 1);
    while (buf && n < max) {
        if (n == cap) {
            cap = cap * 2 > max ? max : cap * 2;
            char *nb = realloc(buf, cap + 1);
            if (!nb) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = nb;
        }
        ssize_t r = read(fd, buf + n, cap - n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) { /* EIO, EISDIR...: an error, never an empty file */
            int code = errno;
            free(buf);
            close(fd);
            errno = code;
            return NULL;
        }
        if (r == 0)
            break;
        n += (size_t)r;
    }
    close(fd);
    if (buf) {
        buf[n] = '\0';
        if (len)
            *len = n;
    }
    return buf;
}
