/* SPDX-License-Identifier: Apache-2.0 */
/* pcie.replays and pcie.aer_errors (src/checks/pcie_errors.c): replay rates
 * against DCGM's allowance, AER counters and kernel-log messages. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "facts_fixture.h"
#include "gpudoctor/pcie.h"
#include "gpudoctor/stack.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Replays at `per_min` over a window of `secs` seconds on a Gen`gen` x`width` link. */
static size_t replay_findings_on(int gen, int width, double per_min, size_t secs)
{
    gd_facts f;
    fx_facts(&f, 1, secs + 1);
    fx_set(&f, 0, GD_M_PCIE_GEN, 0, secs + 1, gen);
    fx_set(&f, 0, GD_M_PCIE_WIDTH, 0, secs + 1, width);
    for (size_t i = 0; i <= secs; i++)
        fx_set(&f, 0, GD_M_PCIE_REPLAYS, i, i + 1, floor(per_min * (double)i / 60.0));
    gd_findings fs;
    fx_run(&f, "pcie.replays", &fs);
    size_t n = fx_count(&fs, "pcie.replays", 0);
    gd_findings_free(&fs);
    gd_facts_free(&f);
    return n;
}

static size_t replay_findings(int gen, double per_min)
{
    return replay_findings_on(gen, 16, per_min, 60);
}

/* One reading of the counter (a snapshot, a capture) has no growth to judge: said so. */
static void replays_read_once_are_not_judged(void **state)
{
    (void)state;
    gd_facts f;
    fx_facts(&f, 1, 1);
    fx_set(&f, 0, GD_M_PCIE_REPLAYS, 0, 1, 12345);
    gd_findings fs;
    fx_run(&f, "pcie.replays", &fs);
    assert_int_equal(fs.n, 0);
    assert_true(fx_skipped(&fs, "pcie.replays", 0, "read once"));
    gd_findings_free(&fs);
    gd_facts_free(&f);
}

static void replay_rate_follows_dcgm(void **state)
{
    (void)state;
    /* ceil(1e-12 x rate x 60 x lanes) per minute: exactly the allowance is
     * healthy, one more is a finding, at every generation and width. */
    static const struct {
        int gen, width, allowed;
    } edge[] = {{3, 16, 8}, {4, 16, 16}, {5, 16, 31}, {3, 8, 4}, {4, 8, 8}, {5, 8, 16}};
    for (size_t i = 0; i < sizeof edge / sizeof edge[0]; i++) {
        assert_int_equal(replay_findings_on(edge[i].gen, edge[i].width, edge[i].allowed, 60), 0);
        assert_int_equal(replay_findings_on(edge[i].gen, edge[i].width, edge[i].allowed + 1, 60), 1);
    }
    assert_int_equal(replay_findings(3, 12), 1);
    assert_int_equal(replay_findings(5, 0), 0);
    /* A 10 s window: 12 replays (72/min) are fewer than one minute's 16 at
     * Gen4 x16, so not yet a rate; 17 are. */
    assert_int_equal(replay_findings_on(4, 16, 72, 10), 0);
    assert_int_equal(replay_findings_on(4, 16, 102, 10), 1);
    /* Over 10 minutes the rate, not the count, decides. */
    assert_int_equal(replay_findings_on(4, 16, 16, 600), 0);
    assert_int_equal(replay_findings_on(4, 16, 18, 600), 1);
}

/* The evidence names the call that gave the counter: the samples' field
 * value where it answered, nvmlDeviceGetPcieReplayCounter by default (a
 * capture's counter, facts that do not say). */
