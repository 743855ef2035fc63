/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Byte sources for the trace parser. Gzip is inflated with isa-l's igzip
 * when the build found it (several times zlib's speed), else with zlib; on a
 * file, on a thread of its own so that inflating and parsing run on two
 * cores (bench/README.md has the figures).
 */
#include "trace_input.h"
#include "core/input.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifdef GD_HAVE_ISAL
#include <isa-l/igzip_lib.h>
#else
#include <zlib.h>
#endif

/* ---- plain file ---- */

typedef struct fsrc {
    gd_tsrc base;
    int fd;
    unsigned char peek[2]; /* the bytes read to tell gzip, handed out first */
    size_t peek_len, peek_at;
    char path[256];
} fsrc;

/* One read of fd: a stream (a pipe, standard input) with no data yet is
 * waited for, at most GD_INPUT_STREAM_IDLE_S. */
static long read_some(int fd, const char *path, void *buf, size_t cap, char *err, size_t errlen)
{
    for (;;) {
        ssize_t n = read(fd, buf, cap);
        if (n >= 0)
            return (long)n;
        if (errno == EINTR)
            continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK) {
            struct pollfd p = {.fd = fd, .events = POLLIN};
            int ready = poll(&p, 1, GD_INPUT_STREAM_IDLE_S * 1000);
            if (ready > 0 || (ready < 0 && errno == EINTR))
                continue;
            if (ready == 0) {
                snprintf(err, errlen, "cannot read %s: no data for %d s", path, GD_INPUT_STREAM_IDLE_S);
                return -1;
            }
        }
        snprintf(err, errlen, "cannot read %s: %s", path, strerror(errno));
        return -1;
    }
}

static long file_read(gd_tsrc *s, char *buf, size_t cap, char *err, size_t errlen)
{
    fsrc *f = (fsrc *)s;
    if (f->peek_at < f->peek_len) {
        size_t n = f->peek_len - f->peek_at < cap ? f->peek_len - f->peek_at : cap;
        memcpy(buf, f->peek + f->peek_at, n);
        f->peek_at += n;
        return (long)n;
    }
    return read_some(f->fd, f->path, buf, cap, err, errlen);
}

static void file_close(gd_tsrc *s)
{
    fsrc *f = (fsrc *)s;
    close(f->fd);
    free(f);
}

