/* SPDX-License-Identifier: Apache-2.0 */
/* The kubelet's pod-resources List over gRPC (podres_client.h). */
#include "podres_client.h"
#include "loaders/nghttp2_loader.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#define LIST_PATH "/v1.PodResourcesLister/List"

/* One call's state, filled by nghttp2's callbacks. */
typedef struct call {
    int32_t stream;
    uint8_t *body;
    size_t len, cap, max; /* max: the body's bytes at most (the message and its prefix) */
    bool done, too_big;
    uint32_t reset; /* the stream's error code (0: it ended normally) */
    int status; /* :status */
    char content_type[64], grpc_status[16], grpc_message[200];
} call;

static double mono_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void keep(char *dst, size_t cap, const uint8_t *v, size_t n)
{
    snprintf(dst, cap, "%.*s", (int)(n < cap ? n : cap - 1), (const char *)v);
}

static int on_header(nghttp2_session *s, const nghttp2_frame *frame, const uint8_t *name, size_t namelen,
                     const uint8_t *value, size_t valuelen, uint8_t flags, void *ud)
{
    (void)s;
    (void)flags;
    call *c = ud;
    if (frame->hd.stream_id != c->stream)
        return 0;
    if (namelen == 7 && memcmp(name, ":status", 7) == 0) {
        char v[8];
        keep(v, sizeof v, value, valuelen);
        c->status = atoi(v);
    } else if (namelen == 12 && memcmp(name, "content-type", 12) == 0)
        keep(c->content_type, sizeof c->content_type, value, valuelen);
    else if (namelen == 11 && memcmp(name, "grpc-status", 11) == 0)
        keep(c->grpc_status, sizeof c->grpc_status, value, valuelen);
    else if (namelen == 12 && memcmp(name, "grpc-message", 12) == 0)
        keep(c->grpc_message, sizeof c->grpc_message, value, valuelen);
    return 0;
}

static int on_data(nghttp2_session *s, uint8_t flags, int32_t stream, const uint8_t *data, size_t len, void *ud)
{
    (void)s;
    (void)flags;
    call *c = ud;
    if (stream != c->stream)
        return 0;
    if (len > c->max - c->len) {
        c->too_big = true;
        return NGHTTP2_ERR_CALLBACK_FAILURE; /* the session ends here */
    }
    if (c->len + len > c->cap) {
        size_t cap = c->cap ? c->cap : 64 * 1024;
        while (cap < c->len + len)
            cap *= 2;
        uint8_t *b = realloc(c->body, cap);
        if (!b)
            return NGHTTP2_ERR_CALLBACK_FAILURE;
        c->body = b;
        c->cap = cap;
    }
    memcpy(c->body + c->len, data, len);
    c->len += len;
    return 0;
}

static int on_close(nghttp2_session *s, int32_t stream, uint32_t code, void *ud)
{
    (void)s;
    call *c = ud;
    if (stream == c->stream) {
        c->done = true;
        c->reset = code;
    }
    return 0;
}

/* The request's body: one gRPC message (not compressed) of 0 bytes, the
 * empty ListPodResourcesRequest. */
static ssize_t request_body(nghttp2_session *s, int32_t stream, uint8_t *buf, size_t len, uint32_t *flags,
                            nghttp2_data_source *src, void *ud)
{
    (void)s;
    (void)stream;
    (void)src;
    (void)ud;
    if (len < 5)
        return NGHTTP2_ERR_CALLBACK_FAILURE;
    memset(buf, 0, 5);
    *flags |= NGHTTP2_DATA_FLAG_EOF;
    return 5;
}

/* Connects to the unix socket without blocking past the deadline: the fd, or -1. */
static int connect_unix(const char *path, double deadline, char *err, size_t errlen)
{
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    if (strlen(path) >= sizeof sa.sun_path) {
        snprintf(err, errlen, "the socket path is too long: %s", path);
        return -1;
    }
    memcpy(sa.sun_path, path, strlen(path) + 1);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        snprintf(err, errlen, "socket: %s", strerror(errno));
        return -1;
    }
    if (connect(fd, (struct sockaddr *)&sa, sizeof sa) == 0)
        return fd;
    int e = errno;
    if (e == EINPROGRESS || e == EAGAIN) { /* a full backlog: wait for room */
        for (;;) {
            int ms = (int)((deadline - mono_s()) * 1000);
            struct pollfd p = {.fd = fd, .events = POLLOUT};
            if (ms <= 0 || poll(&p, 1, ms) == 0) {
                e = ETIMEDOUT;
                break;
            }
            if (connect(fd, (struct sockaddr *)&sa, sizeof sa) == 0 || errno == EISCONN)
                return fd;
            if (errno != EAGAIN && errno != EINPROGRESS && errno != EALREADY && errno != EINTR) {
                e = errno;
                break;
            }
        }
    }
    snprintf(err, errlen, "cannot connect to %s: %s", path, strerror(e));
    close(fd);
    return -1;
}

/* Runs the HTTP/2 session on fd until the call's stream closes or the
 * deadline passes; 0, or -1 with err. */
