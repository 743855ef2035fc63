/* SPDX-License-Identifier: Apache-2.0 */
/* The recording's file: whole lines, gzip, syncs, thinning (record_file.h). */
#include "record_file.h"

#include "core/line_reader.h"
#include "record_thin.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#define OUT_BYTES (64u << 10)
#define MAX_LINE_BYTES (16u << 20) /* as the reader takes them */

/* A line of the part that may still be folded. */
typedef struct tail_line {
    double t;
    bool sample;
} tail_line;

struct gd_record_file {
    int fd;
    char path[512];
    bool gzip, regular, failed;
    off_t size; /* bytes written, every one of them whole */
    off_t tail_at; /* where the lines that may still be folded begin (compressed: their member) */
    z_stream *z; /* compressed: the open member */
    unsigned char *out; /* deflate's output */
    double synced_at; /* monotonic seconds of the last sync */
    size_t keep; /* samples kept whole; 0: no thinning */
    double bucket_s;
    tail_line *tail;
    size_t tail_n, tail_cap, tail_samples;
    void (*log)(void *, const char *);
    void *log_ud;
};

static double mono_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* All of buf to fd (a pipe may take it in parts). 0, or -1 with errno. */
static int write_all(int fd, const void *buf, size_t n)
{
    const char *p = buf;
    while (n > 0) {
        ssize_t k = write(fd, p, n);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0) {
            if (k == 0)
                errno = ENOSPC;
            return -1;
        }
        p += k;
        n -= (size_t)k;
    }
    return 0;
}

static z_stream *deflater(void)
{
    z_stream *z = calloc(1, sizeof *z);
    if (z && deflateInit2(z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
        free(z);
        return NULL;
    }
    return z;
}

static void deflater_free(z_stream *z)
{
    if (z)
        deflateEnd(z);
    free(z);
}

/* n bytes through z (flush: Z_NO_FLUSH, Z_SYNC_FLUSH, Z_FINISH) to fd, its
 * size counted. 0, or -1 with errno. */
static int zput(z_stream *z, unsigned char *out, int fd, const void *in, size_t n, int flush, off_t *size)
{
    z->next_in = (Bytef *)(uintptr_t)in;
    z->avail_in = (uInt)n;
    for (;;) {
        z->next_out = out;
        z->avail_out = OUT_BYTES;
        int rc = deflate(z, flush);
        size_t made = OUT_BYTES - z->avail_out;
        if (made && write_all(fd, out, made) != 0)
            return -1;
        *size += (off_t)made;
        if (rc == Z_STREAM_END || (z->avail_in == 0 && z->avail_out != 0 && flush != Z_FINISH))
            return 0;
        if (rc != Z_OK && rc != Z_BUF_ERROR) {
            errno = EIO;
            return -1;
        }
    }
}

/* One line to fd, as plain text or through z: its newline added. */
static int put_line(gd_record_file *w, z_stream *z, int fd, const char *line, size_t n, int flush, off_t *size)
{
    if (z)
        return zput(z, w->out, fd, line, n, Z_NO_FLUSH, size) == 0 ? zput(z, w->out, fd, "\n", 1, flush, size) : -1;
    struct iovec v[2] = {{(void *)(uintptr_t)line, n}, {"\n", 1}};
    ssize_t k;
    do
        k = writev(fd, v, 2);
    while (k < 0 && errno == EINTR);
    if (k == (ssize_t)(n + 1)) {
        *size += k;
        return 0;
    }
    if (k >= 0)
        errno = ENOSPC;
    return -1;
}

gd_record_file *gd_record_file_open(const char *path, void (*log)(void *, const char *), void *log_ud, char *err,
                                    size_t errlen)
{
    gd_record_file *w = calloc(1, sizeof *w);
    if (!w) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    /* O_NONBLOCK: a FIFO without a reader is refused, not waited on for ever. */
    w->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOCTTY | O_NONBLOCK, 0644);
    if (w->fd < 0) {
        snprintf(err, errlen, "--record %s: %s", path, errno == ENXIO ? "a FIFO nobody reads" : strerror(errno));
        free(w);
        return NULL;
    }
    int fl = fcntl(w->fd, F_GETFL);
    if (fl >= 0)
        fcntl(w->fd, F_SETFL, fl & ~O_NONBLOCK);
    struct stat st, lst;
    /* Thinning renames a new file over the name: a link would be replaced by it. */
    w->regular = fstat(w->fd, &st) == 0 && S_ISREG(st.st_mode) && lstat(path, &lst) == 0 && S_ISREG(lst.st_mode) &&
                 lst.st_nlink == 1;
    snprintf(w->path, sizeof w->path, "%s", path);
    size_t len = strlen(path);
    w->gzip = len > 3 && strcmp(path + len - 3, ".gz") == 0;
    if (w->gzip && (!(w->z = deflater()) || !(w->out = malloc(OUT_BYTES)))) {
        snprintf(err, errlen, "out of memory");
        gd_record_file_close(w, NULL, 0);
        return NULL;
    }
    w->log = log;
    w->log_ud = log_ud;
    w->synced_at = mono_s();
    return w;
}

