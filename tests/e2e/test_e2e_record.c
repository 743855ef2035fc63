/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Recordings: `check --record FILE.jsonl` and `check --from FILE.jsonl`.
 * The replay of every example scenario finds what the live run found; a
 * recording killed with SIGKILL ends on a whole line and replays; a full
 * disk ends the recording, not the check; a damaged line is refused.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "run_tool.h"

#include <dirent.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *const env[] = {
    "GPUDOCTOR_SIM_TIMESCALE=", "NO_COLOR=",     "GPUDOCTOR_ROOT=", "CUDA_VISIBLE_DEVICES=", "NCCL_IB_DISABLE=",
    "SLURM_JOB_NUM_NODES=",     "SLURM_NNODES=", "WORLD_SIZE=",     "LOCAL_WORLD_SIZE=",     NULL};

/* The findings as sorted "id@gpu=severity" lines. */
static void verdicts(const char *what, const tool_result *r, char *buf, size_t len)
{
    if (!r->json)
        fail_msg("%s: no JSON; exit %d, stderr: %s", what, r->exit_code, r->err);
    json_t *findings = json_object_get(r->json, "findings"), *f;
    char keys[64][128];
    size_t n = 0, i;
    json_array_foreach(findings, i, f)
    {
        char key[96];
        finding_key(f, key, sizeof key);
        if (n < 64)
            snprintf(keys[n++], sizeof keys[0], "%s=%s", key, json_string_value(json_object_get(f, "severity")));
    }
    qsort(keys, n, sizeof keys[0], (int (*)(const void *, const void *))strcmp);
    size_t used = (size_t)snprintf(buf, len, "exit %d:", r->exit_code);
    for (size_t k = 0; k < n && used < len; k++)
        used += (size_t)snprintf(buf + used, len - used, " %s", keys[k]);
}

static void replay_equals_live(const char *dir, const char *scenario, const char *pid)
{
    char rec[1024], live[4096], replay[4096];
    snprintf(rec, sizeof rec, "%s/%s.jsonl", dir, scenario);
    const char *argv[] = {"check",    "--json", "--duration",         "10", "--sim", example(scenario),
                          "--record", rec,      pid ? "--pid" : NULL, pid,  NULL};
    tool_result r = run_tool(argv, env);
    verdicts(scenario, &r, live, sizeof live);
    tool_result_free(&r);
    r = run_tool((const char *[]){"check", "--json", "--from", rec, NULL}, env);
    verdicts(rec, &r, replay, sizeof replay);
    tool_result_free(&r);
    if (strcmp(live, replay) != 0)
        fail_msg("%s: the replay's findings differ from the live run's\n live:   %s\n replay: %s", scenario, live,
                 replay);
}

static void every_example_replays_to_its_live_findings(void **state)
{
    (void)state;
    char *dir = temp_dir();
    DIR *d = opendir(GD_EXAMPLES_DIR);
    assert_non_null(d);
    struct dirent *e;
    size_t n = 0;
    while ((e = readdir(d))) {
        size_t len = strlen(e->d_name);
        if (len < 6 || strcmp(e->d_name + len - 5, ".json") != 0)
            continue;
        replay_equals_live(dir, e->d_name, NULL);
        n++;
    }
    closedir(d);
    assert_true(n >= 20);
    /* The job's facts (its CPUs and memory, its processes) are recorded too. */
    replay_equals_live(dir, "pcie-h100x8-numa-far-job.json", "41003");
    replay_equals_live(dir, "vram-foreign-process.json", "41000");
    remove_tree(dir);
    free(dir);
}

static char *read_all(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    char *buf = NULL;
    size_t cap = 0;
    *len = 0;
    for (;;) {
        if (*len + 65536 > cap)
            buf = realloc(buf, cap = cap * 2 + 65536);
        size_t got = fread(buf + *len, 1, cap - *len - 1, f);
        *len += got;
        if (got == 0)
            break;
    }
    fclose(f);
    buf[*len] = '\0';
    return buf;
}

