/* SPDX-License-Identifier: Apache-2.0 */
/* topology.iommu_p2p and topology.numa_mismatch (src/checks/topology.c):
 * IOMMU translation between GPUs that talk over PCIe; a job away from its
 * GPU's NUMA node. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "facts_fixture.h"
#include "gpudoctor/pcie.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Runs topology.iommu_p2p: the number of findings (and the one's evidence checked). */
static size_t iommu_run(const gd_facts *f, const char *type, size_t gpus, size_t pairs)
{
    gd_findings fs;
    fx_run(f, "topology.iommu_p2p", &fs);
    size_t n = fs.n;
    if (n == 1) {
        const gd_finding *x = &fs.v[0];
        assert_string_equal(x->id, "topology.iommu_p2p");
        assert_int_equal(x->severity, GD_SEV_WARNING);
        assert_int_equal(x->gpu, GD_NO_GPU);
        assert_string_equal(json_string_value(json_object_get(x->evidence, "iommu_group_type")), type);
        assert_int_equal(json_array_size(json_object_get(x->evidence, "gpus")), gpus);
        assert_true(json_integer_value(json_object_get(x->evidence, "gpu_pairs_over_pcie")) == (json_int_t)pairs);
    }
    gd_findings_free(&fs);
    return n;
}

static void iommu_types(gd_pcie_facts *p, const char *const *types)
{
    for (size_t g = 0; g < p->gpu_count; g++)
        snprintf(p->gpus[g].iommu_type, sizeof p->gpus[g].iommu_type, "%s", types[g]);
}

/* IOMMU translation (DMA, DMA-FQ) on two or more GPUs that talk over PCIe
 * warns; identity (passthrough), unknown, one translated GPU, GPUs that
 * all talk over NVLink, or no topology stay quiet. */
static void iommu_translation_on_pcie_peers(void **state)
{
    (void)state;
    gd_facts f;
    fx_facts(&f, 3, 3);
    gd_pcie_facts *p = fx_pcie_switch_tree(&f);
    assert_int_equal(iommu_run(&f, "", 0, 0), 0); /* type unknown */
    iommu_types(p, (const char *const[]){"identity", "identity", "identity"});
    assert_int_equal(iommu_run(&f, "", 0, 0), 0);
    iommu_types(p, (const char *const[]){"DMA", "DMA", "DMA"});
    assert_int_equal(iommu_run(&f, "DMA", 3, 3), 1);
    iommu_types(p, (const char *const[]){"DMA-FQ", "identity", "DMA-FQ"});
    assert_int_equal(iommu_run(&f, "DMA-FQ", 2, 3), 1);
    iommu_types(p, (const char *const[]){"DMA", "identity", "identity"});
    assert_int_equal(iommu_run(&f, "", 0, 0), 0);

    iommu_types(p, (const char *const[]){"DMA", "DMA", "DMA"});
    for (size_t a = 0; a < 3; a++)
        for (size_t b = 0; b < 3; b++)
            p->matrix[a * 3 + b].nvlinks = a == b ? 0 : 18;
    assert_int_equal(iommu_run(&f, "", 0, 0), 0); /* every pair over NVLink */
    p->matrix[0 * 3 + 2].nvlinks = p->matrix[2 * 3 + 0].nvlinks = 0;
    assert_int_equal(iommu_run(&f, "DMA", 3, 1), 1); /* GPUs 0 and 2 over PCIe */

    free(p->matrix);
    p->matrix = NULL;
    assert_int_equal(iommu_run(&f, "", 0, 0), 0); /* no topology */
    gd_facts_free(&f);
}

/* Job 4242 on GPU 0 (in its process list), GPU 0 on NUMA node 1 (CPUs
 * 16-31, node 0 has 0-15); the job may run on `cpus` and has pages0 and
 * pages1 resident pages on nodes 0 and 1. */
static gd_pcie_facts *numa_job(gd_facts *f, const char *cpus, double pages0, double pages1)
{
    fx_facts(f, 2, 5);
    gd_pcie_facts *p = fx_pcie_switch_tree(f);
    p->gpus[0].numa_node = gd_val(1);
    p->node_count = 2;
    for (int n = 0; n < 2; n++) {
        p->node_ids[n] = n;
        snprintf(p->node_cpulist[n], sizeof p->node_cpulist[n], "%s", n ? "16-31" : "0-15");
    }
    f->pid = 4242;
    f->gpus[0].processes = calloc(1, sizeof *f->gpus[0].processes);
    f->gpus[0].processes[0] = (gd_process){.pid = 4242, .used_mib = gd_val(60000)};
    f->gpus[0].process_count = 1;
    p->job = (gd_pcie_job){.pid = 4242, .readable = true, .has_pages = true};
    snprintf(p->job.cpus_allowed, sizeof p->job.cpus_allowed, "%s", cpus);
    snprintf(p->job.mems_allowed, sizeof p->job.mems_allowed, "0-1");
    p->job.pages[0] = pages0;
    p->job.pages[1] = pages1;
    return p;
}

