/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `run --profile` for real (docs/run.md): Debian's python3-torch runs the
 * jobs of tests/job/profile/ unmodified under gpudoctor's start-up hook. A
 * DataLoader-bound job gets the DataLoader first, with the trace's share and
 * the job's CPU side by side; an .item()-bound job gets the host's reads; a
 * healthy job gets no cause; the jobs' results do not change; two ranks give
 * two traces; under --sim the simulated GPUs' idle time joins the real trace;
 * the step counting falls back to DataLoader batches without torch's global
 * optimizer hook (and an environment switch chooses); where nothing can be
 * profiled the report says why and the job runs on. Without torch the tests
 * are skipped (77), and fail when CI=true.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "run_tool.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *const env[] = {"GPUDOCTOR_SIM_TIMESCALE=", "NO_COLOR=", "GPUDOCTOR_ROOT=", "PYTHONPATH=", NULL};

/* Can the hook count this torch's optimizer steps: the global step hook
 * (PyTorch 2.x), or the entry its profiler calls after each step (1.13)? */
static bool torch_has_optimizer_hook(void)
{
    char cmd[512];
    snprintf(cmd, sizeof cmd,
             "%s -c 'import torch, torch.optim.optimizer as o; raise SystemExit(0 if hasattr(o, "
             "\"register_optimizer_step_post_hook\") or hasattr(torch.optim.Optimizer, "
             "\"_optimizer_step_code\") else 1)' >/dev/null 2>&1",
             torch_python());
    return system(cmd) == 0;
}

static const char *job(const char *name)
{
    static char buf[4][1024];
    static int k;
    k = (k + 1) % 4;
    snprintf(buf[k], sizeof buf[k], "%s/tests/job/profile/%s", GD_SOURCE_DIR, name);
    return buf[k];
}

/* run --json --profile [opts...] -- python3 SCRIPT ARGS: opts and args end at "--". */
static tool_result profile_run(const char *const *opts, const char *const *cmd, const char *const *extra_env)
{
    const char *argv[40] = {"run", "--json", "--profile"};
    size_t n = 3;
    for (; opts && *opts && n < 30; opts++)
        argv[n++] = *opts;
    argv[n++] = "--";
    for (; *cmd && n < 39; cmd++)
        argv[n++] = *cmd;
    argv[n] = NULL;
    const char *e[16];
    size_t m = 0;
    for (size_t i = 0; env[i]; i++)
        e[m++] = env[i];
    for (; extra_env && *extra_env && m < 15; extra_env++)
        e[m++] = *extra_env;
    e[m] = NULL;
    tool_result r = run_tool(argv, e);
    if (!r.json)
        fail_msg("no JSON report: exit %d, stdout: %.2000s\nstderr: %.2000s", r.exit_code, r.out, r.err);
    return r;
}

static json_t *profile_of(const tool_result *r)
{
    json_t *p = json_object_get(r->json, "profile");
    assert_non_null(p);
    return p;
}

static json_t *cause(const tool_result *r, size_t i)
{
    return json_array_get(json_object_get(profile_of(r), "causes"), i);
}

/* The evidence entry of source `src` in cause c, or NULL. */
static json_t *evidence_from(json_t *c, const char *src)
{
    json_t *e;
    size_t i;
    json_array_foreach(json_object_get(c, "evidence"), i, e)
    {
        if (strcmp(json_string_value(json_object_get(e, "source")), src) == 0)
            return e;
    }
    return NULL;
}

static const char *str(json_t *o, const char *key)
{
    const char *s = json_string_value(json_object_get(o, key));
    return s ? s : "";
}

/* "final loss ..." as the job printed it on stderr. */
static void final_line(const char *text, char *buf, size_t len)
{
    const char *p = strstr(text ? text : "", "final loss");
    buf[0] = 0;
    if (p) {
        size_t n = strcspn(p, "\n");
        snprintf(buf, len, "%.*s", (int)(n < len ? n : len - 1), p);
    }
}

/* The job alone, without gpudoctor: its "final loss" line. */
static void plain_run(const char *script, char *buf, size_t len)
{
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "env -u PYTHONPATH PYTHONDONTWRITEBYTECODE=1 %s %s 2>&1 >/dev/null", torch_python(),
             script);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    char out[8192];
    size_t n = fread(out, 1, sizeof out - 1, p);
    out[n] = 0;
    pclose(p);
    final_line(out, buf, len);
}

