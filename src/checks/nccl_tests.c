/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Judging nccl-tests tables read by --from (gpudoctor/nccl_tests.h):
 *   nccl_tests.summary: what the table says, one finding a table (info):
 *     the peak bus bandwidth at the large sizes beside nccl-tests' own
 *     average, ranks and nodes, what the paste lacks, and whether it was
 *     judged against the NICs;
 *   nccl_tests.wrong_data: rows whose #wrong is not 0, or out-of-bounds
 *     values: the collective returned wrong data;
 *   nccl_tests.aborted: the run stopped on an NCCL or CUDA failure, with
 *     what the error usually means;
 *   nccl_tests.collapse: the bus bandwidth falls to under half of its best
 *     at the large sizes and stays there;
 *   nccl_tests.below_nics: across nodes, the peak under what the NICs of a
 *     node allow (analysis/nccl_tests_judge.h), when their facts are given.
 */
#include "analysis/nccl_tests_judge.h"
#include "checks_internal.h"
#include "gpudoctor/nccl_tests.h"
#include "gpudoctor/net.h"
#include "thresholds.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* The tables, or NULL when none was read. */
static const gd_nccl_tests *tables(const gd_facts *f, gd_findings *out, const char *id)
{
    const gd_nccl_tests *t = f->net ? f->net->tables : NULL;
    (void)out, (void)id; /* none read: the report says the group was not used (report/checked.c) */
    return t && t->count ? t : NULL;
}

static json_t *num1(double v)
{
    return isnan(v) ? json_null() : gd_json_number(round(v * 10) / 10);
}

/* "all_reduce over 16 ranks on 2 nodes (8 a node)", as far as the table says. */
static void run_words(const gd_nt_table *x, char *buf, size_t len)
{
    size_t used = (size_t)snprintf(buf, len, "%s%s", x->op ? gd_nt_op_name(x->op) : "run",
                                   x->op_inferred ? " (by its columns)" : "");
    if (x->ranks > 0 && used < len)
        used += (size_t)snprintf(buf + used, len - used, " over %d ranks", x->ranks);
    if (x->nodes > 0 && used < len)
        used += (size_t)snprintf(buf + used, len - used, " on %d node%s", x->nodes, x->nodes == 1 ? "" : "s");
    if (x->ranks_per_node > 0 && x->nodes > 1 && used < len)
        snprintf(buf + used, len - used, " (%d a node)", x->ranks_per_node);
}

static json_t *table_json(const gd_nt_table *x)
{
    json_t *o = json_object();
    json_object_set_new(o, "file", json_string(x->file));
    json_object_set_new(o, "line", json_integer(x->first_line));
    json_object_set_new(o, "op", x->op ? json_string(gd_nt_op_name(x->op)) : json_null());
    json_object_set_new(o, "ranks", x->ranks > 0 ? json_integer(x->ranks) : json_null());
    json_object_set_new(o, "nodes", x->nodes > 0 ? json_integer(x->nodes) : json_null());
    return o;
}