static int converse(const gd_nghttp2_api *h2, nghttp2_session *s, int fd, call *c, double deadline, char *err,
                    size_t errlen)
{
    const uint8_t *pending = NULL;
    ssize_t pending_len = 0;
    uint8_t buf[16384];
    while (!c->done) {
        if (pending_len == 0 && h2->session_want_write(s)) {
            pending_len = h2->session_mem_send(s, &pending);
            if (pending_len < 0) {
                snprintf(err, errlen, "HTTP/2: %s", h2->strerror_((int)pending_len));
                return -1;
            }
        }
        if (pending_len == 0 && !h2->session_want_read(s)) {
            snprintf(err, errlen, "the server ended the HTTP/2 session without an answer (not gRPC?)");
            return -1;
        }
        int ms = (int)((deadline - mono_s()) * 1000);
        struct pollfd p = {.fd = fd, .events = (short)(POLLIN | (pending_len ? POLLOUT : 0))};
        int pr = ms > 0 ? poll(&p, 1, ms) : 0;
        if (pr < 0 && errno == EINTR)
            continue;
        if (pr <= 0) {
            snprintf(err, errlen, "no answer within %.0f s", GD_K8S_DEADLINE_S);
            return -1;
        }
        if ((p.revents & POLLOUT) && pending_len) {
            ssize_t w = send(fd, pending, (size_t)pending_len, MSG_NOSIGNAL);
            if (w < 0 && errno != EAGAIN && errno != EINTR) {
                snprintf(err, errlen, "send: %s", strerror(errno));
                return -1;
            }
            if (w > 0) {
                pending += w;
                pending_len -= w;
            }
        }
        if (p.revents & (POLLIN | POLLHUP | POLLERR)) {
            ssize_t r = recv(fd, buf, sizeof buf, 0);
            if (r < 0 && (errno == EAGAIN || errno == EINTR))
                continue;
            if (r <= 0) {
                snprintf(err, errlen, "the server closed the connection before answering%s%s", r < 0 ? ": " : "",
                         r < 0 ? strerror(errno) : "");
                return -1;
            }
            ssize_t used = h2->session_mem_recv(s, buf, (size_t)r);
            if (c->too_big) {
                snprintf(err, errlen, "the answer is over %zu bytes", c->max - 5);
                return -1;
            }
            if (used < 0) {
                snprintf(err, errlen, "not an HTTP/2 (gRPC) answer: %s", h2->strerror_((int)used));
                return -1;
            }
        }
    }
    return 0;
}

/* The finished call: its status, then its one message decoded. */
static int conclude(const call *c, gd_k8s_assigns *out, char *err, size_t errlen)
{
    if (c->reset) {
        snprintf(err, errlen, "the server reset the call (HTTP/2 error %u)", c->reset);
        return -1;
    }
    if (c->status != 200 || strncmp(c->content_type, "application/grpc", 16) != 0) {
        snprintf(err, errlen, "not a gRPC answer (HTTP status %d, content-type '%s')", c->status, c->content_type);
        return -1;
    }
    if (strcmp(c->grpc_status, "0") != 0) {
        snprintf(err, errlen, "gRPC status %s: %s", c->grpc_status[0] ? c->grpc_status : "missing", c->grpc_message);
        return -1;
    }
    const uint8_t *msg;
    size_t n;
    if (gd_k8s_grpc_unframe(c->body, c->len, &msg, &n) != 0) {
        snprintf(err, errlen, "a gRPC answer that is not one uncompressed message (%zu bytes)", c->len);
        return -1;
    }
    if (gd_k8s_podres_decode(msg, n, out) != 0) {
        snprintf(err, errlen, "a ListPodResourcesResponse that does not decode (%zu bytes)", n);
        return -1;
    }
    return 0;
}

int gd_k8s_podres_list(const char *path, double deadline_s, size_t max_bytes, gd_k8s_assigns *out, char *err,
                       size_t errlen)
{
    out->n = 0;
    char why[512];
    const gd_nghttp2_api *h2 = gd_nghttp2_api_get(why, sizeof why);
    if (!h2) {
        snprintf(err, errlen, "%s", why);
        return -1;
    }
    double deadline = mono_s() + deadline_s;
    int fd = connect_unix(path, deadline, err, errlen);
    if (fd < 0)
        return -1;
    call c = {.stream = -1, .max = max_bytes + 5};
    nghttp2_session_callbacks *cb = NULL;
    nghttp2_session *s = NULL;
    int rc = -1;
    if (h2->callbacks_new(&cb) != 0) {
        snprintf(err, errlen, "out of memory");
        goto out;
    }
    h2->set_on_header_callback(cb, on_header);
    h2->set_on_data_chunk_recv_callback(cb, on_data);
    h2->set_on_stream_close_callback(cb, on_close);
    if (h2->session_client_new(&s, cb, &c) != 0) {
        snprintf(err, errlen, "out of memory");
        goto out;
    }
    /* A window as large as the answer may be, so the kubelet is not held
     * back a round trip at a time. */
    nghttp2_settings_entry settings[] = {{NGHTTP2_SETTINGS_ENABLE_PUSH, 0},
                                         {NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE, 1u << 20}};
#define NV(n, v) {(uint8_t *)(n), (uint8_t *)(v), sizeof(n) - 1, sizeof(v) - 1, NGHTTP2_NV_FLAG_NONE}
    nghttp2_nv headers[] = {
        NV(":method", "POST"),      NV(":scheme", "http"),   NV(":path", LIST_PATH),
        NV(":authority", "localhost"), NV("content-type", "application/grpc"), NV("te", "trailers"),
        NV("user-agent", "gpudoctor"),
    };
#undef NV
    nghttp2_data_provider body = {.read_callback = request_body};
    if (h2->submit_settings(s, NGHTTP2_FLAG_NONE, settings, sizeof settings / sizeof settings[0]) != 0 ||
        (c.stream = h2->submit_request(s, NULL, headers, sizeof headers / sizeof headers[0], &body, NULL)) < 0) {
        snprintf(err, errlen, "HTTP/2: cannot send the request");
        goto out;
    }
    if (converse(h2, s, fd, &c, deadline, err, errlen) == 0)
        rc = conclude(&c, out, err, errlen);
out:
    if (s)
        h2->session_del(s);
    if (cb)
        h2->callbacks_del(cb);
    close(fd);
    free(c.body);
    if (rc != 0)
        out->n = 0;
    return rc;
}