/* The acceptance test: the DataLoader first, the trace's share and the job's
 * CPU side by side, in JSON and in text; the job's result unchanged; the
 * trace's numbers those of `gpudoctor trace` on the kept traces. */
static void dataloader_bound_job_names_the_dataloader_first(void **state)
{
    (void)state;
    need_component(torch_python() != NULL, "python3 with torch (python3-torch)", GD_FIX_TEST_PACKAGES);
    char *dir = temp_dir();
    char keep[1100];
    snprintf(keep, sizeof keep, "%s/traces", dir);
    tool_result r = profile_run((const char *[]){"--profile-dir", keep, NULL},
                                (const char *[]){torch_python(), job("dl_bound.py"), NULL}, NULL);
    assert_int_equal(r.exit_code, 0);
    json_t *p = profile_of(&r);
    assert_true(json_is_true(json_object_get(p, "profiled")));
    json_t *c = cause(&r, 0);
    if (strcmp(str(c, "cause"), "dataloader") != 0)
        fail_msg("first cause %s, not the DataLoader: %s", str(c, "cause"), r.out);
    json_t *tr = evidence_from(c, "trace"), *jb = evidence_from(c, "job");
    assert_non_null(tr);
    assert_non_null(jb);
    assert_string_equal(str(tr, "finding"), "trace.dataloader");
    double share = json_number_value(json_object_get(json_object_get(tr, "evidence"), "dataloader_pct"));
    double core = json_number_value(json_object_get(json_object_get(jb, "evidence"), "top_thread_core_share_mean"));
    print_message(
        "dl_bound: DataLoader %.1f%% of the step, win %.1f%%, main thread %.0f%% of a core, overhead %.1f%%\n", share,
        json_number_value(json_object_get(c, "win_pct")), core * 100,
        json_number_value(json_object_get(p, "overhead_pct")));
    assert_true(share >= 50);
    assert_true(core > 0);
    /* The loader's thread wants the CPU all along (R): a busy host may give it less than a core. */
    assert_true(json_number_value(json_object_get(json_object_get(jb, "evidence"), "top_thread_runnable_pct")) >= 50);
    assert_true(json_is_number(json_object_get(p, "overhead_pct")));
    /* trace's numbers: the same as `gpudoctor trace DIR --json` gives on the kept traces. */
    json_t *rank0 = json_array_get(json_object_get(json_object_get(p, "trace"), "ranks"), 0);
    tool_result t = run_tool((const char *[]){"trace", "--json", keep, NULL}, env);
    assert_int_equal(t.exit_code, 0);
    json_t *t0 = json_array_get(json_object_get(t.json, "ranks"), 0);
    assert_non_null(rank0);
    assert_non_null(t0);
    assert_true(json_equal(json_object_get(rank0, "dataloader_pct"), json_object_get(t0, "dataloader_pct")));
    assert_true(json_equal(json_object_get(rank0, "step_time"), json_object_get(t0, "step_time")));
    assert_true(fabs(share - json_number_value(json_object_get(t0, "dataloader_pct"))) < 0.051);
    /* The job's own result is the same as without gpudoctor. */
    char with[256], without[256];
    final_line(r.err, with, sizeof with);
    plain_run(job("dl_bound.py"), without, sizeof without);
    assert_true(with[0] != 0);
    assert_string_equal(with, without);
    tool_result_free(&t);
    tool_result_free(&r);
    remove_tree(dir);
    free(dir);
}

