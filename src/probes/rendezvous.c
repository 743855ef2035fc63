/* SPDX-License-Identifier: Apache-2.0 */
/* The ranks' meeting over TCP (rendezvous.h). */
#include "probes/rendezvous.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static const char magic[8] = "GDRDV01";

/* What a rank says when it arrives. */
typedef struct hello {
    char magic[8];
    uint32_t rank, world;
    char host[GD_RDV_HOST];
} hello;

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + t.tv_nsec / 1e9;
}

static int ms_left(double deadline)
{
    double left = deadline - now_s();
    return left <= 0 ? 0 : (int)(left * 1000) + 1;
}

/* Sends or receives all of len bytes before the deadline. */
static bool io_all(int fd, void *buf, size_t len, bool out, double deadline)
{
    size_t done = 0;
    while (done < len) {
        struct pollfd p = {.fd = fd, .events = out ? POLLOUT : POLLIN};
        int left = ms_left(deadline);
        if (left == 0 || poll(&p, 1, left) <= 0)
            return false;
        ssize_t n =
            out ? send(fd, (char *)buf + done, len - done, MSG_NOSIGNAL) : recv(fd, (char *)buf + done, len - done, 0);
        if (n <= 0) {
            if (n < 0 && (errno == EINTR || errno == EAGAIN))
                continue;
            return false;
        }
        done += (size_t)n;
    }
    return true;
}

static void names_of_missing(const gd_rdv_result *res, char *buf, size_t len)
{
    size_t used = 0, shown = 0;
    buf[0] = '\0';
    for (int r = 0; r < res->world && used < len; r++) {
        if (res->ranks[r].arrived)
            continue;
        if (shown++ == 8) {
            snprintf(buf + used, len - used, ", ...");
            return;
        }
        used += (size_t)snprintf(buf + used, len - used, "%s%d", used ? ", " : "", r);
    }
}

static int serve(const gd_launch *l, const char *self_host, double timeout_s, const unsigned char *blob,
                 gd_rdv_result *res, char *err, size_t errlen)
{
    double start = now_s(), deadline = start + timeout_s;
    res->ranks = calloc((size_t)l->world, sizeof *res->ranks);
    int *fds = malloc((size_t)l->world * sizeof *fds);
    if (!res->ranks || !fds) {
        free(fds);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    for (int r = 0; r < l->world; r++)
        fds[r] = -1;
    res->ranks[0].arrived = true;
    snprintf(res->ranks[0].host, sizeof res->ranks[0].host, "%s", self_host);
    int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0), one = 1;
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)l->master_port)};
    a.sin_addr.s_addr = htonl(INADDR_ANY);
    if (s < 0 || setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) != 0 ||
        bind(s, (struct sockaddr *)&a, sizeof a) != 0 || listen(s, 128) != 0) {
        snprintf(err, errlen, "rank 0 cannot listen on port %d: %s (another run on it? set MASTER_PORT)",
                 l->master_port, strerror(errno));
        if (s >= 0)
            close(s);
        free(fds);
        return -1;
    }
    res->fds = fds;
    int arrived = 1;
    while (arrived < l->world) {
        struct pollfd p = {.fd = s, .events = POLLIN};
        int left = ms_left(deadline);
        if (left == 0 || poll(&p, 1, left) <= 0)
            break;
        int c = accept4(s, NULL, NULL, SOCK_CLOEXEC);
        if (c < 0)
            continue;
        hello h;
        /* A stranger on the port (a scanner, another run) is dropped, not waited for past the deadline. */
        if (!io_all(c, &h, sizeof h, false, deadline) || memcmp(h.magic, magic, sizeof magic) != 0 ||
            ntohl(h.world) != (uint32_t)l->world || ntohl(h.rank) == 0 || ntohl(h.rank) >= (uint32_t)l->world ||
            fds[ntohl(h.rank)] >= 0) {
            close(c);
            continue;
        }
        int r = (int)ntohl(h.rank);
        fds[r] = c;
        res->ranks[r].arrived = true;
        res->ranks[r].at_s = now_s() - start;
        h.host[GD_RDV_HOST - 1] = '\0';
        snprintf(res->ranks[r].host, sizeof res->ranks[r].host, "%s", h.host);
        arrived++;
    }
    close(s);
    res->missing = l->world - arrived;
    int rc = 0;
    if (res->missing) {
        char who[160];
        names_of_missing(res, who, sizeof who);
        snprintf(err, errlen, "rank%s %s of %d did not arrive at port %d within %.0f s", res->missing == 1 ? "" : "s",
                 who, l->world, l->master_port, timeout_s);
        rc = -1;
    }
    /* Everyone who came hears the outcome: the blob, or nothing (a closed socket) when the run cannot go on. */
    for (int r = 1; r < l->world; r++) {
        if (fds[r] < 0)
            continue;
        if (rc == 0) {
            char reply[sizeof magic + GD_RDV_BLOB];
            memcpy(reply, magic, sizeof magic);
            memcpy(reply + sizeof magic, blob, GD_RDV_BLOB);
            if (!io_all(fds[r], reply, sizeof reply, true, deadline + 1)) {
                snprintf(err, errlen, "rank %d (%s) left before rank 0 could answer it", r, res->ranks[r].host);
                rc = -1;
            }
        }
        if (rc != 0) {
            close(fds[r]);
            fds[r] = -1;
        }
    }
    return rc;
}