void gd_record_file_thin(gd_record_file *w, size_t keep, double bucket_s)
{
    w->keep = w->regular && bucket_s > 0 && !w->failed ? keep : 0;
    w->bucket_s = bucket_s;
    if (!w->keep)
        return;
    /* What is written so far (the header) is never read back: the foldable part begins here,
     * compressed in a member of its own. */
    if (w->z && (zput(w->z, w->out, w->fd, NULL, 0, Z_FINISH, &w->size) != 0 || deflateReset(w->z) != Z_OK)) {
        w->failed = true;
        w->keep = 0;
    }
    w->tail_at = w->size;
    w->tail_n = w->tail_samples = 0;
}

/* ---- thinning ---- */

/* The lines of the foldable part, read back from the file (gd_line_read_fn). */
typedef struct tail_read {
    int fd;
    z_stream *z; /* compressed: inflating its member */
    unsigned char in[OUT_BYTES];
    bool done;
} tail_read;

static long tail_bytes(void *ud, char *buf, size_t cap, char *err, size_t errlen)
{
    tail_read *t = ud;
    if (!t->z) {
        ssize_t k = read(t->fd, buf, cap);
        if (k < 0)
            snprintf(err, errlen, "reading it back: %s", strerror(errno));
        return (long)k;
    }
    t->z->next_out = (Bytef *)buf;
    t->z->avail_out = (uInt)cap;
    while (!t->done && t->z->avail_out == cap) {
        if (t->z->avail_in == 0) {
            ssize_t k = read(t->fd, t->in, sizeof t->in);
            if (k <= 0) {
                snprintf(err, errlen, "reading it back: %s",
                         k < 0 ? strerror(errno) : "its compressed data ends early");
                return -1;
            }
            t->z->next_in = t->in;
            t->z->avail_in = (uInt)k;
        }
        int rc = inflate(t->z, Z_NO_FLUSH);
        if (rc == Z_STREAM_END)
            t->done = true;
        else if (rc != Z_OK) {
            snprintf(err, errlen, "reading it back: its compressed data is damaged");
            return -1;
        }
    }
    return (long)(cap - t->z->avail_out);
}

/* The new file being written beside the recording. */
typedef struct rewrite {
    gd_record_file *w;
    int fd;
    z_stream *z;
    off_t size;
    json_t *held; /* lines of the bucket being folded that are never folded: after its line */
    char buf[OUT_BYTES]; /* plain text: lines gathered into larger writes */
    size_t used;
} rewrite;

static int rw_flush(rewrite *rw)
{
    if (rw->used && write_all(rw->fd, rw->buf, rw->used) != 0)
        return -1;
    rw->size += (off_t)rw->used;
    rw->used = 0;
    return 0;
}

/* One line into the new file. */
static int rw_put(rewrite *rw, const char *line, size_t n)
{
    if (rw->z || n + 1 > sizeof rw->buf)
        return rw_flush(rw) == 0 ? put_line(rw->w, rw->z, rw->fd, line, n, Z_NO_FLUSH, &rw->size) : -1;
    if (rw->used + n + 1 > sizeof rw->buf && rw_flush(rw) != 0)
        return -1;
    memcpy(rw->buf + rw->used, line, n);
    rw->buf[rw->used + n] = '\n';
    rw->used += n + 1;
    return 0;
}

static int emit(rewrite *rw, gd_thin *b)
{
    json_t *line = gd_thin_take(b);
    /* 9 significant digits: a bucket's figures are for reading, and a mean's last bits are noise. */
    char *text = line ? json_dumps(line, JSON_COMPACT | JSON_REAL_PRECISION(9)) : NULL;
    json_decref(line);
    int rc = text ? rw_put(rw, text, strlen(text)) : 0;
    free(text);
    size_t i;
    json_t *held;
    json_array_foreach(rw->held, i, held) if (rc == 0) rc =
        rw_put(rw, json_string_value(held), json_string_length(held));
    json_array_clear(rw->held);
    return rc;
}

/* The bytes [0, n) of the recording (read from `from`) into `to`, as they are. */
static int copy_head(int from, int to, off_t n)
{
    char buf[OUT_BYTES];
    for (off_t at = 0; at < n;) {
        size_t want = n - at < (off_t)sizeof buf ? (size_t)(n - at) : sizeof buf;
        ssize_t k = pread(from, buf, want, at);
        if (k <= 0 || write_all(to, buf, (size_t)k) != 0)
            return -1;
        at += k;
    }
    return 0;
}