gd_tsrc *gd_tsrc_file(const char *path, int *gzip, char *err, size_t errlen)
{
    char why[512];
    /* The bounded reader's open: a FIFO without a writer cannot hang it, a
     * directory or a device is refused; a pipe (/dev/stdin) is welcome. */
    int fd = gd_input_open(path, GD_INPUT_STREAM, why, sizeof why);
    if (fd < 0) {
        snprintf(err, errlen, "cannot open %s", why);
        return NULL;
    }
    fsrc *f = calloc(1, sizeof *f);
    if (!f) {
        close(fd);
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    f->base = (gd_tsrc){file_read, file_close};
    f->fd = fd;
    snprintf(f->path, sizeof f->path, "%s", gd_input_name(path)); /* "-": standard input */
    /* The first two bytes tell gzip; they stay in the stream (a pipe cannot be read twice). */
    while (f->peek_len < 2) {
        long n = read_some(fd, f->path, f->peek + f->peek_len, 2 - f->peek_len, err, errlen);
        if (n < 0) {
            file_close(&f->base);
            return NULL;
        }
        if (n == 0)
            break;
        f->peek_len += (size_t)n;
    }
    *gzip = f->peek_len == 2 && f->peek[0] == 0x1f && f->peek[1] == 0x8b;
    return &f->base;
}

/* ---- memory ---- */

typedef struct msrc {
    gd_tsrc base;
    const char *p;
    size_t left;
} msrc;

static long mem_read(gd_tsrc *s, char *buf, size_t cap, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    msrc *m = (msrc *)s;
    size_t n = m->left < cap ? m->left : cap;
    memcpy(buf, m->p, n);
    m->p += n;
    m->left -= n;
    return (long)n;
}

static void mem_close(gd_tsrc *s)
{
    free(s);
}

gd_tsrc *gd_tsrc_mem(const void *data, size_t len)
{
    msrc *m = calloc(1, sizeof *m);
    if (!m)
        return NULL;
    m->base = (gd_tsrc){mem_read, mem_close};
    m->p = data;
    m->left = len;
    return &m->base;
}

/* ---- gzip ---- */

#define IN_CAP (256u << 10)
#define SLOT_CAP (1u << 20)
#define NSLOTS 4

typedef struct inflater {
    gd_tsrc *raw;
    unsigned char *in;
    size_t in_len;
    bool raw_eof, finished, started;
#ifdef GD_HAVE_ISAL
    struct inflate_state st;
#else
    z_stream z;
#endif
} inflater;

static int inflater_init(inflater *f)
{
#ifdef GD_HAVE_ISAL
    isal_inflate_init(&f->st);
    f->st.crc_flag = ISAL_GZIP;
    return 0;
#else
    memset(&f->z, 0, sizeof f->z);
    return inflateInit2(&f->z, 16 + MAX_WBITS) == Z_OK ? 0 : -1;
#endif
}

static void inflater_end(inflater *f)
{
#ifndef GD_HAVE_ISAL
    inflateEnd(&f->z);
#else
    (void)f;
#endif
}

/* Reads the next block of compressed input; 0, or -1 on a read error. */
static int refill(inflater *f, char *err, size_t errlen)
{
    long n = f->raw->read(f->raw, (char *)f->in, IN_CAP, err, errlen);
    if (n < 0)
        return -1;
    f->raw_eof = n == 0;
    f->in_len = (size_t)n;
#ifdef GD_HAVE_ISAL
    f->st.next_in = f->in;
    f->st.avail_in = (uint32_t)n;
#else
    f->z.next_in = f->in;
    f->z.avail_in = (uInt)n;
#endif
    return 0;
}

/* Inflates into out[0..cap); returns bytes made, 0 at the end, -1 on error. */
static long inflate_some(inflater *f, unsigned char *out, size_t cap, char *err, size_t errlen)
{
    size_t made = 0;
    while (made < cap) {
        if (f->finished) {
            /* Another gzip member may follow (concatenated .gz files). */
            if (f->in_len == 0 && !f->raw_eof && refill(f, err, errlen))
                return -1;
            if (f->in_len == 0)
                return (long)made;
#ifdef GD_HAVE_ISAL
            unsigned char *next = f->st.next_in;
            uint32_t avail = f->st.avail_in;
            isal_inflate_reset(&f->st);
            f->st.crc_flag = ISAL_GZIP;
            f->st.next_in = next;
            f->st.avail_in = avail;
#else
            inflateReset(&f->z);
#endif
            f->finished = false;
        }
#ifdef GD_HAVE_ISAL
        if (f->st.avail_in == 0 && !f->raw_eof) {
#else
        if (f->z.avail_in == 0 && !f->raw_eof) {
#endif
            if (refill(f, err, errlen))
                return -1;
        }
#ifdef GD_HAVE_ISAL
        f->st.next_out = out + made;
        f->st.avail_out = (uint32_t)(cap - made);
        uint32_t before = f->st.avail_out;
        int rc = isal_inflate(&f->st);
        made += before - f->st.avail_out;
        f->in_len = f->st.avail_in;
        if (rc < 0 || rc == ISAL_NEED_DICT) {
            snprintf(err, errlen, "the gzip data is corrupt (%s)",
                     rc == ISAL_INCORRECT_CHECKSUM ? "checksum mismatch"
                     : rc == ISAL_INVALID_WRAPPER  ? "bad gzip header"
                                                   : "invalid deflate stream");
            return -1;
        }
        if (f->st.block_state == ISAL_BLOCK_FINISH) {
            f->finished = true;
            f->started = true;
            continue;
        }
        if (f->raw_eof && f->st.avail_in == 0 && before == f->st.avail_out) {
#else
        f->z.next_out = out + made;
        f->z.avail_out = (uInt)(cap - made);
        uInt before = f->z.avail_out;
        int rc = inflate(&f->z, Z_NO_FLUSH);
        made += before - f->z.avail_out;
        f->in_len = f->z.avail_in;
        if (rc == Z_STREAM_END) {
            f->finished = true;
            f->started = true;
            continue;
        }
        if (rc != Z_OK && rc != Z_BUF_ERROR) {
            snprintf(err, errlen, "the gzip data is corrupt (%s)", f->z.msg ? f->z.msg : "inflate failed");
            return -1;
        }
        if (f->raw_eof && f->z.avail_in == 0 && before == f->z.avail_out) {
#endif
            snprintf(err, errlen, "the gzip data ends early (truncated file)");
            return made ? (long)made : -1;
        }
    }
    return (long)made;
}

typedef struct gsrc {
    gd_tsrc base;
    inflater f;
    bool threaded;
    /* threaded: a ring of slots filled by the thread */
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    unsigned char *slot[NSLOTS];
    size_t slot_len[NSLOTS];
    size_t head, tail, pos; /* slots [tail, head) are full; pos read within tail */
    bool done, stop, failed;
    char err[256];
} gsrc;

static void *gzip_thread(void *arg)
{
    gsrc *g = arg;
    for (;;) {
        pthread_mutex_lock(&g->mu);
        while (g->head - g->tail == NSLOTS && !g->stop)
            pthread_cond_wait(&g->cv, &g->mu);
        bool stop = g->stop;
        size_t i = g->head % NSLOTS;
        pthread_mutex_unlock(&g->mu);
        if (stop)
            break;
        char err[256] = "";
        long n = inflate_some(&g->f, g->slot[i], SLOT_CAP, err, sizeof err);
        pthread_mutex_lock(&g->mu);
        if (n > 0) {
            g->slot_len[i] = (size_t)n;
            g->head++;
        }
        if (n <= 0 || err[0]) {
            g->done = true;
            if (err[0]) {
                g->failed = true;
                snprintf(g->err, sizeof g->err, "%s", err);
            }
        }
        pthread_cond_broadcast(&g->cv);
        bool end = g->done;
        pthread_mutex_unlock(&g->mu);
        if (end)
            break;
    }
    return NULL;
}

static long gzip_read(gd_tsrc *s, char *buf, size_t cap, char *err, size_t errlen)
{
    gsrc *g = (gsrc *)s;
    if (!g->threaded) {
        if (g->failed) {
            snprintf(err, errlen, "%s", g->err);
            return -1;
        }
        g->err[0] = 0;
        long n = inflate_some(&g->f, (unsigned char *)buf, cap, g->err, sizeof g->err);
        if (n > 0 && g->err[0]) /* data before an error: hand it over, fail the next call */
            g->failed = true;
        else if (n < 0)
            snprintf(err, errlen, "%s", g->err);
        return n;
    }
    pthread_mutex_lock(&g->mu);
    while (g->head == g->tail && !g->done)
        pthread_cond_wait(&g->cv, &g->mu);
    long got = 0;
    if (g->head != g->tail) {
        size_t i = g->tail % NSLOTS;
        size_t n = g->slot_len[i] - g->pos;
        if (n > cap)
            n = cap;
        pthread_mutex_unlock(&g->mu);
        memcpy(buf, g->slot[i] + g->pos, n);
        pthread_mutex_lock(&g->mu);
        g->pos += n;
        if (g->pos == g->slot_len[i]) {
            g->pos = 0;
            g->tail++;
            pthread_cond_broadcast(&g->cv);
        }
        got = (long)n;
    } else if (g->failed) {
        snprintf(err, errlen, "%s", g->err);
        got = -1;
    }
    pthread_mutex_unlock(&g->mu);
    return got;
}

static void gzip_close(gd_tsrc *s)
{
    gsrc *g = (gsrc *)s;
    if (g->threaded) {
        pthread_mutex_lock(&g->mu);
        g->stop = true;
        pthread_cond_broadcast(&g->cv);
        pthread_mutex_unlock(&g->mu);
        pthread_join(g->thread, NULL);
        pthread_mutex_destroy(&g->mu);
        pthread_cond_destroy(&g->cv);
        for (int i = 0; i < NSLOTS; i++)
            free(g->slot[i]);
    }
    inflater_end(&g->f);
    g->f.raw->close(g->f.raw);
    free(g->f.in);
    free(g);
}

gd_tsrc *gd_tsrc_gzip(gd_tsrc *raw, int threaded, char *err, size_t errlen)
{
    gsrc *g = calloc(1, sizeof *g);
    unsigned char *in = malloc(IN_CAP);
    if (!g || !in || inflater_init(&g->f)) {
        free(g);
        free(in);
        raw->close(raw);
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    g->base = (gd_tsrc){gzip_read, gzip_close};
    g->f.raw = raw;
    g->f.in = in;
    g->threaded = threaded != 0;
    if (g->threaded) {
        bool ok = true;
        for (int i = 0; i < NSLOTS; i++)
            ok = (g->slot[i] = malloc(SLOT_CAP)) != NULL && ok;
        pthread_mutex_init(&g->mu, NULL);
        pthread_cond_init(&g->cv, NULL);
        if (!ok || pthread_create(&g->thread, NULL, gzip_thread, g) != 0) {
            for (int i = 0; i < NSLOTS; i++)
                free(g->slot[i]);
            pthread_mutex_destroy(&g->mu);
            pthread_cond_destroy(&g->cv);
            g->threaded = false; /* inflate on the caller's thread instead */
        }
    }
    return &g->base;
}
