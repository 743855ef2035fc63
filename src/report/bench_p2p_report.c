/* SPDX-License-Identifier: Apache-2.0 */
/* `gpudoctor bench p2p`: the GPU-to-GPU matrix, and each kind of path with what it allows. */
#include "analysis/p2p_path.h"
#include "bench_gpu_report.h"
#include "core/json_util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static json_t *num1(double v)
{
    return isnan(v) ? json_null() : gd_json_number(round(v * 10) / 10);
}

static int gpu_of(const gd_facts *f, const gd_bench_facts *b, size_t row)
{
    long g = gd_bench_facts_gpu(f, &b->gpus[row]);
    return g >= 0 ? f->gpus[g].index : -1;
}

static bool path_of_rows(const gd_facts *f, const gd_bench_facts *b, size_t x, size_t y, gd_p2p_path *path)
{
    long a = gd_bench_facts_gpu(f, &b->gpus[x]), c = gd_bench_facts_gpu(f, &b->gpus[y]);
    return a >= 0 && c >= 0 && gd_p2p_path_of(f, (size_t)a, (size_t)c, path) == 0;
}

static const gd_p2p_pair *pair_of(const gd_bench_facts *b, size_t src, size_t dst)
{
    for (size_t i = 0; i < b->p2p_pair_count; i++)
        if (b->p2p_pairs[i].src == src && b->p2p_pairs[i].dst == dst)
            return &b->p2p_pairs[i];
    return NULL;
}

json_t *gd_bench_p2p_json(const gd_facts *f)
{
    const gd_bench_facts *b = f->bench;
    json_t *root = json_object();
    json_object_set_new(root, "bytes", json_integer((json_int_t)b->p2p_bytes));
    json_object_set_new(root, "reps", json_integer(b->p2p_reps));
    json_object_set_new(root, "unit", json_string("GB/s (1e9 bytes/s) per direction; bidirectional: both summed"));
    json_t *pairs = json_array();
    for (size_t i = 0; i < b->p2p_pair_count; i++) {
        const gd_p2p_pair *p = &b->p2p_pairs[i];
        json_t *o = json_object();
        int ga = gpu_of(f, b, p->src), gb = gpu_of(f, b, p->dst);
        json_object_set_new(o, "from", ga >= 0 ? json_integer(ga) : json_null());
        json_object_set_new(o, "to", gb >= 0 ? json_integer(gb) : json_null());
        json_object_set_new(o, "cuda_from", json_integer(b->gpus[p->src].cuda_device));
        json_object_set_new(o, "cuda_to", json_integer(b->gpus[p->dst].cuda_device));
        json_object_set_new(o, "can_access_peer", p->can_access < 0 ? json_null() : json_boolean(p->can_access));
        json_object_set_new(o, "peer_access", json_boolean(p->peer_enabled));
        json_object_set_new(o, "gbps", num1(p->uni_gbps));
        json_object_set_new(o, "bidirectional_gbps", num1(p->bidi_gbps));
        gd_p2p_path path;
        if (path_of_rows(f, b, p->src, p->dst, &path)) {
            json_t *x = json_object();
            json_object_set_new(x, "route", json_string(gd_p2p_route_name(path.route)));
            json_object_set_new(x, "nvlinks", json_integer(path.nvlinks));
            /* The path's rate is its slowest hop as it runs; what it carries trained fully beside it. */
            json_object_set_new(x, "allows_gbps", num1(gd_p2p_path_rate(&path, true)));
            json_object_set_new(x, "allows_full_gbps", num1(gd_p2p_path_rate(&path, false)));
            json_object_set_new(x, "expected_gbps", num1(gd_p2p_path_expected(&path, false)));
            json_object_set_new(x, "cpu_link", path.cpu_link[0] ? json_string(path.cpu_link) : json_null());
            json_object_set_new(x, "cpu_link_gbps", num1(path.cpu_gbps));
            json_object_set_new(x, "limit", json_string(path.limit));
            json_object_set_new(o, "path", x);
        } else {
            json_object_set_new(o, "path", json_null());
        }
        json_object_set_new(o, "verified",
                            json_string(p->verdict == GD_VERIFY_OK      ? "ok"
                                        : p->verdict == GD_VERIFY_WRONG ? "wrong"
                                                                        : "not run"));
        json_object_set_new(o, "check", p->detail[0] ? json_string(p->detail) : json_null());
        json_object_set_new(o, "error", p->error[0] ? json_string(p->error) : json_null());
        json_array_append_new(pairs, o);
    }
    json_object_set_new(root, "pairs", pairs);
    return root;
}

