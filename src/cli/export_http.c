/* SPDX-License-Identifier: Apache-2.0 */
/* The exporter's HTTP side (export_http.h). */
#include "export_http.h"
#include "loaders/mhd_loader.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

/*
 * Limits that keep /metrics answering while idle or trickling clients
 * (slowloris) try to hold every connection:
 * - at most 64 connections at once; a new one beyond that takes the place
 *   of the oldest that has not sent a whole request yet (or is refused when
 *   every one is being answered);
 * - at most 16 from one address;
 * - a request's headers must be whole within 5 s of the connection (or of
 *   the previous answer on a kept-alive one), its answer sent within 10 s:
 *   a deadline, not an idle timeout, so a byte every second does not keep
 *   a connection; 10 s without any traffic also ends one.
 * A connection past its deadline is shut down; libmicrohttpd then closes it.
 */

/* libmicrohttpd's functions: loaded by gd_export_http_start before any is called. */
#define MHD (gd_mhd_api_get(NULL, 0))

#define GD_EXPORT_MAX_CONNECTIONS 64
#define GD_EXPORT_HARD_CONNECTIONS 128 /* room for those shut down and not yet closed */
#define GD_EXPORT_PER_IP_CONNECTIONS 16
#define GD_EXPORT_CONNECTION_TIMEOUT_S 10
#define GD_EXPORT_REQUEST_DEADLINE_S 5.0
#define GD_EXPORT_ANSWER_DEADLINE_S 10.0

/* A connection and its deadline (the list is under conn_lock). */
typedef struct tracked {
    struct tracked *prev, *next;
    int fd;
    double opened, deadline;
    bool answering; /* a whole request came: its answer is being sent */
    bool cut; /* shut down: libmicrohttpd closes it next */
} tracked;

struct gd_export_http {
    struct MHD_Daemon *d;
    unsigned port;
    double stale_s;
    pthread_mutex_t lock;
    char *text; /* the newest exposition */
    size_t len;
    double published; /* monotonic seconds of the last sample, 0 before the first */
    bool served; /* an exposition was published: something to scrape (/readyz) */
    char *health; /* the newest JSON health document (/health) */
    size_t health_len;
    atomic_ulong scrapes;
    pthread_mutex_t conn_lock;
    tracked *conns; /* newest first */
    size_t live; /* tracked and not cut */
    atomic_ulong cut_total;
    pthread_t sweeper;
    atomic_bool stopping;
    bool sweeping;
};

static const char index_page[] =
    "<!doctype html><html><head><title>gpudoctor exporter</title></head><body>"
    "<h1>gpudoctor exporter</h1><p><a href=\"/metrics\">/metrics</a>: dcgm-exporter's GPU metrics and "
    "gpudoctor's findings (Prometheus text format). <a href=\"/healthz\">/healthz</a>: the exporter works "
    "(liveness). <a href=\"/readyz\">/readyz</a>: it has metrics to serve. <a href=\"/health/driver\">"
    "/health/driver</a>: samples keep coming from the driver. <a href=\"/health\">/health</a>: the current "
    "findings as JSON.</p></body></html>\n";

static double mono_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static enum MHD_Result reply(struct MHD_Connection *c, unsigned status, const char *type, const char *body, size_t len,
                             enum MHD_ResponseMemoryMode mode)
{
    struct MHD_Response *r = MHD->create_response_from_buffer(len, (void *)body, mode);
    if (!r)
        return MHD_NO;
    MHD->add_response_header(r, "Content-Type", type);
    if (status == MHD_HTTP_METHOD_NOT_ALLOWED)
        MHD->add_response_header(r, "Allow", "GET, HEAD");
    enum MHD_Result ok = MHD->queue_response(c, status, r);
    MHD->destroy_response(r);
    return ok;
}

