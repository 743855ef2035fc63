/* SPDX-License-Identifier: Apache-2.0 */
/* nvlink.errors, nvlink.fabric and nvlink.sxid (src/checks/nvlink_health.c)
 * from literal facts: nvlink.errors' severity edges, the fabric states, SXid
 * findings. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "facts_fixture.h"
#include "gpudoctor/abi/nvml_api.h"
#include "gpudoctor/stack.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void rise(gd_facts *f, double t, int gpu, const char *counter, unsigned link, long long n)
{
    gd_event e = {.t = t, .gpu = gpu, .kind = GD_EV_COUNTER, .value = n};
    snprintf(e.what, sizeof e.what, "nvlink_%s:%u", counter, link);
    assert_int_equal(gd_event_add(&f->events, &e), 0);
}

static void event_names_parse_back(void **state)
{
    (void)state;
    gd_event e = {.kind = GD_EV_COUNTER, .value = 3};
    unsigned link = 99;
    int c = -1;
    snprintf(e.what, sizeof e.what, "nvlink_crc_data:17");
    assert_true(gd_nvlink_event_parse(&e, &link, &c));
    assert_int_equal(link, 17);
    assert_string_equal(gd_nvlink_counter_names[c], "crc_data");
    static const char *const bad[] = {"nvlink_crc_data:", "nvlink_crc:3", "nvlink_crc_data:3x", "ecc_volatile_uncorrected",
                                      "nvlink_replay", "nvlink_replay:-1"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        snprintf(e.what, sizeof e.what, "%s", bad[i]);
        assert_false(gd_nvlink_event_parse(&e, &link, &c));
    }
    snprintf(e.what, sizeof e.what, "nvlink_replay:3");
    e.kind = GD_EV_XID;
    assert_false(gd_nvlink_event_parse(&e, &link, &c));
}

/* 10 samples 1 s apart: a 9 s window. */
static void errors_severity_by_kind_and_rate(void **state)
{
    (void)state;
    static const struct {
        const char *counter;
        long long n;
        int findings;
        gd_severity sev;
    } cases[] = {
        {"replay", 3, 1, GD_SEV_INFO},          /* a few replays: the link resent and went on */
        {"replay", 10, 1, GD_SEV_WARNING},      /* GD_NVLINK_REPLAYS_WARN */
        {"crc_flit", 1, 1, GD_SEV_WARNING},     /* any CRC error below DCGM's rate */
        {"crc_data", 1, 1, GD_SEV_WARNING},
        {"crc_flit", 899, 1, GD_SEV_WARNING},   /* 99.9/s */
        {"crc_flit", 900, 1, GD_SEV_CRITICAL},  /* 100/s: DCGM's limit */
        {"recovery", 1, 1, GD_SEV_CRITICAL},    /* the link dropped and retrained */
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        gd_facts f;
        fx_facts(&f, 2, 10);
        fx_nvlinks(&f, 18);
        rise(&f, 5, 1, cases[k].counter, 7, cases[k].n);
        gd_findings out;
        fx_run(&f, "nvlink.errors", &out);
        assert_int_equal(fx_count(&out, "nvlink.errors", 1), 1);
        const gd_finding *x = fx_only(&out, "nvlink.errors");
        if (x->severity != cases[k].sev)
            fail_msg("%s +%lld: severity %d, want %d", cases[k].counter, cases[k].n, x->severity, cases[k].sev);
        json_t *l = json_array_get(json_object_get(x->evidence, "links"), 0);
        assert_int_equal(json_integer_value(json_object_get(l, "link")), 7);
        assert_int_equal(json_integer_value(json_object_get(l, cases[k].counter)), cases[k].n);
        assert_int_equal(out.nskips, 0);
        gd_findings_free(&out);
        gd_facts_free(&f);
    }
}

/* The fix scales with the severity: a few replays are a note (watch), CRC
 * errors a link to look at when the node is next down, a recovery or a CRC
 * storm a drain and an RMA (issue 39: one replay got the CRC storm's fix). */
