/* SPDX-License-Identifier: Apache-2.0 */
/* pcie.bandwidth_low: `bench pcie` results against what the link allows. */
#include "checks_internal.h"
#include "gpudoctor/pcie.h"
#include "core/pcie_util.h"

static const char *const dir_name[2] = {"h2d", "d2h"};

void gd_check_pcie_bandwidth_low(const gd_check *self, const gd_facts *f, gd_findings *out)
{
    const gd_pcie_bench *b = f->pcie ? f->pcie->bench : NULL;
    if (!b) {
        gd_skip_add(out, "pcie.bandwidth_low", GD_NO_GPU,
                    "host-device bandwidth is measured by 'gpudoctor bench pcie', not during 'check'");
        return;
    }
    for (size_t i = 0; i < b->gpu_count; i++) {
        const gd_pcie_bench_gpu *bg = &b->gpus[i];
        int gen, width;
        size_t g = 0;
        while (g < f->gpu_count && f->gpus[g].index != bg->gpu)
            g++;
        if (bg->gpu < 0 || g == f->gpu_count || !gd_pcie_expected_link(f, g, &gen, &width)) {
            gd_skip_add(out, "pcie.bandwidth_low", bg->gpu < 0 ? GD_NO_GPU : bg->gpu,
                        "CUDA device %d: the link it should reach is not known", bg->cuda_device);
            continue;
        }
        if (gd_pcie_not_host_path(&f->gpus[g], self->id, out))
            continue;
        if (bg->error[0]) {
            gd_skip_add(out, "pcie.bandwidth_low", bg->gpu, "GPU %d not measured: %s", bg->gpu, bg->error);
            continue;
        }
        double theo = gd_pcie_link_gbps(gen, width), worst = INFINITY;
        int worst_dir = 0;
        for (int d = 0; d < 2; d++) {
            double v = bg->single_gbps[d][GD_BW_PINNED];
            if (!isnan(v) && v < worst) {
                worst = v;
                worst_dir = d;
            }
        }
        if (isinf(worst) || worst >= GD_PCIE_BW_LOW_RATIO * theo)
            continue;
        json_t *ev = json_object();
        json_object_set_new(ev, "h2d_pinned_gbps", gd_json_number(bg->single_gbps[GD_BW_H2D][GD_BW_PINNED]));
        json_object_set_new(ev, "d2h_pinned_gbps", gd_json_number(bg->single_gbps[GD_BW_D2H][GD_BW_PINNED]));
        json_object_set_new(ev, "theoretical_gbps", gd_json_number(round(theo * 100) / 100));
        json_object_set_new(ev, "healthy_gbps", gd_json_number(round(GD_PCIE_BW_HEALTHY_RATIO * theo * 100) / 100));
        json_object_set_new(ev, "of_theoretical_pct", gd_json_number(round(worst / theo * 1000) / 10));
        json_object_set_new(ev, "link_gen", json_integer(gen));
        json_object_set_new(ev, "link_width", json_integer(width));
        json_object_set_new(ev, "source", json_string("cuda:cuMemcpyHtoD,cuMemcpyDtoH from cuMemAllocHost memory"));
        /* The link that carried the copies, where it trained below what it should reach: the cause, said. */
        int sg, sw;
        bool as_read, below = gd_pcie_bench_link(f, g, bg, &sg, &sw, &as_read) && as_read && (sg < gen || sw < width);
        char seen[200] = "", first[300] = "";
        if (below) {
            json_object_set_new(ev, "link_gen_seen", json_integer(sg));
            json_object_set_new(ev, "link_width_seen", json_integer(sw));
            snprintf(seen, sizeof seen, "; it trained at Gen%d x%d (%.1f GB/s)", sg, sw, gd_pcie_link_gbps(sg, sw));
            snprintf(first, sizeof first,
                     "The link runs at Gen%d x%d, below the Gen%d x%d it should reach: reseat the card, check the "
                     "slot, riser and cables, then the BIOS's slot settings. ",
                     sg, sw, gen, width);
        }
        char fix[1100];
        snprintf(fix, sizeof fix,
                 "%sHealthy Gen%d x%d links reach about %.0f GB/s per direction with pinned memory. Look at the "
                 "causes in order: the link itself ('gpudoctor check' under load: pcie.link_downgraded, "
                 "pcie.upstream_downgraded), the host buffer's NUMA node (run 'numactl --cpunodebind=N "
                 "--membind=N gpudoctor bench pcie' with the GPU's node from 'gpudoctor topo'), IOMMU translation "
                 "(boot with iommu=pt), and other traffic on the same switch. Compare with NVIDIA's nvbandwidth "
                 "(host_to_device_memcpy_ce).",
                 first, gen, width, GD_PCIE_BW_HEALTHY_RATIO * theo);
        gd_finding_add(out, "pcie.bandwidth_low",
                       worst < GD_PCIE_BW_CRITICAL_RATIO * theo ? GD_SEV_CRITICAL : GD_SEV_WARNING, bg->gpu, ev, NAN,
                       fix, "GPU %d %s bandwidth %.1f GB/s, %.0f%% of the %.1f GB/s a Gen%d x%d link allows%s", bg->gpu,
                       dir_name[worst_dir], worst, 100 * worst / theo, theo, gen, width, seen);
    }
}