static void replay_evidence_names_the_call_that_read_it(void **state)
{
    (void)state;
    static const char *const said[] = {"", "nvml:nvmlDeviceGetFieldValues(PCIE_REPLAY_COUNTER)"};
    static const char *const source[] = {"nvml:nvmlDeviceGetPcieReplayCounter",
                                         "nvml:nvmlDeviceGetFieldValues(PCIE_REPLAY_COUNTER)"};
    for (size_t k = 0; k < 2; k++) {
        gd_facts f;
        fx_facts(&f, 1, 61);
        fx_set(&f, 0, GD_M_PCIE_GEN, 0, 61, 4);
        fx_set(&f, 0, GD_M_PCIE_WIDTH, 0, 61, 16);
        for (size_t i = 0; i < 61; i++)
            fx_set(&f, 0, GD_M_PCIE_REPLAYS, i, i + 1, 100.0 * (double)i);
        snprintf(f.replay_counter, sizeof f.replay_counter, "%s", said[k]);
        gd_findings fs;
        fx_run(&f, "pcie.replays", &fs);
        assert_int_equal(fx_count(&fs, "pcie.replays", 0), 1);
        assert_string_equal(json_string_value(json_object_get(fs.v[0].evidence, "source")), source[k]);
        gd_findings_free(&fs);
        gd_facts_free(&f);
    }
}

/* The allowance is the loaded link's: idle samples at Gen1 do not make it stricter. */
static void replay_allowance_from_the_loaded_link(void **state)
{
    (void)state;
    gd_facts f;
    fx_facts(&f, 1, 61);
    fx_set(&f, 0, GD_M_UTIL_GPU_PCT, 0, 40, 0);
    fx_set(&f, 0, GD_M_PCIE_GEN, 0, 40, 1);
    fx_set(&f, 0, GD_M_PCIE_GEN, 40, 61, 4);
    fx_set(&f, 0, GD_M_PCIE_WIDTH, 0, 61, 16);
    for (size_t i = 0; i < 61; i++) /* 12/min: under Gen4 x16's 16, over Gen1 x16's 3 */
        fx_set(&f, 0, GD_M_PCIE_REPLAYS, i, i + 1, floor(12.0 * (double)i / 60.0));
    gd_findings fs;
    fx_run(&f, "pcie.replays", &fs);
    assert_int_equal(fs.n, 0);
    gd_findings_free(&fs);
    fx_set(&f, 0, GD_M_PCIE_GEN, 40, 61, 1); /* loaded at Gen1 too: now 12/min is too many */
    fx_run(&f, "pcie.replays", &fs);
    assert_int_equal(fx_count(&fs, "pcie.replays", 0), 1);
    gd_findings_free(&fs);
    gd_facts_free(&f);
}

static void add_aer(gd_stack_facts *s, gd_aer_severity sev, const char *dev, unsigned long times)
{
    size_t k = 0;
    while (k < s->aer_device_count && strcmp(s->aer_devices[k].dev, dev) != 0)
        k++;
    gd_aer_device *d = &s->aer_devices[k];
    if (k == s->aer_device_count) {
        s->aer_device_count++;
        memset(d, 0, sizeof *d);
        snprintf(d->dev, sizeof d->dev, "%s", dev);
    }
    d->count[sev] += times;
    d->last.severity = sev;
    snprintf(d->last.dev, sizeof d->last.dev, "%s", dev);
    snprintf(d->last.port, sizeof d->last.port, "0000:17:00.0");
    snprintf(d->last.text, sizeof d->last.text, "AER: ...");
}

/* The kernel log's AER messages: uncorrectable ones judged like the
 * counters, correctable ones warn from DCGM's 480 and are context below;
 * a device on no known GPU's path is context; a clean log says nothing. */
