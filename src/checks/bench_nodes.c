/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Judging `bench nccl --nodes` (include/gpudoctor/bench_nodes.h):
 *   bench.nccl_node_missing: a rank never met rank 0, or met it and sent
 *     no view: named, with what usually keeps a rank away;
 *   bench.nccl_nodes_failed: NCCL failed on a rank, or the all-reduce's
 *     data came back wrong there: never a figure;
 *   bench.nccl_nodes_low: the all-reduce across nodes well under what the
 *     NICs allow (analysis/node_net.h), with the node or link to blame from
 *     the node pairs (analysis/locate_slow.h) and that node's own NIC facts
 *     and network findings, so the answer is a port, not "busbw low".
 */
#include "analysis/locate_slow.h"
#include "analysis/node_net.h"
#include "checks_internal.h"
#include "gpudoctor/bench.h"
#include "gpudoctor/bench_nodes.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const gd_nccl_nodes *ran(const gd_facts *f)
{
    return f->bench ? f->bench->nodes : NULL;
}

static const char *host_of(const gd_node_view *v)
{
    return v->host[0] ? v->host : "host unknown";
}

void gd_check_bench_nccl_node_missing(const gd_check *self, const gd_facts *f, gd_findings *out)
{
    (void)self;
    const gd_nccl_nodes *n = ran(f);
    if (!n || (n->missing == 0 && n->unreported == 0))
        return;
    json_t *ev = json_object(), *never_a = json_array(), *silent_a = json_array();
    char who[200] = "";
    size_t used = 0;
    int shown = 0;
    /* Ranks that never came; only when all came, those that went silent. */
    for (int r = 1; r < n->world; r++) {
        const gd_node_view *v = &n->nodes[r];
        bool never = !v->arrived, silent = n->missing == 0 && v->arrived && !v->reported;
        if (!never && !silent)
            continue;
        if (never)
            json_array_append_new(never_a, json_integer(r));
        else
            json_array_append_new(silent_a, json_pack("{s:i,s:s}", "rank", r, "host", v->host));
        if (shown++ < 6 && used < sizeof who)
            used += (size_t)snprintf(who + used, sizeof who - used, "%s%d%s%s%s", used ? ", " : "", r,
                                     silent ? " (" : "", silent ? host_of(v) : "", silent ? ")" : "");
    }
    if (shown > 6 && used < sizeof who)
        snprintf(who + used, sizeof who - used, " and %d more", shown - 6);
    json_object_set_new(ev, "never_arrived", never_a);
    json_object_set_new(ev, "no_report", silent_a);
    json_object_set_new(ev, "world", json_integer(n->world));
    json_object_set_new(ev, "master", json_string(n->master));
    json_object_set_new(ev, "timeout_s", gd_json_number(n->timeout_s));
    json_object_set_new(ev, "launcher", json_string(n->launcher));
    if (n->error[0])
        json_object_set_new(ev, "error", json_string(n->error));
    json_object_set_new(ev, "source",
                        json_string("gpudoctor bench nccl --nodes: rank 0's meeting of the ranks over "
                                    "TCP, each wait bounded by --timeout"));
    const char *fix =
        n->missing
            ? "A rank that never arrives did not start, or cannot reach rank 0: read the launcher's output for that "
              "task (Slurm: 'sacct -j JOB --format=JobID,NodeList,State,ExitCode', the step's error file), check "
              "that its node resolves and reaches MASTER_ADDR on the port (a firewall between nodes, a wrong "
              "MASTER_ADDR in the job script), and that gpudoctor exists on that node; then run again. A node that "
              "is slow to start needs a longer --timeout."
            : "A rank that met rank 0 and then went silent stopped during the measurement: read its own output "
              "(it names the phase that did not finish), and NCCL's with NCCL_DEBUG=INFO on that node; a rank that "
              "died takes the run with it.";
    if (n->missing)
        gd_finding_add(out, "bench.nccl_node_missing", GD_SEV_CRITICAL, GD_NO_GPU, ev, NAN, fix,
                       "Rank%s %s of %d never joined the run across nodes (rank 0 at %s waited %.0f s)",
                       shown == 1 ? "" : "s", who, n->world, n->master, n->timeout_s);
    else
        gd_finding_add(out, "bench.nccl_node_missing", GD_SEV_CRITICAL, GD_NO_GPU, ev, NAN, fix,
                       "Rank%s %s of %d joined the run across nodes and stopped before reporting: the run has no "
                       "figure",
                       shown == 1 ? "" : "s", who, n->world);
}