static size_t lines_of(const char *path)
{
    size_t len, n = 0;
    char *text = read_all(path, &len);
    for (size_t i = 0; i < len; i++)
        n += text[i] == '\n';
    free(text);
    return n;
}

static void a_killed_recording_ends_on_a_whole_line_and_replays(void **state)
{
    (void)state;
    char *dir = temp_dir();
    char rec[1024];
    snprintf(rec, sizeof rec, "%s/killed.jsonl", dir);
    /* Paced: the session is mid-window when it is killed. */
    static const char *const paced[] = {"GPUDOCTOR_SIM_TIMESCALE=20", "NO_COLOR=", "GPUDOCTOR_ROOT=", NULL};
    tool_proc p = run_tool_start((const char *[]){"check", "--json", "--duration", "3600", "--interval", "50", "--sim",
                                                  example("demo.json"), "--record", rec, NULL},
                                 paced, NULL);
    struct stat st;
    for (int i = 0; i < 120000 && (stat(rec, &st) != 0 || lines_of(rec) < 20); i++) /* a busy machine: 2 min or more */
        usleep(1000);
    assert_int_equal(kill(p.pid, SIGKILL), 0);
    tool_result r = run_tool_wait(&p);
    assert_int_equal(r.exit_code, -1);
    tool_result_free(&r);
    size_t len;
    char *text = read_all(rec, &len);
    assert_true(len > 0);
    assert_int_equal(text[len - 1], '\n');
    free(text);
    assert_true(lines_of(rec) >= 20);
    r = run_tool((const char *[]){"check", "--json", "--from", rec, NULL}, env);
    if (!r.json || r.exit_code < 0 || r.exit_code > 2)
        fail_msg("replay of a killed recording: exit %d, stderr: %s", r.exit_code, r.err);
    /* No end line: the PCIe and stack facts were never read; the replay says where it ends. */
    assert_true(json_array_size(json_object_get(r.json, "gpus")) == 8);
    const char *source = json_string_value(json_object_get(r.json, "source"));
    if (!source || !strstr(source, "cut short after") || !strstr(source, "no end record"))
        fail_msg("the replay of a killed recording does not say where it ends: %s", source ? source : "(none)");
    tool_result_free(&r);
    remove_tree(dir);
    free(dir);
}

/* A recording keeps only the job's variables that a check reads, secrets'
 * values redacted; its replay still finds what the live run found. */
static void a_recording_keeps_no_secrets(void **state)
{
    (void)state;
    static const char *const secrets[] = {
        "GPUDOCTOR_SIM_TIMESCALE=", "NO_COLOR=", "GPUDOCTOR_ROOT=", "NCCL_P2P_DISABLE=1", "CUDA_LAUNCH_BLOCKING=1",
        "OMP_NUM_THREADS=1", "HF_TOKEN=hf_s3cr3tvalue", "AWS_SECRET_ACCESS_KEY=aws_s3cr3tvalue",
        "TORCH_HUB_TOKEN=torch_s3cr3tvalue", "NCCL_IB_Password=nccl_s3cr3tvalue", "MY_APP_SETTING=app_privatevalue",
        NULL};
    char *dir = temp_dir();
    char rec[1024], live[4096], replay[4096];
    snprintf(rec, sizeof rec, "%s/env.jsonl", dir);
    tool_result r = run_tool((const char *[]){"check", "--json", "--duration", "2", "--sim",
                                              example("h100x8-training.json"), "--record", rec, NULL},
                             secrets);
    verdicts("live", &r, live, sizeof live);
    tool_result_free(&r);
    size_t len;
    char *text = read_all(rec, &len);
    static const char *const never[] = {"s3cr3tvalue", "app_privatevalue", "MY_APP_SETTING", "HF_TOKEN",
                                        "AWS_SECRET_ACCESS_KEY"};
    for (size_t i = 0; i < sizeof never / sizeof never[0]; i++)
        if (strstr(text, never[i]))
            fail_msg("the recording holds %s", never[i]);
    static const char *const kept[] = {"NCCL_P2P_DISABLE=1", "CUDA_LAUNCH_BLOCKING=1", "OMP_NUM_THREADS=1",
                                       "TORCH_HUB_TOKEN=<redacted>", "NCCL_IB_Password=<redacted>"};
    for (size_t i = 0; i < sizeof kept / sizeof kept[0]; i++)
        if (!strstr(text, kept[i]))
            fail_msg("the recording lacks %s", kept[i]);
    free(text);
    if (!strstr(live, "env.nccl_p2p_disabled") || !strstr(live, "env.launch_blocking"))
        fail_msg("the live run misses the environment's findings: %s", live);
    r = run_tool((const char *[]){"check", "--json", "--from", rec, NULL}, env);
    verdicts("replay", &r, replay, sizeof replay);
    tool_result_free(&r);
    if (strcmp(live, replay) != 0)
        fail_msg("the replay's findings differ from the live run's\n live:   %s\n replay: %s", live, replay);
    /* Its text does not say no --from was given: a recording was. */
    r = run_tool((const char *[]){"check", "--details", "--from", rec, NULL}, env);
    if (strstr(r.out, "no --from capture") || !strstr(r.out, "a recording of a live run is replayed"))
        fail_msg("the replay's text misreads its --from: %s", r.out);
    tool_result_free(&r);
    remove_tree(dir);
    free(dir);
}

