/* SPDX-License-Identifier: Apache-2.0 */
/* nccl-tests tables in the report: see nccl_tests_report.h. */
#include "nccl_tests_report.h"
#include "text_util.h"
#include "analysis/nccl_tests_judge.h"
#include "core/json_util.h"
#include "gpudoctor/nccl_tests.h"
#include "gpudoctor/net.h"

#include <math.h>
#include <string.h>

static const gd_nccl_tests *tables_of(const gd_facts *f)
{
    const gd_nccl_tests *t = f->net ? f->net->tables : NULL;
    return t && t->count ? t : NULL;
}

static json_t *num(double v)
{
    return isnan(v) ? json_null() : gd_json_number(v);
}

static json_t *half_json(const gd_nt_half *h)
{
    json_t *o = json_object();
    json_object_set_new(o, "time_us", num(h->time_us));
    json_object_set_new(o, "algbw_gbps", num(h->algbw_gbps));
    json_object_set_new(o, "busbw_gbps", num(h->busbw_gbps));
    json_object_set_new(o, "wrong", h->wrong >= 0 ? json_integer(h->wrong) : json_null());
    if (!isnan(h->error))
        json_object_set_new(o, "error", gd_json_number(h->error));
    return o;
}

static json_t *count_or_null(long v)
{
    return v >= 0 ? json_integer(v) : json_null();
}

static json_t *string_or_null(const char *s)
{
    return s[0] ? json_string(s) : json_null();
}

static json_t *table_json(const gd_facts *f, const gd_nt_table *x)
{
    gd_nt_summary s;
    gd_nt_summarize(x, &s);
    gd_nt_expect e;
    bool judged = gd_nt_expect_of(f->net, x, &e) == 0;
    json_t *o = json_object();
    json_object_set_new(o, "file", json_string(x->file));
    json_object_set_new(o, "line", json_integer(x->first_line));
    json_object_set_new(o, "op", x->op ? json_string(gd_nt_op_name(x->op)) : json_null());
    json_object_set_new(o, "op_inferred", json_boolean(x->op_inferred));
    json_object_set_new(o, "binary", string_or_null(x->binary));
    json_object_set_new(o, "launcher", string_or_null(x->launcher));
    json_object_set_new(o, "nccl_version", string_or_null(x->nccl_version));
    json_object_set_new(o, "ranks", count_or_null(x->ranks));
    json_object_set_new(o, "ranks_from_command", json_boolean(x->ranks_from_command));
    json_object_set_new(o, "nodes", count_or_null(x->nodes));
    json_object_set_new(o, "ranks_per_node", count_or_null(x->ranks_per_node));
    json_object_set_new(o, "gpu", string_or_null(x->gpu));
    json_object_set_new(o, "nccl_env", string_or_null(x->env));
    json_object_set_new(o, "peak_busbw_gbps", num(s.peak_busbw_gbps));
    json_object_set_new(o, "peak_bytes", json_integer((json_int_t)s.peak_bytes));
    json_object_set_new(o, "largest_busbw_gbps", num(s.largest_busbw_gbps));
    json_object_set_new(o, "largest_bytes", json_integer((json_int_t)s.largest_bytes));
    json_object_set_new(o, "avg_busbw_gbps", num(x->avg_busbw_gbps));
    json_object_set_new(o, "wrong", count_or_null(x->wrong_total));
    json_object_set_new(o, "out_of_bounds", count_or_null(x->oob_values));
    json_object_set_new(o, "abort", string_or_null(x->abort));
    json_object_set_new(o, "cut", string_or_null(x->cut));
    json_object_set_new(o, "expected_busbw_gbps", judged ? num(e.busbw_gbps) : json_null());
    json_object_set_new(o, "nic_line_gbps", judged ? num(e.line_gbps) : json_null());
    json_object_set_new(o, "not_judged_because", judged ? json_null() : json_string(e.why_not));
    json_t *rows = json_array();
    for (size_t i = 0; i < x->row_count; i++) {
        const gd_nt_row *r = &x->rows[i];
        json_t *row = json_object();
        json_object_set_new(row, "bytes", json_integer((json_int_t)r->bytes));
        json_object_set_new(row, "count", json_integer((json_int_t)r->count));
        json_object_set_new(row, "type", json_string(r->type));
        json_object_set_new(row, "redop", json_string(r->redop));
        json_object_set_new(row, "root", json_integer(r->root));
        json_object_set_new(row, "out_of_place", half_json(&r->oop));
        json_object_set_new(row, "in_place", half_json(&r->ip));
        json_array_append_new(rows, row);
    }
    json_object_set_new(o, "rows", rows);
    json_object_set_new(o, "rows_dropped", json_integer((json_int_t)x->rows_dropped));
    return o;
}