void gd_check_bench_nccl_nodes_failed(const gd_check *self, const gd_facts *f, gd_findings *out)
{
    (void)self;
    const gd_nccl_nodes *n = ran(f);
    if (!n)
        return;
    int bad = 0, first = -1;
    bool wrong = false;
    json_t *ranks = json_array();
    for (int r = 0; r < n->world; r++) {
        const gd_node_view *v = &n->nodes[r];
        /* NCCL's remote error where a rank stopped mid-run is that rank's doing: bench.nccl_node_missing says it. */
        if (!v->reported || !v->world.failed || (n->unreported && v->world.remote))
            continue;
        bool w = v->world.verdict == GD_VERIFY_WRONG;
        json_array_append_new(ranks,
                              json_pack("{s:i,s:s,s:s,s:s}", "rank", r, "host", v->host, "what",
                                        w ? "wrong data" : "error", "detail", w ? v->world.detail : v->world.error));
        if (bad++ == 0)
            first = r;
        wrong |= w;
    }
    if (!bad) {
        json_decref(ranks);
        return;
    }
    const gd_node_view *v = &n->nodes[first];
    bool w = v->world.verdict == GD_VERIFY_WRONG;
    json_t *ev = json_object();
    json_object_set_new(ev, "ranks", ranks);
    json_object_set_new(ev, "world", json_integer(n->world));
    json_object_set_new(ev, "library", json_string(v->world.library));
    json_object_set_new(ev, "nccl_version", json_integer(v->world.version));
    json_object_set_new(ev, "source",
                        json_string("gpudoctor bench nccl --nodes: an all-reduce of known values "
                                    "across every node, read back from every GPU on its own node"));
    const char *fix =
        wrong ? "An all-reduce that returns wrong data on one node corrupts every gradient it averages: drain that "
                "node ('scontrol update nodename=N state=drain reason=...'), run 'gpudoctor bench nccl' and 'dcgmi "
                "diag -r 3' on it alone (wrong data there too: its GPUs or NVLink; right there: its NIC or the "
                "path to it), and 'gpudoctor check' for NVLink, PCIe and NIC errors."
              : "Run again with NCCL_DEBUG=INFO (NCCL_DEBUG_FILE=/tmp/nccl.%h.%p) and read 'gpudoctor check "
                "--nccl-log' on the failing node: 'unhandled system error' is mostly a NIC or GPUDirect problem "
                "(net.gdr_module, net.port_down), a timeout a node that stopped; NCCL versions that differ between "
                "nodes fail their first collective.";
    gd_finding_add(out, "bench.nccl_nodes_failed", GD_SEV_CRITICAL, GD_NO_GPU, ev, NAN, fix,
                   "NCCL across %d nodes: %s on rank %d (%s)%s: %s", n->world,
                   w ? "the all-reduce returned wrong data" : "the run failed", first, host_of(v),
                   bad > 1 ? " and others" : "", w ? v->world.detail : v->world.error);
}

/* The blamed node's own account of its network: its slowest port, or its
 * socket fallback, and its network findings. */
static void node_account(const gd_node_view *v, char *buf, size_t len)
{
    const gd_node_net *nn = &v->net;
    if (strcmp(nn->transport, "Socket") == 0)
        snprintf(buf, len, "%s has no Active RDMA port NCCL can use: NCCL falls back to TCP sockets", host_of(v));
    else if (nn->slowest[0])
        snprintf(buf, len,
                 "%s's %s runs at %.0f Gb/s, its other ports at %.0f Gb/s (NCCL spreads the collective "
                 "over its %d ports: the slowest sets the pace)",
                 host_of(v), nn->slowest, nn->slowest_gbps, nn->fastest_gbps, nn->ports);
    else if (!isnan(nn->now_gbs))
        snprintf(buf, len,
                 "%s's %d RDMA ports run at %.0f Gb/s each, as expected: the node's NICs are not the "
                 "limit (its switch port, cables or GPUs are)",
                 host_of(v), nn->ports, nn->slowest_gbps);
    else
        snprintf(buf, len, "%s did not say what its NICs run at", host_of(v));
}

/* The same, in a few words for the title. */
static void brief_of(const gd_node_view *v, char *buf, size_t len)
{
    if (strcmp(v->net.transport, "Socket") == 0)
        snprintf(buf, len, "%.48s has no RDMA port, NCCL runs on sockets", host_of(v));
    else if (v->net.slowest[0])
        snprintf(buf, len, "%.40s's %.40s at %.0f Gb/s (its others %.0f)", host_of(v), v->net.slowest,
                 v->net.slowest_gbps, v->net.fastest_gbps);
    else if (v->net.gdr == 0)
        snprintf(buf, len, "%.48s runs without GPUDirect RDMA", host_of(v));
    else
        snprintf(buf, len, "node %.48s", host_of(v));
}