/* The check finishes and reports; the recording asked for is not whole: exit 3. */
static void a_full_disk_ends_the_recording_not_the_check(void **state)
{
    (void)state;
    if (access("/dev/full", W_OK) != 0)
        skip();
    tool_result r = run_tool((const char *[]){"check", "--json", "--duration", "5", "--sim", example("demo.json"),
                                              "--record", "/dev/full", NULL},
                             env);
    if (r.exit_code != 3 || !r.json || !strstr(r.err, "recording to /dev/full stopped"))
        fail_msg("check --record /dev/full: exit %d, stderr: %s", r.exit_code, r.err);
    tool_result_free(&r);
}

static void a_damaged_recording_is_refused_and_an_unfinished_line_left_out(void **state)
{
    (void)state;
    char *dir = temp_dir();
    char rec[1024];
    snprintf(rec, sizeof rec, "%s/r.jsonl", dir);
    tool_result r = run_tool(
        (const char *[]){"check", "--json", "--duration", "2", "--sim", example("demo.json"), "--record", rec, NULL},
        env);
    assert_int_equal(r.exit_code, 2);
    tool_result_free(&r);
    size_t len;
    char *text = read_all(rec, &len);
    /* A copy taken mid-line: the unfinished line is left out. */
    char *copy = malloc(len + 32);
    memcpy(copy, text, len);
    memcpy(copy + len, "{\"t\":3,\"gpus\":[[4", 17);
    char *cut = write_temp_file(dir, "cut.jsonl", "");
    FILE *f = fopen(cut, "wb");
    fwrite(copy, 1, len + 17, f);
    fclose(f);
    r = run_tool((const char *[]){"check", "--json", "--from", cut, NULL}, env);
    if (r.exit_code != 2)
        fail_msg("an unfinished last line: exit %d, stderr: %s", r.exit_code, r.err);
    tool_result_free(&r);
    /* Garbage in the middle: refused with the line's number. */
    char *nl = strchr(text, '\n');
    nl[1] = '#';
    f = fopen(cut, "wb");
    fwrite(text, 1, len, f);
    fclose(f);
    r = run_tool((const char *[]){"check", "--json", "--from", cut, NULL}, env);
    if (r.exit_code != 3 || !strstr(r.err, "line 2"))
        fail_msg("a damaged line: exit %d, stderr: %s", r.exit_code, r.err);
    tool_result_free(&r);
    /* A recording is read alone. */
    r = run_tool((const char *[]){"check", "--json", "--from", rec, "--from", rec, NULL}, env);
    if (r.exit_code != 3 || !strstr(r.err, "read alone"))
        fail_msg("two recordings: exit %d, stderr: %s", r.exit_code, r.err);
    tool_result_free(&r);
    free(cut);
    free(copy);
    free(text);
    remove_tree(dir);
    free(dir);
}

