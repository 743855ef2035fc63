/* SPDX-License-Identifier: Apache-2.0 */
/* bench nccl --nodes' section of the bench report: see bench_nodes_report.h. */
#include "bench_nodes_report.h"

#include "analysis/node_net.h"
#include "bench_nccl_report.h"
#include "core/json_util.h"
#include "html_escape.h"
#include "html_page.h"
#include "gpudoctor/bench.h"
#include "gpudoctor/bench_nodes.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static json_t *num(double v, double scale)
{
    return isnan(v) ? json_null() : gd_json_number(round(v * scale) / scale);
}

static const gd_nccl_nodes *ran(const gd_facts *f)
{
    return f->bench ? f->bench->nodes : NULL;
}

static json_t *rank_json(const gd_node_view *v)
{
    json_t *o = json_object();
    json_object_set_new(o, "rank", json_integer(v->rank));
    json_object_set_new(o, "host", v->host[0] ? json_string(v->host) : json_null());
    json_object_set_new(o, "arrived", json_boolean(v->arrived));
    json_object_set_new(o, "reported", json_boolean(v->reported));
    json_object_set_new(o, "joined_s", v->arrived ? num(v->joined_s, 1000) : json_null());
    if (!v->reported)
        return o;
    json_object_set_new(o, "gpus", json_integer(v->gpus));
    json_t *net = json_object(), *ports = json_array();
    json_object_set_new(net, "transport", json_string(v->net.transport));
    json_object_set_new(net, "ports_used", json_integer(v->net.ports));
    json_object_set_new(net, "now_gbs", num(v->net.now_gbs, 10));
    json_object_set_new(net, "full_gbs", num(v->net.best_gbs, 10));
    json_object_set_new(net, "slowest_port", v->net.slowest[0] ? json_string(v->net.slowest) : json_null());
    json_object_set_new(net, "gpudirect_rdma", v->net.gdr < 0 ? json_null() : json_boolean(v->net.gdr));
    for (size_t i = 0; i < v->port_count; i++)
        json_array_append_new(ports,
                              json_pack("{s:s,s:i,s:b,s:o}", "device", v->ports[i].dev, "port", v->ports[i].port,
                                        "active", v->ports[i].active, "rate_gbps", num(v->ports[i].rate_gbps, 1)));
    json_object_set_new(net, "ports", ports);
    json_object_set_new(o, "network", net);
    json_object_set_new(o, "node_ring_expected_gbps", num(v->intra_expect_gbs, 10));
    json_object_set_new(o, "verified", json_string(gd_bench_verdict_name(v->world.verdict)));
    json_object_set_new(o, "detail", json_string(v->world.detail));
    json_object_set_new(o, "error", v->world.error[0] ? json_string(v->world.error) : json_null());
    json_object_set_new(o, "nccl_version", v->world.version ? json_integer(v->world.version) : json_null());
    json_object_set_new(o, "all_reduce", gd_bench_nccl_sweep_json(&v->world, GD_NCCL_ALL_REDUCE));
    json_object_set_new(o, "all_gather", gd_bench_nccl_sweep_json(&v->world, GD_NCCL_ALL_GATHER));
    json_t *notes = json_array();
    for (size_t i = 0; i < v->note_count; i++)
        json_array_append_new(notes, json_pack("{s:s,s:s,s:s}", "id", v->notes[i].id, "severity",
                                               gd_severity_name(v->notes[i].severity), "title", v->notes[i].title));
    json_object_set_new(o, "network_findings", notes);
    return o;
}

json_t *gd_bench_nodes_json(const gd_facts *f)
{
    const gd_nccl_nodes *n = ran(f);
    if (!n)
        return NULL;
    json_t *o = json_object(), *ranks = json_array(), *pairs = json_array();
    json_object_set_new(o, "launcher", json_string(n->launcher));
    json_object_set_new(o, "world", json_integer(n->world));
    json_object_set_new(o, "master", json_string(n->master));
    json_object_set_new(o, "timeout_s", gd_json_number(n->timeout_s));
    json_object_set_new(o, "missing", json_integer(n->missing));
    json_object_set_new(o, "unreported", json_integer(n->unreported));
    json_object_set_new(o, "error", n->error[0] ? json_string(n->error) : json_null());
    json_object_set_new(o, "busbw_gbps", num(n->ring_gbs, 10));
    json_object_set_new(o, "busbw_bytes", n->ring_bytes ? json_integer((json_int_t)n->ring_bytes) : json_null());
    gd_nodes_expect e;
    gd_nodes_expect_of(n->nodes, (size_t)n->world, &e);
    json_object_set_new(o, "expected_gbps", num(e.busbw_gbs, 10));
    json_object_set_new(o, "network_expected_gbps", num(e.net_gbs, 10));
    json_object_set_new(o, "node_ring_expected_gbps", num(e.intra_gbs, 10));
    json_object_set_new(o, "expectation",
                        json_string(isnan(e.busbw_gbs) ? e.why_not
                                                       : "the best node's Active RDMA ports x "
                                                         "their rate x 0.96, and no more than "
                                                         "the slowest node's own ring"));
    for (int r = 0; r < n->world; r++)
        json_array_append_new(ranks, rank_json(&n->nodes[r]));
    json_object_set_new(o, "ranks", ranks);
    json_object_set_new(o, "pairs_run", json_boolean(n->pairs_run));
    json_object_set_new(o, "pairs_why", json_string(n->pairs_why));
    for (size_t i = 0; i < n->pair_count; i++) {
        const gd_node_pair *p = &n->pairs[i];
        json_array_append_new(pairs, json_pack("{s:i,s:i,s:i,s:o,s:o}", "a", p->a, "b", p->b, "round", p->round,
                                               "busbw_gbps", num(p->busbw_gbps, 10), "error",
                                               p->error[0] ? json_string(p->error) : json_null()));
    }
    json_object_set_new(o, "pairs", pairs);
    return o;
}