/* Whether samples keep coming from the driver, and that in words. */
static bool sampling_state(gd_export_http *h, char *text, size_t len)
{
    pthread_mutex_lock(&h->lock);
    double age = h->published > 0 ? mono_s() - h->published : -1;
    bool served = h->served;
    pthread_mutex_unlock(&h->lock);
    if (age < 0)
        snprintf(text, len,
                 served ? "no sample: no driver to sample (the findings say why)" : "starting: no sample yet");
    else if (age > h->stale_s)
        snprintf(text, len, "stale: the last sample is %.0f s old: the driver does not answer", age);
    else
        snprintf(text, len, "ok: the last sample is %.1f s old", age);
    return age >= 0 && age <= h->stale_s;
}

/* The exposition and, computed at the scrape, whether the driver answers
 * (the exposition itself is as old as the last sample, and a hung driver
 * brings none). Malloc'd; NULL when out of memory. The caller holds lock. */
static char *with_sampling(gd_export_http *h, const char *text, size_t len)
{
    double age = h->published > 0 ? mono_s() - h->published : -1;
    char tail[768];
    int n = snprintf(tail, sizeof tail,
                     "# HELP gpudoctor_driver_answering 1 while samples from the NVIDIA driver keep coming (the last "
                     "within %g s), 0 when none did (no driver, or it hangs).\n"
                     "# TYPE gpudoctor_driver_answering gauge\n"
                     "gpudoctor_driver_answering %d\n",
                     h->stale_s, age >= 0 && age <= h->stale_s);
    if (age >= 0 && n > 0 && (size_t)n < sizeof tail)
        n += snprintf(tail + n, sizeof tail - (size_t)n,
                      "# HELP gpudoctor_last_sample_age_seconds Seconds since the exporter last sampled the GPUs.\n"
                      "# TYPE gpudoctor_last_sample_age_seconds gauge\n"
                      "gpudoctor_last_sample_age_seconds %.3f\n",
                      age);
    if (n < 0 || (size_t)n >= sizeof tail)
        return NULL;
    char *body = malloc(len + (size_t)n + 1);
    if (!body)
        return NULL;
    memcpy(body, text, len);
    memcpy(body + len, tail, (size_t)n + 1);
    return body;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url, const char *method,
                                  const char *version, const char *upload, size_t *upload_len, void **state)
{
    (void)version;
    (void)upload;
    gd_export_http *h = cls;
    if (!*state) { /* the headers only: answer once the request is complete */
        *state = h;
        const union MHD_ConnectionInfo *ci = MHD->get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
        tracked *t = ci ? ci->socket_context : NULL;
        if (t) {
            pthread_mutex_lock(&h->conn_lock);
            t->answering = true;
            t->deadline = mono_s() + GD_EXPORT_ANSWER_DEADLINE_S;
            pthread_mutex_unlock(&h->conn_lock);
        }
        return MHD_YES;
    }
    if (*upload_len) { /* a body is never read: nothing here takes input */
        *upload_len = 0;
        return MHD_YES;
    }
    static const char text_type[] = "text/plain; charset=utf-8";
    if (strcmp(method, "GET") != 0 && strcmp(method, "HEAD") != 0)
        return reply(c, MHD_HTTP_METHOD_NOT_ALLOWED, text_type, "read-only: GET or HEAD\n", 23, MHD_RESPMEM_PERSISTENT);
    if (strcmp(url, "/metrics") == 0) {
        pthread_mutex_lock(&h->lock);
        /* A copy taken under the lock: a scrape never waits for a sample. */
        enum MHD_Result ok;
        if (h->text) {
            char *body = with_sampling(h, h->text, h->len);
            ok = body ? reply(c, MHD_HTTP_OK, "text/plain; version=0.0.4; charset=utf-8", body, strlen(body),
                              MHD_RESPMEM_MUST_FREE)
                      : reply(c, MHD_HTTP_INTERNAL_SERVER_ERROR, text_type, "out of memory\n", 14,
                              MHD_RESPMEM_PERSISTENT);
        } else {
            ok = reply(c, MHD_HTTP_SERVICE_UNAVAILABLE, text_type, "no sample yet\n", 14, MHD_RESPMEM_PERSISTENT);
        }
        pthread_mutex_unlock(&h->lock);
        atomic_fetch_add(&h->scrapes, 1);
        return ok;
    }
    /* Liveness: this answer is the proof that the exporter works. The GPUs'
     * state never restarts it: a node without a driver or with a hung one
     * would restart in a loop and its findings flap (/health/driver and
     * gpudoctor_driver_answering say that). */
    if (strcmp(url, "/healthz") == 0) {
        char words[128], body[160];
        sampling_state(h, words, sizeof words);
        int n = snprintf(body, sizeof body, "ok: serving; %s\n", words);
        return reply(c, MHD_HTTP_OK, text_type, body, (size_t)n, MHD_RESPMEM_MUST_COPY);
    }
    /* Readiness: there are metrics to serve (the first sample, or on a node
     * without a driver the findings that say so). */
    if (strcmp(url, "/readyz") == 0) {
        pthread_mutex_lock(&h->lock);
        bool served = h->served;
        pthread_mutex_unlock(&h->lock);
        return served ? reply(c, MHD_HTTP_OK, text_type, "ready: /metrics is served\n", 26, MHD_RESPMEM_PERSISTENT)
                      : reply(c, MHD_HTTP_SERVICE_UNAVAILABLE, text_type, "starting: nothing to serve yet\n", 31,
                              MHD_RESPMEM_PERSISTENT);
    }
    /* The driver: 200 while samples keep coming, 503 when none came within
     * the stale limit (a hung driver) or none can (no driver). */
    if (strcmp(url, "/health/driver") == 0) {
        char words[128], body[160];
        bool up = sampling_state(h, words, sizeof words);
        int n = snprintf(body, sizeof body, "%s\n", words);
        return reply(c, up ? MHD_HTTP_OK : MHD_HTTP_SERVICE_UNAVAILABLE, text_type, body, (size_t)n,
                     MHD_RESPMEM_MUST_COPY);
    }
    if (strcmp(url, "/health") == 0) {
        pthread_mutex_lock(&h->lock);
        enum MHD_Result ok =
            h->health
                ? reply(c, MHD_HTTP_OK, "application/json", h->health, h->health_len, MHD_RESPMEM_MUST_COPY)
                : reply(c, MHD_HTTP_SERVICE_UNAVAILABLE, text_type, "no sample yet\n", 14, MHD_RESPMEM_PERSISTENT);
        pthread_mutex_unlock(&h->lock);
        return ok;
    }
    if (strcmp(url, "/") == 0)
        return reply(c, MHD_HTTP_OK, "text/html; charset=utf-8", index_page, sizeof index_page - 1,
                     MHD_RESPMEM_PERSISTENT);
    static const char not_found[] = "not found: /metrics, /health, /health/driver, /healthz, /readyz or /\n";
    return reply(c, MHD_HTTP_NOT_FOUND, text_type, not_found, sizeof not_found - 1, MHD_RESPMEM_PERSISTENT);
}