/* What the continuous session learned is in the recording as it happens:
 * the health re-reads of seconds 25 (GPU 6's row remapping) and 40 (GPU 2's
 * ECC errors) replay to the live run's findings, and so does a copy cut at
 * second 45 (no end record, an incomplete last line), which says where it ends. */
static void a_recording_keeps_what_the_session_learned(void **state)
{
    (void)state;
    char *dir = temp_dir();
    char rec[1024], live[4096], replay[4096];
    snprintf(rec, sizeof rec, "%s/ecc.jsonl", dir);
    tool_result r = run_tool((const char *[]){"check", "--json", "--duration", "60", "--sim",
                                              example("h100x8-ecc-arrives.json"), "--record", rec, NULL},
                             env);
    verdicts("live", &r, live, sizeof live);
    tool_result_free(&r);
    if (!strstr(live, "exit 2:") || !strstr(live, "health.ecc_uncorrectable@2=critical") ||
        !strstr(live, "health.row_remap@6=critical"))
        fail_msg("the live run misses the scenario's memory faults: %s", live);
    r = run_tool((const char *[]){"check", "--json", "--from", rec, NULL}, env);
    verdicts("replay", &r, replay, sizeof replay);
    assert_null(strstr(json_string_value(json_object_get(r.json, "source")), "cut short"));
    tool_result_free(&r);
    if (strcmp(live, replay) != 0)
        fail_msg("the replay's findings differ from the live run's\n live:   %s\n replay: %s", live, replay);
    /* Cut after second 45: whole lines up to the first sample past it, half of the next. */
    size_t len;
    char *text = read_all(rec, &len), *at = strstr(text, "{\"t\":45.");
    assert_non_null(at);
    char *nl = strchr(at, '\n');
    assert_non_null(nl);
    size_t keep = (size_t)(nl + 1 - text) + 40;
    char *cut = write_temp_file(dir, "cut.jsonl", "");
    FILE *f = fopen(cut, "wb");
    fwrite(text, 1, keep, f);
    fclose(f);
    free(text);
    r = run_tool((const char *[]){"check", "--json", "--from", cut, NULL}, env);
    verdicts("cut", &r, replay, sizeof replay);
    const char *source = json_string_value(json_object_get(r.json, "source"));
    if (!strstr(replay, "exit 2:") || !strstr(replay, "health.ecc_uncorrectable@2=critical") ||
        !strstr(replay, "health.row_remap@6=critical"))
        fail_msg("the replay of a recording cut at 45 s misses the faults of 25 s and 40 s: %s", replay);
    if (!source || !strstr(source, "cut short after 45") || !strstr(source, "its last line incomplete"))
        fail_msg("the cut recording's replay does not say where it ends: %s", source ? source : "(none)");
    tool_result_free(&r);
    free(cut);
    remove_tree(dir);
    free(dir);
}

/* A recording of an earlier gpudoctor (schema 1: its events only in the end
 * record) still replays: the Xids of GPU 3 and 4 from NVML's events. */
static void an_old_recording_still_replays(void **state)
{
    (void)state;
    tool_result r = run_tool(
        (const char *[]){"check", "--json", "--from", GD_FIXTURES_DIR "/recordings/v1-h100x8-xid.jsonl", NULL}, env);
    if (r.exit_code != 2 || count_findings(r.json, "health.xid", 3) != 1 ||
        count_findings(r.json, "health.xid", 4) != 1)
        fail_msg("a schema 1 recording: exit %d, stderr: %s", r.exit_code, r.err);
    assert_null(strstr(json_string_value(json_object_get(r.json, "source")), "cut short"));
    tool_result_free(&r);
}