json_t *gd_nccl_tests_json(const gd_facts *f)
{
    const gd_nccl_tests *t = tables_of(f);
    if (!t)
        return NULL;
    json_t *a = json_array();
    for (size_t i = 0; i < t->count; i++)
        json_array_append_new(a, table_json(f, &t->tables[i]));
    return a;
}

static void line(FILE *out, const gd_text_style *st, const char *label, const char *text)
{
    fprintf(out, "    %-12s", label);
    gd_wrap(out, st, 16, 16, text);
}

void gd_nccl_tests_text(FILE *out, const gd_facts *f, const gd_text_style *st)
{
    const gd_nccl_tests *t = tables_of(f);
    for (size_t i = 0; t && i < t->count; i++) {
        const gd_nt_table *x = &t->tables[i];
        gd_nt_summary s;
        gd_nt_summarize(x, &s);
        gd_nt_expect e;
        bool judged = gd_nt_expect_of(f->net, x, &e) == 0;
        char buf[512], a[24], b[24];
        size_t used =
            (size_t)snprintf(buf, sizeof buf, "%s%s",
                             x->op ? gd_nt_op_name(x->op) : "the collective not named (the paste has no command line)",
                             x->op_inferred ? " (by its columns)" : "");
        if (x->ranks > 0)
            used += (size_t)snprintf(buf + used, sizeof buf - used, ", %d ranks", x->ranks);
        if (x->nodes > 0 && used < sizeof buf)
            used +=
                (size_t)snprintf(buf + used, sizeof buf - used, " on %d node%s", x->nodes, x->nodes == 1 ? "" : "s");
        if (x->gpu[0] && used < sizeof buf)
            snprintf(buf + used, sizeof buf - used, ", %s%s", x->gpu, x->gpus_mixed ? " and others" : "");
        fprintf(out, "\n%snccl-tests table%s  %s:%ld\n", gd_c(st, GD_ANSI_BOLD), gd_c(st, GD_ANSI_RESET),
                gd_safe(x->file), x->first_line);
        line(out, st, "run", buf);
        if (x->row_count) {
            snprintf(buf, sizeof buf, "%.1f GB/s at %s; at the largest size (%s) %.1f GB/s", s.peak_busbw_gbps,
                     gd_nt_size_text(s.peak_bytes, a, sizeof a), gd_nt_size_text(s.largest_bytes, b, sizeof b),
                     s.largest_busbw_gbps);
            line(out, st, "peak busbw", buf);
        }
        if (!isnan(x->avg_busbw_gbps)) {
            snprintf(buf, sizeof buf,
                     "%.1f GB/s as nccl-tests prints it: the mean over every size, the small ones "
                     "too; compare the peak",
                     x->avg_busbw_gbps);
            line(out, st, "avg busbw", buf);
        }
        if (judged)
            snprintf(buf, sizeof buf, "%.0f%% of %.1f GB/s (%d port%s: %s; %.1f GB/s line rate x %.2f)",
                     100 * s.peak_busbw_gbps / e.busbw_gbps, e.busbw_gbps, e.nics, e.nics == 1 ? "" : "s", e.ports,
                     e.line_gbps, GD_NT_NET_EFFICIENCY);
        else
            snprintf(buf, sizeof buf, "not judged against the NICs, because %s", e.why_not);
        line(out, st, "NICs", buf);
        if (x->nodes == 2 && x->op == GD_NT_ALL_REDUCE && strcmp(x->algo, "Ring") != 0)
            line(out, st, "2 nodes",
                 "NCCL's tree can put busbw above the NICs' line rate on 2 nodes (part of the reduction goes over "
                 "NVLink): normal; NCCL_ALGO=Ring measures the network alone");
        if (x->abort[0])
            line(out, st, "stopped", x->abort);
        if (x->cut[0])
            line(out, st, "the paste", x->cut);
    }
}
