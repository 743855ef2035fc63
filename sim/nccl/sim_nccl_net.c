/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The simulated NCCL across processes (docs/scenarios.md, "The simulated
 * CUDA libraries"): one process per node, all on this machine, each playing
 * its own scenario, joined over loopback TCP.
 *
 *  - ncclGetUniqueId opens the root's listener on 127.0.0.1 (an ephemeral
 *    port) and writes "GDSIMNC1", the port (bytes 8-9, big-endian) and a
 *    random nonce (bytes 16-23) into the id. The process that made the id
 *    is a member of the communicator: its join accepts the others there.
 *  - The join: every process opens a data listener, connects to the root
 *    and says which ranks it holds, its host, its node's network rate and
 *    its local ring's slowest edge; the root waits until the ranks cover
 *    0..nranks-1, checks that they agree, and answers everyone with the
 *    table of processes in rank order and the bus bandwidth: 0.85 x the
 *    slowest of every intra-node ring edge and every node's network rate.
 *    Each process then connects to the next one in that order and accepts
 *    the previous one: a ring of sockets.
 *  - A collective step goes around the ring: first its description (every
 *    process checks it is the same collective: else ncclInvalidUsage), then,
 *    where every process has the data, each process's contribution, so that
 *    each ends with all of them.
 *  - Every wait is bounded by GDSIM_NCCL_TIMEOUT_S seconds (60 by default):
 *    past it, ncclSystemError; a peer that closes its socket (it exited):
 *    ncclRemoteError. A failed process closes its ring, so that the failure
 *    travels around it instead of leaving a peer waiting.
 */
#include "sim_nccl_net.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "scenario.h"
#include "sim_nccl_log.h"
#include "sim_private.h"

#define ID_MAGIC "GDSIMNC1"
#define WIRE_MAGIC 0x47445331u
#define MAX_PROCS 64
#define MAX_ROOTS 16
#define DEFAULT_TIMEOUT_S 60.0

/* What a process says at the join (and the root repeats in its table). */
typedef struct wire_hello {
    uint64_t nonce;
    int32_t first_rank, local_count, nranks;
    uint16_t data_port, pad;
    double net_gbps, edge_gbps;
    char host[64], transport[8];
} wire_hello;

typedef struct wire_answer {
    int32_t status, nproc;
    double busbw_gbps;
} wire_answer;

/* A step's description, as it goes around the ring. */
typedef struct wire_step {
    uint32_t magic, seq, kind, type;
    uint64_t count;
    uint32_t has_data, pad;
} wire_step;

struct gdsim_net {
    int next_fd, prev_fd;
    int nproc, self;
    int local_count[MAX_PROCS];
    uint32_t seq;
    ncclResult_t broken; /* ncclSuccess while the ring holds */
};

/* The listeners of the ids this process made, until their join. */
static pthread_mutex_t roots_lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
    bool used;
    uint64_t nonce;
    int fd;
} roots[MAX_ROOTS];

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static double timeout_s(void)
{
    const char *v = getenv("GDSIM_NCCL_TIMEOUT_S");
    double t = v && *v ? atof(v) : DEFAULT_TIMEOUT_S;
    return t > 0 ? t : DEFAULT_TIMEOUT_S;
}

static double deadline_after_timeout(void)
{
    return now_s() + timeout_s();
}

/* Waits for fd's events until the deadline: 1 ready, 0 past it, -1 error. */
static int wait_fd(int fd, short events, double deadline)
{
    for (;;) {
        double left = deadline - now_s();
        if (left <= 0)
            return 0;
        struct pollfd p = {.fd = fd, .events = events};
        int rc = poll(&p, 1, (int)ceil(left * 1e3));
        if (rc > 0)
            return 1;
        if (rc < 0 && errno != EINTR)
            return -1;
    }
}

static void set_nonblocking(int fd)
{
    int fl = fcntl(fd, F_GETFL);
    if (fl >= 0)
        fcntl(fd, F_SETFL, fl | O_NONBLOCK);
}

/*
 * Sends sn bytes to out_fd while it receives rn bytes from in_fd (either
 * may be 0), both at once, so that a ring of processes that all send first
 * cannot block on full socket buffers.
 */
