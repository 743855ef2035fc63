/* SPDX-License-Identifier: Apache-2.0 */
/* bench nccl's section of the bench report: see bench_nccl_report.h. */
#include "bench_nccl_report.h"

#include "analysis/nccl_expect.h"
#include "core/json_util.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static json_t *num(double v, double scale)
{
    return isnan(v) ? json_null() : gd_json_number(round(v * scale) / scale);
}

/* "2.22.3" of NCCL_VERSION_CODE 22203 (2.9 and later: X * 10000 + Y * 100 + Z). */
static void version_text(int v, char *buf, size_t len)
{
    if (v >= 10000)
        snprintf(buf, len, "%d.%d.%d", v / 10000, v % 10000 / 100, v % 100);
    else if (v > 0)
        snprintf(buf, len, "%d.%d.%d", v / 1000, v % 1000 / 100, v % 100);
    else
        snprintf(buf, len, "unknown");
}

json_t *gd_bench_nccl_sweep_json(const gd_nccl_bench *n, gd_nccl_coll c)
{
    json_t *o = json_object(), *pts = json_array();
    json_object_set_new(o, "peak_busbw_gbps", num(n->peak_busbw_gbps[c], 10));
    for (size_t i = 0; i < n->point_count[c]; i++) {
        const gd_nccl_point *p = &n->points[c][i];
        json_t *x = json_object();
        json_object_set_new(x, "bytes", json_integer((json_int_t)p->bytes));
        json_object_set_new(x, "time_us", num(p->time_us, 10));
        json_object_set_new(x, "algbw_gbps", num(p->algbw_gbps, 100));
        json_object_set_new(x, "busbw_gbps", num(p->busbw_gbps, 100));
        json_array_append_new(pts, x);
    }
    json_object_set_new(o, "points", pts);
    return o;
}

const char *gd_bench_verdict_name(gd_bench_verdict v)
{
    return v == GD_VERIFY_OK ? "ok" : v == GD_VERIFY_WRONG ? "wrong" : "not_checked";
}

json_t *gd_bench_nccl_json(const gd_facts *f)
{
    const gd_nccl_bench *n = f->bench ? f->bench->nccl : NULL;
    if (!n)
        return NULL;
    json_t *o = json_object(), *gpus = json_array();
    json_object_set_new(o, "library", n->library[0] ? json_string(n->library) : json_null());
    json_object_set_new(o, "version", n->version ? json_integer(n->version) : json_null());
    json_object_set_new(o, "ranks", json_integer(n->ranks));
    for (int i = 0; i < n->ranks; i++)
        json_array_append_new(gpus, n->gpus[i] >= 0 ? json_integer(n->gpus[i]) : json_null());
    json_object_set_new(o, "gpus", gpus);
    json_object_set_new(o, "iters", json_integer(n->iters));
    json_object_set_new(o, "warmup", json_integer(n->warmup));
    json_object_set_new(o, "env", n->env[0] ? json_string(n->env) : json_null());
    json_object_set_new(o, "skipped", n->skipped[0] ? json_string(n->skipped) : json_null());
    json_object_set_new(o, "verified", json_string(gd_bench_verdict_name(n->verdict)));
    json_object_set_new(o, "check", n->detail[0] ? json_string(n->detail) : json_null());
    json_object_set_new(o, "error", n->error[0] ? json_string(n->error) : json_null());
    json_object_set_new(o, "unit", json_string("GB/s (1e9 bytes per second; busbw as nccl-tests' PERFORMANCE.md)"));
    for (int c = 0; c < GD_NCCL_COLLS; c++)
        json_object_set_new(o, gd_nccl_coll_name((gd_nccl_coll)c), gd_bench_nccl_sweep_json(n, (gd_nccl_coll)c));
    gd_nccl_expect e;
    json_t *x = json_object();
    bool known = !n->skipped[0] && gd_nccl_expect_of(f, n, &e) == 0;
    json_object_set_new(x, "busbw_gbps", known ? num(e.busbw_gbps, 10) : json_null());
    json_object_set_new(x, "edge", known ? json_pack("[i,i]", e.slowest.gpu_a, e.slowest.gpu_b) : json_null());
    json_object_set_new(x, "edge_gbps", known ? num(e.slowest.rate_gbps, 10) : json_null());
    json_object_set_new(x, "edge_full_gbps", known ? num(e.slowest.gbps, 10) : json_null());
    json_object_set_new(x, "efficiency", known ? num(e.slowest.efficiency, 100) : json_null());
    json_object_set_new(x, "host_staged", json_boolean(known && e.slowest.host_staged));
    json_object_set_new(x, "limit", !n->skipped[0] && e.slowest.limit[0] ? json_string(e.slowest.limit) : json_null());
    json_object_set_new(o, "expected", x);
    json_object_set_new(o, "of_expected",
                        known ? num(n->peak_busbw_gbps[GD_NCCL_ALL_REDUCE] / e.busbw_gbps, 1000) : json_null());
    return o;
}

