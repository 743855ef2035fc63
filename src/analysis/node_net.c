/* SPDX-License-Identifier: Apache-2.0 */
/* A node's network as NCCL uses it, and a run's expectation (node_net.h). */
#include "analysis/node_net.h"

#include "analysis/nccl_tests_judge.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

bool gd_nccl_hca_admits(const char *env, const char *dev)
{
    const char *h = env ? strstr(env, "NCCL_IB_HCA=") : NULL;
    if (!h)
        return true;
    h += 12;
    bool exclude = *h == '^';
    if (exclude)
        h++;
    bool exact = *h == '=';
    if (exact)
        h++;
    char list[160];
    size_t n = strcspn(h, " ");
    snprintf(list, sizeof list, "%.*s", (int)(n < sizeof list ? n : sizeof list - 1), h);
    bool listed = false;
    for (char *save = NULL, *w = strtok_r(list, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
        char *colon = strchr(w, ':');
        if (colon)
            *colon = '\0';
        listed |= exact ? strcmp(w, dev) == 0 : strncmp(dev, w, strlen(w)) == 0;
    }
    return exclude ? !listed : listed;
}

/* NCCL_IB_DISABLE=1 or NCCL_NET=Socket: NCCL uses no RDMA device. */
static bool ib_off(const char *env)
{
    const char *d = env ? strstr(env, "NCCL_IB_DISABLE=") : NULL, *s = env ? strstr(env, "NCCL_NET=") : NULL;
    return (d && d[16] == '1') || (s && strncasecmp(s + 9, "Socket", 6) == 0);
}

void gd_node_net_of(const gd_net_facts *net, const char *env, gd_node_net *out, gd_node_port *ports, size_t *count,
                    size_t cap)
{
    *out = (gd_node_net){.now_gbs = NAN, .best_gbs = NAN, .slowest_gbps = NAN, .fastest_gbps = NAN, .gdr = -1};
    *count = 0;
    if (!net || !net->devices_read)
        return;
    out->gdr = net->peermem == GD_PEERMEM_LOADED ? 1 : net->peermem == GD_PEERMEM_ABSENT ? 0 : -1;
    bool off = ib_off(env), eth = false;
    for (size_t d = 0; d < net->dev_count; d++) {
        const gd_net_dev *dev = &net->devs[d];
        if (!gd_nccl_hca_admits(env, dev->name))
            continue;
        for (size_t p = 0; p < dev->port_count; p++) {
            const gd_net_port *pt = &dev->ports[p];
            bool active = pt->state == GD_PORT_ACTIVE;
            double rate = gd_ok(pt->rate_gbps) && pt->rate_gbps.v > 0 ? pt->rate_gbps.v : NAN;
            if (*count < cap) {
                gd_node_port *np = &ports[(*count)++];
                *np = (gd_node_port){.port = pt->port, .active = active, .rate_gbps = rate};
                snprintf(np->dev, sizeof np->dev, "%s", dev->name);
            }
            if (off || !active || isnan(rate))
                continue;
            eth |= pt->link_layer == GD_LINK_ETHERNET;
            if (out->ports++ == 0 || rate < out->slowest_gbps) {
                out->slowest_gbps = rate;
                snprintf(out->slowest, sizeof out->slowest, "%s/%d", dev->name, pt->port);
            }
            if (isnan(out->fastest_gbps) || rate > out->fastest_gbps)
                out->fastest_gbps = rate;
        }
    }
    if (out->ports == 0) {
        snprintf(out->transport, sizeof out->transport, "Socket");
        return;
    }
    snprintf(out->transport, sizeof out->transport, "%s", eth ? "RoCE" : "IB");
    out->now_gbs = out->ports * out->slowest_gbps / 8;
    out->best_gbs = out->ports * out->fastest_gbps / 8;
    if (!(out->slowest_gbps < out->fastest_gbps))
        out->slowest[0] = '\0'; /* all alike: no port sets the pace more than another */
}

void gd_nodes_expect_of(const gd_node_view *v, size_t n, gd_nodes_expect *e)
{
    *e = (gd_nodes_expect){.busbw_gbs = NAN, .net_gbs = NAN, .net_rank = -1, .intra_gbs = NAN, .intra_rank = -1};
    for (size_t i = 0; i < n; i++) {
        if (!v[i].reported)
            continue;
        double best = v[i].net.best_gbs * GD_NT_NET_EFFICIENCY;
        if (!isnan(best) && (isnan(e->net_gbs) || best > e->net_gbs)) {
            e->net_gbs = best;
            e->net_rank = v[i].rank;
        }
        if (!isnan(v[i].intra_expect_gbs) && (isnan(e->intra_gbs) || v[i].intra_expect_gbs < e->intra_gbs)) {
            e->intra_gbs = v[i].intra_expect_gbs;
            e->intra_rank = v[i].rank;
        }
    }
    if (n == 1) { /* one node: no NIC carries any of it, its own ring is the bar */
        e->net_gbs = NAN;
        e->net_rank = -1;
        e->busbw_gbs = e->intra_gbs;
        if (isnan(e->busbw_gbs))
            snprintf(e->why_not, sizeof e->why_not, "one node, whose own ring has no expectation");
        return;
    }
    if (isnan(e->net_gbs)) {
        snprintf(e->why_not, sizeof e->why_not,
                 "no node reported an Active RDMA port with a known rate: NCCL's network cannot be judged from the "
                 "NICs");
        return;
    }
    e->busbw_gbs = isnan(e->intra_gbs) ? e->net_gbs : fmin(e->net_gbs, e->intra_gbs);
}