static void aer_messages_of_the_kernel_log(void **state)
{
    (void)state;
    gd_facts f;
    fx_facts(&f, 2, 3); /* GPUs at 18:00.0 and 19:00.0 */
    f.stack = calloc(1, sizeof *f.stack);
    f.stack->kernel_log_read = true;
    snprintf(f.stack->kernel_log_source, sizeof f.stack->kernel_log_source, "dmesg.txt");
    gd_findings fs;
    fx_run(&f, "pcie.aer_errors", &fs);
    assert_int_equal(fs.n, 0);
    gd_findings_free(&fs);

    add_aer(f.stack, GD_AER_CORRECTED, "0000:18:00.0", 3);
    fx_run(&f, "pcie.aer_errors", &fs);
    assert_int_equal(fs.n, 1);
    assert_int_equal(fs.v[0].gpu, 0);
    assert_int_equal(fs.v[0].severity, GD_SEV_INFO);
    assert_string_equal(json_string_value(json_object_get(fs.v[0].evidence, "source")), "kernel log: dmesg.txt");
    gd_findings_free(&fs);

    add_aer(f.stack, GD_AER_CORRECTED, "0000:18:00.0", 476); /* 479: one below DCGM's 480 */
    fx_run(&f, "pcie.aer_errors", &fs);
    assert_int_equal(fs.n, 1);
    assert_int_equal(fs.v[0].severity, GD_SEV_INFO);
    assert_non_null(strstr(fs.v[0].title, "479 correctable"));
    /* A note's fix is a note's: watch, no reseating (issue 39: a fix scales with its severity). */
    assert_non_null(strstr(fs.v[0].fix, "Nothing to do unless they keep rising"));
    assert_null(strstr(fs.v[0].fix, "reseat"));
    gd_findings_free(&fs);

    add_aer(f.stack, GD_AER_CORRECTED, "0000:18:00.0", 1); /* 480: warns */
    add_aer(f.stack, GD_AER_NONFATAL, "0000:19:00.0", 1);
    add_aer(f.stack, GD_AER_FATAL, "0000:99:00.0", 1); /* no GPU of the machine */
    fx_run(&f, "pcie.aer_errors", &fs);
    assert_int_equal(fs.n, 3);
    for (size_t i = 0; i < fs.n; i++) {
        const gd_finding *x = &fs.v[i];
        gd_severity want = x->gpu == 0 ? GD_SEV_WARNING : x->gpu == 1 ? GD_SEV_WARNING : GD_SEV_INFO;
        if (x->gpu == GD_NO_GPU)
            assert_non_null(strstr(x->title, "0000:99:00.0"));
        assert_int_equal(x->severity, want);
        assert_true((strstr(x->fix, "reseat") != NULL) == (x->severity != GD_SEV_INFO));
    }
    gd_findings_free(&fs);
    f.stack->aer_device_count = 0;
    add_aer(f.stack, GD_AER_FATAL, "0000:19:00.0", 1);
    fx_run(&f, "pcie.aer_errors", &fs);
    assert_int_equal(fx_count(&fs, "pcie.aer_errors", 1), 1);
    assert_int_equal(fs.v[0].severity, GD_SEV_CRITICAL);
    gd_findings_free(&fs);
    gd_facts_free(&f);
}

/* Runs pcie.aer_errors: the number of findings; the first one's severity and GPU. */
static size_t aer_run(const gd_facts *f, gd_severity *sev, int *gpu)
{
    gd_findings fs;
    fx_run(f, "pcie.aer_errors", &fs);
    size_t n = fs.n;
    *sev = n ? fs.v[0].severity : GD_SEV_INFO;
    *gpu = n ? fs.v[0].gpu : -100;
    for (size_t i = 0; i < fs.n; i++)
        assert_string_equal(fs.v[i].id, "pcie.aer_errors");
    gd_findings_free(&fs);
    return n;
}

/* The AER counters of sysfs: correctable errors warn from DCGM's 480 (479
 * is quiet), any non-fatal one warns, any fatal one is critical; a port on
 * the path of several GPUs is reported once; lspci's error bits say which
 * correctable errors were flagged, not how many, and are never judged. */