/* Lines of a recording that are samples, and buckets of thinned ones. */
static void count_lines(const char *text, size_t *samples, size_t *buckets)
{
    *samples = *buckets = 0;
    for (const char *l = text; *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : l + strlen(l)) {
        if (strncmp(l, "{\"t\":", 5) != 0)
            continue;
        const char *nl = strchr(l, '\n');
        size_t n = nl ? (size_t)(nl - l) : strlen(l);
        if (memmem(l, n, "\"samples\":", 10))
            ++*buckets;
        else if (memmem(l, n, "\"gpus\":", 7) && !memmem(l, n, "\"health\":", 9))
            ++*samples;
    }
}

/* A 3-hour session at 1 s: the samples older than the hour the checks keep
 * are folded into minute buckets; the replay still finds what the live run
 * found, and so does the same recording compressed (FILE.jsonl.gz). */
static void a_long_recording_is_thinned_and_replays(void **state)
{
    (void)state;
    char *dir = temp_dir();
    size_t sizes[2] = {0};
    static const char *const names[] = {"long.jsonl", "long.jsonl.gz"};
    for (int k = 0; k < 2; k++) {
        char rec[1024], live[4096], replay[4096];
        snprintf(rec, sizeof rec, "%s/%s", dir, names[k]);
        tool_result r = run_tool((const char *[]){"check", "--json", "--duration", "10800", "--interval", "1000",
                                                  "--sim", example("h100x8-ecc-arrives.json"), "--record", rec, NULL},
                                 env);
        verdicts("live", &r, live, sizeof live);
        tool_result_free(&r);
        r = run_tool((const char *[]){"check", "--json", "--from", rec, NULL}, env);
        verdicts("replay", &r, replay, sizeof replay);
        json_t *w = json_object_get(r.json, "window");
        assert_int_equal(json_integer_value(json_object_get(w, "samples")), 3601); /* the hour the live run kept */
        assert_int_equal(json_integer_value(json_object_get(w, "samples_dropped")), 7200);
        tool_result_free(&r);
        if (strcmp(live, replay) != 0 || !strstr(live, "health.ecc_uncorrectable@2=critical"))
            fail_msg("%s: the replay's findings differ from the live run's\n live:   %s\n replay: %s", names[k], live,
                     replay);
        struct stat st;
        assert_int_equal(stat(rec, &st), 0);
        sizes[k] = (size_t)st.st_size;
    }
    /* The plain one: every sample older than the kept hour (and half an hour since) is in a bucket. */
    char path[1024];
    snprintf(path, sizeof path, "%s/long.jsonl", dir);
    size_t len, samples, buckets;
    char *text = read_all(path, &len);
    count_lines(text, &samples, &buckets);
    free(text);
    if (samples < 3601 || samples > 3601 + 1800 + 60 || buckets < 60)
        fail_msg("not thinned: %zu samples whole, %zu buckets", samples, buckets);
    /* Compressed: starts as gzip, a fraction of the plain one's size. */
    assert_true(sizes[1] * 4 < sizes[0]);
    remove_tree(dir);
    free(dir);
}

/* A recording of more than 64 MiB (the cap of a captured file) replays, read
 * as a stream: a 60 s recording's samples repeated for 70 minutes. */
