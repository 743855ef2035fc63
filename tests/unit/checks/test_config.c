/* SPDX-License-Identifier: Apache-2.0 */
/* config.persistence_off, config.compute_mode, config.mig_enabled and
 * config.ecc_disabled (src/checks/config.c): severities and who they name. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "facts_fixture.h"
#include "gpudoctor/abi/nvml_api.h"

#include <stdio.h>
#include <string.h>

static void configuration_severities(void **state)
{
    (void)state;
    gd_facts f;
    fx_facts(&f, 4, 2);
    for (size_t g = 0; g < 4; g++) {
        f.gpus[g].persistence_mode = gd_val(g == 0 ? 0 : 1);
        f.gpus[g].compute_mode = gd_val(NVML_COMPUTEMODE_DEFAULT);
        f.gpus[g].mig_mode = gd_val(0);
    }
    f.gpus[1].compute_mode = gd_val(NVML_COMPUTEMODE_EXCLUSIVE_PROCESS);
    gd_findings out;
    fx_run(&f, "config.persistence_off", &out);
    assert_int_equal(fx_only(&out, "config.persistence_off")->severity, GD_SEV_INFO);
    gd_findings_free(&out);
    fx_run(&f, "config.compute_mode", &out);
    assert_int_equal(fx_only(&out, "config.compute_mode")->severity, GD_SEV_INFO);
    gd_findings_free(&out);
    f.gpus[1].compute_mode = gd_val(NVML_COMPUTEMODE_PROHIBITED);
    fx_run(&f, "config.compute_mode", &out);
    assert_int_equal(fx_only(&out, "config.compute_mode")->severity, GD_SEV_CRITICAL);
    gd_findings_free(&out);
    fx_run(&f, "config.mig_enabled", &out);
    assert_int_equal(out.n, 0);
    gd_findings_free(&out);
    gd_facts_free(&f);
}

/* Prohibited blocks new CUDA contexts; a process that holds one already
 * runs on. A busy GPU in Prohibited mode is said so, not "no CUDA process
 * can use it" beside its 98 % utilisation (issue 39). */
static void prohibited_says_what_it_blocks(void **state)
{
    (void)state;
    gd_facts f;
    fx_facts(&f, 2, 4);
    for (size_t g = 0; g < 2; g++)
        f.gpus[g].compute_mode = gd_val(NVML_COMPUTEMODE_DEFAULT);
    f.gpus[1].compute_mode = gd_val(NVML_COMPUTEMODE_PROHIBITED);
    fx_set(&f, 1, GD_M_UTIL_GPU_PCT, 0, 4, 0);
    gd_findings out;
    fx_run(&f, "config.compute_mode", &out);
    const gd_finding *x = fx_only(&out, "config.compute_mode");
    assert_non_null(strstr(x->title, "no new CUDA context"));
    assert_null(strstr(x->title, "keep running"));
    gd_findings_free(&out);
    fx_set(&f, 1, GD_M_UTIL_GPU_PCT, 0, 4, 98);
    fx_run(&f, "config.compute_mode", &out);
    x = fx_only(&out, "config.compute_mode");
    assert_null(strstr(x->title, "no CUDA process can use it"));
    assert_non_null(strstr(x->title, "no new CUDA context"));
    assert_non_null(strstr(x->title, "98 % busy"));
    assert_non_null(strstr(x->title, "keep running"));
    assert_non_null(strstr(x->fix, "next job"));
    gd_findings_free(&out);
    gd_facts_free(&f);
}

/* n data-center GPUs with ECC on, but those of `off` (-1 ends the list). */
static void ecc_node(gd_facts *f, size_t n, const int *off)
{
    fx_facts(f, n, 2);
    for (size_t g = 0; g < n; g++)
        f->gpus[g].ecc_enabled = gd_val(1);
    for (; *off >= 0; off++)
        f->gpus[*off].ecc_enabled = gd_val(0);
}

static void ecc_disabled_names_the_gpus_in_the_fix(void **state)
{
    (void)state;
    gd_facts f;
    ecc_node(&f, 4, (const int[]){2, -1});
    gd_findings fs = fx_run_one(&f, "config.ecc_disabled");
    const gd_finding *x = fx_only(&fs, "config.ecc_disabled");
    assert_int_equal(x->severity, GD_SEV_INFO);
    assert_int_equal(x->gpu, 2);
    assert_string_equal(x->title, "GPU 2: ECC disabled on a data-center GPU");
    assert_string_equal(json_string_value(json_object_get(x->evidence, "source")), "nvml:nvmlDeviceGetEccMode");
    assert_non_null(strstr(x->fix, "'sudo nvidia-smi -i 2 -e 1'"));
    gd_findings_free(&fs);
    gd_facts_free(&f);
    /* Several GPUs: one finding for the node, every GPU in the fix. */
    ecc_node(&f, 4, (const int[]){1, 3, -1});
    fs = fx_run_one(&f, "config.ecc_disabled");
    x = fx_only(&fs, "config.ecc_disabled");
    assert_int_equal(x->gpu, GD_NO_GPU);
    assert_string_equal(x->title, "2 GPUs: ECC disabled on a data-center GPU");
    assert_int_equal(json_array_size(json_object_get(x->evidence, "gpus")), 2);
    assert_non_null(strstr(x->fix, "'sudo nvidia-smi -i 1,3 -e 1'"));
    gd_findings_free(&fs);
    gd_facts_free(&f);
}

/* ECC on, or a GeForce board with no ECC to turn on: quiet. */
static void ecc_disabled_quiet_on_ecc_and_consumer_boards(void **state)
{
    (void)state;
    gd_facts f;
    ecc_node(&f, 4, (const int[]){-1});
    fx_assert_silent(&f, "config.ecc_disabled");
    gd_facts_free(&f);
    ecc_node(&f, 2, (const int[]){0, 1, -1});
    for (size_t g = 0; g < 2; g++)
        snprintf(f.gpus[g].name, sizeof f.gpus[g].name, "NVIDIA GeForce RTX 4090");
    assert_int_equal(fx_run_count(&f, "config.ecc_disabled"), 0);
    gd_facts_free(&f);
}

/* Unreadable: said per GPU; not supported (no ECC): not a question. */
static void ecc_disabled_unreadable_is_not_checked(void **state)
{
    (void)state;
    gd_facts f;
    ecc_node(&f, 2, (const int[]){-1});
    f.gpus[0].ecc_enabled = gd_missing(GD_ST_NO_PERMISSION);
    f.gpus[1].ecc_enabled = gd_missing(GD_ST_NOT_SUPPORTED);
    gd_findings fs = fx_run_one(&f, "config.ecc_disabled");
    assert_int_equal(fs.n, 0);
    assert_int_equal(fs.nskips, 1);
    assert_true(fx_skipped(&fs, "config.ecc_disabled", 0, "ECC mode not readable (no permission)"));
    gd_findings_free(&fs);
    gd_facts_free(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(configuration_severities),
        cmocka_unit_test(prohibited_says_what_it_blocks),
        cmocka_unit_test(ecc_disabled_names_the_gpus_in_the_fix),
        cmocka_unit_test(ecc_disabled_quiet_on_ecc_and_consumer_boards),
        cmocka_unit_test(ecc_disabled_unreadable_is_not_checked),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