/* Shuts t down once (the caller holds conn_lock). */
static void cut(gd_export_http *h, tracked *t)
{
    if (t->cut)
        return;
    t->cut = true;
    h->live--;
    shutdown(t->fd, SHUT_RDWR);
    atomic_fetch_add(&h->cut_total, 1);
}

/* Connections come and go (libmicrohttpd's thread): tracked with a deadline. */
static void on_connection(void *cls, struct MHD_Connection *c, void **ctx, enum MHD_ConnectionNotificationCode code)
{
    gd_export_http *h = cls;
    if (code == MHD_CONNECTION_NOTIFY_STARTED) {
        const union MHD_ConnectionInfo *ci = MHD->get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
        tracked *t = ci ? calloc(1, sizeof *t) : NULL;
        if (!t)
            return;
        t->fd = ci->connect_fd;
        t->opened = mono_s();
        t->deadline = t->opened + GD_EXPORT_REQUEST_DEADLINE_S;
        pthread_mutex_lock(&h->conn_lock);
        t->next = h->conns;
        if (h->conns)
            h->conns->prev = t;
        h->conns = t;
        h->live++;
        pthread_mutex_unlock(&h->conn_lock);
        *ctx = t;
    } else if (code == MHD_CONNECTION_NOTIFY_CLOSED && *ctx) {
        tracked *t = *ctx;
        pthread_mutex_lock(&h->conn_lock);
        if (t->prev)
            t->prev->next = t->next;
        else
            h->conns = t->next;
        if (t->next)
            t->next->prev = t->prev;
        if (!t->cut)
            h->live--;
        pthread_mutex_unlock(&h->conn_lock);
        free(t);
        *ctx = NULL;
    }
}

