/* SPDX-License-Identifier: Apache-2.0 */
/* env.visible_devices and env.device_order (src/checks/env_devices.c): which
 * GPUs the job's CUDA sees, and in what order. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "facts_fixture.h"
#include "gpudoctor/stack.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* CUDA_VISIBLE_DEVICES against four GPUs (GPU 2 in MIG mode): indices,
 * UUIDs and their prefixes, MIG devices, truncation at a bad entry. */
static void visible_devices_indices_uuids_and_mig(void **state)
{
    (void)state;
    static const struct {
        const char *value;
        int findings;
        gd_severity sev;
        const char *says;
    } cases[] = {
        {"0,1,2,3", 0, 0, NULL},
        {"3,2,1,0", 0, 0, NULL},
        {"GPU-aaaa0000-0000-0000-0000-000000000001,1,2,3", 1, GD_SEV_INFO, "3 of 4"}, /* a UUID and index 1 */
        {"GPU-aaaa", 1, GD_SEV_CRITICAL, "hides every GPU"}, /* a prefix of three GPUs' UUIDs names none */
        {"GPU-BBBB", 1, GD_SEV_INFO, "1 of 4"}, /* a unique prefix, any case */
        {"GPU-ffffffff-0000-0000-0000-000000000000", 1, GD_SEV_CRITICAL, "hides every GPU"},
        {"", 1, GD_SEV_CRITICAL, "hides every GPU"},
        {"1", 1, GD_SEV_INFO, "1 of 4"},
        {"0,0", 1, GD_SEV_INFO, "1 of 4"}, /* one GPU listed twice */
        {"0,7,1", 1, GD_SEV_WARNING, "only 1 of 4"},
        {"0,1,2,3,4", 1, GD_SEV_INFO, "still sees all 4"},
        {"MIG-GPU-aaaa0000-0000-0000-0000-000000000002/1/0", 0, 0, NULL},
        {"MIG-GPU-aaaa0000-0000-0000-0000-000000000001/1/0", 1, GD_SEV_CRITICAL,
         "hides every GPU"}, /* not in MIG mode */
        {"MIG-5c0ffee0-0000-0000-0000-000000000000", 0, 0, NULL},
        {"MIG-5c0ffee0-0000-0000-0000-000000000000,MIG-5c0ffee0-0000-0000-0000-000000000001", 1, GD_SEV_WARNING,
         "only the first"},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        gd_facts f;
        fx_facts(&f, 4, 2);
        for (size_t g = 0; g < 4; g++) {
            snprintf(f.gpus[g].uuid, sizeof f.gpus[g].uuid, "GPU-%s0000-0000-0000-0000-00000000000%zu",
                     g < 3 ? "aaaa" : "bbbb", g);
            f.gpus[g].mig_mode = gd_val(g == 2);
        }
        f.stack = calloc(1, sizeof *f.stack);
        f.stack->env_read = true;
        f.stack->env = calloc(1, sizeof *f.stack->env);
        size_t len = strlen(cases[c].value) + sizeof "CUDA_VISIBLE_DEVICES=";
        f.stack->env[0] = malloc(len);
        snprintf(f.stack->env[0], len, "CUDA_VISIBLE_DEVICES=%s", cases[c].value);
        f.stack->env_count = 1;
        gd_findings out;
        fx_run(&f, "env.visible_devices", &out);
        if ((int)fx_count(&out, "env.visible_devices", -2) != cases[c].findings)
            fail_msg("'%s': %zu findings, want %d", cases[c].value, out.n, cases[c].findings);
        if (cases[c].findings) {
            if (fx_only(&out, "env.visible_devices")->severity != cases[c].sev ||
                !strstr(out.v[0].title, cases[c].says))
                fail_msg("'%s': %s", cases[c].value, out.v[0].title);
            assert_non_null(json_object_get(out.v[0].evidence, "source"));
        }
        gd_findings_free(&out);
        gd_facts_free(&f);
    }
}

/* Two GPU models whose job has the environment vars (NULL-terminated). */
static void mixed_node(gd_facts *f, const char *const *vars)
{
    fx_facts(f, 2, 2);
    snprintf(f->gpus[1].name, sizeof f->gpus[1].name, "NVIDIA A100-SXM4-80GB");
    fx_env(f, vars);
}

/* CUDA numbers the fastest GPU first unless CUDA_DEVICE_ORDER=PCI_BUS_ID:
 * on a node of two models its numbers are not nvidia-smi's. */
static void device_order_on_mixed_models_without_pci_bus_id(void **state)
{
    (void)state;
    gd_facts f;
    mixed_node(&f, (const char *const[]){NULL});
    gd_findings fs = fx_run_one(&f, "env.device_order");
    const gd_finding *x = fx_only(&fs, "env.device_order");
    assert_int_equal(x->severity, GD_SEV_INFO);
    assert_int_equal(x->gpu, GD_NO_GPU);
    assert_true(json_is_null(json_object_get(x->evidence, "CUDA_DEVICE_ORDER")));
    assert_string_equal(json_string_value(json_object_get(x->evidence, "gpu0")), "NVIDIA H100 80GB HBM3");
    assert_non_null(strstr(x->title, "CUDA_DEVICE_ORDER unset"));
    assert_non_null(strstr(x->fix, "export CUDA_DEVICE_ORDER=PCI_BUS_ID"));
    gd_findings_free(&fs);
    gd_facts_free(&f);
    mixed_node(&f, (const char *const[]){"CUDA_DEVICE_ORDER=FASTEST_FIRST", NULL});
    fs = fx_run_one(&f, "env.device_order");
    x = fx_only(&fs, "env.device_order");
    assert_string_equal(json_string_value(json_object_get(x->evidence, "CUDA_DEVICE_ORDER")), "FASTEST_FIRST");
    assert_non_null(strstr(x->title, "CUDA_DEVICE_ORDER FASTEST_FIRST"));
    gd_findings_free(&fs);
    gd_facts_free(&f);
}

static void device_order_quiet_with_pci_bus_id_or_one_model(void **state)
{
    (void)state;
    gd_facts f;
    mixed_node(&f, (const char *const[]){"CUDA_DEVICE_ORDER=PCI_BUS_ID", NULL});
    fx_assert_silent(&f, "env.device_order");
    gd_facts_free(&f);
    fx_facts(&f, 8, 2); /* eight H100s: any order numbers them alike */
    fx_env(&f, (const char *const[]){NULL});
    fx_assert_silent(&f, "env.device_order");
    gd_facts_free(&f);
}

static void device_order_not_checked_without_the_environment(void **state)
{
    (void)state;
    gd_facts f;
    mixed_node(&f, (const char *const[]){NULL});
    f.stack->env_read = false;
    snprintf(f.stack->env_error, sizeof f.stack->env_error, "/proc/4242/environ: No such process");
    gd_findings fs = fx_run_one(&f, "env.device_order");
    assert_int_equal(fs.n, 0);
    assert_true(fx_skipped(&fs, "env.device_order", GD_NO_GPU, "/proc/4242/environ: No such process"));
    gd_findings_free(&fs);
    gd_facts_free(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(visible_devices_indices_uuids_and_mig),
        cmocka_unit_test(device_order_on_mixed_models_without_pci_bus_id),
        cmocka_unit_test(device_order_quiet_with_pci_bus_id_or_one_model),
        cmocka_unit_test(device_order_not_checked_without_the_environment),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
