/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `bench nccl --nodes` (docs/bench.md, "Across nodes"): one gpudoctor per
 * node, started by Slurm or torchrun, each driving every GPU of its node.
 *
 *  1. The ranks meet rank 0 over TCP (probes/rendezvous.c): rank 0 made
 *     NCCL's unique id and hands it out; a rank that does not come within
 *     --timeout is named in rank 0's report.
 *  2. Each says how many GPUs it has; rank 0 answers each its first NCCL rank.
 *  3. Every rank measures the all-reduce across all nodes (the check of
 *     known values, then the sweep) and sends rank 0 its view: its figures,
 *     its NICs as NCCL uses them, its own ring's expectation and its
 *     network findings.
 *  4. When the ring is below what the NICs allow, node pairs are measured
 *     alone in ceil(log2 N) rounds (analysis/locate_slow.h): rank 0 sends
 *     each rank its partner; the lower of a pair makes the pair's unique id,
 *     rank 0 relays it, both measure, the lower reports.
 *  5. Rank 0 judges and prints the one report; the other ranks say where it is.
 *
 * Every wait on another rank is bounded: the messages by --timeout (and,
 * while a rank measures, by the time the measurement may take at 1 GB/s),
 * NCCL's own calls by a watchdog that ends the process with the phase named.
 */
#include "cli.h"
#include "cli_bench.h"

#include "analysis/launch_env.h"
#include "analysis/locate_slow.h"
#include "analysis/nccl_expect.h"
#include "analysis/node_net.h"
#include "gpudoctor/bench_nodes.h"
#include "gpudoctor/checks.h"
#include "probes/nccl_bench.h"
#include "probes/rendezvous.h"

#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum { MSG_GPUS = 1, MSG_LAYOUT, MSG_VIEW, MSG_PLAN, MSG_ID, MSG_PAIR };

/* The floor of a measurement's pace when its wait is bounded: far below any
 * RDMA or socket transport, so only a stuck rank outlasts it. */
#define FLOOR_GBS 1.0
/* A pair measures one size: the sweep's largest, at most this. */
#define PAIR_MAX_BYTES ((size_t)256 << 20)
#define PAIR_ITERS 10
#define PAIR_WARMUP 3

typedef struct layout {
    int32_t nranks, first;
} layout;

typedef struct plan {
    int32_t go; /* 0: no more rounds */
    int32_t round, partner; /* partner -1: this rank sits the round out */
    int32_t make_id; /* the lower of the pair makes the id */
    int32_t nranks, first;
} plan;

typedef struct pair_msg {
    double busbw_gbps;
    char error[160];
} pair_msg;

/* ---- the watchdog: NCCL's calls cannot be given a deadline ---- */

static struct {
    pthread_mutex_t m;
    pthread_cond_t c;
    bool started, armed;
    struct timespec until;
    char what[300];
} dog = {.m = PTHREAD_MUTEX_INITIALIZER};

static void *dog_run(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&dog.m);
    for (;;) {
        if (!dog.armed) {
            pthread_cond_wait(&dog.c, &dog.m);
            continue;
        }
        if (pthread_cond_timedwait(&dog.c, &dog.m, &dog.until) != 0 && dog.armed) {
            fprintf(stderr, "gpudoctor: bench nccl --nodes: %s; giving up\n", dog.what);
            fflush(stderr);
            _exit(GD_EXIT_ERROR);
        }
    }
    return NULL;
}