/* The text report: the first cause's line, then the trace's and the job's evidence. */
static void dataloader_bound_job_in_text(void **state)
{
    (void)state;
    need_component(torch_python() != NULL, "python3 with torch (python3-torch)", GD_FIX_TEST_PACKAGES);
    tool_result r = run_tool((const char *[]){"run", "--profile", "--", torch_python(), job("dl_bound.py"), NULL}, env);
    assert_int_equal(r.exit_code, 0);
    const char *causes = strstr(r.out, "Causes, ranked by the time each could win back");
    if (!causes)
        fail_msg("no ranked causes: %s", r.out);
    const char *first = strstr(causes, " 1. "), *second = strstr(causes, " 2. ");
    assert_non_null(first);
    const char *dl = strstr(first, "the DataLoader"), *trace = strstr(first, "\n      trace  "),
               *jobline = strstr(first, "\n      job    ");
    assert_non_null(dl);
    assert_non_null(trace);
    assert_non_null(jobline);
    assert_true(!second || (dl < second && trace < second && jobline < second));
    assert_non_null(strstr(r.out, "profiling cost:"));
    assert_non_null(strstr(r.out, "a step = ")); /* how steps were counted: said */
    /* The answer first (issue 39): the causes right under the verdict, what was profiled at the end. */
    const char *verdict = strstr(r.out, "Verdict:"), *checked = strstr(r.out, "\nChecked");
    assert_non_null(verdict);
    size_t lines = 0;
    for (const char *p = verdict; p < causes; p++)
        lines += *p == '\n';
    if (lines > 5 || (checked && checked < causes)) /* the verdict, what was judged in a line or two */
        fail_msg("the causes are not under the verdict: %s", r.out);
    assert_true(strstr(r.out, "Profiled (run --profile)") > causes);
    tool_result_free(&r);
}

static void item_bound_job_names_the_host_reads(void **state)
{
    (void)state;
    need_component(torch_python() != NULL, "python3 with torch (python3-torch)", GD_FIX_TEST_PACKAGES);
    tool_result r = profile_run(NULL, (const char *[]){torch_python(), job("item_bound.py"), NULL}, NULL);
    assert_int_equal(r.exit_code, 0);
    json_t *c = cause(&r, 0);
    if (strcmp(str(c, "cause"), "host_reads") != 0)
        fail_msg("first cause %s, not the host's reads: %s", str(c, "cause"), r.out);
    json_t *ev = json_object_get(evidence_from(c, "trace"), "evidence");
    print_message("item_bound: %.0f .item() per step, %.1f%% of the step\n",
                  json_number_value(json_object_get(ev, "item_calls_per_step")),
                  json_number_value(json_object_get(ev, "item_pct")));
    assert_true(json_number_value(json_object_get(ev, "item_calls_per_step")) >= 8000);
    assert_non_null(evidence_from(c, "job"));
    char with[256], without[256];
    final_line(r.err, with, sizeof with);
    plain_run(job("item_bound.py"), without, sizeof without);
    assert_string_equal(with, without);
    tool_result_free(&r);
}

static void healthy_job_gets_no_finding(void **state)
{
    (void)state;
    need_component(torch_python() != NULL, "python3 with torch (python3-torch)", GD_FIX_TEST_PACKAGES);
    /* Ten steps analyzed: on a busy host a step whose process waits for a CPU
     * inside the DataLoader's span is one of ten, not one of four. */
    tool_result r = profile_run((const char *[]){"--profile-steps", "5:14", NULL},
                                (const char *[]){torch_python(), job("healthy.py"), NULL}, NULL);
    assert_int_equal(r.exit_code, 0);
    json_t *p = profile_of(&r);
    assert_true(json_is_true(json_object_get(p, "profiled")));
    if (json_array_size(json_object_get(p, "causes")) != 0)
        fail_msg("a healthy job has causes: %s", r.out);
    json_t *tf = json_object_get(json_object_get(p, "trace"), "findings");
    if (json_array_size(tf) != 0)
        fail_msg("a healthy job has trace findings: %s", r.out);
    /* The run's own findings: none about the job (this machine has no GPU: driver.missing is the machine's). */
    json_t *f;
    size_t i;
    json_array_foreach(json_object_get(r.json, "findings"), i, f)
    {
        const char *id = str(f, "id");
        if (strcmp(id, "driver.missing") != 0 && strcmp(id, "gpu.none") != 0)
            fail_msg("a healthy job has the finding %s", id);
    }
    char with[256], without[256];
    final_line(r.err, with, sizeof with);
    plain_run(job("healthy.py"), without, sizeof without);
    assert_string_equal(with, without);
    tool_result_free(&r);
}

/* A step is an optimizer step where torch has the global hook, else a
 * DataLoader batch; GPUDOCTOR_PROFILE_STEP chooses, and asking for the
 * optimizer hook where there is none is said. */