/* A node's network in a table cell (29 columns, Gb/s): "8 IB x 400", "8 IB, mlx5_3/1 at 100 of 400". */
static void network_text(const gd_node_view *v, char *buf, size_t len)
{
    const gd_node_net *nn = &v->net;
    const char *gdr = nn->gdr == 0 ? ", no GDR" : "";
    if (!nn->transport[0])
        snprintf(buf, len, "not read");
    else if (strcmp(nn->transport, "Socket") == 0)
        snprintf(buf, len, "sockets (no RDMA)");
    else if (nn->slowest[0])
        snprintf(buf, len, "%d %s, %s at %.0f of %.0f%s", nn->ports, nn->transport, nn->slowest, nn->slowest_gbps,
                 nn->fastest_gbps, gdr);
    else
        snprintf(buf, len, "%d %s x %.0f%s", nn->ports, nn->transport, nn->slowest_gbps, gdr);
}

void gd_bench_nodes_text(FILE *out, const gd_facts *f, const gd_text_style *st)
{
    const gd_nccl_nodes *n = ran(f);
    if (!n)
        return;
    int gpus = 0;
    for (int r = 0; r < n->world; r++)
        gpus += n->nodes[r].reported ? n->nodes[r].gpus : 0;
    fprintf(out, "%sNCCL all-reduce across %d node%s%s\n", gd_c(st, "\033[1m"), n->world, n->world == 1 ? "" : "s",
            gd_c(st, "\033[0m"));
    char about[400];
    snprintf(about, sizeof about, "%d GPUs reported; %s launch, rank 0 at %s", gpus, n->launcher, n->master);
    fputs("    ", out);
    gd_wrap(out, st, 4, 4, about);
    gd_nodes_expect e;
    gd_nodes_expect_of(n->nodes, (size_t)n->world, &e);
    char line[600];
    if (!isnan(n->ring_gbs))
        snprintf(line, sizeof line, "peak bus bandwidth %.1f GB/s at %zu MiB; expected %s%.0f GB/s%s", n->ring_gbs,
                 n->ring_bytes >> 20, isnan(e.busbw_gbs) ? "(unknown: " : "", isnan(e.busbw_gbs) ? 0.0 : e.busbw_gbs,
                 isnan(e.busbw_gbs)                                ? ")"
                 : !isnan(e.net_gbs) && !(e.intra_gbs < e.net_gbs) ? " (the best node's NICs x 0.96)"
                                                                   : " (the slowest node's own ring)");
    else
        snprintf(line, sizeof line, "no figure: %s",
                 n->error[0] ? n->error : "the run failed or its data came back wrong on a rank (below)");
    fputs("    ", out);
    gd_wrap(out, st, 4, 4, line);
    /* 77 columns: rank, host, GPUs, the ports NCCL uses, busbw GB/s, the data check. */
    fprintf(out, "    %-4s %-16s %4s  %-29s %7s  %s\n", "rank", "host", "GPUs", "network (Gb/s)", "busbw", "check");
    for (int r = 0; r < n->world; r++) {
        const gd_node_view *v = &n->nodes[r];
        char net[96], bw[16] = "-";
        if (!v->arrived) {
            fprintf(out, "    %-4d %-16s %4s  never joined (within %.0f s)\n", r, "-", "-", n->timeout_s);
            continue;
        }
        if (!v->reported) {
            fprintf(out, "    %-4d %-16.16s %4s  %s\n", r, v->host, "-",
                    n->missing || n->error[0] ? "joined; the run did not start" : "joined, sent no report");
            continue;
        }
        network_text(v, net, sizeof net);
        if (!v->world.failed && !isnan(v->world.peak_busbw_gbps[GD_NCCL_ALL_REDUCE]))
            snprintf(bw, sizeof bw, "%.1f", v->world.peak_busbw_gbps[GD_NCCL_ALL_REDUCE]);
        fprintf(out, "    %-4d %-16.16s %4d  %-29.29s %7s  %s\n", r, v->host, v->gpus, net, bw,
                v->world.failed ? (v->world.verdict == GD_VERIFY_WRONG ? "WRONG" : "failed")
                                : gd_bench_verdict_name(v->world.verdict));
    }
    if (n->pairs_run) {
        fputs("    node pairs, each measured alone (busbw GB/s):\n", out);
        for (size_t i = 0; i < n->pair_count;) { /* a line a round, wrapped */
            int round = n->pairs[i].round;
            char rl[2048];
            size_t used = (size_t)snprintf(rl, sizeof rl, "round %d:", round + 1);
            for (; i < n->pair_count && n->pairs[i].round == round; i++) {
                const gd_node_pair *p = &n->pairs[i];
                char bw[16];
                snprintf(bw, sizeof bw, isnan(p->busbw_gbps) ? "failed" : "%.1f", p->busbw_gbps);
                if (used < sizeof rl)
                    used += (size_t)snprintf(rl + used, sizeof rl - used, " %d-%d %s,", p->a, p->b, bw);
            }
            if (used < sizeof rl)
                rl[used - 1] = '\0'; /* the last comma */
            fputs("      ", out);
            gd_wrap(out, st, 6, 6, rl);
        }
    } else if (n->pairs_why[0]) {
        char nl[200];
        snprintf(nl, sizeof nl, "node pairs not measured: %s", n->pairs_why);
        fputs("    ", out);
        gd_wrap(out, st, 4, 4, nl);
    }
    fputc('\n', out);
}

