/* SPDX-License-Identifier: Apache-2.0 */
/* An nccl-tests table worked out: see nccl_tests_judge.h. */
#include "nccl_tests_judge.h"
#include "node_net.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Rows in size order (a table lists them so; a paste of two runs may not). */
static int by_bytes(const void *a, const void *b)
{
    const gd_nt_row *x = *(const gd_nt_row *const *)a, *y = *(const gd_nt_row *const *)b;
    return x->bytes < y->bytes ? -1 : x->bytes > y->bytes;
}

void gd_nt_summarize(const gd_nt_table *x, gd_nt_summary *s)
{
    memset(s, 0, sizeof *s);
    s->peak_busbw_gbps = s->largest_busbw_gbps = s->collapse_busbw_gbps = s->before_busbw_gbps = NAN;
    const gd_nt_row *r[GD_NT_MAX_ROWS];
    size_t n = 0;
    for (size_t i = 0; i < x->row_count; i++)
        if (!isnan(gd_nt_row_busbw(&x->rows[i])))
            r[n++] = &x->rows[i];
    if (n == 0)
        return;
    qsort(r, n, sizeof r[0], by_bytes);
    for (size_t i = 0; i < n; i++) {
        double b = gd_nt_row_busbw(r[i]);
        if (isnan(s->peak_busbw_gbps) || b > s->peak_busbw_gbps) {
            s->peak_busbw_gbps = b;
            s->peak_bytes = r[i]->bytes;
        }
    }
    s->largest_busbw_gbps = gd_nt_row_busbw(r[n - 1]);
    s->largest_bytes = r[n - 1]->bytes;
    /* The first size from which every larger one stays under the ratio of the best before it. */
    double best = NAN;
    size_t best_bytes = 0;
    for (size_t k = 0; k + GD_NT_COLLAPSE_MIN_ROWS <= n; k++) {
        double b = gd_nt_row_busbw(r[k]);
        if (!isnan(best) && best_bytes >= GD_NT_COLLAPSE_MIN_BYTES) {
            double after = 0;
            for (size_t j = k; j < n; j++)
                after = fmax(after, gd_nt_row_busbw(r[j]));
            if (after < GD_NT_COLLAPSE_RATIO * best) {
                s->collapse = true;
                s->collapse_bytes = r[k]->bytes;
                s->collapse_busbw_gbps = after;
                s->before_busbw_gbps = best;
                s->before_bytes = best_bytes;
                return;
            }
        }
        if (isnan(best) || b > best) {
            best = b;
            best_bytes = r[k]->bytes;
        }
    }
}

static int by_rate_desc(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x > y ? -1 : x < y;
}

int gd_nt_expect_of(const gd_net_facts *net, const gd_nt_table *x, gd_nt_expect *e)
{
    memset(e, 0, sizeof *e);
    e->line_gbps = e->busbw_gbps = NAN;
    if (x->nodes == 1) {
        snprintf(e->why_not, sizeof e->why_not, "the run is on one node: its NICs carry none of it");
        return -1;
    }
    if (!net || !net->devices_read) {
        snprintf(e->why_not, sizeof e->why_not, "no NIC facts were given (an ibstat capture beside the table)");
        return -1;
    }
    if (x->nodes < 2) {
        snprintf(e->why_not, sizeof e->why_not, "the table does not say how many nodes ran it");
        return -1;
    }
    if (x->op != GD_NT_ALL_REDUCE && x->op != GD_NT_ALL_GATHER && x->op != GD_NT_REDUCE_SCATTER) {
        snprintf(e->why_not, sizeof e->why_not, "%s is not a ring collective whose busbw the NICs bound",
                 x->op ? gd_nt_op_name(x->op) : "the collective (not named)");
        return -1;
    }
    double rates[GD_NET_MAX_DEVS * GD_NET_MAX_PORTS];
    size_t n = 0, used = 0;
    for (size_t d = 0; d < net->dev_count; d++) {
        const gd_net_dev *dev = &net->devs[d];
        if (!gd_nccl_hca_admits(x->env, dev->name))
            continue;
        for (size_t p = 0; p < dev->port_count; p++) {
            const gd_net_port *pt = &dev->ports[p];
            if (pt->state != GD_PORT_ACTIVE || !gd_ok(pt->rate_gbps) || pt->rate_gbps.v <= 0)
                continue;
            rates[n++] = pt->rate_gbps.v;
            if (used < sizeof e->ports)
                used += (size_t)snprintf(e->ports + used, sizeof e->ports - used, "%s%s/%d %.0f Gb/s", used ? ", " : "",
                                         dev->name, pt->port, pt->rate_gbps.v);
        }
    }
    if (n == 0) {
        snprintf(e->why_not, sizeof e->why_not, "no RDMA port is Active with a known rate%s",
                 strstr(x->env, "NCCL_IB_HCA=") ? " among the devices NCCL_IB_HCA names" : "");
        return -1;
    }
    qsort(rates, n, sizeof rates[0], by_rate_desc);
    size_t use = n;
    if (x->ranks_per_node > 0 && (size_t)x->ranks_per_node < use)
        use = (size_t)x->ranks_per_node;
    double sum = 0;
    for (size_t i = 0; i < use; i++)
        sum += rates[i];
    e->nics = (int)use;
    e->line_gbps = sum / 8;
    e->busbw_gbps = e->line_gbps * GD_NT_NET_EFFICIENCY;
    return 0;
}

int gd_nt_expect_node(const gd_facts *f, const gd_nt_table *x, gd_nccl_expect *e, char *why_not, size_t len)
{
    memset(e, 0, sizeof *e);
    e->busbw_gbps = NAN;
    if (x->nodes != 1 || x->op != GD_NT_ALL_REDUCE) {
        snprintf(why_not, len, "%s", x->nodes != 1 ? "the run is not on one node" : "the collective is not all-reduce");
        return -1;
    }
    if (f->gpu_count == 0) {
        snprintf(why_not, len, "no GPU facts were given (nvidia-smi -q -x and nvidia-smi topo -m beside the table)");
        return -1;
    }
    if (x->ranks != (int)f->gpu_count || x->ranks < 2 || x->ranks > GD_NCCL_MAX_RANKS) {
        snprintf(why_not, len, "the run's %d ranks are not the node's %zu GPUs", x->ranks, f->gpu_count);
        return -1;
    }
    gd_nccl_bench b;
    memset(&b, 0, sizeof b);
    b.ranks = x->ranks;
    for (int i = 0; i < x->ranks; i++)
        b.gpus[i] = f->gpus[i].index;
    if (gd_nccl_expect_of(f, &b, e) != 0) {
        snprintf(why_not, len, "the ring's paths are not known: %s",
                 e->slowest.limit[0] ? e->slowest.limit : "no link facts");
        return -1;
    }
    return 0;
}
