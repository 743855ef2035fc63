/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Judging `bench nccl`:
 *   bench.nccl_low: the peak all-reduce bus bandwidth well under what the
 *     ring's slowest edge allows (src/analysis/nccl_expect.h), with the
 *     NCCL_* settings in force and the edge's limit as evidence;
 *   bench.nccl_failed: NCCL or CUDA failed during the run, or the
 *     all-reduce's data came back wrong: never a figure.
 */
#include "analysis/nccl_expect.h"
#include "checks_internal.h"
#include "gpudoctor/bench.h"

#include <stdio.h>
#include <string.h>

/* The gd_nccl_bench to judge, or NULL after saying why (a skip). */
static const gd_nccl_bench *ran(const gd_facts *f, gd_findings *out, const char *id)
{
    const gd_bench_facts *b = f->bench;
    if (!b)
        return NULL; /* check: the report says the group was not run (report/checked.c) */
    if (!b->nccl) {
        gd_skip_add(out, id, GD_NO_GPU, "measured by 'gpudoctor bench nccl', which did not run");
        return NULL;
    }
    if (b->nccl->skipped[0]) {
        gd_skip_add(out, id, GD_NO_GPU, "%s", b->nccl->skipped);
        return NULL;
    }
    return b->nccl;
}

/* Where the pairs a slow edge holds back are measured: in this report
 * (`bench all` measured the copies too), or by `bench p2p`, which names
 * each pair's path with its links' speeds ('gpudoctor topo' shows the
 * wiring, not the speeds). */
static const char *pairs_where(const gd_facts *f)
{
    return f->bench && f->bench->p2p ? "the GPU-to-GPU copies of this report measure the pairs it slows"
                                     : "'gpudoctor bench p2p' measures the pairs it slows and names each pair's "
                                       "path with its links' speeds";
}

/* The fix for a ring slower than its topology: the settings first. */
static void low_fix(const gd_facts *f, const gd_nccl_bench *n, const gd_nccl_expect *e, char *fix, size_t len)
{
    if (n->env[0]) {
        snprintf(fix, len,
                 "NCCL runs with %s in its environment, which takes peer-to-peer paths away from it: unset it "
                 "(check the job's launcher, /etc/nccl.conf and ~/.nccl.conf too) and run 'gpudoctor bench nccl' "
                 "again. NCCL_DEBUG=INFO shows the transport each ring edge uses ('via P2P/IPC' is right on this "
                 "node, 'via SHM' is host memory).",
                 n->env);
        return;
    }
    if (e->slowest.downtrained) {
        snprintf(fix, len,
                 "NCCL's ring runs at the pace of its slowest edge, and the edge GPU %d - GPU %d goes through %s. "
                 "Reseat the card or riser, or move it to a slot (or switch) that trains at full width and "
                 "generation; 'sudo lspci -vv' on that port shows the link (LnkSta against LnkCap), and %s. "
                 "Then run 'gpudoctor bench nccl' again.",
                 e->slowest.gpu_a, e->slowest.gpu_b, e->slowest.limit, pairs_where(f));
        return;
    }
    snprintf(fix, len,
             "Find the transport NCCL chose: rerun with NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,GRAPH and look for "
             "'via SHM' or 'via NET' where the topology offers P2P. Then %s for the pair that is slow, "
             "'gpudoctor check' for NVLink links down or erroring (nvlink.down, nvlink.errors) and the "
             "Fabric Manager (nvlink.fabric), and, over PCIe, ACS or an IOMMU that redirects peer traffic "
             "(topology.iommu_p2p: 'iommu=pt', ACS disabled on the switches). The slowest edge: %s.",
             f->bench && f->bench->p2p ? "the GPU-to-GPU copies of this report" : "'gpudoctor bench p2p'",
             e->slowest.limit[0] ? e->slowest.limit : "unknown");
}