static void step_counting_falls_back_to_batches(void **state)
{
    (void)state;
    need_component(torch_python() != NULL, "python3 with torch (python3-torch)", GD_FIX_TEST_PACKAGES);
    bool hook = torch_has_optimizer_hook();
    const char *const cmd[] = {torch_python(), job("dl_bound.py"), "30", NULL};
    tool_result r = profile_run(NULL, cmd, NULL);
    json_t *proc = json_array_get(json_object_get(profile_of(&r), "processes"), 0);
    assert_string_equal(str(proc, "step"), hook ? "optimizer" : "batch");
    assert_true(json_is_true(json_object_get(profile_of(&r), "profiled")));
    tool_result_free(&r);

    r = profile_run(NULL, cmd, (const char *[]){"GPUDOCTOR_PROFILE_STEP=batch", NULL});
    proc = json_array_get(json_object_get(profile_of(&r), "processes"), 0);
    assert_string_equal(str(proc, "step"), "batch");
    assert_true(json_is_true(json_object_get(profile_of(&r), "profiled")));
    assert_string_equal(str(cause(&r, 0), "cause"), "dataloader");
    tool_result_free(&r);

    r = profile_run(NULL, cmd, (const char *[]){"GPUDOCTOR_PROFILE_STEP=optimizer", NULL});
    proc = json_array_get(json_object_get(profile_of(&r), "processes"), 0);
    if (hook) {
        assert_string_equal(str(proc, "step"), "optimizer");
    } else {
        assert_false(json_is_true(json_object_get(profile_of(&r), "profiled")));
        assert_non_null(strstr(str(profile_of(&r), "not_profiled"), "no global optimizer step hook"));
        assert_int_equal(r.exit_code, 0); /* the job ran on, unprofiled */
    }
    tool_result_free(&r);
}

/* A job of 5 optimizer steps and no DataLoader (issue 39: torch 1.13 said
 * "the job never stepped"): its steps are counted where torch lets the hook
 * count optimizer steps (2.x's global hook, 1.13's profiler entry), the
 * report says which --profile-steps fit, and those profile it; counting
 * DataLoader batches only, the report says why nothing was counted. */
static void a_job_without_a_loader_counts_its_optimizer_steps(void **state)
{
    (void)state;
    need_component(torch_python() != NULL, "python3 with torch (python3-torch)", GD_FIX_TEST_PACKAGES);
    const char *const cmd[] = {torch_python(), job("no_loader.py"), "5", NULL};
    tool_result r = profile_run(NULL, cmd, NULL);
    assert_int_equal(r.exit_code, 0);
    json_t *p = profile_of(&r);
    assert_false(json_is_true(json_object_get(p, "profiled")));
    const char *why = str(p, "not_profiled");
    if (torch_has_optimizer_hook()) {
        if (!strstr(why, "ended after 5 steps") || !strstr(why, "--profile-steps 2:4"))
            fail_msg("not_profiled: %s", why);
        tool_result_free(&r);
        r = profile_run((const char *[]){"--profile-steps", "2:4", NULL}, cmd, NULL);
        p = profile_of(&r);
        assert_true(json_is_true(json_object_get(p, "profiled")));
        assert_string_equal(str(json_array_get(json_object_get(p, "processes"), 0), "step"), "optimizer");
    } else if (!strstr(why, "no global optimizer step hook") || !strstr(why, "DataLoader")) {
        fail_msg("not_profiled: %s", why);
    }
    tool_result_free(&r);
    r = profile_run(NULL, cmd, (const char *[]){"GPUDOCTOR_PROFILE_STEP=batch", NULL});
    why = str(profile_of(&r), "not_profiled");
    if (!strstr(why, "iterated no DataLoader") || !strstr(why, "GPUDOCTOR_PROFILE_STEP=batch"))
        fail_msg("batches asked for: %s", why);
    assert_null(strstr(why, "never stepped (")); /* the old words, which a 5-step job belied */
    tool_result_free(&r);
}