/* Folds the tail's first `split` lines (samples into buckets, the rest kept
 * as they are) into rw, then copies the other lines whole. */
static int fold_tail(gd_record_file *w, rewrite *rw, gd_line_reader *lr, size_t split, off_t *new_tail_at, char *why,
                     size_t len)
{
    gd_thin *b = gd_thin_new();
    rw->held = json_array();
    int rc = b && rw->held ? 0 : -1;
    double bucket = NAN;
    for (size_t i = 0; rc == 0 && i < w->tail_n; i++) {
        const char *line;
        size_t n;
        bool partial;
        if (gd_line_next(lr, &line, &n, &partial, why, len) != 1) {
            if (!why[0])
                snprintf(why, len, "reading it back: it ends early");
            rc = -1;
            break;
        }
        if (i == split) { /* the folded part ends: what follows stays whole, in a member of its own */
            rc = emit(rw, b);
            if (rc == 0)
                rc = rw_flush(rw);
            if (rc == 0 && rw->z) {
                rc = zput(rw->z, w->out, rw->fd, NULL, 0, Z_FINISH, &rw->size);
                if (rc == 0 && deflateReset(rw->z) != Z_OK)
                    rc = -1;
            }
            *new_tail_at = rw->size;
        }
        if (rc == 0 && i < split && w->tail[i].sample) {
            double k = floor(w->tail[i].t / w->bucket_s);
            if (k != bucket && gd_thin_samples(b))
                rc = emit(rw, b);
            bucket = k;
            json_t *j = json_loadb(line, n, 0, NULL);
            if (rc == 0 && (!j || gd_thin_add(b, j) != 0))
                snprintf(why, len, "a sample line that cannot be folded"), rc = -1;
            json_decref(j);
        } else if (rc == 0 && i < split) {
            rc = json_array_append_new(rw->held, json_stringn(line, n));
        } else if (rc == 0) {
            rc = rw_put(rw, line, n);
        }
    }
    if (rc == 0 && split == w->tail_n) {
        rc = emit(rw, b);
        *new_tail_at = rw->size + (off_t)rw->used; /* nothing left whole (not reached: the newest samples stay) */
    }
    if (rc == 0)
        rc = rw_flush(rw);
    gd_thin_free(b);
    json_decref(rw->held);
    rw->held = NULL;
    if (rc != 0 && !why[0])
        snprintf(why, len, "%s", strerror(errno ? errno : EIO));
    return rc;
}

/* Rewrites the recording with its lines before the newest `keep` samples
 * folded, beside it, and renames it over the name. 0, or -1 with why (the
 * recording is then as it was, and goes on). */
static int thin(gd_record_file *w, char *why, size_t len)
{
    why[0] = '\0';
    size_t fold = w->tail_samples - w->keep, seen = 0, split = 0;
    double cutoff = 0;
    for (size_t i = 0; i < w->tail_n; i++)
        if (w->tail[i].sample && seen++ == fold) {
            cutoff = floor(w->tail[i].t / w->bucket_s) * w->bucket_s; /* whole buckets only */
            break;
        }
    while (split < w->tail_n && w->tail[split].t < cutoff)
        split++;
    if (split == 0)
        return 0;
    /* The open member ends: it is read back whole. */
    if (w->z && zput(w->z, w->out, w->fd, NULL, 0, Z_FINISH, &w->size) != 0)
        return snprintf(why, len, "%s", strerror(errno)), -1;
    char tmp[600];
    snprintf(tmp, sizeof tmp, "%s.thinning-XXXXXX", w->path);
    int tfd = mkostemp(tmp, O_CLOEXEC);
    if (tfd < 0)
        return snprintf(why, len, "cannot create a file beside it: %s", strerror(errno)), -1;
    struct stat st;
    if (fstat(w->fd, &st) == 0)
        fchmod(tfd, st.st_mode & 07777);
    rewrite *rw = calloc(1, sizeof *rw);
    if (!rw) {
        close(tfd);
        unlink(tmp);
        return snprintf(why, len, "out of memory"), -1;
    }
    rw->w = w;
    rw->fd = tfd;
    rw->size = w->tail_at;
    tail_read tr = {.fd = open(w->path, O_RDONLY | O_CLOEXEC)};
    gd_line_reader lr = {.read = tail_bytes, .ud = &tr, .max_line = MAX_LINE_BYTES};
    off_t new_tail_at = 0;
    int rc = tr.fd >= 0 && lseek(tr.fd, w->tail_at, SEEK_SET) == w->tail_at && copy_head(tr.fd, tfd, w->tail_at) == 0
                 ? 0
                 : -1;
    if (rc == 0 && w->z) {
        tr.z = calloc(1, sizeof *tr.z);
        rw->z = deflater();
        rc = tr.z && rw->z && inflateInit2(tr.z, 16 + MAX_WBITS) == Z_OK ? 0 : -1;
    }
    if (rc == 0)
        rc = fold_tail(w, rw, &lr, split, &new_tail_at, why, len);
    if (rc == 0 && rw->z)
        rc = zput(rw->z, w->out, tfd, NULL, 0, Z_SYNC_FLUSH, &rw->size);
    if (rc == 0 && (fdatasync(tfd) != 0 || rename(tmp, w->path) != 0))
        rc = -1;
    if (rc != 0 && !why[0])
        snprintf(why, len, "%s", strerror(errno));
    gd_line_reader_free(&lr);
    if (tr.z)
        inflateEnd(tr.z);
    free(tr.z);
    if (tr.fd >= 0)
        close(tr.fd);
    if (rc != 0) {
        unlink(tmp);
        close(tfd);
        deflater_free(rw->z);
        free(rw);
        /* The ended member stays; the lines that follow go in a new one. */
        if (w->z && deflateReset(w->z) != Z_OK)
            w->failed = true;
        w->tail_at = w->size;
        w->tail_n = w->tail_samples = 0;
        return -1;
    }
    close(w->fd);
    w->fd = tfd;
    w->size = rw->size;
    w->tail_at = new_tail_at;
    deflater_free(w->z);
    w->z = rw->z;
    free(rw);
    memmove(w->tail, w->tail + split, (w->tail_n - split) * sizeof *w->tail);
    w->tail_n -= split;
    w->tail_samples = 0;
    for (size_t i = 0; i < w->tail_n; i++)
        w->tail_samples += w->tail[i].sample;
    return 0;
}

