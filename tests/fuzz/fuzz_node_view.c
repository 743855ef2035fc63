/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libFuzzer target for what rank 0 of `bench nccl --nodes` receives: a rank's
 * view as bytes off the network (include/gpudoctor/bench_nodes.h). Any bytes,
 * made safe by gd_node_view_sanitize, then judged and rendered as rank 0
 * does (the three checks, the JSON, the text, the HTML), as one of three
 * ranks beside a healthy one and a copy: never a crash, a read past an array
 * or undefined behaviour. The bytes also play a pair's figure.
 */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpudoctor/bench.h"
#include "gpudoctor/bench_nodes.h"
#include "gpudoctor/checks.h"
#include "gpudoctor/model.h"
#include "report/bench_nodes_report.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    gd_facts f;
    memset(&f, 0, sizeof f);
    gd_bench_facts *b = gd_bench_facts_get(&f);
    gd_nccl_nodes *n = b ? calloc(1, sizeof *n) : NULL;
    if (!n) {
        gd_facts_free(&f);
        return 0;
    }
    b->nodes = n;
    n->world = 3;
    n->nodes = calloc(3, sizeof *n->nodes);
    n->pairs = calloc(2, sizeof *n->pairs);
    if (n->nodes && n->pairs) {
        gd_node_view *v = &n->nodes[1];
        memcpy(v, data, size < sizeof *v ? size : sizeof *v);
        gd_node_view_sanitize(v);
        v->rank = 1;
        v->arrived = v->reported = true;
        n->nodes[2] = *v;
        n->nodes[2].rank = 2;
        gd_node_view *h = &n->nodes[0];
        h->arrived = h->reported = true;
        h->gpus = 8;
        h->net = (gd_node_net){.transport = "IB",
                               .ports = 8,
                               .now_gbs = 400,
                               .best_gbs = 400,
                               .slowest_gbps = 400,
                               .fastest_gbps = 400,
                               .gdr = 1};
        h->intra_expect_gbs = NAN;
        h->world.verdict = GD_VERIFY_OK;
        n->ring_gbs = v->world.peak_busbw_gbps[GD_NCCL_ALL_REDUCE];
        n->ring_bytes = (size_t)1 << 30;
        n->missing = size > 0 && data[0] == 0x7f;
        n->pairs_run = true;
        n->pair_count = 2;
        n->pairs[0] = (gd_node_pair){0, 1, 0, v->net.now_gbs, ""};
        n->pairs[1] = (gd_node_pair){1, 2, 0, v->intra_expect_gbs, "failed"};
        gd_findings fs = {.where = GD_AT_BENCH};
        gd_check_run(gd_check_find("bench.nccl_node_missing"), &f, &fs);
        gd_check_run(gd_check_find("bench.nccl_nodes_failed"), &f, &fs);
        gd_check_run(gd_check_find("bench.nccl_nodes_low"), &f, &fs);
        json_t *j = gd_bench_nodes_json(&f);
        char *text = j ? json_dumps(j, 0) : NULL;
        free(text);
        json_decref(j);
        FILE *out = fopen("/dev/null", "w");
        if (out) {
            gd_text_style st = {0};
            gd_bench_nodes_text(out, &f, &st);
            gd_html_bench_nodes(out, &f);
            fclose(out);
        }
        gd_findings_free(&fs);
    }
    gd_facts_free(&f);
    return 0;
}