static ncclResult_t exchange(int out_fd, const void *sbuf, size_t sn, int in_fd, void *rbuf, size_t rn, double deadline)
{
    size_t sent = 0, got = 0;
    while (sent < sn || got < rn) {
        struct pollfd p[2] = {{.fd = sent < sn ? out_fd : -1, .events = POLLOUT},
                              {.fd = got < rn ? in_fd : -1, .events = POLLIN}};
        double left = deadline - now_s();
        if (left <= 0)
            return ncclSystemError;
        int rc = poll(p, 2, (int)ceil(left * 1e3));
        if (rc < 0 && errno != EINTR)
            return ncclSystemError;
        if (rc <= 0)
            continue;
        if (p[0].revents & (POLLOUT | POLLERR | POLLHUP)) {
            ssize_t k = send(out_fd, (const char *)sbuf + sent, sn - sent, MSG_NOSIGNAL | MSG_DONTWAIT);
            if (k < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
                return ncclRemoteError;
            sent += k > 0 ? (size_t)k : 0;
        }
        if (p[1].revents & (POLLIN | POLLERR | POLLHUP)) {
            ssize_t k = recv(in_fd, (char *)rbuf + got, rn - got, MSG_DONTWAIT);
            if (k == 0 || (k < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR))
                return ncclRemoteError; /* the peer closed: it exited or failed */
            got += k > 0 ? (size_t)k : 0;
        }
    }
    return ncclSuccess;
}

static ncclResult_t send_all(int fd, const void *buf, size_t n, double deadline)
{
    return exchange(fd, buf, n, -1, NULL, 0, deadline);
}

static ncclResult_t recv_all(int fd, void *buf, size_t n, double deadline)
{
    return exchange(-1, NULL, 0, fd, buf, n, deadline);
}

/* A listener on 127.0.0.1, an ephemeral port: its fd (port in *port), or -1. */
static int listen_loopback(uint16_t *port)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof a;
    if (fd < 0)
        return -1;
    if (bind(fd, (struct sockaddr *)&a, sizeof a) != 0 || listen(fd, MAX_PROCS) != 0 ||
        getsockname(fd, (struct sockaddr *)&a, &len) != 0) {
        close(fd);
        return -1;
    }
    set_nonblocking(fd);
    *port = ntohs(a.sin_port);
    return fd;
}

/* Connected to 127.0.0.1:port: its fd, or -1 (nobody listens: the peer is gone). */
static int connect_loopback(uint16_t port)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(port), .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    if (fd < 0)
        return -1;
    if (connect(fd, (struct sockaddr *)&a, sizeof a) != 0) {
        close(fd);
        return -1;
    }
    set_nonblocking(fd);
    return fd;
}

/* The next connection on a listener, before the deadline: its fd, or -1. */
static int accept_until(int lfd, double deadline)
{
    while (wait_fd(lfd, POLLIN, deadline) == 1) {
        int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
        if (fd >= 0) {
            set_nonblocking(fd);
            return fd;
        }
        if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR && errno != ECONNABORTED)
            return -1;
    }
    return -1;
}

ncclResult_t gdsim_net_unique_id(ncclUniqueId *id)
{
    uint64_t nonce = 0;
    uint16_t port = 0;
    if (getrandom(&nonce, sizeof nonce, 0) != (ssize_t)sizeof nonce)
        nonce = (uint64_t)getpid() << 32 ^ (uint64_t)(now_s() * 1e9);
    int fd = listen_loopback(&port);
    if (fd < 0)
        return ncclSystemError;
    pthread_mutex_lock(&roots_lock);
    size_t slot = 0;
    while (slot < MAX_ROOTS && roots[slot].used)
        slot++;
    if (slot < MAX_ROOTS)
        roots[slot].used = true, roots[slot].nonce = nonce, roots[slot].fd = fd;
    pthread_mutex_unlock(&roots_lock);
    if (slot == MAX_ROOTS) {
        close(fd);
        return ncclSystemError;
    }
    memset(id, 0, sizeof *id);
    memcpy(id->internal, ID_MAGIC, 8);
    id->internal[8] = (char)(port >> 8);
    id->internal[9] = (char)(port & 0xff);
    memcpy(id->internal + 16, &nonce, sizeof nonce);
    return ncclSuccess;
}

