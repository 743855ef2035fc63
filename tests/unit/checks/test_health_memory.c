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

/* GPU g's uncorrectable ECC counts: since the driver loaded, and in its lifetime. */
static void ecc_counts(gd_facts *f, size_t g, double volatile_count, double aggregate_count)
{
    f->gpus[g].ecc_volatile_uncorrected = gd_val(volatile_count);
    f->gpus[g].ecc_aggregate_uncorrected = gd_val(aggregate_count);
}

static void ecc_volatile_is_critical_aggregate_a_warning(void **state)
{
    (void)state;
    gd_facts f;
    fx_facts(&f, 2, 2);
    ecc_counts(&f, 0, 1, 1);
    ecc_counts(&f, 1, 0, 3);
    gd_findings out;
    fx_run(&f, "health.ecc_uncorrectable", &out);
    assert_int_equal(out.n, 2);
    assert_int_equal(out.v[0].severity, GD_SEV_CRITICAL);
    assert_int_equal(out.v[1].severity, GD_SEV_WARNING);
    gd_findings_free(&out);
    gd_facts_free(&f);
}

/* Lifetime errors whose memory the GPU has repaired, nothing pending or
 * failed: history (info, "no action unless it recurs"), never drain and
 * reset. A pending repair, errors since the driver loaded, or a volatile
 * count not read keep the warning or critical. */
static void repaired_lifetime_errors_are_history(void **state)
{
    (void)state;
    gd_facts f;
    fx_facts(&f, 3, 2);
    for (size_t g = 0; g < 3; g++)
        ecc_counts(&f, g, 0, 1);
    /* GPU 0: Hopper, its row remapped; GPU 1: a page retired before Ampere; GPU 2: a remap pending. */
    f.gpus[0].remap_unc_rows = gd_val(1);
    f.gpus[0].remap_pending = gd_val(0);
    f.gpus[0].remap_failure = gd_val(0);
    f.gpus[1].retired_pages_dbe = gd_val(1);
    f.gpus[1].retired_pages_pending = gd_val(0);
    f.gpus[2].remap_unc_rows = gd_val(1);
    f.gpus[2].remap_pending = gd_val(1);
    gd_findings out;
    fx_run(&f, "health.ecc_uncorrectable", &out);
    assert_int_equal(out.n, 3);
    for (size_t i = 0; i < out.n; i++) {
        const gd_finding *x = &out.v[i];
        if (x->gpu == 2) {
            assert_int_equal(x->severity, GD_SEV_WARNING);
            assert_non_null(strstr(x->fix, "Drain the GPU and reset it"));
            continue;
        }
        assert_int_equal(x->severity, GD_SEV_INFO);
        assert_non_null(strstr(x->title, "nothing pending: history"));
        assert_non_null(strstr(x->fix, "no action unless it recurs"));
        assert_null(strstr(x->fix, "nvidia-smi -r"));
    }
    gd_findings_free(&out);
    /* The volatile count not read: "none since the driver loaded" is not known. */
    f.gpus[0].ecc_volatile_uncorrected = gd_missing(GD_ST_NOT_SUPPORTED);
    fx_run(&f, "health.ecc_uncorrectable", &out);
    for (size_t i = 0; i < out.n; i++)
        if (out.v[i].gpu == 0)
            assert_int_equal(out.v[i].severity, GD_SEV_WARNING);
    gd_findings_free(&out);
    gd_facts_free(&f);
}

/* The reset an ECC fix asks for is for what waits for it: with 0 rows or
 * pages pending it never says "so pending remaps take effect" (issue 39). */
static void ecc_fix_asks_a_reset_only_for_a_pending_repair(void **state)
{
    (void)state;
    gd_facts f;
    fx_facts(&f, 3, 2);
    for (size_t g = 0; g < 3; g++)
        ecc_counts(&f, g, 2, 2); /* since the driver loaded: critical */
    f.gpus[0].remap_pending = gd_val(0); /* nothing pending */
    f.gpus[1].remap_pending = gd_val(1); /* a remap waits */
    /* GPU 2: the remapper not reported */
    gd_findings out;
    fx_run(&f, "health.ecc_uncorrectable", &out);
    assert_int_equal(out.n, 3);
    for (size_t i = 0; i < out.n; i++) {
        const gd_finding *x = &out.v[i];
        bool says_pending = strstr(x->fix, "pending repair takes effect") != NULL;
        if (x->gpu == 0 && (says_pending || !strstr(x->fix, "No repair waits for a reset")))
            fail_msg("GPU 0, nothing pending: %s", x->fix);
        if (x->gpu == 1 && (!says_pending || !strstr(x->fix, "nvidia-smi -r -i 1")))
            fail_msg("GPU 1, a remap pending: %s", x->fix);
        if (x->gpu == 2 && !strstr(x->fix, "if any"))
            fail_msg("GPU 2, not known: %s", x->fix);
        assert_null(strstr(x->fix, "so pending remaps take effect"));
    }
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
        cmocka_unit_test(repaired_lifetime_errors_are_history),
        cmocka_unit_test(ecc_fix_asks_a_reset_only_for_a_pending_repair),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