void gd_html_bench_nodes(FILE *out, const gd_facts *f)
{
    const gd_nccl_nodes *n = ran(f);
    if (!n)
        return;
    gd_nodes_expect e;
    gd_nodes_expect_of(n->nodes, (size_t)n->world, &e);
    char line[800];
    fputs("<section id=\"nodes\"><h2>NCCL all-reduce across nodes</h2>\n<p>", out);
    if (!isnan(n->ring_gbs))
        snprintf(line, sizeof line,
                 "%d nodes (%s launch, rank 0 at %s): peak bus bandwidth %.1f GB/s at %zu MiB; "
                 "expected %.0f GB/s.",
                 n->world, n->launcher, n->master, n->ring_gbs, n->ring_bytes >> 20,
                 isnan(e.busbw_gbs) ? 0.0 : e.busbw_gbs);
    else
        snprintf(line, sizeof line, "%d nodes (%s launch, rank 0 at %s): no figure: %s", n->world, n->launcher,
                 n->master, n->error[0] ? n->error : "the run failed or its data came back wrong on a rank");
    gd_html_text(out, line);
    fputs("</p>\n<table>\n", out);
    static const char *const head[] = {"rank", "host", "GPUs", "network", "busbw GB/s", "check"};
    gd_html_row(out, "th", head, 6);
    for (int r = 0; r < n->world; r++) {
        const gd_node_view *v = &n->nodes[r];
        char rank[16], gpus[16] = "-", net[96] = "", bw[16] = "-";
        snprintf(rank, sizeof rank, "%d", r);
        const char *check = "";
        if (!v->arrived)
            snprintf(net, sizeof net, "never joined (within %.0f s)", n->timeout_s);
        else if (!v->reported)
            snprintf(net, sizeof net, "%s",
                     n->missing || n->error[0] ? "joined; the run did not start" : "joined, sent no report");
        else {
            snprintf(gpus, sizeof gpus, "%d", v->gpus);
            network_text(v, net, sizeof net);
            if (!v->world.failed && !isnan(v->world.peak_busbw_gbps[GD_NCCL_ALL_REDUCE]))
                snprintf(bw, sizeof bw, "%.1f", v->world.peak_busbw_gbps[GD_NCCL_ALL_REDUCE]);
            check = v->world.failed ? (v->world.verdict == GD_VERIFY_WRONG ? "WRONG" : "failed")
                                    : gd_bench_verdict_name(v->world.verdict);
        }
        const char *cells[] = {rank, v->host[0] ? v->host : "-", gpus, net, bw, check};
        gd_html_row(out, "td", cells, 6);
    }
    fputs("</table>\n", out);
    if (n->pairs_run) {
        fputs("<p>", out);
        gd_html_text(out, n->pairs_why);
        fputs("</p>\n<table>\n", out);
        static const char *const ph[] = {"round", "pair", "busbw GB/s"};
        gd_html_row(out, "th", ph, 3);
        for (size_t i = 0; i < n->pair_count; i++) {
            const gd_node_pair *p = &n->pairs[i];
            char round[16], pair[32], bw[180];
            snprintf(round, sizeof round, "%d", p->round + 1);
            snprintf(pair, sizeof pair, "%d - %d", p->a, p->b);
            if (isnan(p->busbw_gbps))
                snprintf(bw, sizeof bw, "failed: %.160s", p->error);
            else
                snprintf(bw, sizeof bw, "%.1f", p->busbw_gbps);
            const char *cells[] = {round, pair, bw};
            gd_html_row(out, "td", cells, 3);
        }
        fputs("</table>\n", out);
    }
    fputs("</section>\n", out);
}