/* An answer went out: the next request on this connection has a new deadline. */
static void on_completed(void *cls, struct MHD_Connection *c, void **state, enum MHD_RequestTerminationCode code)
{
    (void)state;
    (void)code;
    gd_export_http *h = cls;
    const union MHD_ConnectionInfo *ci = MHD->get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    tracked *t = ci ? ci->socket_context : NULL;
    if (!t)
        return;
    pthread_mutex_lock(&h->conn_lock);
    t->answering = false;
    t->deadline = mono_s() + GD_EXPORT_REQUEST_DEADLINE_S;
    pthread_mutex_unlock(&h->conn_lock);
}

/* A new connection beyond the limit takes the place of the oldest one that
 * has not sent a whole request; with none such, it is refused. */
static enum MHD_Result on_accept(void *cls, const struct sockaddr *addr, socklen_t len)
{
    (void)addr;
    (void)len;
    gd_export_http *h = cls;
    pthread_mutex_lock(&h->conn_lock);
    bool ok = h->live < GD_EXPORT_MAX_CONNECTIONS;
    if (!ok) {
        tracked *oldest = NULL;
        for (tracked *t = h->conns; t; t = t->next)
            if (!t->cut && !t->answering)
                oldest = t; /* newest first: the last one seen is the oldest */
        if (oldest) {
            cut(h, oldest);
            ok = true;
        }
    }
    pthread_mutex_unlock(&h->conn_lock);
    return ok ? MHD_YES : MHD_NO;
}

/* Four times a second: connections past their deadline are shut down. */
static void *sweep(void *arg)
{
    gd_export_http *h = arg;
    while (!atomic_load(&h->stopping)) {
        usleep(250 * 1000);
        double now = mono_s();
        pthread_mutex_lock(&h->conn_lock);
        for (tracked *t = h->conns; t; t = t->next)
            if (!t->cut && now > t->deadline)
                cut(h, t);
        pthread_mutex_unlock(&h->conn_lock);
    }
    return NULL;
}

/* "HOST:PORT" or "[V6]:PORT" into a socket address; 0, or -1. */
static int parse_addr(const char *addr, struct sockaddr_storage *ss, socklen_t *len)
{
    char host[128];
    const char *colon = strrchr(addr, ':');
    if (!colon || colon == addr || (size_t)(colon - addr) >= sizeof host)
        return -1;
    char *end;
    long port = strtol(colon + 1, &end, 10);
    if (end == colon + 1 || *end || port < 0 || port > 65535)
        return -1;
    snprintf(host, sizeof host, "%.*s", (int)(colon - addr), addr);
    memset(ss, 0, sizeof *ss);
    size_t hl = strlen(host);
    if (host[0] == '[' && host[hl - 1] == ']') {
        host[hl - 1] = '\0';
        struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;
        s6->sin6_family = AF_INET6;
        s6->sin6_port = htons((uint16_t)port);
        *len = sizeof *s6;
        return inet_pton(AF_INET6, host + 1, &s6->sin6_addr) == 1 ? 0 : -1;
    }
    struct sockaddr_in *s4 = (struct sockaddr_in *)ss;
    s4->sin_family = AF_INET;
    s4->sin_port = htons((uint16_t)port);
    *len = sizeof *s4;
    return inet_pton(AF_INET, strcmp(host, "localhost") == 0 ? "127.0.0.1" : host, &s4->sin_addr) == 1 ? 0 : -1;
}

