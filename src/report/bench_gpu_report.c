/* SPDX-License-Identifier: Apache-2.0 */
/* `gpudoctor bench gemm | membw | stress | all`: figures against the datasheet and the peers. */
#include "bench_gpu_report.h"

#include "bench_nccl_report.h"
#include "bench_nodes_report.h"

#include "analysis/nccl_expect.h"

#include "core/json_util.h"
#include "gpudoctor/bench.h"
#include "gpudoctor/pcie.h"
#include "gpudoctor/report.h"
#include "pcie_report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define CURVE_WIDTH 48

static json_t *num(double v, double scale)
{
    return isnan(v) ? json_null() : gd_json_number(round(v * scale) / scale);
}

static const char *verdict_name(gd_bench_verdict v)
{
    return v == GD_VERIFY_OK ? "ok" : v == GD_VERIFY_WRONG ? "wrong" : "not_checked";
}

static json_t *stress_samples(const gd_facts *f, const gd_bench_gpu *g)
{
    json_t *a = json_array();
    long fg = gd_bench_facts_gpu(f, g);
    const gd_series *s = &f->series;
    for (size_t k = 0; k < g->tick_count; k++) {
        json_t *o = json_object();
        json_object_set_new(o, "t", gd_json_number(round(g->ticks[k].t * 1000) / 1000));
        json_object_set_new(o, "tflops", num(g->ticks[k].tflops, 10));
        /* The sample the tick ends at: the same index, the series holding the window. */
        size_t i = s->n >= g->tick_count ? s->n - g->tick_count + k : k;
        if (fg >= 0 && i < s->n) {
            json_object_set_new(o, "temp_c", gd_json_value(gd_series_at(s, i, (size_t)fg, GD_M_TEMP_C)));
            json_object_set_new(o, "sm_clock_mhz", gd_json_value(gd_series_at(s, i, (size_t)fg, GD_M_SM_CLOCK_MHZ)));
            json_object_set_new(o, "power_w", gd_json_value(gd_series_at(s, i, (size_t)fg, GD_M_POWER_W)));
            gd_value r = gd_series_at(s, i, (size_t)fg, GD_M_EVENT_REASONS);
            json_object_set_new(o, "reasons", gd_ok(r) ? gd_report_reasons_json((unsigned long long)r.v) : json_null());
        }
        json_array_append_new(a, o);
    }
    return a;
}