/* Notes the line just written; folds when enough samples are past the kept ones. */
static void note_line(gd_record_file *w, double t, bool sample)
{
    if (!w->keep)
        return;
    if (w->tail_n == w->tail_cap) {
        size_t cap = w->tail_cap ? w->tail_cap * 2 : 1024;
        tail_line *v = realloc(w->tail, cap * sizeof *v);
        if (!v) {
            w->keep = 0;
            if (w->log)
                w->log(w->log_ud, "thinning stopped: out of memory; the recording goes on whole");
            return;
        }
        w->tail = v;
        w->tail_cap = cap;
    }
    w->tail[w->tail_n++] = (tail_line){t, sample};
    w->tail_samples += sample;
    /* Half the kept span again before a rewrite: each line is rewritten a few times at most. */
    if (!sample || w->tail_samples <= w->keep + w->keep / 2 + 1)
        return;
    char why[400], msg[1200];
    if (thin(w, why, sizeof why) != 0) {
        w->keep = 0;
        snprintf(msg, sizeof msg, "thinning %s stopped: %s; the recording goes on whole", w->path, why);
        if (w->log)
            w->log(w->log_ud, msg);
    }
}

int gd_record_file_put(gd_record_file *w, const char *line, size_t n, double t, gd_record_line kind, char *err,
                       size_t errlen)
{
    if (w->failed) {
        snprintf(err, errlen, "the recording has stopped");
        return -1;
    }
    double now = mono_s();
    bool sync = now - w->synced_at >= 1.0;
    off_t before = w->size;
    if (put_line(w, w->z, w->fd, line, n, w->z && (sync || kind == GD_RECORD_KEEP) ? Z_SYNC_FLUSH : Z_NO_FLUSH,
                 &w->size) != 0) {
        int e = errno;
        if (w->size > before && ftruncate(w->fd, before) != 0) { /* keep whole lines only */
        }
        w->size = before;
        w->failed = true;
        snprintf(err, errlen, "%s", strerror(e));
        return -1;
    }
    if (sync) {
        fdatasync(w->fd);
        w->synced_at = now;
    }
    note_line(w, t, kind == GD_RECORD_SAMPLE);
    return 0;
}

int gd_record_file_close(gd_record_file *w, char *err, size_t errlen)
{
    if (!w)
        return 0;
    int rc = 0, e = 0;
    if (!w->failed && w->z && zput(w->z, w->out, w->fd, NULL, 0, Z_FINISH, &w->size) != 0)
        rc = -1, e = errno;
    if (rc == 0 && !w->failed && fsync(w->fd) != 0 && errno != EINVAL && errno != EROFS)
        rc = -1, e = errno;
    if (close(w->fd) != 0 && rc == 0)
        rc = -1, e = errno;
    if (rc != 0 && err)
        snprintf(err, errlen, "%s", strerror(e));
    deflater_free(w->z);
    free(w->out);
    free(w->tail);
    free(w);
    return rc;
}