/* Where the hook cannot work the report says why and the job runs to its end. */
static void unprofiled_jobs_say_why(void **state)
{
    (void)state;
    need_component(torch_python() != NULL, "python3 with torch (python3-torch)", GD_FIX_TEST_PACKAGES);
    static const struct {
        const char *code, *why;
        int exit;
    } cases[] = {
        {"import sys; print('no torch here', file=sys.stderr)", "never imported torch", 0},
        {"import torch, sys; sys.exit(4)", "never stepped", 4},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        tool_result r = profile_run(NULL, (const char *[]){torch_python(), "-c", cases[i].code, NULL}, NULL);
        assert_int_equal(r.exit_code, cases[i].exit);
        json_t *p = profile_of(&r);
        assert_false(json_is_true(json_object_get(p, "profiled")));
        if (!strstr(str(p, "not_profiled"), cases[i].why))
            fail_msg("'%s': not_profiled is '%s'", cases[i].code, str(p, "not_profiled"));
        tool_result_free(&r);
    }
    /* Not Python at all. */
    tool_result r = profile_run(NULL, (const char *[]){"true", NULL}, NULL);
    assert_int_equal(r.exit_code, 0);
    assert_non_null(strstr(str(profile_of(&r), "not_profiled"), "no Python process"));
    tool_result_free(&r);
    /* TensorFlow (a stand-in module: the hook only sees its import). */
    char *dir = temp_dir();
    char pkg[1100];
    snprintf(pkg, sizeof pkg, "%s/tensorflow", dir);
    make_dirs(pkg);
    put_file(pkg, "__init__.py", "", 0);
    char pp[1200];
    snprintf(pp, sizeof pp, "PYTHONPATH=%s", dir);
    r = profile_run(NULL, (const char *[]){torch_python(), "-c", "import tensorflow", NULL},
                    (const char *[]){pp, NULL});
    assert_non_null(strstr(str(profile_of(&r), "not_profiled"), "TensorFlow"));
    tool_result_free(&r);
    /* The hook turned off: nothing profiled, the job the same. */
    r = profile_run(NULL, (const char *[]){torch_python(), job("dl_bound.py"), "25", NULL},
                    (const char *[]){"GPUDOCTOR_PROFILE_HOOK=off", NULL});
    assert_int_equal(r.exit_code, 0);
    assert_false(json_is_true(json_object_get(profile_of(&r), "profiled")));
    tool_result_free(&r);
    remove_tree(dir);
    free(dir);
}

/* A job that runs torch.profiler itself inside the hook's steps runs to its
 * end as without the hook: the hook stepped aside, and the report says why. */
static void job_profiling_itself_is_left_alone(void **state)
{
    (void)state;
    need_component(torch_python() != NULL, "python3 with torch (python3-torch)", GD_FIX_TEST_PACKAGES);
    const char *code = "import torch\n"
                       "m = torch.nn.Linear(2, 2); opt = torch.optim.SGD(m.parameters(), lr=0.1)\n"
                       "for step in range(1, 9):\n"
                       "    if step == 3: prof = torch.profiler.profile(); prof.start()\n"
                       "    if step == 5: prof.stop()\n"
                       "    m(torch.ones(1, 2)).sum().backward(); opt.step()\n"
                       "import sys; print('trained', file=sys.stderr)\n";
    tool_result r = profile_run((const char *[]){"--profile-steps", "2:3", NULL},
                                (const char *[]){torch_python(), "-c", code, NULL}, NULL);
    assert_int_equal(r.exit_code, 0);
    assert_non_null(strstr(r.err, "trained"));
    assert_null(strstr(r.err, "already enabled"));
    json_t *p = profile_of(&r);
    assert_false(json_is_true(json_object_get(p, "profiled")));
    const char *why = str(p, "not_profiled");
    if (!strstr(why, "stepped aside") || !strstr(why, "its own profiler"))
        fail_msg("not_profiled: %s", why);
    json_t *proc = json_array_get(json_object_get(p, "processes"), 0);
    assert_non_null(strstr(str(proc, "stepped_aside"), "inside the profiled steps 2-3"));
    tool_result_free(&r);
}

/* python -S imports no sitecustomize: gpudoctor leaves its PYTHONPATH alone
 * (the hook's folder would stay on the job's sys.path) and says why. */