json_t *gd_bench_gpu_json(const gd_facts *f, const gd_findings *fs, const char *what)
{
    const gd_bench_facts *b = f->bench;
    json_t *root = json_object();
    json_object_set_new(root, "bench", json_string(what));
    json_object_set_new(root, "source", json_string(f->source));
    json_object_set_new(root, "simulated", json_boolean(f->simulated));
    if (b && (b->gemm || b->stress)) {
        json_t *g = json_object();
        json_object_set_new(g, "dtype", json_string(gd_gemm_dtype_name(b->dtype)));
        json_object_set_new(g, "m", json_integer(b->size));
        json_object_set_new(g, "n", json_integer(b->size));
        json_object_set_new(g, "k", json_integer(b->size));
        json_object_set_new(g, "seconds", b->gemm ? gd_json_number(b->seconds) : json_null());
        json_object_set_new(g, "library", json_string(b->cublaslt));
        json_object_set_new(g, "library_version",
                            b->cublaslt_version ? json_integer((json_int_t)b->cublaslt_version) : json_null());
        json_object_set_new(g, "unit", json_string("TFLOP/s (1e12 flop/s, a multiply-add counting 2)"));
        json_object_set_new(root, "gemm", g);
    }
    if (b && b->membw) {
        json_t *m = json_object();
        json_object_set_new(m, "bytes", json_integer((json_int_t)b->membw_bytes));
        json_object_set_new(m, "reps", json_integer(b->membw_reps));
        json_object_set_new(m, "unit", json_string("GB/s (1e9 bytes per second, bytes read plus bytes written)"));
        json_object_set_new(root, "membw", m);
    }
    if (b && b->stress)
        json_object_set_new(root, "stress_seconds", gd_json_number(b->stress_seconds));
    json_t *gpus = json_array();
    for (size_t i = 0; b && i < b->gpu_count; i++) {
        const gd_bench_gpu *g = &b->gpus[i];
        json_t *o = json_object();
        json_object_set_new(o, "index", g->gpu < 0 ? json_null() : json_integer(g->gpu));
        json_object_set_new(o, "cuda_device", json_integer(g->cuda_device));
        json_object_set_new(o, "pci_bus_id", json_string(g->bdf));
        json_object_set_new(o, "name", json_string(gd_bench_product(f, g)));
        gd_gpu_peak peak;
        bool have = gd_gpu_peak_find(gd_bench_product(f, g), &peak);
        json_t *ds = json_object();
        json_object_set_new(ds, "sku", have ? json_string(peak.label) : json_null());
        json_object_set_new(ds, "tflops",
                            have && (b->gemm || b->stress) ? num(peak.tflops[b->dtype], 100) : json_null());
        json_object_set_new(ds, "membw_gbps", have ? num(peak.membw_gbps, 1) : json_null());
        json_object_set_new(o, "datasheet", ds);
        double sheet_tf = have ? peak.tflops[b->dtype] : NAN;
        if (b->gemm || b->stress) {
            json_t *x = json_object();
            if (b->gemm) {
                json_object_set_new(x, "single_tflops", num(g->gemm_single_tflops, 10));
                json_object_set_new(x, "concurrent_tflops", num(g->gemm_concurrent_tflops, 10));
                json_object_set_new(x, "of_datasheet", num(g->gemm_single_tflops / sheet_tf, 1000));
            }
            json_object_set_new(x, "verified", json_string(verdict_name(g->gemm_verdict)));
            json_object_set_new(x, "check", g->gemm_detail[0] ? json_string(g->gemm_detail) : json_null());
            json_object_set_new(x, "error", g->gemm_error[0] ? json_string(g->gemm_error) : json_null());
            json_object_set_new(o, "gemm", x);
        }
        if (b->membw) {
            json_t *x = json_object();
            json_object_set_new(x, "copy_gbps", num(g->membw_copy_gbps, 1));
            json_object_set_new(x, "kernel_gbps", num(g->membw_kernel_gbps, 1));
            json_object_set_new(x, "of_datasheet", num(gd_bench_membw_best(g) / (have ? peak.membw_gbps : NAN), 1000));
            json_object_set_new(x, "verified", json_string(verdict_name(g->membw_verdict)));
            json_object_set_new(x, "check", g->membw_detail[0] ? json_string(g->membw_detail) : json_null());
            json_object_set_new(x, "error", g->membw_error[0] ? json_string(g->membw_error) : json_null());
            json_object_set_new(o, "membw", x);
        }
        if (b->stress) {
            json_t *x = json_object();
            json_object_set_new(x, "tflops", num(g->stress_tflops, 10));
            json_object_set_new(x, "samples", stress_samples(f, g));
            json_object_set_new(o, "stress", x);
        }
        json_array_append_new(gpus, o);
    }
    json_object_set_new(root, "gpus", gpus);
    json_t *nccl = gd_bench_nccl_json(f);
    if (nccl)
        json_object_set_new(root, "nccl", nccl);
    json_t *nodes = gd_bench_nodes_json(f);
    if (nodes)
        json_object_set_new(root, "nodes", nodes);
    if (b && b->p2p)
        json_object_set_new(root, "p2p", gd_bench_p2p_json(f));
    if (f->pcie && f->pcie->bench) {
        json_t *p = gd_bench_pcie_json(f, fs);
        json_object_del(p, "findings");
        json_object_del(p, "not_checked");
        json_object_set_new(root, "pcie", p);
    }
    gd_bench_add_findings(root, f, fs);
    return root;
}

static void cell(FILE *out, double v, int w, int prec)
{
    if (isnan(v))
        fprintf(out, " %*s", w, "-");
    else
        fprintf(out, " %*.*f", w, prec, v);
}

static void pct(FILE *out, double v, double sheet)
{
    if (isnan(v) || isnan(sheet))
        fprintf(out, " %8s", "-");
    else
        fprintf(out, " %7.0f%%", 100 * v / sheet);
}

/* The "correct" column: the results checked on the host. */
static const char *check_word(gd_bench_verdict v, bool failed)
{
    return v == GD_VERIFY_WRONG ? "WRONG" : failed ? "FAILED" : v == GD_VERIFY_OK ? "yes" : "-";
}

/* Whether finding x is about the table `table` ("gemm", "membw"; NULL:
 * stress, every finding): its own _low id, or bench.failed of its work. */
