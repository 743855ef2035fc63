/* SPDX-License-Identifier: Apache-2.0 */
/* Bounded, non-blocking reading of user-named inputs (input.h). */
#include "input.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const char *gd_input_name(const char *path)
{
    return strcmp(path, "-") == 0 ? "standard input" : path;
}

static const char *kind_of(mode_t m)
{
    return S_ISDIR(m)    ? "a directory"
           : S_ISFIFO(m) ? "a FIFO or pipe"
           : S_ISCHR(m)  ? "a character device"
           : S_ISBLK(m)  ? "a block device"
           : S_ISSOCK(m) ? "a socket"
                         : "not a regular file";
}

/* Closes fd and fails with "NAME: what" and errno = code. */
static int fail(int fd, int code, char *err, size_t errlen, const char *name, const char *what)
{
    if (fd >= 0)
        close(fd);
    snprintf(err, errlen, "%s: %s", name, what);
    errno = code;
    return -1;
}

int gd_input_open(const char *path, gd_input_kind kind, char *err, size_t errlen)
{
    const char *name = gd_input_name(path);
    int fd = kind == GD_INPUT_STREAM && strcmp(path, "-") == 0
                 ? fcntl(0, F_DUPFD_CLOEXEC, 0)
                 : open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) {
        int code = errno;
        snprintf(err, errlen, "%s: %s", name, strerror(code));
        errno = code;
        return -1;
    }
    struct stat st;
    if (fstat(fd, &st) != 0)
        return fail(fd, errno, err, errlen, name, strerror(errno));
    bool stream = S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode) || S_ISSOCK(st.st_mode);
    if (S_ISDIR(st.st_mode))
        return fail(fd, EISDIR, err, errlen, name, "a directory, not a file");
    if (!S_ISREG(st.st_mode) && !(kind == GD_INPUT_STREAM && stream)) {
        char what[96];
        snprintf(what, sizeof what, "%s; a regular file is needed here", kind_of(st.st_mode));
        return fail(fd, EINVAL, err, errlen, name, what);
    }
    if (S_ISREG(st.st_mode)) {
        int fl = fcntl(fd, F_GETFL);
        if (fl >= 0)
            fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
    } else {
        int fl = fcntl(fd, F_GETFL);
        if (fl >= 0)
            fcntl(fd, F_SETFL, fl | O_NONBLOCK);
    }
    return fd;
}

FILE *gd_input_fopen(const char *path)
{
    char why[8];
    int fd = gd_input_open(path, GD_INPUT_FILE, why, sizeof why);
    FILE *fp = fd >= 0 ? fdopen(fd, "r") : NULL;
    if (fd >= 0 && !fp)
        close(fd);
    return fp;
}

/* Reads fd to its end into a buffer of at most max bytes (+1 for the NUL). */
static char *read_fd(int fd, const char *name, size_t max, size_t *len, char *err, size_t errlen)
{
    size_t cap = 65536 < max ? 65536 : max, n = 0;
    char *buf = malloc(cap + 1);
    if (!buf) {
        snprintf(err, errlen, "%s: out of memory", name);
        errno = ENOMEM;
        return NULL;
    }
    for (;;) {
        if (n == cap) {
            if (cap >= max) {
                /* One byte more tells "exactly max" from "larger". */
                char probe;
                ssize_t r = read(fd, &probe, 1);
                if (r < 0 && errno == EAGAIN) {
                    struct pollfd p = {.fd = fd, .events = POLLIN};
                    if (poll(&p, 1, GD_INPUT_STREAM_IDLE_S * 1000) > 0)
                        continue;
                }
                if (r == 0)
                    break;
                snprintf(err, errlen, "%s: larger than %zu MiB: not an input gpudoctor reads", name, max >> 20);
                free(buf);
                errno = EFBIG;
                return NULL;
            }
            size_t next = cap * 2 < max ? cap * 2 : max;
            char *bigger = realloc(buf, next + 1);
            if (!bigger) {
                free(buf);
                snprintf(err, errlen, "%s: out of memory", name);
                errno = ENOMEM;
                return NULL;
            }
            buf = bigger;
            cap = next;
        }
        ssize_t r = read(fd, buf + n, cap - n);
        if (r > 0) {
            n += (size_t)r;
            continue;
        }
        if (r == 0)
            break;
        if (errno == EINTR)
            continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK) {
            /* A stream with no data yet: wait for it, bounded. */
            struct pollfd p = {.fd = fd, .events = POLLIN};
            int ready = poll(&p, 1, GD_INPUT_STREAM_IDLE_S * 1000);
            if (ready > 0)
                continue;
            if (ready == 0) {
                snprintf(err, errlen, "%s: no data for %d s", name, GD_INPUT_STREAM_IDLE_S);
                free(buf);
                errno = ETIMEDOUT;
                return NULL;
            }
            if (errno == EINTR)
                continue;
        }
        int code = errno;
        snprintf(err, errlen, "%s: %s", name, strerror(code));
        free(buf);
        errno = code;
        return NULL;
    }
    buf[n] = '\0';
    *len = n;
    return buf;
}

char *gd_input_read(const char *path, gd_input_kind kind, size_t max, size_t *len, char *err, size_t errlen)
{
    int fd = gd_input_open(path, kind, err, errlen);
    if (fd < 0)
        return NULL;
    struct stat st;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && (unsigned long long)st.st_size > max) {
        /* Sparse or huge: refused before reading a byte. */
        close(fd);
        snprintf(err, errlen, "%s: larger than %zu MiB: not an input gpudoctor reads", gd_input_name(path), max >> 20);
        errno = EFBIG;
        return NULL;
    }
    char *buf = read_fd(fd, gd_input_name(path), max, len, err, errlen);
    int code = errno;
    close(fd);
    errno = code;
    return buf;
}

char *gd_input_read_tail(const char *path, size_t max, size_t *len, bool *cut, char *err, size_t errlen)
{
    *cut = false;
    int fd = gd_input_open(path, GD_INPUT_FILE, err, errlen);
    if (fd < 0)
        return NULL;
    struct stat st;
    if (fstat(fd, &st) == 0 && (unsigned long long)st.st_size > max) {
        if (lseek(fd, (off_t)(st.st_size - (off_t)max), SEEK_SET) < 0) {
            int code = errno;
            close(fd);
            snprintf(err, errlen, "%s: %s", path, strerror(code));
            errno = code;
            return NULL;
        }
        *cut = true;
    }
    char *buf = read_fd(fd, path, max, len, err, errlen);
    int code = errno;
    close(fd);
    if (buf && *cut) {
        /* Start at a whole line: the first one was cut in half. */
        char *nl = memchr(buf, '\n', *len);
        size_t skip = nl ? (size_t)(nl - buf) + 1 : 0;
        memmove(buf, buf + skip, *len - skip + 1);
        *len -= skip;
    }
    errno = code;
    return buf;
}