void gd_check_bench_nccl_low(const gd_check *self, const gd_facts *f, gd_findings *out)
{
    (void)self;
    const char *id = "bench.nccl_low";
    const gd_nccl_bench *n = ran(f, out, id);
    if (!n)
        return;
    double measured = n->peak_busbw_gbps[GD_NCCL_ALL_REDUCE];
    if (isnan(measured)) {
        gd_skip_add(out, id, GD_NO_GPU, "no all-reduce was measured: %s", n->error[0] ? n->error : "no figure");
        return;
    }
    gd_nccl_expect e;
    if (gd_nccl_expect_of(f, n, &e) != 0) {
        gd_skip_add(out, id, GD_NO_GPU, "no expectation for the ring: %s",
                    e.slowest.limit[0] ? e.slowest.limit : "its paths are not known");
        return;
    }
    double ratio = measured / e.busbw_gbps;
    if (!(ratio < GD_NCCL_LOW_RATIO))
        return;
    json_t *ev = json_object();
    json_object_set_new(ev, "busbw_gbps", gd_json_number(round(measured * 10) / 10));
    json_object_set_new(ev, "all_gather_busbw_gbps",
                        isnan(n->peak_busbw_gbps[GD_NCCL_ALL_GATHER])
                            ? json_null()
                            : gd_json_number(round(n->peak_busbw_gbps[GD_NCCL_ALL_GATHER] * 10) / 10));
    json_object_set_new(ev, "expected_gbps", gd_json_number(round(e.busbw_gbps * 10) / 10));
    json_object_set_new(ev, "of_expected_pct", gd_json_number(round(ratio * 1000) / 10));
    json_object_set_new(ev, "ranks", json_integer(n->ranks));
    json_object_set_new(ev, "slowest_edge", json_pack("[i,i]", e.slowest.gpu_a, e.slowest.gpu_b));
    /* The edge's rate is its slowest hop as it runs; what the expectation counts (every link trained fully)
     * beside it where that differs. */
    json_object_set_new(ev, "edge_gbps", gd_json_number(round(e.slowest.rate_gbps * 10) / 10));
    if (fabs(e.slowest.rate_gbps - e.slowest.gbps) > 0.05)
        json_object_set_new(ev, "edge_full_gbps", gd_json_number(round(e.slowest.gbps * 10) / 10));
    json_object_set_new(ev, "efficiency", gd_json_number(e.slowest.efficiency));
    json_object_set_new(ev, "limit", json_string(e.slowest.limit));
    json_object_set_new(ev, "downtrained", json_boolean(e.slowest.downtrained));
    json_object_set_new(ev, "host_staged", json_boolean(e.slowest.host_staged));
    json_object_set_new(ev, "nccl_env", n->env[0] ? json_string(n->env) : json_null());
    json_object_set_new(ev, "nccl_version", json_integer(n->version));
    json_object_set_new(ev, "source", json_string("nccl:ncclAllReduce over all GPUs timed by CUDA events; "
                                                  "expected: the topology's slowest ring edge"));
    char fix[1024];
    low_fix(f, n, &e, fix, sizeof fix);
    double loss = 100 * (1 - ratio);
    gd_finding_add(out, id, ratio < GD_NCCL_CRITICAL_RATIO ? GD_SEV_CRITICAL : GD_SEV_WARNING, GD_NO_GPU, ev, loss,
                   fix,
                   "NCCL all-reduce over %d GPUs reaches %.1f GB/s bus bandwidth, %.0f%% of the %.0f GB/s its "
                   "topology allows (slowest ring edge GPU %d - GPU %d%s)%s%s",
                   n->ranks, measured, 100 * ratio, e.busbw_gbps, e.slowest.gpu_a, e.slowest.gpu_b,
                   e.slowest.downtrained ? ", a link on it trained down" : "", n->env[0] ? "; set: " : "", n->env);
}

void gd_check_bench_nccl_failed(const gd_check *self, const gd_facts *f, gd_findings *out)
{
    (void)self;
    const char *id = "bench.nccl_failed";
    const gd_nccl_bench *n = ran(f, out, id);
    if (!n || !n->failed)
        return;
    bool wrong = n->verdict == GD_VERIFY_WRONG;
    json_t *ev = json_object();
    json_object_set_new(ev, "what", json_string(wrong ? "wrong data" : "error"));
    json_object_set_new(ev, "detail", json_string(wrong ? n->detail : n->error));
    json_object_set_new(ev, "ranks", json_integer(n->ranks));
    json_object_set_new(ev, "library", json_string(n->library));
    json_object_set_new(ev, "nccl_version", json_integer(n->version));
    json_object_set_new(ev, "source", json_string("gpudoctor bench nccl: an all-reduce of known values read "
                                                  "back from every GPU and compared on the host"));
    const char *fix =
        wrong && f->bench->p2p
            ? "An all-reduce that returns wrong data corrupts every gradient it averages: take the node out of "
              "service ('scontrol update nodename=N state=drain reason=...'), run 'dcgmi diag -r 3' and read the "
              "GPU-to-GPU copies of this report (a pair that copies wrong bytes is the GPU or link at fault), and "
              "'gpudoctor check' for NVLink and PCIe errors (nvlink.errors, pcie.aer_errors)."
        : wrong ? "An all-reduce that returns wrong data corrupts every gradient it averages: take the node out of "
                  "service ('scontrol update nodename=N state=drain reason=...'), run 'dcgmi diag -r 3' and "
                  "'gpudoctor bench p2p' to find the GPU or link at fault, and 'gpudoctor check' for NVLink and "
                  "PCIe errors (nvlink.errors, pcie.aer_errors)."
                : "Rerun with NCCL_DEBUG=INFO to see where NCCL fails. A version mismatch between NCCL and the "
                  "driver, a Fabric Manager that is not running on an NVSwitch node (nvlink.fabric), or peer "
                  "access the driver refuses (topology.iommu_p2p) are the usual causes; 'gpudoctor check' shows them.";
    gd_finding_add(out, id, GD_SEV_CRITICAL, GD_NO_GPU, ev, NAN, fix, "NCCL over %d GPUs: %s: %s", n->ranks,
                   wrong ? "the all-reduce returned wrong data" : "the run failed", wrong ? n->detail : n->error);
}