static bool finding_of(const gd_finding *x, const char *table)
{
    if (!table)
        return true;
    if (strcmp(x->id, "bench.failed") == 0) {
        const char *what = json_string_value(json_object_get(x->evidence, "what"));
        bool gemm = what && strstr(what, "GEMM");
        return strcmp(table, "gemm") == 0 ? gemm : !gemm;
    }
    if (strcmp(x->id, "bench.above_datasheet") == 0) {
        const char *what = json_string_value(json_object_get(x->evidence, "what"));
        return what && (strcmp(what, "GEMM") == 0) == (strcmp(table, "gemm") == 0);
    }
    return strcmp(x->id, strcmp(table, "gemm") == 0 ? "bench.gemm_low" : "bench.membw_low") == 0;
}

/* The "finding" column: the worst finding shown below on this GPU about this table. */
static const char *finding_word(const gd_findings *fs, const gd_bench_gpu *g, const char *table)
{
    gd_severity worst = GD_SEV_INFO;
    for (size_t i = 0; g->gpu >= 0 && i < fs->n; i++)
        if (!fs->v[i].ignored && fs->v[i].gpu == g->gpu && fs->v[i].severity > worst && finding_of(&fs->v[i], table))
            worst = fs->v[i].severity;
    return worst >= GD_SEV_CRITICAL ? "critical" : worst == GD_SEV_WARNING ? "warning" : "none";
}

static const char *gpu_label(const gd_bench_gpu *g, char *buf, size_t len)
{
    if (g->gpu >= 0)
        snprintf(buf, len, "%d", g->gpu);
    else
        snprintf(buf, len, "?");
    return buf;
}

/* One row of a table: GPU, name, two figures in columns of `widths`, the
 * datasheet, the judged figure's share of it, the result check, the worst
 * finding on the GPU, and why a figure is missing under it (78 columns). */
static void table_row(FILE *out, const gd_text_style *st, const gd_facts *f, const gd_bench_gpu *g,
                      const double figs[2], const int widths[2], double sheet, double judged, int prec,
                      const char *check, const char *finding, const char *error)
{
    char idx[16];
    fprintf(out, "%-3s %-22.22s", gpu_label(g, idx, sizeof idx), gd_safe(gd_bench_product(f, g)));
    cell(out, figs[0], widths[0], prec);
    cell(out, figs[1], widths[1], prec);
    cell(out, sheet, 9, prec);
    pct(out, judged, sheet);
    fprintf(out, " %7s %8s\n", check, finding);
    if (error[0]) {
        fputs("     ", out);
        gd_wrap(out, st, 5, 5, error);
    }
}

/* What the columns of a table mean, under it. */
static void legend(FILE *out, const gd_text_style *st, const char *text)
{
    gd_wrap(out, st, 0, 0, text);
    fputc('\n', out);
}

/* A curve of values as block characters over CURVE_WIDTH columns, scaled
 * from lo to hi; "-" where no value. */
static void curve(FILE *out, const double *v, size_t n, double lo, double hi)
{
    static const char *const blocks[8] = {"\u2581", "\u2582", "\u2583", "\u2584",
                                          "\u2585", "\u2586", "\u2587", "\u2588"};
    size_t cols = n < CURVE_WIDTH ? n : CURVE_WIDTH;
    for (size_t c = 0; c < cols; c++) {
        size_t from = c * n / cols, to = (c + 1) * n / cols;
        double sum = 0;
        size_t k = 0;
        for (size_t i = from; i < to; i++)
            if (!isnan(v[i])) {
                sum += v[i];
                k++;
            }
        if (!k) {
            fputc(' ', out);
            continue;
        }
        double x = hi > lo ? (sum / (double)k - lo) / (hi - lo) : 1;
        int b = (int)(x * 7.999);
        fputs(blocks[b < 0 ? 0 : b > 7 ? 7 : b], out);
    }
}

static void curve_row(FILE *out, const char *label, const char *unit, const double *v, size_t n)
{
    double lo = INFINITY, hi = -INFINITY;
    for (size_t i = 0; i < n; i++)
        if (!isnan(v[i])) {
            lo = fmin(lo, v[i]);
            hi = fmax(hi, v[i]);
        }
    if (!isfinite(lo))
        return;
    if (hi - lo <= 1e-3 * fabs(hi)) /* rounding noise on a steady figure is no shape */
        lo = hi;
    fprintf(out, "    %-8s ", label);
    curve(out, v, n, lo - (hi - lo) * 0.1, hi);
    fprintf(out, "  %.0f-%.0f %s\n", lo, hi, unit);
}

