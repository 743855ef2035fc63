/* SPDX-License-Identifier: Apache-2.0 */
/* health.ecc_uncorrectable and health.row_remap (src/checks/health_memory.c)
 * from literal facts: severity edges. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "facts_fixture.h"

#include <string.h>

static void retired_pages_warn_from_15_fail_at_63(void **state)
{
    (void)state;
    static const struct {
        double sbe, dbe;
        int findings;
        gd_severity sev;
    } cases[] = {{10, 4, 0, 0}, {10, 5, 1, GD_SEV_WARNING}, {40, 22, 1, GD_SEV_WARNING}, {40, 23, 1, GD_SEV_CRITICAL}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        gd_facts f;
        fx_facts(&f, 1, 2);
        f.gpus[0].retired_pages_sbe = gd_val(cases[c].sbe);
        f.gpus[0].retired_pages_dbe = gd_val(cases[c].dbe);
        gd_findings out;
        fx_run(&f, "health.row_remap", &out);
        assert_int_equal(fx_count(&out, "health.row_remap", 0), cases[c].findings);
        if (cases[c].findings)
            assert_int_equal(fx_only(&out, "health.row_remap")->severity, cases[c].sev);
        gd_findings_free(&out);
        gd_facts_free(&f);
    }
}

static void pending_remap_is_critical_and_unreadable_is_skipped(void **state)
{
    (void)state;
    gd_facts f;
    fx_facts(&f, 2, 2);
    f.gpus[0].remap_pending = gd_val(1);
    f.gpus[0].remap_failure = gd_val(0);
    f.gpus[0].remap_unc_rows = gd_val(3);
    gd_findings out;
    fx_run(&f, "health.row_remap", &out);
    assert_int_equal(fx_only(&out, "health.row_remap")->severity, GD_SEV_CRITICAL);
    assert_int_equal(out.nskips, 1); /* GPU 1: nothing readable, said so */
    assert_int_equal(out.skips[0].gpu, 1);
    gd_findings_free(&out);
    gd_facts_free(&f);
}

/* A retirement pending a reset (Pascal and Volta, page retirement): critical,
 * and its evidence names the call that said so. */
static void pending_retirement_names_its_call(void **state)
{
    (void)state;
    gd_facts f;
    fx_facts(&f, 1, 2);
    f.gpus[0].retired_pages_sbe = gd_val(0);
    f.gpus[0].retired_pages_dbe = gd_val(1);
    f.gpus[0].retired_pages_pending = gd_val(1);
    gd_findings out;
    fx_run(&f, "health.row_remap", &out);
    const gd_finding *x = fx_only(&out, "health.row_remap");
    assert_int_equal(x->severity, GD_SEV_CRITICAL);
    assert_non_null(strstr(x->title, "page retirement pending"));
    assert_non_null(
        strstr(json_string_value(json_object_get(x->evidence, "source")), "nvmlDeviceGetRetiredPagesPendingStatus"));
    gd_findings_free(&out);
    gd_facts_free(&f);
}

static void ecc_volatile_is_critical_aggregate_a_warning(void **state)
{
    (void)state;
    gd_facts f;
    fx_facts(&f, 2, 2);
    f.gpus[0].ecc_volatile_uncorrected = gd_val(1);
    f.gpus[0].ecc_aggregate_uncorrected = gd_val(1);
    f.gpus[1].ecc_volatile_uncorrected = gd_val(0);
    f.gpus[1].ecc_aggregate_uncorrected = gd_val(3);
    gd_findings out;
    fx_run(&f, "health.ecc_uncorrectable", &out);
    assert_int_equal(out.n, 2);
    assert_int_equal(out.v[0].severity, GD_SEV_CRITICAL);
    assert_int_equal(out.v[1].severity, GD_SEV_WARNING);
    gd_findings_free(&out);
    gd_facts_free(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(retired_pages_warn_from_15_fail_at_63),
        cmocka_unit_test(pending_remap_is_critical_and_unreadable_is_skipped),
        cmocka_unit_test(pending_retirement_names_its_call),
        cmocka_unit_test(ecc_volatile_is_critical_aggregate_a_warning),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