void gd_check_nccl_tests_summary(const gd_check *self, const gd_facts *f, gd_findings *out)
{
    (void)self;
    const char *id = "nccl_tests.summary";
    const gd_nccl_tests *t = tables(f, out, id);
    for (size_t i = 0; t && i < t->count; i++) {
        const gd_nt_table *x = &t->tables[i];
        gd_nt_summary s;
        gd_nt_summarize(x, &s);
        gd_nt_expect e;
        int judged = gd_nt_expect_of(f->net, x, &e);
        char run[160], a[24], b[24], nics[400], avg[64] = "", brief[64];
        run_words(x, run, sizeof run);
        if (!isnan(x->avg_busbw_gbps))
            snprintf(avg, sizeof avg, " (its 'Avg bus bandwidth' %.1f GB/s counts the small sizes)", x->avg_busbw_gbps);
        bool tree2 =
            x->nodes == 2 && x->op == GD_NT_ALL_REDUCE && strcmp(x->algo, "Ring") != 0 && strcmp(x->algo, "ring") != 0;
        if (judged == 0) {
            snprintf(nics, sizeof nics, "%.0f%% of the %.1f GB/s the NICs allow (%d port%s, %.1f GB/s line rate%s)",
                     100 * s.peak_busbw_gbps / e.busbw_gbps, e.busbw_gbps, e.nics, e.nics == 1 ? "" : "s", e.line_gbps,
                     tree2 && s.peak_busbw_gbps > e.line_gbps
                         ? "; above it on 2 nodes is normal: NCCL's tree reduces part of the data over NVLink, "
                           "and busbw's formula counts a flat ring"
                         : "");
            snprintf(brief, sizeof brief, "%.0f%% of what the NICs allow%s", 100 * s.peak_busbw_gbps / e.busbw_gbps,
                     tree2 && s.peak_busbw_gbps > e.line_gbps ? " (2-node tree)" : "");
        } else {
            snprintf(nics, sizeof nics, "not judged against the NICs, because %s%s", e.why_not,
                     tree2 ? "; on 2 nodes NCCL's tree can put busbw above the NICs' line rate: normal" : "");
            snprintf(brief, sizeof brief, "not judged against the NICs");
        }
        json_t *ev = table_json(x);
        json_object_set_new(ev, "peak_busbw_gbps", num1(s.peak_busbw_gbps));
        json_object_set_new(ev, "peak_bytes", json_integer((json_int_t)s.peak_bytes));
        json_object_set_new(ev, "largest_busbw_gbps", num1(s.largest_busbw_gbps));
        json_object_set_new(ev, "largest_bytes", json_integer((json_int_t)s.largest_bytes));
        json_object_set_new(ev, "avg_busbw_gbps", num1(x->avg_busbw_gbps));
        json_object_set_new(ev, "rows", json_integer((json_int_t)(x->row_count + x->rows_dropped)));
        json_object_set_new(ev, "expected_busbw_gbps", judged == 0 ? num1(e.busbw_gbps) : json_null());
        json_object_set_new(ev, "nics", json_string(nics));
        if (x->cut[0])
            json_object_set_new(ev, "cut", json_string(x->cut));
        if (x->env[0])
            json_object_set_new(ev, "nccl_env", json_string(x->env));
        json_object_set_new(ev, "source",
                            json_string("nccl-tests output read by --from; busbw as nccl-tests "
                                        "defines it (doc/PERFORMANCE.md)"));
        const char *fix =
            "Compare the peak bus bandwidth at the large sizes (256 MiB and up), never the average: it is what the "
            "slowest link of the collective allows. Across 3 or more nodes a ring's busbw is bounded by the NICs of "
            "a node together (their line rate in Gb/s / 8); on 2 nodes force NCCL_ALGO=Ring to measure the "
            "network alone. Give an ibstat capture of a node beside the table to judge it against its NICs.";
        if (x->row_count == 0)
            gd_finding_add(out, id, GD_SEV_INFO, GD_NO_GPU, ev, NAN, fix,
                           "nccl-tests %s (%s): no row before it stopped", run, x->file);
        else
            gd_finding_add(out, id, GD_SEV_INFO, GD_NO_GPU, ev, NAN, fix,
                           "nccl-tests %s: peak busbw %.1f GB/s at %s%s; %s%s", run, s.peak_busbw_gbps,
                           gd_nt_size_text(s.peak_bytes, a, sizeof a), avg, brief,
                           x->cut[0] ? "; the paste is cut" : "");
        (void)b;
    }
}