static void matrix(FILE *out, const gd_facts *f, const gd_bench_facts *b, bool both)
{
    size_t n = b->gpu_count;
    fprintf(out, "%-9s", both ? "  both" : "  from\\to");
    for (size_t c = 0; c < n; c++)
        fprintf(out, " %6d", gpu_of(f, b, c));
    fputc('\n', out);
    for (size_t r = 0; r < n; r++) {
        fprintf(out, "  %-7d", gpu_of(f, b, r));
        for (size_t c = 0; c < n; c++) {
            const gd_p2p_pair *p = r == c ? NULL : both ? pair_of(b, r < c ? r : c, r < c ? c : r) : pair_of(b, r, c);
            double v = !p ? NAN : both ? p->bidi_gbps : p->uni_gbps;
            if (r == c)
                fprintf(out, " %6s", "-");
            else if (isnan(v))
                fprintf(out, " %6s", "n/a");
            else
                fprintf(out, " %6.1f", v);
        }
        fputc('\n', out);
    }
}

void gd_bench_p2p_text(FILE *out, const gd_facts *f, const gd_text_style *st)
{
    const gd_bench_facts *b = f->bench;
    char head[256];
    snprintf(head, sizeof head,
             "GPU-to-GPU copies, GB/s per direction: %zu MiB copies on the copy engines, median "
             "of %d%s",
             b->p2p_bytes >> 20, b->p2p_reps, f->simulated ? "  [SIMULATION]" : "");
    gd_wrap(out, st, 0, 0, head);
    matrix(out, f, b, false);
    fputs("Both directions at once (the two summed):\n", out);
    matrix(out, f, b, true);
    /* Each kind of path once: its rate, and what its pairs measured. A pair
     * is two GPUs, measured each way (the matrix's two cells). The pairs'
     * paths are worked out once, then grouped by what they say. */
    gd_wrap(out, st, 0, 0,
            "Paths (a pair is two GPUs, copied each way; a path runs at its slowest hop's rate, of which a healthy "
            "node copies about 80%):");
    size_t n = b->p2p_pair_count;
    char(*key)[240] = calloc(n ? n : 1, sizeof *key);
    double *allows = calloc(n ? n : 1, sizeof *allows);
    for (size_t i = 0; key && allows && i < n; i++) {
        gd_p2p_path path;
        if (path_of_rows(f, b, b->p2p_pairs[i].src, b->p2p_pairs[i].dst, &path)) {
            snprintf(key[i], sizeof key[i], "%s: %s", gd_p2p_route_name(path.route), path.limit);
            allows[i] = gd_p2p_path_expected(&path, false);
        }
    }
    for (size_t i = 0, shown = 0; key && allows && i < n && shown < 16; i++) {
        bool first = key[i][0];
        for (size_t k = 0; k < i && first; k++)
            first = strcmp(key[k], key[i]) != 0;
        if (!first)
            continue;
        shown++;
        size_t pairs = 0, unsupported = 0;
        double lo = NAN, hi = NAN;
        for (size_t k = i; k < n; k++) {
            const gd_p2p_pair *q = &b->p2p_pairs[k];
            if (strcmp(key[k], key[i]) != 0)
                continue;
            /* Each pair once: its other direction, when measured on the same path, is not another pair. */
            const gd_p2p_pair *back = pair_of(b, q->dst, q->src);
            bool counted = back && back < q && strcmp(key[back - b->p2p_pairs], key[i]) == 0;
            pairs += !counted;
            unsupported += !counted && !q->peer_enabled;
            if (!isnan(q->uni_gbps)) {
                lo = isnan(lo) || q->uni_gbps < lo ? q->uni_gbps : lo;
                hi = isnan(hi) || q->uni_gbps > hi ? q->uni_gbps : hi;
            }
        }
        char measured[64] = "not measured";
        if (!isnan(lo) && hi - lo < 0.05)
            snprintf(measured, sizeof measured, "%.1f GB/s", lo);
        else if (!isnan(lo))
            snprintf(measured, sizeof measured, "%.1f to %.1f GB/s", lo, hi);
        char line[512];
        snprintf(line, sizeof line, "%s: %zu pair%s copied %s each way%s; a healthy node copies about %.1f GB/s",
                 key[i], pairs, pairs == 1 ? "" : "s", measured,
                 unsupported ? " without P2P (staged through host memory)" : "", allows[i]);
        fputs("  ", out);
        gd_wrap(out, st, 4, 2, line);
    }
    free(key);
    free(allows);
    fputc('\n', out);
}