void gd_check_bench_nccl_nodes_low(const gd_check *self, const gd_facts *f, gd_findings *out)
{
    (void)self;
    const char *id = "bench.nccl_nodes_low";
    const gd_nccl_nodes *n = ran(f);
    if (!n || n->missing)
        return;
    if (isnan(n->ring_gbs))
        return; /* no figure: bench.nccl_nodes_failed or the missing rank says why */
    gd_nodes_expect e;
    gd_nodes_expect_of(n->nodes, (size_t)n->world, &e);
    if (isnan(e.busbw_gbs)) {
        gd_skip_add(out, id, GD_NO_GPU, "%s", e.why_not);
        return;
    }
    double ratio = n->ring_gbs / e.busbw_gbs;
    if (!(ratio < GD_LOCATE_SLOW_RATIO))
        return;
    /* The pairs: which node or link. */
    gd_locate loc = {0};
    bool located = false;
    if (n->pairs_run && n->pair_count) {
        gd_pair_result *pr = calloc(n->pair_count, sizeof *pr);
        double *cap = calloc((size_t)n->world, sizeof *cap);
        if (pr && cap) {
            for (size_t i = 0; i < n->pair_count; i++)
                pr[i] = (gd_pair_result){(size_t)n->pairs[i].a, (size_t)n->pairs[i].b, n->pairs[i].busbw_gbps};
            for (int r = 0; r < n->world; r++)
                cap[r] =
                    isnan(n->nodes[r].intra_expect_gbs) ? e.net_gbs : fmin(e.net_gbs, n->nodes[r].intra_expect_gbs);
            located = gd_locate_slow((size_t)n->world, pr, n->pair_count, cap, &loc) == 0;
        }
        free(pr);
        free(cap);
    }
    char culprit[900] = "", account[400], brief[120] = "";
    json_t *ev = json_object(), *blamed = json_array();
    int first_blamed = -1;
    if (located) {
        for (size_t i = 0; i < loc.n; i++) {
            if (!loc.nodes[i].blamed)
                continue;
            const gd_node_view *v = &n->nodes[i];
            json_t *nj = json_pack("{s:i,s:s,s:s,s:o}", "rank", (int)i, "host", v->host, "transport", v->net.transport,
                                   "gpudirect_rdma", v->net.gdr < 0 ? json_null() : json_boolean(v->net.gdr));
            if (v->net.slowest[0]) {
                json_object_set_new(nj, "port", json_string(v->net.slowest));
                json_object_set_new(nj, "port_gbps", gd_json_number(v->net.slowest_gbps));
                json_object_set_new(nj, "others_gbps", gd_json_number(v->net.fastest_gbps));
            }
            json_t *notes = json_array();
            for (size_t k = 0; k < v->note_count; k++)
                json_array_append_new(notes, json_pack("{s:s,s:s}", "id", v->notes[k].id, "title", v->notes[k].title));
            json_object_set_new(nj, "network_findings", notes);
            json_array_append_new(blamed, nj);
            if (first_blamed < 0)
                first_blamed = (int)i;
        }
    }
    json_object_set_new(ev, "blamed_nodes", blamed);
    if (first_blamed >= 0) {
        const gd_node_view *v = &n->nodes[first_blamed];
        node_account(v, account, sizeof account);
        brief_of(v, brief, sizeof brief);
        snprintf(culprit, sizeof culprit, "node %d (%s) is slow with every partner: %s%s%s%s", first_blamed, host_of(v),
                 account, v->note_count ? "; its own check says: " : "", v->note_count ? v->notes[0].title : "",
                 loc.blamed_nodes > 1 ? " (and other nodes: see evidence)" : "");
    } else if (located && loc.link_count) {
        const gd_pair_result *l = &loc.links[0];
        snprintf(culprit, sizeof culprit,
                 "the link between node %zu (%s) and node %zu (%s) is slow (%.0f GB/s) while both are fast with "
                 "others: a cable, switch port or route between them",
                 l->a, host_of(&n->nodes[l->a]), l->b, host_of(&n->nodes[l->b]), l->busbw_gbs);
        json_object_set_new(ev, "slow_link", json_pack("[i,i]", (int)l->a, (int)l->b));
        snprintf(brief, sizeof brief, "the link %.40s - %.40s", host_of(&n->nodes[l->a]), host_of(&n->nodes[l->b]));
    } else if (located && loc.ambiguous) {
        snprintf(culprit, sizeof culprit, "every pair is slow: the fabric, or a setting every node shares (NCCL_*)");
        snprintf(brief, sizeof brief, "every node pair is slow");
    } else {
        /* No pairs (two nodes, or not run): the nodes' own accounts say what they can. */
        for (int r = 0; r < n->world && !culprit[0]; r++) {
            const gd_node_view *v = &n->nodes[r];
            if (v->reported && (v->net.slowest[0] || strcmp(v->net.transport, "Socket") == 0 || v->net.gdr == 0)) {
                node_account(v, account, sizeof account);
                snprintf(culprit, sizeof culprit, "%s", account);
                brief_of(v, brief, sizeof brief);
                first_blamed = r;
            }
        }
        if (!culprit[0]) {
            snprintf(culprit, sizeof culprit, "%s", n->pairs_why[0] ? n->pairs_why : "no node pairs were measured");
            snprintf(brief, sizeof brief, "no node stands out");
        }
    }
    json_object_set_new(ev, "culprit", json_string(culprit));
    json_object_set_new(ev, "busbw_gbps", gd_json_number(round(n->ring_gbs * 10) / 10));
    json_object_set_new(ev, "bytes", json_integer((json_int_t)n->ring_bytes));
    json_object_set_new(ev, "expected_gbps", gd_json_number(round(e.busbw_gbs * 10) / 10));
    json_object_set_new(ev, "of_expected_pct", gd_json_number(round(ratio * 1000) / 10));
    json_object_set_new(ev, "network_expected_gbps", gd_json_number(round(e.net_gbs * 10) / 10));
    json_object_set_new(ev, "network_expected_from_rank", json_integer(e.net_rank));
    json_object_set_new(ev, "node_ring_expected_gbps",
                        isnan(e.intra_gbs) ? json_null() : gd_json_number(round(e.intra_gbs * 10) / 10));
    json_object_set_new(ev, "nodes", json_integer(n->world));
    json_object_set_new(ev, "pairs_measured", json_integer((json_int_t)n->pair_count));
    json_object_set_new(ev, "source",
                        json_string("gpudoctor bench nccl --nodes: ncclAllReduce across every node's "
                                    "GPUs timed by CUDA events; expected: the best node's Active RDMA "
                                    "ports x 0.96, and each node's own ring; node pairs measured alone"));
    char fix[768];
    if (first_blamed >= 0 && strcmp(n->nodes[first_blamed].net.transport, "Socket") == 0)
        snprintf(fix, sizeof fix,
                 "Give %s the RDMA NIC its peers have, or find why NCCL cannot use it: 'ibstat' (a port Down or "
                 "Polling), 'lsmod | grep -e ib_ -e mlx' (the driver), NCCL_IB_DISABLE or NCCL_NET=Socket in the job's "
                 "environment; 'gpudoctor check' on that node names it (net.*). Until then drain it from multi-node "
                 "jobs: every all-reduce runs at its sockets' pace.",
                 host_of(&n->nodes[first_blamed]));
    else if (first_blamed >= 0 && !n->nodes[first_blamed].net.slowest[0] && n->nodes[first_blamed].net.gdr == 0)
        snprintf(fix, sizeof fix,
                 "Load GPUDirect RDMA's module on %s ('modprobe nvidia_peermem', and at boot: "
                 "/etc/modules-load.d/), check 'lsmod | grep peermem' and NCCL_DEBUG=INFO's 'GPU Direct RDMA "
                 "Enabled' lines, then run 'gpudoctor bench nccl --nodes' again.",
                 host_of(&n->nodes[first_blamed]));
    else if (first_blamed >= 0 && n->nodes[first_blamed].net.slowest[0])
        snprintf(fix, sizeof fix,
                 "On %s, bring %s back to its peers' rate: 'ibstat %.*s' shows its rate and width; reseat or replace "
                 "the cable or transceiver, check the switch port (a port that trained at a lower speed or width), "
                 "then run 'gpudoctor bench nccl --nodes' again. Until then drain the node from multi-node jobs.",
                 host_of(&n->nodes[first_blamed]), n->nodes[first_blamed].net.slowest,
                 (int)strcspn(n->nodes[first_blamed].net.slowest, "/"), n->nodes[first_blamed].net.slowest);
    else
        snprintf(fix, sizeof fix,
                 "Run 'gpudoctor check' on every node (net.* findings: ports down or slow, GPUDirect RDMA's module, "
                 "ACS), compare the nodes' NCCL_* settings, and run NCCL with NCCL_DEBUG=INFO to see the transport "
                 "each node uses ('NET/IB' is right, 'NET/Socket' is not); a slow link between two nodes is their "
                 "cables or switch ports.");
    gd_finding_add(out, id, ratio < 0.3 ? GD_SEV_CRITICAL : GD_SEV_WARNING, GD_NO_GPU, ev, 100 * (1 - ratio), fix,
                   "All-reduce across %d nodes at %.1f GB/s, %.0f%% of the %.0f GB/s the NICs allow: %s", n->world,
                   n->ring_gbs, 100 * ratio, e.busbw_gbs, brief);
    gd_locate_free(&loc);
}