static void errors_fix_scales_with_severity(void **state)
{
    (void)state;
    static const struct {
        const char *counter;
        long long n;
        const char *has, *lacks;
    } cases[] = {
        {"replay", 1, "nothing to do now", "Drain"},
        {"crc_flit", 1, "when the node is next down", "Drain the node, then"},
        {"recovery", 1, "Drain the node, then", "nothing to do now"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        gd_facts f;
        fx_facts(&f, 2, 10);
        fx_nvlinks(&f, 18);
        snprintf(f.gpus[1].serial, sizeof f.gpus[1].serial, "1654922000101");
        rise(&f, 5, 1, cases[k].counter, 7, cases[k].n);
        gd_findings out;
        fx_run(&f, "nvlink.errors", &out);
        const gd_finding *x = fx_only(&out, "nvlink.errors");
        if (!strstr(x->fix, cases[k].has) || strstr(x->fix, cases[k].lacks))
            fail_msg("%s +%lld (%s): %s", cases[k].counter, cases[k].n, gd_severity_name(x->severity), x->fix);
        if (x->severity == GD_SEV_INFO && (strstr(x->fix, "RMA") || strstr(x->fix, "drain")))
            fail_msg("a note asks for an RMA or a drain: %s", x->fix);
        assert_non_null(strstr(x->fix, "-i 1"));
        assert_non_null(strstr(x->fix, "1654922000101"));
        gd_findings_free(&out);
        gd_facts_free(&f);
    }
}

static void errors_outside_the_window_or_other_counters_are_quiet(void **state)
{
    (void)state;
    gd_facts f;
    fx_facts(&f, 2, 10); /* samples at 0..9 s */
    fx_nvlinks(&f, 18);
    rise(&f, 30, 1, "crc_flit", 7, 5000); /* after the window (the live view's last minute) */
    gd_event ecc = {.t = 4, .gpu = 0, .kind = GD_EV_COUNTER, .value = 2};
    snprintf(ecc.what, sizeof ecc.what, "ecc_volatile_uncorrected");
    gd_event_add(&f.events, &ecc);
    /* Large counts from before the session are not a rise. */
    f.gpus[0].nvlink[3].crc_flit_errors = gd_val(123456);
    gd_findings out;
    fx_run(&f, "nvlink.errors", &out);
    assert_int_equal(out.n, 0);
    assert_int_equal(out.nskips, 0);
    gd_findings_free(&out);
    gd_facts_free(&f);
}

static void errors_not_checked_only_with_nvlink_and_no_counters(void **state)
{
    (void)state;
    gd_facts f;
    fx_facts(&f, 2, 4);
    gd_findings out;
    fx_run(&f, "nvlink.errors", &out); /* no NVLink at all: nothing to judge, nothing said */
    assert_int_equal(out.n + out.nskips, 0);
    gd_findings_free(&out);
    fx_nvlinks(&f, 4);
    for (size_t g = 0; g < 2; g++)
        for (size_t l = 0; l < 4; l++)
            f.gpus[g].nvlink[l].replay_errors = f.gpus[g].nvlink[l].crc_flit_errors =
                gd_missing(GD_ST_NOT_SUPPORTED);
    fx_run(&f, "nvlink.errors", &out);
    assert_int_equal(out.n, 0);
    assert_int_equal(out.nskips, 1);
    gd_findings_free(&out);
    gd_facts_free(&f);
}

/* Counters read once (a snapshot) show no growth: "not judged", never "ok";
 * read twice or more, or not known how often (a capture), judged. */
static void errors_read_once_are_not_judged(void **state)
{
    (void)state;
    gd_facts f;
    fx_facts(&f, 2, 1);
    fx_nvlinks(&f, 4);
    f.events.counter_reads = 1;
    gd_findings out;
    fx_run(&f, "nvlink.errors", &out);
    assert_int_equal(out.n, 0);
    assert_true(fx_skipped(&out, "nvlink.errors", GD_NO_GPU, "read once"));
    gd_findings_free(&out);
    for (int reads = 0; reads <= 2; reads += 2) {
        f.events.counter_reads = reads;
        fx_run(&f, "nvlink.errors", &out);
        assert_int_equal(out.n + out.nskips, 0);
        gd_findings_free(&out);
    }
    gd_facts_free(&f);
}

static void fabric_states(void **state)
{
    (void)state;
    static const struct {
        int st0, status0, st1; /* GPU 0's state and status, GPU 1's state (0: not supported) */
        const char *key; /* "id@gpu=severity", NULL: none */
    } cases[] = {
        {NVML_GPU_FABRIC_STATE_COMPLETED, 0, NVML_GPU_FABRIC_STATE_COMPLETED, NULL},
        {NVML_GPU_FABRIC_STATE_NOT_STARTED, 0, NVML_GPU_FABRIC_STATE_NOT_STARTED, "-1=critical"},
        {NVML_GPU_FABRIC_STATE_NOT_STARTED, 0, NVML_GPU_FABRIC_STATE_COMPLETED, "0=critical"},
        {NVML_GPU_FABRIC_STATE_COMPLETED, NVML_ERROR_NOT_READY, NVML_GPU_FABRIC_STATE_COMPLETED, "0=critical"},
        {NVML_GPU_FABRIC_STATE_IN_PROGRESS, 0, NVML_GPU_FABRIC_STATE_COMPLETED, "0=warning"},
        {NVML_GPU_FABRIC_STATE_IN_PROGRESS, 0, NVML_GPU_FABRIC_STATE_NOT_STARTED, "-1=critical"},
        {NVML_GPU_FABRIC_STATE_IN_PROGRESS, 0, NVML_GPU_FABRIC_STATE_IN_PROGRESS, "-1=warning"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        gd_facts f;
        fx_facts(&f, 2, 2);
        fx_nvlinks(&f, 18);
        f.gpus[0].fabric_state = gd_val(cases[k].st0);
        f.gpus[0].fabric_status = cases[k].st0 == NVML_GPU_FABRIC_STATE_COMPLETED ? gd_val(cases[k].status0)
                                                                                 : gd_missing(GD_ST_UNREAD);
        f.gpus[1].fabric_state = gd_val(cases[k].st1);
        f.gpus[1].fabric_status = gd_val(0);
        gd_findings out;
        fx_run(&f, "nvlink.fabric", &out);
        char got[64] = "";
        if (out.n == 1)
            snprintf(got, sizeof got, "%d=%s", out.v[0].gpu, gd_severity_name(out.v[0].severity));
        if (cases[k].key ? strcmp(got, cases[k].key) != 0 : out.n != 0)
            fail_msg("case %zu: got %zu findings (%s), want %s", k, out.n, got, cases[k].key ? cases[k].key : "none");
        if (out.n == 1 && out.v[0].gpu == GD_NO_GPU && out.v[0].severity == GD_SEV_WARNING)
            assert_non_null(strstr(out.v[0].title, "still in progress"));
        if (out.n == 1 && out.v[0].gpu == GD_NO_GPU && out.v[0].severity == GD_SEV_CRITICAL &&
            cases[k].st0 == cases[k].st1)
            assert_non_null(strstr(out.v[0].title, "Fabric Manager is not running"));
        assert_int_equal(out.nskips, 0);
        gd_findings_free(&out);
        gd_facts_free(&f);
    }
}

/* The title names the GPU of the finding's severity: with one GPU still
 * registering (a warning) and one that never started (critical), the
 * critical one, not the first in the list. */
static void fabric_title_names_the_worst_gpu(void **state)
{
    (void)state;
    gd_facts f;
    fx_facts(&f, 3, 2);
    fx_nvlinks(&f, 18);
    f.gpus[0].fabric_state = gd_val(NVML_GPU_FABRIC_STATE_IN_PROGRESS);
    f.gpus[1].fabric_state = gd_val(NVML_GPU_FABRIC_STATE_COMPLETED);
    f.gpus[2].fabric_state = gd_val(NVML_GPU_FABRIC_STATE_NOT_STARTED);
    for (size_t g = 0; g < 3; g++)
        f.gpus[g].fabric_status = gd_val(0);
    gd_findings out;
    fx_run(&f, "nvlink.fabric", &out);
    assert_int_equal(out.n, 1);
    assert_int_equal(out.v[0].severity, GD_SEV_CRITICAL);
    assert_non_null(strstr(out.v[0].title, "GPU 2: state not started"));
    gd_findings_free(&out);
    /* All bad: the state said is the critical one's. */
    f.gpus[1].fabric_state = gd_val(NVML_GPU_FABRIC_STATE_IN_PROGRESS);
    fx_run(&f, "nvlink.fabric", &out);
    assert_int_equal(out.n, 1);
    assert_non_null(strstr(out.v[0].title, "state not started"));
    gd_findings_free(&out);
    gd_facts_free(&f);
}

/* PCIe boards: NOT_SUPPORTED is never a finding; a note only where NVLink is up. */
static void fabric_not_supported_is_not_checked(void **state)
{
    (void)state;
    gd_facts f;
    fx_facts(&f, 2, 2);
    for (size_t g = 0; g < 2; g++)
        f.gpus[g].fabric_state = f.gpus[g].fabric_status = gd_missing(GD_ST_NOT_SUPPORTED);
    gd_findings out;
    fx_run(&f, "nvlink.fabric", &out);
    assert_int_equal(out.n + out.nskips, 0);
    gd_findings_free(&out);
    fx_nvlinks(&f, 4);
    fx_run(&f, "nvlink.fabric", &out);
    assert_int_equal(out.n, 0);
    assert_int_equal(out.nskips, 1);
    gd_findings_free(&out);
    gd_facts_free(&f);
}

static void sxid_fatal_is_critical(void **state)
{
    (void)state;
    for (int fatal = -1; fatal <= 1; fatal++) {
        gd_facts f;
        fx_facts(&f, 2, 2);
        f.stack = calloc(1, sizeof *f.stack);
        f.stack->kernel_log_read = true;
        f.stack->sxid_groups[0] = (gd_sxid_group){.sxid = 12028, .nvswitch = "nvidia-nvswitch0", .pci = "0000:05:00.0",
                                                  .fatal = 0, .count = 3};
        f.stack->sxid_groups[1] = (gd_sxid_group){.sxid = 20034, .nvswitch = "nvidia-nvswitch3", .pci = "0000:08:00.0",
                                                  .fatal = fatal, .count = 1};
        f.stack->sxid_group_count = 2;
        f.stack->sxid_total = 4;
        gd_findings out;
        fx_run(&f, "nvlink.sxid", &out);
        const gd_finding *x = fx_only(&out, "nvlink.sxid");
        assert_int_equal(x->severity, fatal == 1 ? GD_SEV_CRITICAL : GD_SEV_WARNING);
        assert_int_equal(x->gpu, GD_NO_GPU);
        assert_int_equal(json_array_size(json_object_get(x->evidence, "sxids")), 2);
        assert_non_null(strstr(x->title, "nvidia-nvswitch0, nvidia-nvswitch3"));
        gd_findings_free(&out);
        /* A clean log: quiet. */
        f.stack->sxid_group_count = 0;
        fx_run(&f, "nvlink.sxid", &out);
        assert_int_equal(out.n + out.nskips, 0);
        gd_findings_free(&out);
        gd_facts_free(&f);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(event_names_parse_back),
        cmocka_unit_test(errors_severity_by_kind_and_rate),
        cmocka_unit_test(errors_fix_scales_with_severity),
        cmocka_unit_test(errors_outside_the_window_or_other_counters_are_quiet),
        cmocka_unit_test(errors_not_checked_only_with_nvlink_and_no_counters),
        cmocka_unit_test(errors_read_once_are_not_judged),
        cmocka_unit_test(fabric_states),
        cmocka_unit_test(fabric_title_names_the_worst_gpu),
        cmocka_unit_test(fabric_not_supported_is_not_checked),
        cmocka_unit_test(sxid_fatal_is_critical),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