void gd_check_nccl_tests_wrong_data(const gd_check *self, const gd_facts *f, gd_findings *out)
{
    (void)self;
    const char *id = "nccl_tests.wrong_data";
    const gd_nccl_tests *t = tables(f, out, id);
    for (size_t i = 0; t && i < t->count; i++) {
        const gd_nt_table *x = &t->tables[i];
        if (x->wrong_total <= 0 && x->oob_values <= 0)
            continue;
        const gd_nt_row *first = NULL;
        for (size_t r = 0; r < x->row_count && !first; r++)
            if (x->rows[r].oop.wrong > 0 || x->rows[r].ip.wrong > 0)
                first = &x->rows[r];
        char run[160], a[24] = "";
        run_words(x, run, sizeof run);
        json_t *ev = table_json(x);
        json_object_set_new(ev, "wrong", json_integer(x->wrong_total > 0 ? x->wrong_total : 0));
        json_object_set_new(ev, "out_of_bounds", json_integer(x->oob_values));
        if (first) {
            json_object_set_new(ev, "first_bytes", json_integer((json_int_t)first->bytes));
            json_object_set_new(ev, "first_row_line", json_integer(first->line));
        }
        json_object_set_new(ev, "source",
                            json_string("nccl-tests' #wrong column and its 'Out of bounds values' "
                                        "line: elements that differ from the expected result"));
        gd_finding_add(out, id, GD_SEV_CRITICAL, GD_NO_GPU, ev, NAN,
                       "A collective that returns wrong data corrupts every gradient it averages. Find the GPU or "
                       "node: rerun on each node alone and on pairs of nodes (the run that fails holds it), run "
                       "'dcgmi diag -r 3' and 'gpudoctor check' on its nodes (NVLink and PCIe errors, Xids), and "
                       "drain it until it passes.",
                       "nccl-tests %s returned wrong data: %ld wrong element%s%s%s%s", run,
                       x->wrong_total > 0 ? x->wrong_total : x->oob_values,
                       (x->wrong_total > 0 ? x->wrong_total : x->oob_values) == 1 ? "" : "s", first ? ", from " : "",
                       first ? gd_nt_size_text(first->bytes, a, sizeof a) : "", first ? " up" : "");
    }
}

/* What an abort's error string usually means, and where to look. */
static const char *abort_meaning(const char *line)
{
    if (strstr(line, "unhandled system error") || strstr(line, "remote process exited") ||
        strstr(line, "network error"))
        return "NCCL's 'unhandled system error' (ncclSystemError) is most often the network between the nodes: an "
               "IB or RoCE port down or at the wrong rate ('ibstat' on each node), a RoCE GID index that does not "
               "exist or is not RoCE v2 ('show_gids'; NCCL_IB_GID_INDEX), a firewall or a wrong interface for "
               "NCCL's bootstrap (NCCL_SOCKET_IFNAME naming the interface the nodes reach each other by, not "
               "docker0 or virbr0), or memory that cannot be registered (ulimit -l unlimited, nvidia_peermem). "
               "Rerun with NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,NET: the WARN line before the failure names the "
               "call and the peer.";
    if (strstr(line, "unhandled cuda error") || strstr(line, "CUDA failure"))
        return "A CUDA error inside the run: a GPU that fell off or reports Xids, a driver and CUDA mismatch, or "
               "out of memory at a large size. Run 'gpudoctor check' on the node that printed it and read its "
               "kernel log for Xid lines; rerun with NCCL_DEBUG=WARN to name the rank.";
    if (strstr(line, "invalid usage") || strstr(line, "invalid argument"))
        return "NCCL refused the call: ranks that disagree on the communicator (a launcher that started a "
               "different count of processes than -np, two processes on one GPU), or a mismatch of NCCL versions "
               "between nodes. Check the launch line and that every node runs the same NCCL.";
    return "Rerun with NCCL_DEBUG=INFO: the WARN line before the failure names the call and the peer; an error "
           "between nodes is most often a port down, a wrong RoCE GID index or a firewall ('ibstat', "
           "'show_gids', NCCL_SOCKET_IFNAME).";
}

void gd_check_nccl_tests_aborted(const gd_check *self, const gd_facts *f, gd_findings *out)
{
    (void)self;
    const char *id = "nccl_tests.aborted";
    const gd_nccl_tests *t = tables(f, out, id);
    for (size_t i = 0; t && i < t->count; i++) {
        const gd_nt_table *x = &t->tables[i];
        if (!x->abort[0])
            continue;
        char run[160], a[24];
        run_words(x, run, sizeof run);
        json_t *ev = table_json(x);
        json_object_set_new(ev, "abort", json_string(x->abort));
        json_object_set_new(ev, "abort_line", json_integer(x->abort_line));
        json_object_set_new(ev, "rows_before", json_integer((json_int_t)x->row_count));
        json_object_set_new(ev, "source", json_string("the failure line nccl-tests prints before it exits"));
        const gd_nt_row *last = x->row_count ? &x->rows[x->row_count - 1] : NULL;
        gd_finding_add(out, id, GD_SEV_CRITICAL, GD_NO_GPU, ev, NAN, abort_meaning(x->abort),
                       "nccl-tests %s stopped %s%s: %s (%s:%ld)", run, last ? "after " : "before its first size",
                       last ? gd_nt_size_text(last->bytes, a, sizeof a) : "", x->abort, x->file, x->abort_line);
    }
}