ncclResult_t gdsim_net_id_nonce(const ncclUniqueId *id, uint64_t *nonce)
{
    if (!id || memcmp(id->internal, ID_MAGIC, 8) != 0)
        return ncclInvalidArgument;
    memcpy(nonce, id->internal + 16, sizeof *nonce);
    return ncclSuccess;
}

static uint16_t id_port(const ncclUniqueId *id)
{
    return (uint16_t)((unsigned char)id->internal[8] << 8 | (unsigned char)id->internal[9]);
}

/* The root listener of a nonce this process made, taken out of the table; -1 if none. */
static int take_root(uint64_t nonce)
{
    int fd = -1;
    pthread_mutex_lock(&roots_lock);
    for (size_t i = 0; i < MAX_ROOTS; i++)
        if (roots[i].used && roots[i].nonce == nonce) {
            fd = roots[i].fd;
            roots[i].used = false;
        }
    pthread_mutex_unlock(&roots_lock);
    return fd;
}

static void my_hello(wire_hello *h, uint64_t nonce, const gdsim_net_member *me, uint16_t data_port)
{
    const char *transport = "Socket";
    *h = (wire_hello){.nonce = nonce,
                      .first_rank = me->first_rank,
                      .local_count = me->local_count,
                      .nranks = me->nranks,
                      .data_port = data_port,
                      .net_gbps = gdsim_nccl_node_gbps(&transport),
                      .edge_gbps = me->edge_gbps};
    snprintf(h->transport, sizeof h->transport, "%s", transport);
    const gd_scenario *sc = gdsim_scenario();
    if (sc && sc->host.hostname)
        snprintf(h->host, sizeof h->host, "%s", sc->host.hostname);
    else if (gethostname(h->host, sizeof h->host) != 0)
        snprintf(h->host, sizeof h->host, "localhost");
    h->host[sizeof h->host - 1] = '\0';
}

static int by_first_rank(const void *a, const void *b)
{
    const wire_hello *x = a, *y = b;
    return (x->first_rank > y->first_rank) - (x->first_rank < y->first_rank);
}

/* The table's answer: ncclSuccess if its ranks tile 0..nranks-1 and agree. */
static ncclResult_t check_table(const wire_hello *t, int n, int nranks)
{
    int next = 0;
    for (int i = 0; i < n; i++) {
        if (t[i].nranks != nranks || t[i].first_rank != next || t[i].local_count < 1)
            return ncclInvalidUsage;
        next += t[i].local_count;
    }
    return next == nranks ? ncclSuccess : ncclInvalidUsage;
}

/* The root's side: collects every process's hello (table[0] is its own),
 * answers them all. Returns the answer's status; *n the table's length. */
static ncclResult_t root_collect(int lfd, const gdsim_net_member *me, wire_hello *table, int *n, double *busbw)
{
    int fds[MAX_PROCS], covered = me->local_count, count = 1;
    double deadline = deadline_after_timeout();
    ncclResult_t status = ncclSuccess;
    while (covered < me->nranks && count < MAX_PROCS) {
        int fd = accept_until(lfd, deadline);
        if (fd < 0) {
            status = ncclSystemError;
            gdsim_nccl_log_warn(me->dev0,
                                "simulated bootstrap : timeout waiting for ranks: %d of %d joined within %.0f s "
                                "(GDSIM_NCCL_TIMEOUT_S)",
                                covered, me->nranks, timeout_s());
            break;
        }
        wire_hello h;
        if (recv_all(fd, &h, sizeof h, deadline) != ncclSuccess || h.nonce != table[0].nonce) {
            close(fd); /* not one of ours, or gone before it said who it is */
            continue;
        }
        h.host[sizeof h.host - 1] = h.transport[sizeof h.transport - 1] = '\0';
        fds[count] = fd;
        table[count++] = h;
        covered += h.local_count > 0 ? h.local_count : 0;
        if (h.nranks != me->nranks)
            status = ncclInvalidUsage;
    }
    qsort(table, (size_t)count, sizeof *table, by_first_rank);
    if (status == ncclSuccess)
        status = check_table(table, count, me->nranks);
    double slowest = INFINITY;
    for (int i = 0; i < count; i++)
        slowest = fmin(slowest, fmin(table[i].edge_gbps, table[i].net_gbps));
    *busbw = GDSIM_NCCL_RING_EFFICIENCY * slowest;
    wire_answer a = {.status = status, .nproc = count, .busbw_gbps = *busbw};
    deadline = deadline_after_timeout(); /* the answer, a timeout's too, has its own time */
    for (int i = 1; i < count; i++) {
        if (send_all(fds[i], &a, sizeof a, deadline) == ncclSuccess)
            send_all(fds[i], table, sizeof *table * (size_t)count, deadline);
        close(fds[i]);
    }
    *n = count;
    return status;
}