static void python_without_site_is_left_alone(void **state)
{
    (void)state;
    tool_result r = profile_run(
        NULL,
        (const char *[]){"python3", "-S", "-c",
                         "import os, sys; print(any(os.path.exists(os.path.join(p, "
                         "'sitecustomize.py')) and 'profile-hook' in p for p in sys.path), file=sys.stderr)",
                         NULL},
        NULL);
    assert_int_equal(r.exit_code, 0);
    assert_non_null(strstr(r.err, "False\n"));
    assert_non_null(strstr(str(profile_of(&r), "not_profiled"), "runs Python with -S"));
    tool_result_free(&r);
}

/* The sitecustomize the hook hides still runs; the hook's temporary folder goes. */
static void existing_sitecustomize_still_runs(void **state)
{
    (void)state;
    need_component(torch_python() != NULL, "python3 with torch (python3-torch)", GD_FIX_TEST_PACKAGES);
    char *dir = temp_dir();
    char site[1100], marker[1100], tmp[1100];
    snprintf(site, sizeof site, "%s/site", dir);
    snprintf(marker, sizeof marker, "%s/marker", dir);
    snprintf(tmp, sizeof tmp, "%s/tmp", dir);
    make_dirs(site);
    make_dirs(tmp);
    char code[1400];
    int n = snprintf(code, sizeof code, "open(%s%s%s, 'w').write('ran')\n", "'", marker, "'");
    put_file(site, "sitecustomize.py", code, (size_t)n);
    char pp[1200], td[1200];
    snprintf(pp, sizeof pp, "PYTHONPATH=%s", site);
    snprintf(td, sizeof td, "TMPDIR=%s", tmp);
    tool_result r = profile_run(NULL, (const char *[]){torch_python(), job("dl_bound.py"), "25", NULL},
                                (const char *[]){pp, td, NULL});
    assert_true(json_is_true(json_object_get(profile_of(&r), "profiled")));
    struct stat sb;
    assert_int_equal(stat(marker, &sb), 0);
    assert_int_equal(rmdir(tmp), 0); /* empty: the traces' temporary folder was removed */
    tool_result_free(&r);
    remove_tree(dir);
    free(dir);
}

/* Two ranks (RANK, WORLD_SIZE as torchrun sets them): one trace each. */
static void two_ranks_two_traces(void **state)
{
    (void)state;
    need_component(torch_python() != NULL, "python3 with torch (python3-torch)", GD_FIX_TEST_PACKAGES);
    char port[16];
    snprintf(port, sizeof port, "%d", 29500 + (int)(getpid() % 400));
    tool_result r = profile_run(
        NULL, (const char *[]){torch_python(), job("launch.py"), "2", port, job("ddp.py"), "20", NULL}, NULL);
    assert_int_equal(r.exit_code, 0);
    json_t *ranks = json_object_get(json_object_get(profile_of(&r), "trace"), "ranks");
    assert_int_equal(json_array_size(ranks), 2);
    assert_int_equal(json_integer_value(json_object_get(json_array_get(ranks, 0), "rank")), 0);
    assert_int_equal(json_integer_value(json_object_get(json_array_get(ranks, 1), "rank")), 1);
    assert_string_equal(str(cause(&r, 0), "cause"), "dataloader");
    tool_result_free(&r);
}

/* Under --sim the simulated GPUs' idle time joins the real job and its real
 * trace: the DataLoader wait IS the GPU idle time. */
static void simulated_gpus_join_the_real_trace(void **state)
{
    (void)state;
    need_component(torch_python() != NULL, "python3 with torch (python3-torch)", GD_FIX_TEST_PACKAGES);
    char *dir = temp_dir();
    char html[1100];
    snprintf(html, sizeof html, "%s/run.html", dir);
    tool_result r = profile_run((const char *[]){"--sim", example("h100x8-underutilized.json"), "--report", html, NULL},
                                (const char *[]){torch_python(), job("dl_bound.py"), "60", NULL}, NULL);
    assert_int_equal(r.exit_code, 0);
    json_t *p = profile_of(&r), *c = cause(&r, 0);
    assert_string_equal(str(c, "cause"), "dataloader");
    assert_string_equal(str(p, "idle_source"), "gpus");
    assert_non_null(evidence_from(c, "gpus"));
    assert_non_null(evidence_from(c, "trace"));
    assert_non_null(evidence_from(c, "job"));
    assert_non_null(strstr(str(c, "overlap"), "IS the GPU idle time"));
    double idle = json_number_value(json_object_get(p, "idle_pct"));
    assert_true(json_number_value(json_object_get(c, "win_pct")) <= idle + 1e-9); /* never more than the idle time */
    /* gpu.underutilized is the same time: in the DataLoader's cause, not a cause of its own. */
    for (size_t i = 1; i < json_array_size(json_object_get(p, "causes")); i++)
        assert_string_not_equal(str(cause(&r, i), "cause"), "gpu_idle");
    size_t len = 0;
    FILE *f = fopen(html, "r");
    assert_non_null(f);
    char *page = malloc(1 << 22);
    len = fread(page, 1, (1 << 22) - 1, f);
    page[len] = 0;
    fclose(f);
    assert_non_null(strstr(page, "data-cause=\"dataloader\""));
    assert_non_null(strstr(page, "profiled step 10"));
    assert_non_null(strstr(page, "Job CPU and GPU busy"));
    free(page);
    tool_result_free(&r);
    remove_tree(dir);
    free(dir);
}