void gd_check_nccl_tests_collapse(const gd_check *self, const gd_facts *f, gd_findings *out)
{
    (void)self;
    const char *id = "nccl_tests.collapse";
    const gd_nccl_tests *t = tables(f, out, id);
    for (size_t i = 0; t && i < t->count; i++) {
        const gd_nt_table *x = &t->tables[i];
        gd_nt_summary s;
        gd_nt_summarize(x, &s);
        if (!s.collapse)
            continue;
        char run[160], a[24], b[24];
        run_words(x, run, sizeof run);
        json_t *ev = table_json(x);
        json_object_set_new(ev, "before_busbw_gbps", num1(s.before_busbw_gbps));
        json_object_set_new(ev, "before_bytes", json_integer((json_int_t)s.before_bytes));
        json_object_set_new(ev, "after_busbw_gbps", num1(s.collapse_busbw_gbps));
        json_object_set_new(ev, "from_bytes", json_integer((json_int_t)s.collapse_bytes));
        json_object_set_new(ev, "source",
                            json_string("nccl-tests' busbw per size, the better of out-of-place "
                                        "and in-place"));
        double loss = 100 * (1 - s.collapse_busbw_gbps / s.before_busbw_gbps);
        gd_finding_add(out, id, GD_SEV_WARNING, GD_NO_GPU, ev, loss,
                       "A bandwidth that falls at the large sizes and stays down is the fabric, not NCCL's "
                       "tuning: on RoCE, packets dropped under load (PFC or ECN not configured on the switches "
                       "and the NICs, 'ethtool -S IFACE | grep -i -e pause -e discard'), on either fabric a link "
                       "that errors under load (port counters: 'perfquery' or the NIC's sysfs counters), or "
                       "traffic between racks through a congested or misrouted uplink (adaptive routing, the "
                       "spine's ports). Rerun node pairs across the racks to find the link.",
                       "nccl-tests %s: bus bandwidth collapses from %.1f GB/s at %s to %.1f GB/s or less from %s on",
                       run, s.before_busbw_gbps, gd_nt_size_text(s.before_bytes, a, sizeof a), s.collapse_busbw_gbps,
                       gd_nt_size_text(s.collapse_bytes, b, sizeof b));
    }
}

/* A table's peak busbw, NAN when it has no row. */
static double peak_of(const gd_nt_table *x)
{
    gd_nt_summary s;
    gd_nt_summarize(x, &s);
    return s.peak_busbw_gbps;
}

/* What a peak below its expectation shows, for both expectations. */
static json_t *low_evidence(const gd_nt_table *x, double peak, double expected)
{
    json_t *ev = table_json(x);
    json_object_set_new(ev, "peak_busbw_gbps", num1(peak));
    json_object_set_new(ev, "expected_busbw_gbps", num1(expected));
    json_object_set_new(ev, "of_expected_pct", num1(100 * peak / expected));
    return ev;
}

