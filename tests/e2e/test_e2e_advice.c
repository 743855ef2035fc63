/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Advice that fits where it is printed (docs/checks.md, "A fix fits where it
 * is read"; issue 39):
 * - a fix scales with its severity: over every example scenario and every
 *   real capture, no info finding asks to drain, reboot the node, take a
 *   GPU out of service, replace it or open an RMA;
 * - inside a command, no fix sends the reader to that command: bench p2p
 *   and bench all do not say "measure with 'gpudoctor bench p2p'", run does
 *   not say "'gpudoctor check --pid PID' or 'gpudoctor run ...'";
 * - a kernel the driver could not load is not the GPU's fault;
 * - a GPU that fell off the bus says whether its readings came after it.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "run_tool.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const env[] = {
    "GPUDOCTOR_SIM_TIMESCALE=", "NO_COLOR=", "GPUDOCTOR_ROOT=", "CUDA_VISIBLE_DEVICES=", NULL};

static const char *str(const json_t *o, const char *key)
{
    const char *s = json_string_value(json_object_get(o, key));
    return s ? s : "";
}

/* What only a warning or a critical finding may ask for. */
static const char *drastic(const char *fix)
{
    static const char *const asks[] = {"drain the",        "drain it",        "open an rma", "out of service",
                                       "have it replaced", "reboot the node", "reboot it",   "rma the"};
    for (size_t i = 0; i < sizeof asks / sizeof asks[0]; i++)
        if (strcasestr(fix, asks[i]))
            return asks[i];
    return NULL;
}

/* Fails on an info finding of r whose fix asks for what only a fault warrants. */
static void notes_ask_no_drain(const char *what, const tool_result *r)
{
    if (!r->json)
        fail_msg("%s: no JSON; exit %d: %.500s", what, r->exit_code, r->err);
    json_t *f;
    size_t i;
    json_array_foreach(json_object_get(r->json, "findings"), i, f)
    {
        const char *ask = drastic(str(f, "fix"));
        if (strcmp(str(f, "severity"), "info") == 0 && ask)
            fail_msg("%s: info finding %s asks '%s': %s", what, str(f, "id"), ask, str(f, "fix"));
    }
}

static void a_note_never_asks_for_a_drain(void **state)
{
    (void)state;
    DIR *d = opendir(GD_EXAMPLES_DIR);
    assert_non_null(d);
    struct dirent *e;
    size_t runs = 0;
    while ((e = readdir(d))) {
        size_t len = strlen(e->d_name);
        if (len < 6 || strcmp(e->d_name + len - 5, ".json") != 0)
            continue;
        tool_result r = run_tool((const char *[]){"check", "--json", "--duration", "10", "--interval", "1000", "--sim",
                                                  example(e->d_name), NULL},
                                 env);
        notes_ask_no_drain(e->d_name, &r);
        tool_result_free(&r);
        runs++;
    }
    closedir(d);
    assert_true(runs > 30);
    need_realdata();
    static const char *const subdirs[] = {"smi-xml", "smi-text", "smi-csv", "lspci", "logs", "topo"};
    for (size_t s = 0; s < sizeof subdirs / sizeof subdirs[0]; s++) {
        char dir[1024];
        snprintf(dir, sizeof dir, "%s/%s", GD_REALDATA_DIR, subdirs[s]);
        DIR *rd = opendir(dir);
        assert_non_null(rd);
        while ((e = readdir(rd))) {
            if (e->d_name[0] == '.')
                continue;
            char rel[600];
            snprintf(rel, sizeof rel, "%s/%s", subdirs[s], e->d_name);
            tool_result r = run_tool((const char *[]){"check", "--json", "--from", realdata(rel), NULL}, env);
            notes_ask_no_drain(rel, &r);
            tool_result_free(&r);
        }
        closedir(rd);
    }
}

/* The fixes of r's findings with this id, joined. */
static void fixes_of(const tool_result *r, const char *id, char *buf, size_t len)
{
    buf[0] = '\0';
    json_t *f;
    size_t i, used = 0;
    json_array_foreach(json_object_get(r->json, "findings"), i, f)
    {
        if (strcmp(str(f, "id"), id) == 0 && used < len)
            used += (size_t)snprintf(buf + used, len - used, "%s\n", str(f, "fix"));
    }
}