static void stress_curves(FILE *out, const gd_facts *f, const gd_bench_gpu *g)
{
    size_t n = g->tick_count;
    double *v = n ? calloc(n, sizeof *v) : NULL;
    if (!v)
        return;
    for (size_t k = 0; k < n; k++)
        v[k] = g->ticks[k].tflops;
    curve_row(out, "TFLOP/s", "TF", v, n);
    long fg = gd_bench_facts_gpu(f, g);
    const gd_series *s = &f->series;
    const struct {
        const char *label, *unit;
        gd_metric m;
    } rows[] = {{"temp", "C", GD_M_TEMP_C}, {"SM clock", "MHz", GD_M_SM_CLOCK_MHZ}, {"power", "W", GD_M_POWER_W}};
    for (size_t r = 0; fg >= 0 && r < 3; r++) {
        for (size_t k = 0; k < n; k++) {
            size_t i = s->n >= n ? s->n - n + k : k;
            gd_value x = i < s->n ? gd_series_at(s, i, (size_t)fg, rows[r].m) : gd_missing(GD_ST_UNREAD);
            v[k] = gd_ok(x) ? x.v : NAN;
        }
        curve_row(out, rows[r].label, rows[r].unit, v, n);
    }
    free(v);
}

void gd_bench_gpu_text(FILE *out, const gd_facts *f, const gd_findings *fs, const char *what, const gd_text_style *st)
{
    const gd_bench_facts *b = f->bench;
    bool all = strcmp(what, "all") == 0; /* its answer came with the verdict (gd_bench_verdict_text) */
    if (f->pcie && f->pcie->bench && all) {
        gd_bench_pcie_tables_text(out, f, st);
        fputc('\n', out);
    }
    const char *sim = f->simulated ? "  [SIMULATION]" : "";
    if (b && b->gemm) {
        char head[256];
        snprintf(head, sizeof head, "GEMM throughput, TFLOP/s: %s %dx%dx%d through cuBLASLt, %.3g s per figure%s",
                 gd_gemm_dtype_name(b->dtype), b->size, b->size, b->size, b->seconds, sim);
        gd_wrap(out, st, 0, 0, head);
        fprintf(out, "%-3s %-22s %7s %8s %9s %8s %7s %8s\n", "GPU", "name", "alone", "together", "datasheet",
                "of sheet", "correct", "finding");
        for (size_t i = 0; i < b->gpu_count; i++) {
            const gd_bench_gpu *g = &b->gpus[i];
            gd_gpu_peak peak;
            double sheet = gd_gpu_peak_find(gd_bench_product(f, g), &peak) ? peak.tflops[b->dtype] : NAN;
            const double figs[2] = {g->gemm_single_tflops, g->gemm_concurrent_tflops};
            table_row(out, st, f, g, figs, (const int[2]){7, 8}, sheet, g->gemm_single_tflops, 1,
                      check_word(g->gemm_verdict, g->gemm_failed), finding_word(fs, g, "gemm"), g->gemm_error);
        }
        legend(out, st,
               "alone: TFLOP/s of the GPU by itself; together: of each GPU while all multiply at once; datasheet: "
               "the SKU's dense peak for the type; of sheet: alone over datasheet; correct: the multiply's results "
               "checked on the host (yes, WRONG; FAILED: it did not run); finding: the worst finding below on the "
               "GPU's multiplies (none: within 10% of its peers, above its SKU's floor and not above its datasheet, "
               "which no GPU beats).");
    }
    if (b && b->membw) {
        char head[256];
        snprintf(head, sizeof head, "Device memory bandwidth, GB/s (read + write), %zu MiB copies, median of %d%s",
                 b->membw_bytes >> 20, b->membw_reps, sim);
        gd_wrap(out, st, 0, 0, head);
        fprintf(out, "%-3s %-22s %7s %8s %9s %8s %7s %8s\n", "GPU", "name", "engine", "kernel", "datasheet", "of sheet",
                "correct", "finding");
        for (size_t i = 0; i < b->gpu_count; i++) {
            const gd_bench_gpu *g = &b->gpus[i];
            gd_gpu_peak peak;
            double sheet = gd_gpu_peak_find(gd_bench_product(f, g), &peak) ? peak.membw_gbps : NAN;
            const double figs[2] = {g->membw_copy_gbps, g->membw_kernel_gbps};
            table_row(out, st, f, g, figs, (const int[2]){7, 8}, sheet, gd_bench_membw_best(g), 0,
                      check_word(g->membw_verdict, g->membw_failed), finding_word(fs, g, "membw"), g->membw_error);
        }
        legend(out, st,
               "engine: GB/s of a copy-engine copy; kernel: of a read/write kernel; datasheet: the SKU's memory "
               "bandwidth; of sheet: the better of the two over datasheet; correct: the copied bytes checked (yes, "
               "WRONG; FAILED: it did not run); finding: the worst finding below on the GPU's memory bandwidth "
               "(none: within 10% of its peers, above its SKU's floor and not above its datasheet).");
    }
    if (b && b->p2p)
        gd_bench_p2p_text(out, f, st);
    if (b && b->stress) {
        char head[256];
        snprintf(head, sizeof head, "Sustained stress: %s GEMM on every GPU at once for %.0f s, sampled every %.3g s%s",
                 gd_gemm_dtype_name(b->dtype), b->stress_seconds, f->interval_s, sim);
        gd_wrap(out, st, 0, 0, head);
        for (size_t i = 0; i < b->gpu_count; i++) {
            const gd_bench_gpu *g = &b->gpus[i];
            char idx[16];
            const char *fw = finding_word(fs, g, NULL);
            char line[400], mean[32] = "-";
            if (!isnan(g->stress_tflops))
                snprintf(mean, sizeof mean, "%.1f", g->stress_tflops);
            snprintf(line, sizeof line, "GPU %s  %s  mean %s TFLOP/s, correct %s, finding %s%s",
                     gpu_label(g, idx, sizeof idx), gd_bench_product(f, g), mean,
                     check_word(g->gemm_verdict, g->gemm_failed), fw, strcmp(fw, "none") ? " (below)" : "");
            gd_wrap(out, st, 4, 0, line);
            if (g->gemm_error[0]) {
                fputs("    ", out);
                gd_wrap(out, st, 4, 4, g->gemm_error);
            }
            stress_curves(out, f, g);
        }
        fputc('\n', out);
    }
    gd_bench_nccl_text(out, f, st);
    gd_bench_nodes_text(out, f, st);
    size_t shown = 0;
    for (size_t i = 0; i < fs->n; i++)
        shown += !fs->v[i].ignored;
    if (all) {
        gd_bench_details_text(out, fs, st);
        return;
    }
    gd_bench_findings_text(out, fs, st);
    gd_nccl_expect e;
    if (!shown && b && b->nodes)
        fputs("No finding: the all-reduce across nodes is near what the NICs allow, every rank joined and its data "
              "came back right.\n",
              out);
    else if (!shown && strcmp(what, "nccl") == 0)
        fprintf(out, "No finding%s\n",
                b && b->nccl && !b->nccl->skipped[0] && gd_nccl_expect_of(f, b->nccl, &e) == 0
                    ? ": NCCL's bus bandwidth is near what the GPUs' topology allows."
                    : ".");
    else if (!shown && strcmp(what, "p2p") == 0)
        fputs("No finding: every pair copies at what its path allows and as fast as its peers.\n", out);
    else if (!shown)
        fprintf(out, "No finding: every GPU measured within %s of its peers and above its SKU's floor.\n", "10%");
}