static void numa_mismatch_fires_on_far_cpus_and_memory(void **state)
{
    (void)state;
    gd_facts f;
    numa_job(&f, "0-15", 900, 100);
    gd_findings fs = fx_run_one(&f, "topology.numa_mismatch");
    const gd_finding *x = fx_only(&fs, "topology.numa_mismatch");
    assert_int_equal(x->severity, GD_SEV_WARNING);
    assert_int_equal(x->gpu, 0);
    assert_string_equal(x->title, "Job 4242 runs and keeps its memory on another NUMA node than its GPU 0 (node 1)");
    assert_int_equal(json_integer_value(json_object_get(x->evidence, "gpu_numa_node")), 1);
    assert_string_equal(json_string_value(json_object_get(x->evidence, "gpu_node_cpus")), "16-31");
    assert_int_equal(json_integer_value(json_object_get(x->evidence, "cpus_on_gpu_node")), 0);
    assert_float_equal(json_number_value(json_object_get(x->evidence, "memory_on_gpu_node_pct")), 10.0, 1e-9);
    assert_non_null(strstr(x->fix, "'numactl --cpunodebind=1 --membind=1 <command>'"));
    gd_findings_free(&fs);
    gd_facts_free(&f);
}

/* Either half alone is named as such. */
static void numa_mismatch_says_which_half_is_far(void **state)
{
    (void)state;
    gd_facts f;
    numa_job(&f, "16-31", 900, 100);
    gd_findings fs = fx_run_one(&f, "topology.numa_mismatch");
    assert_string_equal(fx_only(&fs, "topology.numa_mismatch")->title,
                        "Job 4242 keeps its memory on another NUMA node than its GPU 0 (node 1)");
    gd_findings_free(&fs);
    gd_facts_free(&f);
    numa_job(&f, "0-15", 100, 900);
    fs = fx_run_one(&f, "topology.numa_mismatch");
    assert_string_equal(fx_only(&fs, "topology.numa_mismatch")->title,
                        "Job 4242 runs on another NUMA node than its GPU 0 (node 1)");
    gd_findings_free(&fs);
    gd_facts_free(&f);
}

/* Some CPUs on the GPU's node and half its memory there: placed well enough. */
static void numa_mismatch_quiet_near_the_gpu(void **state)
{
    (void)state;
    gd_facts f;
    numa_job(&f, "0-31", 500, 500);
    fx_assert_silent(&f, "topology.numa_mismatch");
    gd_facts_free(&f);
}

static void numa_mismatch_not_checked_and_why(void **state)
{
    (void)state;
    gd_facts f;
    gd_pcie_facts *p = numa_job(&f, "0-15", 900, 100);
    p->job.readable = false;
    snprintf(p->job.why, sizeof p->job.why, "/proc/4242/numa_maps: Permission denied");
    gd_findings fs = fx_run_one(&f, "topology.numa_mismatch");
    assert_int_equal(fs.n, 0);
    assert_true(
        fx_skipped(&fs, "topology.numa_mismatch", GD_NO_GPU, "the job 4242: /proc/4242/numa_maps: Permission denied"));
    gd_findings_free(&fs);
    p->job.readable = true;
    f.gpus[0].process_count = 0;
    fs = fx_run_one(&f, "topology.numa_mismatch");
    assert_true(fx_skipped(&fs, "topology.numa_mismatch", GD_NO_GPU,
                           "process 4242 holds no GPU (not in any GPU's process list)"));
    gd_findings_free(&fs);
    f.gpus[0].process_count = 1;
    p->gpus[0].numa_node = gd_missing(GD_ST_NOT_SUPPORTED);
    fs = fx_run_one(&f, "topology.numa_mismatch");
    assert_true(fx_skipped(&fs, "topology.numa_mismatch", 0, "GPU 0's NUMA node is not reported"));
    gd_findings_free(&fs);
    gd_pcie_facts_free(f.pcie);
    f.pcie = NULL;
    fs = fx_run_one(&f, "topology.numa_mismatch");
    assert_true(fx_skipped(&fs, "topology.numa_mismatch", GD_NO_GPU, "the PCIe tree is not known"));
    gd_findings_free(&fs);
    gd_facts_free(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(iommu_translation_on_pcie_peers),
        cmocka_unit_test(numa_mismatch_fires_on_far_cpus_and_memory),
        cmocka_unit_test(numa_mismatch_says_which_half_is_far),
        cmocka_unit_test(numa_mismatch_quiet_near_the_gpu),
        cmocka_unit_test(numa_mismatch_not_checked_and_why),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