static void dog_arm(double seconds, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void dog_arm(double seconds, const char *fmt, ...)
{
    pthread_mutex_lock(&dog.m);
    if (!dog.started) {
        pthread_condattr_t a;
        pthread_condattr_init(&a);
        pthread_condattr_setclock(&a, CLOCK_MONOTONIC);
        pthread_cond_init(&dog.c, &a);
        pthread_condattr_destroy(&a);
        pthread_t t;
        if (pthread_create(&t, NULL, dog_run, NULL) == 0) {
            pthread_detach(t);
            dog.started = true;
        }
    }
    clock_gettime(CLOCK_MONOTONIC, &dog.until);
    double end = (double)dog.until.tv_sec + dog.until.tv_nsec / 1e9 + seconds;
    dog.until.tv_sec = (time_t)end;
    dog.until.tv_nsec = (long)((end - (double)(time_t)end) * 1e9);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(dog.what, sizeof dog.what, fmt, ap);
    va_end(ap);
    dog.armed = true;
    pthread_cond_signal(&dog.c);
    pthread_mutex_unlock(&dog.m);
}

static void dog_disarm(void)
{
    pthread_mutex_lock(&dog.m);
    dog.armed = false;
    if (dog.started)
        pthread_cond_signal(&dog.c);
    pthread_mutex_unlock(&dog.m);
}

/* ---- one rank's part ---- */

typedef struct node_run {
    const gd_bench_cli *o;
    gd_facts *f;
    gd_launch l;
    double timeout_s;
    gd_cli_nccl_opts no;
    gd_nccl_session *s;
    gd_rdv_result rdv;
    char host[64];
    char netenv[256]; /* the NCCL_* settings that pick NCCL's network */
} node_run;

/* The NCCL_* settings that pick NCCL's network (node_net.h reads them). */
static void net_env(char *buf, size_t len)
{
    static const char *const names[] = {"NCCL_IB_DISABLE", "NCCL_IB_HCA", "NCCL_NET", "NCCL_SOCKET_IFNAME"};
    gd_cli_env_settings(names, sizeof names / sizeof names[0], 1, buf, len);
}

/* The seconds a measurement of opts over nranks may take at FLOOR_GBS, and the timeout. */
static double budget_s(const node_run *x, const gd_nccl_bench_opts *o, int nranks)
{
    size_t sizes[GD_NCCL_MAX_POINTS];
    size_t lo = o->min_bytes ? o->min_bytes : GD_NCCL_MIN_BYTES, hi = o->max_bytes ? o->max_bytes : GD_NCCL_MAX_BYTES;
    size_t n = gd_nccl_sweep_sizes(lo, hi, nranks, sizes, GD_NCCL_MAX_POINTS);
    double bytes = 0, reps = (o->iters > 0 ? o->iters : 20) + (o->warmup > 0 ? o->warmup : 5);
    for (size_t i = 0; i < n; i++)
        bytes += (double)sizes[i] * reps * 3; /* all-reduce moves about 2x, all-gather 1x */
    return x->timeout_s + bytes / (FLOOR_GBS * 1e9);
}

/* Measures on the communicator of spec, bounded by the watchdog. */
static void measure(node_run *x, const gd_nccl_bench_opts *o, const gd_nccl_comm_spec *spec, gd_nccl_bench *out,
                    const char *what)
{
    double bound = budget_s(x, o, spec->nranks);
    dog_arm(bound, "rank %d (%s): %s did not finish within %.0f s (a rank stopped answering)", x->l.rank, x->host, what,
            bound);
    gd_nccl_session_measure(x->s, o, spec, out);
    dog_disarm();
}

/* This node's part of the report: its NICs, its own ring's expectation, its network findings. */
static void view_of(const node_run *x, gd_node_view *v)
{
    v->rank = x->l.rank;
    v->arrived = v->reported = true;
    snprintf(v->host, sizeof v->host, "%s", x->host);
    v->gpus = gd_nccl_session_gpus(x->s);
    gd_node_net_of(x->f->net, x->netenv, &v->net, v->ports, &v->port_count, GD_NODE_PORTS);
    gd_nccl_expect e;
    v->intra_expect_gbs = v->gpus >= 2 && gd_nccl_expect_of(x->f, &v->world, &e) == 0 ? e.busbw_gbps : NAN;
    gd_findings fs = {.where = GD_AT_BENCH};
    for (size_t i = 0; i < gd_checks_count; i++)
        if (strcmp(gd_checks[i].group, "network") == 0)
            gd_check_run(&gd_checks[i], x->f, &fs);
    gd_findings_sort(&fs);
    for (size_t i = 0; i < fs.n && v->note_count < GD_NODE_NOTES; i++) {
        gd_node_note *n = &v->notes[v->note_count++];
        snprintf(n->id, sizeof n->id, "%s", fs.v[i].id);
        n->severity = fs.v[i].severity;
        snprintf(n->title, sizeof n->title, "%s", fs.v[i].title);
    }
    gd_findings_free(&fs);
}

static gd_nccl_bench_opts pair_opts(const gd_nccl_bench_opts *world)
{
    gd_nccl_bench_opts p = *world;
    size_t top = world->max_bytes ? world->max_bytes : GD_NCCL_MAX_BYTES;
    p.min_bytes = p.max_bytes = top < PAIR_MAX_BYTES ? top : PAIR_MAX_BYTES;
    p.iters = world->iters > 0 && world->iters < PAIR_ITERS ? world->iters : PAIR_ITERS;
    p.warmup = PAIR_WARMUP;
    return p;
}

static pair_msg pair_result(const gd_nccl_bench *b)
{
    pair_msg m = {.busbw_gbps = NAN};
    if (b->failed)
        snprintf(m.error, sizeof m.error, "%.159s", b->error[0] ? b->error : b->detail);
    else
        m.busbw_gbps = b->peak_busbw_gbps[GD_NCCL_ALL_REDUCE];
    return m;
}

/* A rank other than 0, after the meeting: the exit code. */
static int follow(node_run *x, const unsigned char *id)
{
    int hub = x->rdv.fds[0];
    int32_t gpus = gd_nccl_session_gpus(x->s);
    layout lay;
    if (gd_rdv_send(hub, MSG_GPUS, &gpus, sizeof gpus, x->timeout_s) != 0 ||
        gd_rdv_recv(hub, MSG_LAYOUT, &lay, sizeof lay, x->timeout_s) != 0 || lay.first < 0 ||
        lay.nranks - gpus < lay.first)
        return gd_cli_error("bench nccl --nodes: rank %d: rank 0 ended the run before it started (its report says why)",
                            x->l.rank);
    gd_node_view *v = calloc(1, sizeof *v);
    gd_nccl_bench *pb = calloc(1, sizeof *pb);
    if (!v || !pb) {
        free(v);
        free(pb);
        return gd_cli_error("out of memory");
    }
    gd_nccl_comm_spec spec = {.nranks = lay.nranks, .first_rank = lay.first, .id = id};
    measure(x, &x->no.opts, &spec, &v->world, "the all-reduce across nodes");
    view_of(x, v);
    int rc = gd_rdv_send(hub, MSG_VIEW, v, sizeof *v, x->timeout_s);
    double wait = budget_s(x, &x->no.opts, lay.nranks);
    gd_nccl_bench_opts po = pair_opts(&x->no.opts);
    while (rc == 0) {
        plan p;
        if (gd_rdv_recv(hub, MSG_PLAN, &p, sizeof p, wait) != 0) {
            rc = -1;
            break;
        }
        if (!p.go)
            break;
        if (p.partner < 0)
            continue;
        if (p.partner >= x->l.world || p.nranks <= gpus || (p.first != 0 && p.first != p.nranks - gpus)) {
            rc = -1; /* not a plan this build's rank 0 makes */
            break;
        }
        unsigned char pid[GD_NCCL_ID_BYTES];
        char err[256];
        if (p.make_id) {
            if (gd_nccl_session_unique_id(x->s, pid, err, sizeof err) != 0)
                memset(pid, 0, sizeof pid); /* the pair fails in NCCL's init, and says so */
            rc = gd_rdv_send(hub, MSG_ID, pid, sizeof pid, x->timeout_s);
        } else {
            rc = gd_rdv_recv(hub, MSG_ID, pid, sizeof pid, wait);
        }
        if (rc != 0)
            break;
        gd_nccl_comm_spec ps = {.nranks = p.nranks, .first_rank = p.first, .id = pid};
        measure(x, &po, &ps, pb, "a pair's all-reduce");
        pair_msg m = pair_result(pb);
        if (p.make_id)
            rc = gd_rdv_send(hub, MSG_PAIR, &m, sizeof m, x->timeout_s);
    }
    free(pb);
    bool failed = v->world.failed;
    free(v);
    if (rc != 0)
        return gd_cli_error(
            "bench nccl --nodes: rank %d (%s): lost rank 0 during the run (its report says what it saw)", x->l.rank,
            x->host);
    fprintf(stderr, "gpudoctor: bench nccl --nodes: rank %d (%s) measured%s; the report is rank 0's (%s)\n", x->l.rank,
            x->host, failed ? " (and failed: see the report)" : "", x->l.master_addr);
    return GD_EXIT_OK;
}

/* ---- rank 0 ---- */

/* Pairs in log2 N rounds when the ring is slow. */
static void run_pairs(node_run *x, gd_nccl_nodes *n, const int32_t *gpus)
{
    size_t rounds = gd_locate_rounds((size_t)n->world);
    n->pairs = calloc(rounds * (size_t)n->world / 2 + 1, sizeof *n->pairs);
    if (!n->pairs)
        return;
    n->pairs_run = true;
    gd_nccl_bench_opts po = pair_opts(&x->no.opts);
    gd_nccl_bench *pb = calloc(1, sizeof *pb);
    for (size_t k = 0; pb && k < rounds; k++) {
        fprintf(stderr, "gpudoctor: bench nccl --nodes: node pairs, round %zu of %zu...\n", k + 1, rounds);
        /* Everyone hears its partner first: the lower of each pair makes its id. */
        for (int r = 1; r < n->world; r++) {
            long p = gd_locate_partner((size_t)n->world, k, (size_t)r);
            plan pl = {.go = 1, .round = (int32_t)k, .partner = (int32_t)p, .make_id = p > r};
            if (p >= 0) {
                int lo = p > r ? r : (int)p, hi = p > r ? (int)p : r;
                pl.nranks = gpus[lo] + gpus[hi];
                pl.first = r == lo ? 0 : gpus[lo];
            }
            gd_rdv_send(x->rdv.fds[r], MSG_PLAN, &pl, sizeof pl, x->timeout_s);
        }
        /* Each lower's id to its upper (rank 0's own last: it measures then). */
        unsigned char id[GD_NCCL_ID_BYTES];
        for (int r = 1; r < n->world; r++) {
            long p = gd_locate_partner((size_t)n->world, k, (size_t)r);
            if (p <= r)
                continue;
            if (gd_rdv_recv(x->rdv.fds[r], MSG_ID, id, sizeof id, x->timeout_s) != 0)
                memset(id, 0, sizeof id);
            gd_rdv_send(x->rdv.fds[p], MSG_ID, id, sizeof id, x->timeout_s);
        }
        long mine = gd_locate_partner((size_t)n->world, k, 0);
        char err[256];
        gd_node_pair *own = NULL;
        if (mine > 0) {
            own = &n->pairs[n->pair_count++];
            *own = (gd_node_pair){.a = 0, .b = (int)mine, .round = (int)k, .busbw_gbps = NAN};
            if (gd_nccl_session_unique_id(x->s, id, err, sizeof err) != 0)
                memset(id, 0, sizeof id);
            gd_rdv_send(x->rdv.fds[mine], MSG_ID, id, sizeof id, x->timeout_s);
            gd_nccl_comm_spec ps = {.nranks = gpus[0] + gpus[mine], .first_rank = 0, .id = id};
            measure(x, &po, &ps, pb, "a pair's all-reduce");
            pair_msg m = pair_result(pb);
            own->busbw_gbps = m.busbw_gbps;
            snprintf(own->error, sizeof own->error, "%s", m.error);
        }
        for (int r = 1; r < n->world; r++) {
            long p = gd_locate_partner((size_t)n->world, k, (size_t)r);
            if (p <= r)
                continue;
            gd_node_pair *np = &n->pairs[n->pair_count++];
            *np = (gd_node_pair){.a = r, .b = (int)p, .round = (int)k, .busbw_gbps = NAN};
            pair_msg m;
            if (gd_rdv_recv(x->rdv.fds[r], MSG_PAIR, &m, sizeof m, budget_s(x, &po, gpus[np->a] + gpus[np->b])) == 0) {
                m.error[sizeof m.error - 1] = '\0';
                np->busbw_gbps = m.busbw_gbps;
                snprintf(np->error, sizeof np->error, "%s", m.error);
            } else {
                snprintf(np->error, sizeof np->error, "rank %d did not report the pair within its bound", r);
            }
        }
    }
    free(pb);
}

/* Whether the ring is below what the NICs allow, and the pairs can say more. */
static bool pairs_worth(gd_nccl_nodes *n)
{
    gd_nodes_expect e;
    gd_nodes_expect_of(n->nodes, (size_t)n->world, &e);
    if (n->world < 3) {
        snprintf(n->pairs_why, sizeof n->pairs_why, "%s",
                 n->world == 1 ? "one node: no pair of nodes to measure" : "with 2 nodes the ring is the only pair");
        return false;
    }
    if (n->unreported || n->missing) {
        snprintf(n->pairs_why, sizeof n->pairs_why, "not every rank reported: the pairs would wait for it");
        return false;
    }
    if (isnan(e.busbw_gbs) || isnan(n->ring_gbs)) {
        snprintf(n->pairs_why, sizeof n->pairs_why, "%s",
                 isnan(n->ring_gbs) ? "the ring has no figure" : "no expectation to judge the ring by");
        return false;
    }
    if (n->ring_gbs >= GD_LOCATE_SLOW_RATIO * e.busbw_gbs) {
        snprintf(n->pairs_why, sizeof n->pairs_why, "the ring reached %.0f%% of what the NICs allow",
                 100 * n->ring_gbs / e.busbw_gbs);
        return false;
    }
    snprintf(n->pairs_why, sizeof n->pairs_why,
             "the ring reached %.0f%% of what the NICs allow: node pairs measured alone say which node or link",
             100 * n->ring_gbs / e.busbw_gbs);
    return true;
}

/* The ring's figure: its peak all-reduce busbw, at the largest size within
 * 1 % of it (sizes that tie say where the ring is bandwidth-bound). */
static void peak_of(gd_nccl_nodes *n, const gd_nccl_bench *w)
{
    n->ring_gbs = NAN;
    if (w->failed)
        return;
    const gd_nccl_point *p = w->points[GD_NCCL_ALL_REDUCE];
    for (size_t i = 0; i < w->point_count[GD_NCCL_ALL_REDUCE]; i++)
        if (isnan(n->ring_gbs) || p[i].busbw_gbps > n->ring_gbs)
            n->ring_gbs = p[i].busbw_gbps;
    for (size_t i = 0; i < w->point_count[GD_NCCL_ALL_REDUCE]; i++)
        if (p[i].busbw_gbps >= 0.99 * n->ring_gbs)
            n->ring_bytes = p[i].bytes;
}

static int report(node_run *x, gd_nccl_nodes *n)
{
    gd_bench_facts *b = x->f->bench;
    b->nodes = n;
    gd_findings fs = {.where = GD_AT_BENCH};
    gd_check_run(gd_check_find("bench.nccl_node_missing"), x->f, &fs);
    gd_check_run(gd_check_find("bench.nccl_nodes_failed"), x->f, &fs);
    gd_check_run(gd_check_find("bench.nccl_nodes_low"), x->f, &fs);
    gd_findings_sort(&fs);
    int code = gd_cli_bench_finish(x->o, x->f, &fs);
    gd_findings_free(&fs);
    /* A run that could not measure is an error; --exit-findings says the findings' code instead. */
    if (code == GD_EXIT_OK && !x->o->exit_findings && (n->missing || n->unreported || n->error[0]))
        code = GD_EXIT_ERROR;
    return code;
}

static int lead(node_run *x, int rdv_rc, const char *rdv_err, const unsigned char *id)
{
    gd_nccl_nodes *n = calloc(1, sizeof *n);
    int32_t *gpus = calloc((size_t)x->l.world, sizeof *gpus);
    if (!n || !gpus || !(n->nodes = calloc((size_t)x->l.world, sizeof *n->nodes))) {
        free(n);
        free(gpus);
        return gd_cli_error("out of memory");
    }
    snprintf(n->launcher, sizeof n->launcher, "%s", x->l.launcher);
    n->world = x->l.world;
    snprintf(n->master, sizeof n->master, "%s:%d", x->l.master_addr, x->l.master_port);
    n->timeout_s = x->timeout_s;
    n->ring_gbs = NAN;
    for (int r = 0; r < n->world; r++) {
        gd_node_view *v = &n->nodes[r];
        v->rank = r;
        v->intra_expect_gbs = NAN;
        v->net = (gd_node_net){.now_gbs = NAN, .best_gbs = NAN, .gdr = -1};
        if (x->rdv.ranks) {
            v->arrived = x->rdv.ranks[r].arrived;
            v->joined_s = x->rdv.ranks[r].at_s;
            snprintf(v->host, sizeof v->host, "%s", x->rdv.ranks[r].host);
        }
    }
    n->missing = x->rdv.missing;
    if (rdv_rc != 0) {
        snprintf(n->error, sizeof n->error, "%.239s", rdv_err);
        free(gpus);
        return report(x, n);
    }
    /* The layout: each rank's GPUs are consecutive NCCL ranks. */
    gpus[0] = gd_nccl_session_gpus(x->s);
    for (int r = 1; r < n->world; r++)
        if (gd_rdv_recv(x->rdv.fds[r], MSG_GPUS, &gpus[r], sizeof gpus[r], x->timeout_s) != 0 || gpus[r] < 1) {
            snprintf(n->error, sizeof n->error, "rank %d (%s) did not say its GPUs within %.0f s", r, n->nodes[r].host,
                     x->timeout_s);
            free(gpus);
            return report(x, n);
        }
    int32_t total = 0;
    for (int r = 0; r < n->world; r++)
        total += gpus[r];
    for (int r = 1, first = gpus[0]; r < n->world; first += gpus[r], r++) {
        layout lay = {.nranks = total, .first = first};
        gd_rdv_send(x->rdv.fds[r], MSG_LAYOUT, &lay, sizeof lay, x->timeout_s);
    }
    fprintf(stderr, "gpudoctor: bench nccl --nodes: %d node%s, %d GPUs, all-reduce across them...\n", n->world,
            n->world == 1 ? "" : "s", (int)total);
    gd_node_view *me = &n->nodes[0];
    gd_nccl_comm_spec spec = {.nranks = total, .first_rank = 0, .id = id};
    measure(x, &x->no.opts, &spec, &me->world, "the all-reduce across nodes");
    view_of(x, me);
    peak_of(n, &me->world);
    gd_node_view *got = malloc(sizeof *got);
    for (int r = 1; got && r < n->world; r++) {
        /* Every rank ends the sweep with rank 0 (the collectives pace them all). */
        if (gd_rdv_recv(x->rdv.fds[r], MSG_VIEW, got, sizeof *got, x->timeout_s) != 0 || got->rank != r) {
            n->unreported++;
            continue;
        }
        gd_node_view_sanitize(got);
        got->arrived = got->reported = true;
        got->joined_s = n->nodes[r].joined_s;
        n->nodes[r] = *got;
    }
    free(got);
    /* Wrong data or an error on any rank: the run has no figure. */
    for (int r = 0; r < n->world; r++)
        if (n->nodes[r].reported && n->nodes[r].world.failed)
            n->ring_gbs = NAN;
    if (pairs_worth(n))
        run_pairs(x, n, gpus);
    plan done = {.go = 0};
    for (int r = 1; r < n->world; r++)
        gd_rdv_send(x->rdv.fds[r], MSG_PLAN, &done, sizeof done, x->timeout_s);
    free(gpus);
    return report(x, n);
}

int gd_cli_bench_nodes(const gd_bench_cli *o, gd_facts *f)
{
    node_run x = {.o = o, .f = f, .timeout_s = o->timeout_s > 0 ? o->timeout_s : GD_NODES_TIMEOUT_S};
    char err[1536];
    if (gd_launch_from_env(gd_cli_env_lookup, NULL, &x.l, err, sizeof err) != 0)
        return gd_cli_error("bench nccl --nodes: %s. Start one gpudoctor per node through the launcher: 'srun -N 4 "
                            "--ntasks-per-node=1 gpudoctor bench nccl --nodes', or set RANK, WORLD_SIZE, MASTER_ADDR "
                            "and MASTER_PORT as torchrun and Kubernetes' PyTorchJob do",
                            err);
    snprintf(x.host, sizeof x.host, "%.63s", f->host.hostname[0] ? f->host.hostname : "?");
    net_env(x.netenv, sizeof x.netenv);
    gd_bench_facts *b = gd_bench_facts_get(f);
    if (!b)
        return gd_cli_error("out of memory");
    gd_cli_bench_nccl_opts(o, f, &x.no);
    if (gd_nccl_session_open(&x.no.opts, f, b, 1, &x.s, err, sizeof err) != 0)
        return gd_cli_error("bench nccl --nodes: rank %d (%s): %s", x.l.rank, x.host, err);
    if (!x.s)
        return gd_cli_error("bench nccl --nodes: rank %d (%s): %s", x.l.rank, x.host, b->nccl->skipped);
    /* No figure of one node in this run: its report is the views' (and bench.nccl_* judge none). */
    free(b->nccl);
    b->nccl = NULL;
    unsigned char id[GD_NCCL_ID_BYTES] = {0};
    int rc = 0;
    if (x.l.rank == 0 && gd_nccl_session_unique_id(x.s, id, err, sizeof err) != 0) {
        gd_nccl_session_close(x.s);
        return gd_cli_error("bench nccl --nodes: rank 0: %s", err);
    }
    if (x.l.rank == 0)
        fprintf(stderr, "gpudoctor: bench nccl --nodes: rank 0 (%s) waits for %d ranks on port %d (up to %.0f s)...\n",
                x.host, x.l.world - 1, x.l.master_port, x.timeout_s);
    rc = gd_rendezvous(&x.l, x.host, x.timeout_s, id, &x.rdv, err, sizeof err);
    int code;
    if (x.l.rank == 0 && rc != 0 && x.rdv.missing == 0) /* rank 0's own fault (its port): nothing to report */
        code = gd_cli_error("bench nccl --nodes: %s", err);
    else if (x.l.rank == 0)
        code = lead(&x, rc, err, id);
    else if (rc != 0)
        code = gd_cli_error("bench nccl --nodes: %s", err);
    else
        code = follow(&x, id);
    gd_rdv_result_free(&x.rdv);
    gd_nccl_session_close(x.s);
    return code;
}