static void a_recording_larger_than_64_mib_replays(void **state)
{
    (void)state;
    char *dir = temp_dir();
    char rec[1024], big[1024], live[4096], replay[4096];
    snprintf(rec, sizeof rec, "%s/minute.jsonl", dir);
    snprintf(big, sizeof big, "%s/big.jsonl", dir);
    tool_result r = run_tool((const char *[]){"check", "--json", "--duration", "60", "--sim",
                                              example("h100x8-ecc-arrives.json"), "--record", rec, NULL},
                             env);
    verdicts("live", &r, live, sizeof live);
    tool_result_free(&r);
    size_t len;
    char *text = read_all(rec, &len);
    FILE *out = fopen(big, "wb");
    assert_non_null(out);
    char *end = strstr(text, "\n{\"end\":");
    assert_non_null(end);
    char *first = strchr(text, '\n') + 1;
    fwrite(text, 1, (size_t)(first - text), out); /* the header */
    size_t written = 0;
    for (int copy = 0; copy < 70; copy++)
        for (char *l = first; l < end + 1;) {
            char *nl = strchr(l, '\n');
            double t;
            int at;
            if (sscanf(l, "{\"t\":%lf,%n", &t, &at) == 1 &&
                (copy == 0 || !memmem(l, (size_t)(nl - l), "\"health\"", 8))) {
                fprintf(out, "{\"t\":%.1f,", t + 60.1 * copy);
                fwrite(l + at, 1, (size_t)(nl + 1 - (l + at)), out);
                written += (size_t)(nl + 1 - l);
            }
            l = nl + 1;
        }
    fputs(end + 1, out); /* the end record */
    fclose(out);
    free(text);
    assert_true(written > (64u << 20));
    r = run_tool((const char *[]){"check", "--json", "--from", big, NULL}, env);
    verdicts("replay", &r, replay, sizeof replay);
    tool_result_free(&r);
    if (strcmp(live, replay) != 0)
        fail_msg("a 70 MiB recording: the replay's findings differ from the live run's\n live:   %s\n replay: %s", live,
                 replay);
    remove_tree(dir);
    free(dir);
}

/* A kernel log alone, one Xid fault printed on two lines (the driver
 * repeats an Xid's line for one fault, klog_xid_run.h): its recording
 * replays to the same findings. The reader counted Xid events against a
 * total of lines and refused such a recording as "counts Xids that do not
 * add up"; and a recording of evidence without samples (interval 0) was
 * refused by its header. */
static void a_recorded_kernel_log_with_a_fault_on_two_lines_replays(void **state)
{
    (void)state;
    char dir[] = "/tmp/gd-record-klog-XXXXXX", log[1200], rec[1200], live[4096], replay[4096];
    assert_non_null(mkdtemp(dir));
    snprintf(log, sizeof log, "%s/dmesg.txt", dir);
    snprintf(rec, sizeof rec, "%s/dmesg.jsonl", dir);
    FILE *fp = fopen(log, "w");
    assert_non_null(fp);
    fputs("[Mar 5 10:00:01 2024] NVRM: Xid (PCI:0000:3b:00): 79, pid=1, GPU has fallen off the bus.\n"
          "[Mar 5 10:00:01 2024] NVRM: Xid (PCI:0000:3b:00): 79, pid=1, GPU has fallen off the bus.\n"
          "[Mar 5 10:00:02 2024] NVRM: Xid (PCI:0000:db:00): 48, pid=1, An uncorrectable double bit error (DBE) "
          "has been detected on GPU in the framebuffer at partition 6, subpartition 0.\n",
          fp);
    assert_int_equal(fclose(fp), 0);
    tool_result r = run_tool((const char *[]){"check", "--json", "--from", log, "--record", rec, NULL}, env);
    verdicts(log, &r, live, sizeof live);
    assert_non_null(strstr(live, "health.xid"));
    tool_result_free(&r);
    r = run_tool((const char *[]){"check", "--json", "--from", rec, NULL}, env);
    verdicts(rec, &r, replay, sizeof replay);
    tool_result_free(&r);
    if (strcmp(live, replay) != 0)
        fail_msg("the replay's findings differ from the capture's\n capture: %s\n replay:  %s", live, replay);
    unlink(log);
    unlink(rec);
    rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_example_replays_to_its_live_findings),
        cmocka_unit_test(a_killed_recording_ends_on_a_whole_line_and_replays),
        cmocka_unit_test(a_full_disk_ends_the_recording_not_the_check),
        cmocka_unit_test(a_recording_keeps_no_secrets),
        cmocka_unit_test(a_damaged_recording_is_refused_and_an_unfinished_line_left_out),
        cmocka_unit_test(a_recording_keeps_what_the_session_learned),
        cmocka_unit_test(an_old_recording_still_replays),
        cmocka_unit_test(a_recorded_kernel_log_with_a_fault_on_two_lines_replays),
        cmocka_unit_test(a_long_recording_is_thinned_and_replays),
        cmocka_unit_test(a_recording_larger_than_64_mib_replays),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