void gd_check_nccl_tests_below_nics(const gd_check *self, const gd_facts *f, gd_findings *out)
{
    (void)self;
    const char *id = "nccl_tests.below_nics";
    const gd_nccl_tests *t = tables(f, out, id);
    for (size_t i = 0; t && i < t->count; i++) {
        const gd_nt_table *x = &t->tables[i];
        double peak = peak_of(x);
        gd_nt_expect e;
        if (isnan(peak))
            continue;
        if (gd_nt_expect_of(f->net, x, &e) != 0) {
            gd_skip_add(out, id, GD_NO_GPU, "%s: not judged against the NICs, because %s", x->file, e.why_not);
            continue;
        }
        double ratio = peak / e.busbw_gbps;
        if (!(ratio < GD_NCCL_LOW_RATIO))
            continue;
        char run[160];
        run_words(x, run, sizeof run);
        json_t *ev = low_evidence(x, peak, e.busbw_gbps);
        json_object_set_new(ev, "line_gbps", num1(e.line_gbps));
        json_object_set_new(ev, "ports", json_string(e.ports));
        json_object_set_new(ev, "nics_counted", json_integer(e.nics));
        json_object_set_new(ev, "efficiency", gd_json_number(GD_NT_NET_EFFICIENCY));
        json_object_set_new(ev, "source",
                            json_string("expected: the Active RDMA ports of a node (line rate / 8) "
                                        "x 0.96, NVIDIA's figure on healthy fabrics"));
        gd_finding_add(out, id, ratio < GD_NCCL_CRITICAL_RATIO ? GD_SEV_CRITICAL : GD_SEV_WARNING, GD_NO_GPU, ev,
                       100 * (1 - ratio),
                       "Find the node or link that holds the ring back: rerun all_reduce_perf on pairs of nodes "
                       "(NCCL_ALGO=Ring) and compare; on the slow pair, read each node's ports ('ibstat': a port "
                       "Down, Polling or at a lower rate), 'gpudoctor check' for GPUDirect RDMA (nvidia_peermem) "
                       "and the transport in NCCL_DEBUG=INFO's log ('NET/IB' with 'GDRDMA' is right; 'NET/Socket' "
                       "is the slow path).",
                       "nccl-tests %s reaches %.1f GB/s peak bus bandwidth, %.0f%% of the %.1f GB/s the NICs "
                       "of a node allow (%d port%s)",
                       run, peak, 100 * ratio, e.busbw_gbps, e.nics, e.nics == 1 ? "" : "s");
    }
}

void gd_check_nccl_tests_below_topology(const gd_check *self, const gd_facts *f, gd_findings *out)
{
    (void)self;
    const char *id = "nccl_tests.below_topology";
    const gd_nccl_tests *t = tables(f, out, id);
    for (size_t i = 0; t && i < t->count; i++) {
        const gd_nt_table *x = &t->tables[i];
        if (x->nodes != 1)
            continue; /* across nodes: nccl_tests.below_nics */
        double peak = peak_of(x);
        gd_nccl_expect e;
        char why[256];
        if (isnan(peak))
            continue;
        if (gd_nt_expect_node(f, x, &e, why, sizeof why) != 0) {
            gd_skip_add(out, id, GD_NO_GPU, "%s: not judged against the node's topology, because %s", x->file, why);
            continue;
        }
        double ratio = peak / e.busbw_gbps;
        if (!(ratio < GD_NCCL_LOW_RATIO))
            continue;
        char run[160];
        run_words(x, run, sizeof run);
        json_t *ev = low_evidence(x, peak, e.busbw_gbps);
        json_object_set_new(ev, "slowest_edge", json_pack("[i,i]", e.slowest.gpu_a, e.slowest.gpu_b));
        json_object_set_new(ev, "limit", json_string(e.slowest.limit));
        json_object_set_new(ev, "source",
                            json_string("expected: the topology's slowest ring edge, as bench nccl "
                                        "is judged (docs/bench.md)"));
        gd_finding_add(out, id, ratio < GD_NCCL_CRITICAL_RATIO ? GD_SEV_CRITICAL : GD_SEV_WARNING, GD_NO_GPU, ev,
                       100 * (1 - ratio),
                       "Find the transport NCCL chose: rerun with NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,GRAPH and "
                       "look for 'via SHM' or 'via NET' where the topology offers P2P; check NCCL_P2P_DISABLE and "
                       "NCCL_SHM_DISABLE in the job's environment and /etc/nccl.conf, NVLink links down "
                       "(nvlink.down) and ACS or an IOMMU on the PCIe switches (topology.iommu_p2p); 'gpudoctor "
                       "bench p2p' measures each pair.",
                       "nccl-tests %s reaches %.1f GB/s peak bus bandwidth, %.0f%% of the %.1f GB/s the node's "
                       "topology allows (slowest ring edge GPU %d - GPU %d)",
                       run, peak, 100 * ratio, e.busbw_gbps, e.slowest.gpu_a, e.slowest.gpu_b);
    }
}