static void aer_counters_at_the_dcgm_threshold(void **state)
{
    (void)state;
    gd_facts f;
    fx_facts(&f, 2, 3);
    gd_pcie_facts *p = fx_pcie_switch_tree(&f);
    gd_severity sev;
    int gpu;
    assert_int_equal(aer_run(&f, &sev, &gpu), 0);

    gd_pcie_hop *h = &p->gpus[1].hops[0];
    h->aer_cor = gd_val(479);
    assert_int_equal(aer_run(&f, &sev, &gpu), 0);
    h->aer_cor = gd_val(480);
    assert_int_equal(aer_run(&f, &sev, &gpu), 1);
    assert_int_equal(sev, GD_SEV_WARNING);
    assert_int_equal(gpu, 1);
    gd_findings fs;
    fx_run(&f, "pcie.aer_errors", &fs);
    assert_true(json_integer_value(json_object_get(fs.v[0].evidence, "correctable")) == 480);
    assert_non_null(strstr(fs.v[0].title, "480 correctable"));
    gd_findings_free(&fs);
    h->aer_cor = gd_val(0);

    h->aer_nonfatal = gd_val(1);
    assert_int_equal(aer_run(&f, &sev, &gpu), 1);
    assert_int_equal(sev, GD_SEV_WARNING);
    h->aer_fatal = gd_val(1);
    assert_int_equal(aer_run(&f, &sev, &gpu), 1);
    assert_int_equal(sev, GD_SEV_CRITICAL);
    h->aer_nonfatal = h->aer_fatal = gd_val(0);

    p->gpus[0].hops[2].aer_fatal = gd_val(2); /* the shared upstream port */
    p->gpus[1].hops[2].aer_fatal = gd_val(2);
    assert_int_equal(aer_run(&f, &sev, &gpu), 1);
    assert_int_equal(sev, GD_SEV_CRITICAL);
    p->gpus[0].hops[2].aer_fatal = p->gpus[1].hops[2].aer_fatal = gd_val(0);

    h->aer_bits = true; /* lspci: CESta bits, however many */
    h->aer_cor = gd_val(480);
    assert_int_equal(aer_run(&f, &sev, &gpu), 0);
    h->aer_nonfatal = gd_val(1); /* a UESta bit */
    assert_int_equal(aer_run(&f, &sev, &gpu), 1);
    assert_int_equal(sev, GD_SEV_WARNING);
    gd_facts_free(&f);
}

/* A device with both counters and kernel-log messages gives one finding,
 * the counters' (with the messages as evidence); 479 logged correctable
 * errors beside counters below the threshold stay context (info). */
static void aer_counters_take_the_kernel_log_messages(void **state)
{
    (void)state;
    gd_facts f;
    fx_facts(&f, 2, 3);
    gd_pcie_facts *p = fx_pcie_switch_tree(&f);
    f.stack = calloc(1, sizeof *f.stack);
    f.stack->kernel_log_read = true;
    snprintf(f.stack->kernel_log_source, sizeof f.stack->kernel_log_source, "dmesg.txt");
    add_aer(f.stack, GD_AER_CORRECTED, "0000:18:00.0", 479);
    gd_severity sev;
    int gpu;
    assert_int_equal(aer_run(&f, &sev, &gpu), 1);
    assert_int_equal(sev, GD_SEV_INFO);
    p->gpus[0].hops[0].aer_cor = gd_val(480);
    gd_findings fs;
    fx_run(&f, "pcie.aer_errors", &fs);
    assert_int_equal(fs.n, 1);
    assert_int_equal(fs.v[0].severity, GD_SEV_WARNING);
    json_t *log = json_object_get(fs.v[0].evidence, "kernel_log_messages");
    assert_true(json_integer_value(json_object_get(log, "corrected")) == 479);
    gd_findings_free(&fs);
    gd_facts_free(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(replays_read_once_are_not_judged),
        cmocka_unit_test(replay_rate_follows_dcgm),
        cmocka_unit_test(replay_allowance_from_the_loaded_link),
        cmocka_unit_test(replay_evidence_names_the_call_that_read_it),
        cmocka_unit_test(aer_messages_of_the_kernel_log),
        cmocka_unit_test(aer_counters_at_the_dcgm_threshold),
        cmocka_unit_test(aer_counters_take_the_kernel_log_messages),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