static void size_text(size_t b, char *buf, size_t len)
{
    if (b >= ((size_t)1 << 30) && b % ((size_t)1 << 30) == 0)
        snprintf(buf, len, "%zu GiB", b >> 30);
    else if (b >= ((size_t)1 << 20))
        snprintf(buf, len, "%.0f MiB", (double)b / (1 << 20));
    else
        snprintf(buf, len, "%zu KiB", b >> 10);
}

static void cell(FILE *out, const gd_nccl_bench *n, gd_nccl_coll c, size_t i)
{
    if (i >= n->point_count[c]) {
        fprintf(out, " %9s %7s %7s", "-", "-", "-");
        return;
    }
    const gd_nccl_point *p = &n->points[c][i];
    fprintf(out, " %9.1f %7.1f %7.1f", p->time_us, p->algbw_gbps, p->busbw_gbps);
}

void gd_bench_nccl_text(FILE *out, const gd_facts *f, const gd_text_style *st)
{
    const gd_nccl_bench *n = f->bench ? f->bench->nccl : NULL;
    if (!n)
        return;
    char line[1024], ver[32];
    const char *sim = f->simulated ? "  [SIMULATION]" : "";
    if (n->skipped[0]) {
        snprintf(line, sizeof line, "NCCL: not measured: %s%s", n->skipped, sim);
        gd_wrap(out, st, 0, 0, line);
        fputc('\n', out);
        return;
    }
    version_text(n->version, ver, sizeof ver);
    snprintf(line, sizeof line,
             "NCCL all-reduce and all-gather over %d GPUs, NCCL %s, float32, %d timed after %d warm-up per "
             "size%s",
             n->ranks, ver, n->iters, n->warmup, sim);
    gd_wrap(out, st, 0, 0, line);
    size_t rows = n->point_count[0] > n->point_count[1] ? n->point_count[0] : n->point_count[1];
    if (rows) {
        fprintf(out, "%8s %-25s %s\n", "", " all-reduce", " all-gather");
        fprintf(out, "%8s %9s %7s %7s %9s %7s %7s\n", "size", "time us", "algbw", "busbw", "time us", "algbw", "busbw");
        for (size_t i = 0; i < rows; i++) {
            char sz[24];
            size_text(n->points[n->point_count[0] > i ? 0 : 1][i].bytes, sz, sizeof sz);
            fprintf(out, "%8s", sz);
            cell(out, n, GD_NCCL_ALL_REDUCE, i);
            cell(out, n, GD_NCCL_ALL_GATHER, i);
            fputc('\n', out);
        }
        gd_wrap(out, st, 0, 0,
                "size: the all-reduce's buffer, all-gather's received bytes per GPU; algbw: size over time; busbw: "
                "algbw x 2(n-1)/n (all-reduce) or (n-1)/n (all-gather), nccl-tests' bus bandwidth, GB/s.");
    }
    gd_nccl_expect e;
    double peak = n->peak_busbw_gbps[GD_NCCL_ALL_REDUCE];
    if (!isnan(peak)) {
        if (gd_nccl_expect_of(f, n, &e) == 0)
            snprintf(line, sizeof line,
                     "Peak bus bandwidth: all-reduce %.1f GB/s, all-gather %.1f GB/s; expected %.0f GB/s (%.2f x "
                     "%.1f GB/s, the slowest ring edge with every link trained fully, GPU %d - GPU %d: %s): %.0f%%",
                     peak, n->peak_busbw_gbps[GD_NCCL_ALL_GATHER], e.busbw_gbps, e.slowest.efficiency, e.slowest.gbps,
                     e.slowest.gpu_a, e.slowest.gpu_b, e.slowest.limit, 100 * peak / e.busbw_gbps);
        else
            snprintf(line, sizeof line,
                     "Peak bus bandwidth: all-reduce %.1f GB/s, all-gather %.1f GB/s; expected: not known (%s)", peak,
                     n->peak_busbw_gbps[GD_NCCL_ALL_GATHER],
                     e.slowest.limit[0] ? e.slowest.limit : "the GPUs' paths are not known");
        gd_wrap(out, st, 0, 0, line);
    }
    snprintf(line, sizeof line, "Data: %s%s", n->verdict == GD_VERIFY_WRONG ? "WRONG: " : "",
             n->detail[0] ? n->detail : "not checked");
    gd_wrap(out, st, 0, 0, line);
    if (n->error[0]) {
        snprintf(line, sizeof line, "Error: %s", n->error);
        gd_wrap(out, st, 0, 0, line);
    }
    if (n->env[0]) {
        snprintf(line, sizeof line, "NCCL settings in force: %s", n->env);
        gd_wrap(out, st, 0, 0, line);
    }
    /* The path in JSON; a simulated run's lies in the build tree. */
    snprintf(line, sizeof line, "Library: %s",
             f->simulated    ? "the simulated libnccl.so.2"
             : n->library[0] ? n->library
                             : "-");
    gd_wrap(out, st, 0, 0, line);
    fputc('\n', out);
}
