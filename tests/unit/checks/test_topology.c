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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(iommu_translation_on_pcie_peers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