gd_export_http *gd_export_http_start(const char *addr, double stale_s, char *err, size_t errlen)
{
    struct sockaddr_storage ss;
    socklen_t sl;
    if (parse_addr(addr, &ss, &sl) != 0) {
        snprintf(err, errlen, "--listen wants ADDRESS:PORT (127.0.0.1:9400, [::1]:9400, 0.0.0.0:9400), not '%s'", addr);
        return NULL;
    }
    if (!gd_mhd_api_get(err, errlen))
        return NULL;
    gd_export_http *h = calloc(1, sizeof *h);
    if (!h) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    h->stale_s = stale_s;
    pthread_mutex_init(&h->lock, NULL);
    pthread_mutex_init(&h->conn_lock, NULL);
    unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_AUTO | (ss.ss_family == AF_INET6 ? MHD_USE_IPv6 : 0);
    h->d = MHD->start_daemon(flags, 0, on_accept, h, on_request, h, MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&ss,
                             MHD_OPTION_CONNECTION_LIMIT, (unsigned)GD_EXPORT_HARD_CONNECTIONS,
                             MHD_OPTION_PER_IP_CONNECTION_LIMIT, (unsigned)GD_EXPORT_PER_IP_CONNECTIONS,
                             MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)GD_EXPORT_CONNECTION_TIMEOUT_S,
                             MHD_OPTION_NOTIFY_CONNECTION, on_connection, h, MHD_OPTION_NOTIFY_COMPLETED, on_completed,
                             h, MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)(64 * 1024), MHD_OPTION_END);
    if (h->d)
        h->sweeping = pthread_create(&h->sweeper, NULL, sweep, h) == 0;
    if (!h->d || !h->sweeping) {
        snprintf(err, errlen, "cannot listen on %s (in use, or not an address of this machine)", addr);
        if (h->d)
            MHD->stop_daemon(h->d);
        pthread_mutex_destroy(&h->lock);
        pthread_mutex_destroy(&h->conn_lock);
        free(h);
        return NULL;
    }
    const union MHD_DaemonInfo *info = MHD->get_daemon_info(h->d, MHD_DAEMON_INFO_BIND_PORT);
    h->port = info ? info->port : 0;
    return h;
}

unsigned gd_export_http_port(const gd_export_http *h)
{
    return h->port;
}

/* Replaces *slot (of *slot_len bytes) with a copy of text under the lock;
 * sample: it comes from a new sample of the driver. */
static int replace(gd_export_http *h, char **slot, size_t *slot_len, const char *text, size_t len, bool sample,
                   bool exposition)
{
    char *copy = malloc(len + 1);
    if (!copy)
        return -1;
    memcpy(copy, text, len);
    copy[len] = '\0';
    pthread_mutex_lock(&h->lock);
    char *old = *slot;
    *slot = copy;
    *slot_len = len;
    if (sample)
        h->published = mono_s();
    if (exposition)
        h->served = true;
    pthread_mutex_unlock(&h->lock);
    free(old);
    return 0;
}

int gd_export_http_publish(gd_export_http *h, const char *text, size_t len, bool sampled)
{
    return replace(h, &h->text, &h->len, text, len, sampled, true);
}

int gd_export_http_publish_health(gd_export_http *h, const char *json, size_t len)
{
    return replace(h, &h->health, &h->health_len, json, len, false, false);
}

unsigned long gd_export_http_scrapes(const gd_export_http *h)
{
    return atomic_load(&((gd_export_http *)h)->scrapes);
}

unsigned long gd_export_http_cut(const gd_export_http *h)
{
    return atomic_load(&((gd_export_http *)h)->cut_total);
}

void gd_export_http_stop(gd_export_http *h)
{
    if (!h)
        return;
    atomic_store(&h->stopping, true);
    pthread_join(h->sweeper, NULL);
    MHD->stop_daemon(h->d); /* every connection's close is told: the list ends empty */
    pthread_mutex_destroy(&h->conn_lock);
    pthread_mutex_destroy(&h->lock);
    free(h->text);
    free(h->health);
    free(h);
}
