/* SPDX-License-Identifier: Apache-2.0 */
/* The slow node or link from node pairs (locate_slow.h). */
#include "analysis/locate_slow.h"

#include <math.h>
#include <stdlib.h>

size_t gd_locate_rounds(size_t n)
{
    size_t k = 0;
    while (n > 1 && ((size_t)1 << k) < n)
        k++;
    return k;
}

long gd_locate_partner(size_t n, size_t round, size_t node)
{
    size_t p = node ^ ((size_t)1 << round);
    return p < n ? (long)p : -1;
}

/* What a pair should reach: the slower end's NICs, else the best pair seen. */
static double expected(const gd_pair_result *p, const double *cap, double best)
{
    double a = cap ? cap[p->a] : NAN, b = cap ? cap[p->b] : NAN;
    double e = isnan(a) ? b : isnan(b) ? a : fmin(a, b);
    return isnan(e) ? best : e;
}

int gd_locate_slow(size_t n, const gd_pair_result *pairs, size_t npairs, const double *cap_gbs, gd_locate *out)
{
    *out = (gd_locate){.n = n};
    if (n == 0)
        return 0;
    if (!(out->nodes = calloc(n, sizeof *out->nodes)))
        return -1;
    double best = 0;
    for (size_t i = 0; i < npairs; i++)
        if (!isnan(pairs[i].busbw_gbs) && pairs[i].busbw_gbs > best)
            best = pairs[i].busbw_gbs;
    bool *slow = calloc(npairs ? npairs : 1, sizeof *slow);
    if (!slow)
        return (gd_locate_free(out), -1);
    size_t fine_pairs = 0;
    for (size_t i = 0; i < npairs; i++) {
        const gd_pair_result *p = &pairs[i];
        if (p->a >= n || p->b >= n || p->a == p->b)
            continue;
        double e = expected(p, cap_gbs, best);
        bool failed = isnan(p->busbw_gbs);
        slow[i] = failed || p->busbw_gbs < GD_LOCATE_SLOW_RATIO * e;
        size_t ends[2] = {p->a, p->b};
        for (int k = 0; k < 2; k++) {
            gd_node_verdict *v = &out->nodes[ends[k]];
            if (failed)
                v->failed++;
            else if (slow[i])
                v->slow++;
            else
                v->fine++;
        }
        fine_pairs += !slow[i];
    }
    /* Nothing fine to compare with: any node could be the one. */
    if (fine_pairs == 0) {
        out->ambiguous = npairs > 0;
        free(slow);
        return 0;
    }
    for (size_t i = 0; i < n; i++) {
        gd_node_verdict *v = &out->nodes[i];
        v->blamed = v->fine == 0 && v->slow + v->failed > 0;
        out->blamed_nodes += v->blamed;
    }
    for (size_t i = 0; i < npairs && out->link_count < sizeof out->links / sizeof *out->links; i++)
        if (slow[i] && !out->nodes[pairs[i].a].blamed && !out->nodes[pairs[i].b].blamed)
            out->links[out->link_count++] = pairs[i];
    free(slow);
    return 0;
}

void gd_locate_free(gd_locate *l)
{
    free(l->nodes);
    l->nodes = NULL;
}
