/* SPDX-License-Identifier: Apache-2.0 */
/* capture (src/checks/capture.c): what captured evidence could not show is
 * said once, as notes; a live, loaded node has nothing to say. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "facts_fixture.h"
#include "gpudoctor/pcie.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Facts read from a capture (--from) of `formats`: n GPUs, s samples. */
static void captured(gd_facts *f, size_t n, size_t s, const char *formats)
{
    fx_facts(f, n, s);
    f->captured = true;
    snprintf(f->capture_formats, sizeof f->capture_formats, "%s", formats);
}

static void a_live_loaded_node_has_no_note(void **state)
{
    (void)state;
    gd_facts f;
    fx_facts(&f, 8, 20);
    fx_assert_silent(&f, "capture");
    gd_facts_free(&f);
    captured(&f, 2, 20, "nvidia-smi dmon -o T"); /* a timed log of loaded, named GPUs */
    fx_assert_silent(&f, "capture");
    gd_facts_free(&f);
}

/* One nvidia-smi -q: clock events are what was active at that instant. */
static void one_snapshot_is_said(void **state)
{
    (void)state;
    gd_facts f;
    captured(&f, 2, 1, "nvidia-smi -q");
    gd_findings fs = fx_run_one(&f, "capture");
    assert_int_equal(fs.n, 0);
    assert_int_equal(fs.nskips, 1);
    assert_true(fx_skipped(&fs, "capture", GD_NO_GPU, "one snapshot (nvidia-smi -q): no time series"));
    gd_findings_free(&fs);
    gd_facts_free(&f);
}

static void an_untimed_log_is_said(void **state)
{
    (void)state;
    gd_facts f;
    captured(&f, 1, 10, "nvidia-smi dmon");
    f.capture_untimed = true;
    gd_findings fs = fx_run_one(&f, "capture");
    assert_int_equal(fs.nskips, 1);
    assert_true(
        fx_skipped(&fs, "capture", GD_NO_GPU, "the log has no timestamps: its 10 samples are taken as 1 s apart"));
    gd_findings_free(&fs);
    gd_facts_free(&f);
}

/* Idle GPUs of a capture hide what only load shows: one note for them all. */
static void idle_gpus_are_named_once(void **state)
{
    (void)state;
    gd_facts f;
    captured(&f, 3, 10, "nvidia-smi --query-gpu");
    fx_set(&f, 0, GD_M_UTIL_GPU_PCT, 0, 10, 0);
    fx_set(&f, 2, GD_M_UTIL_GPU_PCT, 0, 10, 3);
    gd_findings fs = fx_run_one(&f, "capture");
    assert_int_equal(fs.nskips, 1);
    assert_true(fx_skipped(&fs, "capture", GD_NO_GPU, "GPU 0, 2 idle when captured (at most 3% utilisation)"));
    gd_findings_free(&fs);
    gd_facts_free(&f);
}

/* lspci's GPUs that nvidia-smi does not list; GPUs without names. */
static void unmatched_links_and_unnamed_gpus_are_said(void **state)
{
    (void)state;
    gd_facts f;
    captured(&f, 2, 10, "nvidia-smi dmon, lspci -vv");
    f.gpus[1].name[0] = '\0';
    f.pcie = calloc(1, sizeof *f.pcie);
    f.pcie->gpu_count = 1;
    f.pcie->gpus = calloc(1, sizeof *f.pcie->gpus);
    snprintf(f.pcie->gpus[0].bdf, sizeof f.pcie->gpus[0].bdf, "0000:b3:00.0");
    gd_findings fs = fx_run_one(&f, "capture");
    assert_int_equal(fs.n, 0);
    assert_int_equal(fs.nskips, 2);
    assert_true(fx_skipped(&fs, "capture", GD_NO_GPU,
                           "the PCIe capture lists GPU(s) 0000:b3:00.0 that the nvidia-smi capture does not"));
    assert_true(fx_skipped(&fs, "capture", GD_NO_GPU, "the capture does not name the GPUs"));
    gd_findings_free(&fs);
    gd_facts_free(&f);
}

/* Live too: a window longer than the samples kept, and a GPU whose load
 * was judged by its power (utilisation N/A, as under MIG). */
static void dropped_samples_and_other_load_signals_are_said(void **state)
{
    (void)state;
    gd_facts f;
    fx_facts(&f, 2, 20);
    f.series.dropped = 40;
    fx_unset(&f, 1, GD_M_UTIL_GPU_PCT, GD_ST_NOT_SUPPORTED);
    gd_findings fs = fx_run_one(&f, "capture");
    assert_int_equal(fs.n, 0);
    assert_int_equal(fs.nskips, 2);
    assert_true(fx_skipped(&fs, "capture", GD_NO_GPU,
                           "the window was longer than the 20 samples kept: the checks judged its last 19 s (from "
                           "0.0 s on; 40 older samples were dropped)"));
    assert_true(fx_skipped(&fs, "capture", 1,
                           "GPU 1's utilisation is not readable (N/A, as under MIG): its load was judged by its power "
                           "draw against its limit (up to 550 W of its 700 W limit; under load from 280 W): under "
                           "load in 20 of 20 samples"));
    gd_findings_free(&fs);
    gd_facts_free(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_live_loaded_node_has_no_note),
        cmocka_unit_test(one_snapshot_is_said),
        cmocka_unit_test(an_untimed_log_is_said),
        cmocka_unit_test(idle_gpus_are_named_once),
        cmocka_unit_test(unmatched_links_and_unnamed_gpus_are_said),
        cmocka_unit_test(dropped_samples_and_other_load_signals_are_said),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
