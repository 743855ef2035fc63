/* SPDX-License-Identifier: Apache-2.0 */
/* The bench facts (gpudoctor/bench.h) and the datasheet table they are judged against. */
#include "gpudoctor/bench.h"
#include "gpudoctor/bench_nodes.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

extern const char gd_data_gpu_peaks[];

static const char *const dtype_names[GD_GEMM_DTYPES] = {"bf16", "fp16", "tf32", "fp32", "fp8"};

const char *gd_gemm_dtype_name(gd_gemm_dtype t)
{
    return (unsigned)t < GD_GEMM_DTYPES ? dtype_names[t] : "?";
}

int gd_gemm_dtype_parse(const char *s, gd_gemm_dtype *out)
{
    for (int i = 0; s && i < GD_GEMM_DTYPES; i++)
        if (strcasecmp(s, dtype_names[i]) == 0) {
            *out = (gd_gemm_dtype)i;
            return 0;
        }
    return -1;
}

long gd_bench_facts_gpu(const gd_facts *f, const gd_bench_gpu *g)
{
    for (size_t i = 0; g->gpu >= 0 && i < f->gpu_count; i++)
        if (f->gpus[i].index == g->gpu)
            return (long)i;
    return -1;
}

const char *gd_bench_product(const gd_facts *f, const gd_bench_gpu *g)
{
    long i = gd_bench_facts_gpu(f, g);
    return i >= 0 && f->gpus[i].name[0] ? f->gpus[i].name : g->name;
}

gd_bench_facts *gd_bench_facts_get(gd_facts *f)
{
    if (!f->bench)
        f->bench = calloc(1, sizeof *f->bench);
    return f->bench;
}

void gd_bench_facts_free(gd_bench_facts *b)
{
    if (!b)
        return;
    for (size_t i = 0; i < b->gpu_count; i++)
        free(b->gpus[i].ticks);
    free(b->gpus);
    free(b->nccl);
    free(b->p2p_pairs);
    if (b->nodes) {
        gd_nccl_nodes_free(b->nodes);
        free(b->nodes);
    }
    free(b);
}

void gd_nccl_nodes_free(gd_nccl_nodes *n)
{
    free(n->nodes);
    free(n->pairs);
    n->nodes = NULL;
    n->pairs = NULL;
}

double gd_nccl_algbw_gbps(size_t bytes, double seconds)
{
    return seconds > 0 && bytes > 0 ? (double)bytes / seconds / 1e9 : NAN;
}

double gd_nccl_busbw_factor(gd_nccl_coll c, int n)
{
    if (n < 1)
        return NAN;
    return c == GD_NCCL_ALL_REDUCE ? 2.0 * (n - 1) / n : c == GD_NCCL_ALL_GATHER ? (double)(n - 1) / n : NAN;
}

const char *gd_nccl_coll_name(gd_nccl_coll c)
{
    return c == GD_NCCL_ALL_REDUCE ? "all_reduce" : c == GD_NCCL_ALL_GATHER ? "all_gather" : "?";
}

/* Does `name` contain `word` with no letter or digit right before or after? */
static bool has_word(const char *name, const char *word)
{
    size_t n = strlen(word);
    for (const char *p = name; n && (p = strcasestr(p, word)) != NULL; p++) {
        bool before = p == name || !isalnum((unsigned char)p[-1]);
        bool after = !isalnum((unsigned char)p[n]);
        if (before && after)
            return true;
    }
    return false;
}

static double figure(const char *s)
{
    char *end;
    double v = strtod(s, &end);
    return end != s && *end == '\0' && v > 0 ? v : NAN;
}

bool gd_gpu_peak_find(const char *product_name, gd_gpu_peak *out)
{
    if (!product_name || !*product_name)
        return false;
    for (const char *p = gd_data_gpu_peaks; *p;) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        char line[512];
        snprintf(line, sizeof line, "%.*s", (int)len, p);
        p = nl ? nl + 1 : p + len;
        if (!line[0] || line[0] == '#')
            continue;
        char *f[9], *save = NULL;
        size_t n = 0;
        for (char *tok = strtok_r(line, "\t", &save); tok && n < 9; tok = strtok_r(NULL, "\t", &save))
            f[n++] = tok;
        if (n != 9 || !has_word(product_name, f[0]))
            continue;
        memset(out, 0, sizeof *out);
        snprintf(out->label, sizeof out->label, "%s", f[1]);
        for (int t = 0; t < GD_GEMM_DTYPES; t++)
            out->tflops[t] = figure(f[2 + t]);
        out->membw_gbps = figure(f[7]);
        snprintf(out->source, sizeof out->source, "%s", f[8]);
        return true;
    }
    return false;
}