static int join(const gd_launch *l, const char *self_host, double timeout_s, unsigned char *blob, gd_rdv_result *res,
                char *err, size_t errlen)
{
    double deadline = now_s() + timeout_s;
    char port[16], why[160] = "no answer";
    snprintf(port, sizeof port, "%d", l->master_port);
    for (;;) {
        struct addrinfo hints = {.ai_family = AF_INET, .ai_socktype = SOCK_STREAM}, *ai = NULL;
        int g = getaddrinfo(l->master_addr, port, &hints, &ai);
        if (g != 0) {
            snprintf(why, sizeof why, "%s", gai_strerror(g));
            if (g == EAI_NONAME) /* a wrong name does not get better by waiting */
                break;
        } else {
            int c = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
            int rc = c < 0 ? -1 : connect(c, ai->ai_addr, ai->ai_addrlen);
            freeaddrinfo(ai);
            if (rc != 0 && c >= 0 && errno == EINPROGRESS) {
                struct pollfd p = {.fd = c, .events = POLLOUT};
                int e = 0;
                socklen_t el = sizeof e;
                if (poll(&p, 1, ms_left(deadline)) == 1 && getsockopt(c, SOL_SOCKET, SO_ERROR, &e, &el) == 0 && e == 0)
                    rc = 0;
                else
                    errno = e ? e : ETIMEDOUT;
            }
            if (rc == 0) {
                hello h = {.rank = htonl((uint32_t)l->rank), .world = htonl((uint32_t)l->world)};
                memcpy(h.magic, magic, sizeof magic);
                snprintf(h.host, sizeof h.host, "%s", self_host);
                char reply[sizeof magic + GD_RDV_BLOB];
                bool sent = io_all(c, &h, sizeof h, true, deadline);
                bool got = sent && io_all(c, reply, sizeof reply, false, deadline);
                if (got && memcmp(reply, magic, sizeof magic) == 0 && (res->fds = malloc(sizeof *res->fds))) {
                    memcpy(blob, reply + sizeof magic, GD_RDV_BLOB);
                    res->fds[0] = c;
                    return 0;
                }
                close(c);
                snprintf(err, errlen,
                         "rank 0 at %s:%d took rank %d in but did not hand out the run within %.0f s (a rank missing: "
                         "rank 0's report names it)",
                         l->master_addr, l->master_port, l->rank, timeout_s);
                return -1;
            }
            snprintf(why, sizeof why, "%s", strerror(errno));
            if (c >= 0)
                close(c);
        }
        if (ms_left(deadline) == 0)
            break;
        struct timespec pause = {0, 100 * 1000 * 1000}; /* rank 0 may not be up yet */
        nanosleep(&pause, NULL);
        if (ms_left(deadline) == 0)
            break;
    }
    snprintf(err, errlen, "rank %d cannot reach rank 0 at %s:%d within %.0f s: %s", l->rank, l->master_addr,
             l->master_port, timeout_s, why);
    return -1;
}

int gd_rendezvous(const gd_launch *l, const char *self_host, double timeout_s, unsigned char blob[GD_RDV_BLOB],
                  gd_rdv_result *res, char *err, size_t errlen)
{
    *res = (gd_rdv_result){.world = l->world};
    if (l->world <= 1)
        return 0;
    return l->rank == 0 ? serve(l, self_host, timeout_s, blob, res, err, errlen)
                        : join(l, self_host, timeout_s, blob, res, err, errlen);
}

void gd_rdv_result_free(gd_rdv_result *res)
{
    int n = res->ranks ? res->world : 1;
    for (int i = 0; res->fds && i < n; i++)
        if (res->fds[i] >= 0)
            close(res->fds[i]);
    free(res->fds);
    res->fds = NULL;
    free(res->ranks);
    res->ranks = NULL;
}

/* A message's head: its type and size, in network order. */
typedef struct msg_head {
    char magic[8];
    uint32_t type, len;
} msg_head;

int gd_rdv_send(int fd, unsigned type, const void *buf, size_t len, double timeout_s)
{
    if (fd < 0 || len > GD_RDV_MSG_MAX)
        return -1;
    double deadline = now_s() + timeout_s;
    msg_head h = {.type = htonl(type), .len = htonl((uint32_t)len)};
    memcpy(h.magic, magic, sizeof magic);
    return io_all(fd, &h, sizeof h, true, deadline) && (len == 0 || io_all(fd, (void *)buf, len, true, deadline)) ? 0
                                                                                                                  : -1;
}

int gd_rdv_recv(int fd, unsigned type, void *buf, size_t len, double timeout_s)
{
    if (fd < 0)
        return -1;
    double deadline = now_s() + timeout_s;
    msg_head h;
    if (!io_all(fd, &h, sizeof h, false, deadline) || memcmp(h.magic, magic, sizeof magic) != 0 ||
        ntohl(h.type) != type || ntohl(h.len) != len)
        return -1;
    return len == 0 || io_all(fd, buf, len, false, deadline) ? 0 : -1;
}