/* bench p2p and bench all: the copies are the report's own. */
static void bench_fixes_do_not_send_to_bench(void **state)
{
    (void)state;
    char fix[8192];
    tool_result r =
        run_tool((const char *[]){"bench", "p2p", "--json", "--sim", example("rtx4090x8-no-p2p.json"), NULL}, env);
    assert_non_null(r.json);
    fixes_of(&r, "p2p.unsupported", fix, sizeof fix);
    assert_true(fix[0]);
    if (strstr(fix, "gpudoctor bench p2p"))
        fail_msg("bench p2p sends to bench p2p: %s", fix);
    tool_result_free(&r);
    r = run_tool((const char *[]){"bench", "all", "--json", "--sim", example("pcie-a100x4-slow-switch.json"), NULL},
                 env);
    assert_non_null(r.json);
    fixes_of(&r, "bench.nccl_low", fix, sizeof fix);
    if (!fix[0] || strstr(fix, "gpudoctor bench p2p") || strstr(fix, "gpudoctor topo") ||
        !strstr(fix, "GPU-to-GPU copies of this report"))
        fail_msg("bench all's nccl_low: %s", fix);
    tool_result_free(&r);
    /* A kernel the driver could not load (CUDA_ERROR_INVALID_PTX) is not the GPU's. */
    r = run_tool((const char *[]){"bench", "membw", "--json", "--sim", example("bench-h100x4-faults.json"), NULL}, env);
    assert_non_null(r.json);
    fixes_of(&r, "bench.failed", fix, sizeof fix);
    char *ptx = strstr(fix, "The driver could not load");
    if (!ptx || strstr(fix, "have it replaced"))
        fail_msg("bench.failed of a kernel that did not load: %s", fix);
    tool_result_free(&r);
}

/* The Xid scenario's GPU 3 fell off the bus (Xid 79 at 5 s) yet reads 98 %
 * busy: the finding says its readings came after the fault. */
static void fallen_gpu_says_its_readings_came_after(void **state)
{
    (void)state;
    tool_result r = run_tool(
        (const char *[]){"check", "--json", "--duration", "10", "--sim", example("h100x8-xid.json"), NULL}, env);
    assert_non_null(r.json);
    json_t *f;
    size_t i;
    bool seen = false;
    json_array_foreach(json_object_get(r.json, "findings"), i, f)
    {
        if (strcmp(str(f, "id"), "health.xid") != 0 || json_integer_value(json_object_get(f, "gpu")) != 3)
            continue;
        seen = true;
        if (!strstr(str(f, "title"), "answered after it") || !strstr(str(f, "fix"), "until the node reboots"))
            fail_msg("GPU 3's Xid 79: %s / %s", str(f, "title"), str(f, "fix"));
    }
    assert_true(seen);
    tool_result_free(&r);
}

/* run watches the job: its gpu.underutilized does not send to check --pid or run. */
static void run_does_not_send_to_run(void **state)
{
    (void)state;
    const char *e[] = {"GPUDOCTOR_SIM_TIMESCALE=", "NO_COLOR=", "GPUDOCTOR_ROOT=", NULL};
    tool_result r = run_tool(
        (const char *[]){"run", "--json", "--sim", example("h100x8-underutilized.json"), "--", "sleep", "6", NULL}, e);
    assert_non_null(r.json);
    char fix[8192];
    fixes_of(&r, "gpu.underutilized", fix, sizeof fix);
    if (!fix[0] || strstr(fix, "check --pid") || strstr(fix, "gpudoctor run -- python") || !strstr(fix, "input.*"))
        fail_msg("run's gpu.underutilized: %s", fix[0] ? fix : r.out);
    tool_result_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(bench_fixes_do_not_send_to_bench),
        cmocka_unit_test(fallen_gpu_says_its_readings_came_after),
        cmocka_unit_test(run_does_not_send_to_run),
        cmocka_unit_test(a_note_never_asks_for_a_drain),
    };
    return realdata_exit(cmocka_run_group_tests(tests, NULL, NULL));
}