static void progress_value(char *buf, size_t len, gd_value v)
{
    if (gd_ok(v))
        snprintf(buf, len, "%.0f", v.v);
    else
        snprintf(buf, len, "n/a");
}

void gd_bench_stress_progress_text(FILE *out, const gd_facts *window, const gd_bench_facts *b, double t, double total,
                                   const gd_text_style *st)
{
    fprintf(out, "gpudoctor: stress %.0f of %.0f s\n", t, total);
    const gd_series *s = &window->series;
    int col = 0;
    for (size_t i = 0; b && i < b->gpu_count; i++) {
        const gd_bench_gpu *g = &b->gpus[i];
        long fg = gd_bench_facts_gpu(window, g);
        double tf = g->tick_count ? g->ticks[g->tick_count - 1].tflops : NAN;
        char idx[16], tflops[24] = "n/a", temp[24] = "n/a", clock[24] = "n/a", item[128];
        if (!isnan(tf))
            snprintf(tflops, sizeof tflops, "%.0f", tf);
        if (fg >= 0 && s->n > 0) {
            progress_value(temp, sizeof temp, gd_series_at(s, s->n - 1, (size_t)fg, GD_M_TEMP_C));
            progress_value(clock, sizeof clock, gd_series_at(s, s->n - 1, (size_t)fg, GD_M_SM_CLOCK_MHZ));
        }
        int n =
            snprintf(item, sizeof item, "GPU %s %s TF %s C %s MHz", gpu_label(g, idx, sizeof idx), tflops, temp, clock);
        if (col > 0 && col + 3 + n > st->width) {
            fputc('\n', out);
            col = 0;
        }
        fprintf(out, "%s%s", col ? "   " : "  ", item);
        col += (col ? 3 : 2) + n;
    }
    if (col)
        fputc('\n', out);
}