/* A member's side: says hello to the root and reads its answer. */
static ncclResult_t member_ask(uint16_t root_port, wire_hello *table, int *n, double *busbw)
{
    double deadline = deadline_after_timeout();
    int fd = connect_loopback(root_port);
    /* Refused: not listening (yet, or any more); NCCL's bootstrap retries too. */
    while (fd < 0 && now_s() < deadline) {
        nanosleep(&(struct timespec){.tv_nsec = 10000000}, NULL);
        fd = connect_loopback(root_port);
    }
    if (fd < 0)
        return ncclSystemError;
    wire_answer a = {0};
    ncclResult_t rc = send_all(fd, &table[0], sizeof table[0], deadline);
    if (rc == ncclSuccess)
        rc = recv_all(fd, &a, sizeof a, deadline);
    if (rc == ncclSuccess && a.status != ncclSuccess)
        rc = (ncclResult_t)a.status;
    if (rc == ncclSuccess && (a.nproc < 1 || a.nproc > MAX_PROCS))
        rc = ncclInternalError;
    if (rc == ncclSuccess)
        rc = recv_all(fd, table, sizeof *table * (size_t)a.nproc, deadline);
    close(fd);
    *n = a.nproc;
    *busbw = a.busbw_gbps;
    return rc;
}

/* The ring: a connection to the next process, one accepted from the previous. */
static ncclResult_t make_ring(struct gdsim_net *net, int lfd, const wire_hello *table, uint64_t nonce)
{
    double deadline = deadline_after_timeout();
    const wire_hello *next = &table[(net->self + 1) % net->nproc];
    uint64_t hello[2] = {nonce, (uint64_t)net->self}, got[2];
    net->next_fd = connect_loopback(next->data_port);
    if (net->next_fd < 0)
        return ncclRemoteError;
    ncclResult_t rc = send_all(net->next_fd, hello, sizeof hello, deadline);
    if (rc != ncclSuccess)
        return rc;
    net->prev_fd = accept_until(lfd, deadline);
    if (net->prev_fd < 0)
        return ncclSystemError;
    rc = recv_all(net->prev_fd, got, sizeof got, deadline);
    int prev = (net->self + net->nproc - 1) % net->nproc;
    if (rc == ncclSuccess && (got[0] != nonce || got[1] != (uint64_t)prev))
        rc = ncclInternalError;
    return rc;
}