/* --profile-steps picks the steps; bad values are refused before the job starts. */
static void profile_steps_choose_the_steps(void **state)
{
    (void)state;
    tool_result bad = run_tool((const char *[]){"run", "--profile-steps", "5:2", "--", "true", NULL}, env);
    assert_int_equal(bad.exit_code, 3);
    assert_non_null(strstr(bad.err, "--profile-steps"));
    tool_result_free(&bad);
    need_component(torch_python() != NULL, "python3 with torch (python3-torch)", GD_FIX_TEST_PACKAGES);
    tool_result r = profile_run((const char *[]){"--profile-steps", "3:6", NULL},
                                (const char *[]){torch_python(), job("dl_bound.py"), "20", NULL}, NULL);
    json_t *steps = json_object_get(
        json_array_get(json_object_get(json_object_get(profile_of(&r), "trace"), "ranks"), 0), "per_step");
    assert_int_equal(json_array_size(steps), 4);
    assert_int_equal(json_integer_value(json_object_get(json_array_get(steps, 0), "step")), 3);
    assert_int_equal(json_integer_value(json_object_get(json_array_get(steps, 3), "step")), 6);
    tool_result_free(&r);
}

/* run watches its job on a machine without GPUs too (the joined report's
 * job evidence on a CPU machine): it used to stop sampling at once. */
static void run_without_gpus_samples_its_job(void **state)
{
    (void)state;
    const char *e[] = {"GPUDOCTOR_NVML_LIBRARY=/nonexistent/libnvidia-ml.so.1", "NO_COLOR=", "GPUDOCTOR_ROOT=", NULL};
    tool_result r = run_tool((const char *[]){"run", "--json", "--", "sleep", "1.2", NULL}, e);
    assert_int_equal(r.exit_code, 0);
    json_t *jb = json_object_get(r.json, "job");
    assert_non_null(jb);
    long samples = (long)json_integer_value(json_object_get(jb, "samples"));
    if (samples < 5)
        fail_msg("%ld samples of a job that ran 1.2 s at 10 a second: %s", samples, r.out);
    tool_result_free(&r);
}

int main(void)
{
    run_first_in_line(); /* timed in wall seconds beside the rest of the suite */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(run_without_gpus_samples_its_job),
        cmocka_unit_test(dataloader_bound_job_names_the_dataloader_first),
        cmocka_unit_test(dataloader_bound_job_in_text),
        cmocka_unit_test(item_bound_job_names_the_host_reads),
        cmocka_unit_test(healthy_job_gets_no_finding),
        cmocka_unit_test(step_counting_falls_back_to_batches),
        cmocka_unit_test(a_job_without_a_loader_counts_its_optimizer_steps),
        cmocka_unit_test(unprofiled_jobs_say_why),
        cmocka_unit_test(existing_sitecustomize_still_runs),
        cmocka_unit_test(job_profiling_itself_is_left_alone),
        cmocka_unit_test(python_without_site_is_left_alone),
        cmocka_unit_test(two_ranks_two_traces),
        cmocka_unit_test(simulated_gpus_join_the_real_trace),
        cmocka_unit_test(profile_steps_choose_the_steps),
    };
    return realdata_exit(cmocka_run_group_tests(tests, NULL, NULL));
}