#define TERMINATE(s) ((s)[sizeof(s) - 1] = '\0')

/* A rate as received: finite and not negative, else unknown. */
static double rate_of(double v)
{
    return isfinite(v) && v >= 0 ? v : NAN;
}

/* A bool as received: any byte but 0 is true (reading a byte other than 0
 * or 1 as a bool is undefined). */
static void bool_fix(bool *b)
{
    unsigned char raw;
    memcpy(&raw, b, 1);
    *b = raw != 0;
}

static void bench_sanitize(gd_nccl_bench *b)
{
    bool_fix(&b->failed);
    bool_fix(&b->remote);
    TERMINATE(b->library);
    TERMINATE(b->detail);
    TERMINATE(b->error);
    TERMINATE(b->skipped);
    TERMINATE(b->env);
    if (b->ranks < 0 || b->ranks > GD_NCCL_MAX_RANKS)
        b->ranks = 0;
    if (b->verdict != GD_VERIFY_OK && b->verdict != GD_VERIFY_WRONG)
        b->verdict = GD_VERIFY_NOT_RUN;
    for (int c = 0; c < GD_NCCL_COLLS; c++) {
        if (b->point_count[c] > GD_NCCL_MAX_POINTS)
            b->point_count[c] = GD_NCCL_MAX_POINTS;
        b->peak_busbw_gbps[c] = rate_of(b->peak_busbw_gbps[c]);
        for (size_t i = 0; i < b->point_count[c]; i++) {
            gd_nccl_point *p = &b->points[c][i];
            p->time_us = rate_of(p->time_us);
            p->algbw_gbps = rate_of(p->algbw_gbps);
            p->busbw_gbps = rate_of(p->busbw_gbps);
        }
    }
}

void gd_node_view_sanitize(gd_node_view *v)
{
    bool_fix(&v->arrived);
    bool_fix(&v->reported);
    TERMINATE(v->host);
    TERMINATE(v->error);
    TERMINATE(v->net.transport);
    TERMINATE(v->net.slowest);
    if (v->port_count > GD_NODE_PORTS)
        v->port_count = GD_NODE_PORTS;
    for (size_t i = 0; i < v->port_count; i++) {
        TERMINATE(v->ports[i].dev);
        bool_fix(&v->ports[i].active);
        v->ports[i].rate_gbps = rate_of(v->ports[i].rate_gbps);
    }
    if (v->note_count > GD_NODE_NOTES)
        v->note_count = GD_NODE_NOTES;
    for (size_t i = 0; i < v->note_count; i++) {
        TERMINATE(v->notes[i].id);
        TERMINATE(v->notes[i].title);
        if (v->notes[i].severity != GD_SEV_INFO && v->notes[i].severity != GD_SEV_WARNING &&
            v->notes[i].severity != GD_SEV_CRITICAL)
            v->notes[i].severity = GD_SEV_INFO;
    }
    if (v->gpus < 0 || v->gpus > GD_NCCL_MAX_RANKS)
        v->gpus = 0;
    if (v->net.ports < 0 || v->net.ports > GD_NODE_PORTS * 8)
        v->net.ports = 0;
    v->net.now_gbs = rate_of(v->net.now_gbs);
    v->net.best_gbs = rate_of(v->net.best_gbs);
    v->net.slowest_gbps = rate_of(v->net.slowest_gbps);
    v->net.fastest_gbps = rate_of(v->net.fastest_gbps);
    if (v->net.gdr < -1 || v->net.gdr > 1)
        v->net.gdr = -1;
    v->intra_expect_gbs = rate_of(v->intra_expect_gbs);
    v->joined_s = rate_of(v->joined_s);
    bench_sanitize(&v->world);
}