ncclResult_t gdsim_net_join(const ncclUniqueId *id, const gdsim_net_member *me, struct gdsim_net **out,
                            double *busbw_gbps)
{
    uint64_t nonce = 0;
    ncclResult_t rc = gdsim_net_id_nonce(id, &nonce);
    if (rc != ncclSuccess)
        return rc;
    *out = NULL;
    int root = take_root(nonce);
    if (root >= 0 && me->local_count == me->nranks) { /* every rank here: no network */
        close(root);
        *busbw_gbps = GDSIM_NCCL_RING_EFFICIENCY * me->edge_gbps;
        return ncclSuccess;
    }
    uint16_t data_port = 0;
    int lfd = listen_loopback(&data_port);
    wire_hello *table = calloc(MAX_PROCS, sizeof *table);
    struct gdsim_net *net = calloc(1, sizeof *net);
    if (lfd < 0 || !table || !net) {
        if (lfd >= 0)
            close(lfd);
        if (root >= 0)
            close(root);
        free(table);
        free(net);
        return ncclSystemError;
    }
    my_hello(&table[0], nonce, me, data_port);
    int n = 0;
    if (root >= 0) {
        rc = root_collect(root, me, table, &n, busbw_gbps);
        close(root);
    } else {
        rc = member_ask(id_port(id), table, &n, busbw_gbps);
    }
    net->next_fd = net->prev_fd = -1;
    net->nproc = n;
    net->self = -1;
    for (int i = 0; rc == ncclSuccess && i < n; i++) {
        net->local_count[i] = table[i].local_count;
        if (table[i].first_rank == me->first_rank)
            net->self = i;
    }
    if (rc == ncclSuccess && net->self < 0)
        rc = ncclInternalError;
    if (rc == ncclSuccess)
        rc = make_ring(net, lfd, table, nonce);
    close(lfd);
    free(table);
    if (rc != ncclSuccess) {
        gdsim_net_close(net);
        return rc;
    }
    *out = net;
    return ncclSuccess;
}

int gdsim_net_processes(const struct gdsim_net *n, int *self)
{
    *self = n->self;
    return n->nproc;
}

static size_t contribution(const struct gdsim_net *n, const gdsim_net_step_desc *d, int p)
{
    return d->per_rank ? d->unit * (size_t)n->local_count[p] : d->unit;
}

size_t gdsim_net_all_bytes(const struct gdsim_net *n, const gdsim_net_step_desc *d)
{
    size_t sum = 0;
    for (int p = 0; p < n->nproc; p++)
        sum += contribution(n, d, p);
    return sum;
}

/* Stops the ring after a failure, so that the peers see it at once. */
static ncclResult_t break_ring(struct gdsim_net *n, ncclResult_t rc)
{
    n->broken = rc;
    if (n->next_fd >= 0)
        close(n->next_fd);
    if (n->prev_fd >= 0)
        close(n->prev_fd);
    n->next_fd = n->prev_fd = -1;
    return rc;
}

ncclResult_t gdsim_net_step(struct gdsim_net *n, const gdsim_net_step_desc *d, const void *mine, void *all,
                            bool *with_data)
{
    *with_data = false;
    if (n->broken != ncclSuccess)
        return n->broken;
    double deadline = deadline_after_timeout();
    wire_step own = {WIRE_MAGIC, n->seq++, d->kind, d->type, d->count, mine != NULL, 0}, cur = own, got;
    bool same = true, data = mine != NULL;
    /* The description around the ring: every process sees every other's. */
    for (int s = 0; s < n->nproc - 1; s++) {
        ncclResult_t rc = exchange(n->next_fd, &cur, sizeof cur, n->prev_fd, &got, sizeof got, deadline);
        if (rc != ncclSuccess)
            return break_ring(n, rc);
        same &= got.magic == own.magic && got.seq == own.seq && got.kind == own.kind && got.type == own.type &&
                got.count == own.count;
        data &= got.has_data != 0;
        cur = got;
    }
    if (!same)
        return ncclInvalidUsage; /* every process saw it: the ring stays in step */
    if (!data)
        return ncclSuccess;
    size_t off[MAX_PROCS + 1] = {0};
    for (int p = 0; p < n->nproc; p++)
        off[p + 1] = off[p] + contribution(n, d, p);
    memcpy((char *)all + off[n->self], mine, contribution(n, d, n->self));
    /* Each step passes on the block received in the step before. */
    for (int s = 0; s < n->nproc - 1; s++) {
        int out = (n->self - s + n->nproc) % n->nproc, in = (n->self - s - 1 + n->nproc) % n->nproc;
        ncclResult_t rc = exchange(n->next_fd, (char *)all + off[out], off[out + 1] - off[out], n->prev_fd,
                                   (char *)all + off[in], off[in + 1] - off[in], deadline);
        if (rc != ncclSuccess)
            return break_ring(n, rc);
    }
    *with_data = true;
    return ncclSuccess;
}

void gdsim_net_close(struct gdsim_net *n)
{
    if (!n)
        return;
    break_ring(n, ncclSuccess);
    free(n);
}
