/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Faults as they happen: the simulated NVML delivers a scenario's timed Xids
 * through NVML's event API and raises its ECC and row-remapping counters at
 * their time; watch writes each new finding with its wall-clock time, check
 * and run report them with their time, and a recording keeps them.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "run_tool.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const env[] = {"GPUDOCTOR_SIM_TIMESCALE=", "NO_COLOR=", "GPUDOCTOR_ROOT=", NULL};

/* The first watch --format jsonl line announcing finding id on gpu, or NULL. */
static json_t *first_finding(const char *out, const char *id, int gpu)
{
    char *copy = strdup(out);
    json_t *found = NULL;
    for (char *save = NULL, *l = strtok_r(copy, "\n", &save); l && !found; l = strtok_r(NULL, "\n", &save)) {
        json_t *j = json_loads(l, 0, NULL);
        json_t *x = json_object_get(j, "finding");
        json_t *xg = json_object_get(x, "gpu");
        if (x && strcmp(json_string_value(json_object_get(x, "id")), id) == 0 &&
            (json_is_integer(xg) ? json_integer_value(xg) : -1) == gpu)
            found = json_incref(j);
        json_decref(j);
    }
    free(copy);
    return found;
}

static bool is_clock(const char *s)
{
    return s && strlen(s) == 8 && s[2] == ':' && s[5] == ':';
}

/* The Xid scenario in a directory of its own, without its kernel log: what
 * is judged then comes from NVML's events alone; its events' times scaled
 * by `scale`. */
static char *xid_without_log(char *dir, double scale)
{
    FILE *in = fopen(example("h100x8-xid.json"), "r");
    assert_non_null(in);
    json_t *sc = json_loadf(in, 0, NULL);
    fclose(in);
    assert_non_null(sc);
    json_object_del(json_object_get(sc, "host"), "kernel_log");
    size_t g, k;
    json_t *gpu, *e;
    json_array_foreach(json_object_get(sc, "gpus"), g, gpu)
    {
        json_array_foreach(json_object_get(gpu, "events"), k, e)
        {
            json_object_set_new(e, "t", json_real(json_number_value(json_object_get(e, "t")) * scale));
        }
    }
    char *text = json_dumps(sc, 0);
    json_decref(sc);
    char *path = write_temp_file(dir, "xid.json", text);
    free(text);
    return path;
}

static void watch_writes_the_xids_with_their_time(void **state)
{
    (void)state;
    tool_result r = run_tool(
        (const char *[]){"watch", "--sim", example("h100x8-xid.json"), "--count", "12", "--format", "jsonl", NULL},
        env);
    assert_int_equal(r.exit_code, 0);
    json_t *gpu3 = first_finding(r.out, "health.xid", 3), *gpu4 = first_finding(r.out, "health.xid", 4);
    if (!gpu3 || !gpu4)
        fail_msg("no health.xid line for GPU 3 and 4: %s", r.out);
    /* Xid 79 at scenario second 5 on GPU 3, Xid 119 at 8 on GPU 4: seen at their sample. */
    assert_true(json_number_value(json_object_get(gpu3, "time_s")) == 5.0);
    assert_true(json_number_value(json_object_get(gpu4, "time_s")) == 8.0);
    assert_true(is_clock(json_string_value(json_object_get(gpu3, "at"))));
    assert_string_equal(json_string_value(json_object_get(json_object_get(gpu3, "finding"), "severity")), "critical");
    json_decref(gpu3);
    json_decref(gpu4);
    /* CSV stays samples; the new findings go to stderr with their time. */
    tool_result_free(&r);
    r = run_tool(
        (const char *[]){"watch", "--sim", example("h100x8-xid.json"), "--count", "12", "--format", "csv", NULL}, env);
    assert_int_equal(r.exit_code, 0);
    assert_null(strstr(r.out, "health.xid"));
    const char *note = strstr(r.err, "critical health.xid: GPU 3: Xid 79");
    char at[9] = "";
    if (note && note - r.err >= 9)
        memcpy(at, note - 9, 8);
    if (!is_clock(at))
        fail_msg("no timed note for GPU 3's Xid on stderr: %s", r.err);
    tool_result_free(&r);
}

/* Without the scenario's Xid events, watch finds nothing: the test above cannot pass by accident. */
static void a_healthy_machine_gives_no_finding_lines(void **state)
{
    (void)state;
    tool_result r = run_tool(
        (const char *[]){"watch", "--sim", example("h100x8-training.json"), "--count", "12", "--format", "jsonl", NULL},
        env);
    assert_int_equal(r.exit_code, 0);
    assert_null(strstr(r.out, "\"finding\""));
    tool_result_free(&r);
}

static void an_ecc_error_at_40_s_is_seen_by_45_s(void **state)
{
    (void)state;
    tool_result r = run_tool((const char *[]){"watch", "--sim", example("h100x8-ecc-arrives.json"), "--count", "46",
                                              "--format", "jsonl", NULL},
                             env);
    assert_int_equal(r.exit_code, 0);
    json_t *ecc = first_finding(r.out, "health.ecc_uncorrectable", 2);
    if (!ecc)
        fail_msg("no health.ecc_uncorrectable line for GPU 2 by 45 s: %s", r.out);
    double t = json_number_value(json_object_get(ecc, "time_s"));
    if (t < 40 || t > 45)
        fail_msg("the ECC error of second 40 was seen at %g s", t);
    const char *title = json_string_value(json_object_get(json_object_get(ecc, "finding"), "title"));
    assert_non_null(strstr(title, "2 new uncorrectable errors at "));
    json_t *remap = first_finding(r.out, "health.row_remap", 6);
    assert_non_null(remap);
    t = json_number_value(json_object_get(remap, "time_s"));
    assert_true(t >= 25 && t <= 30);
    json_decref(ecc);
    json_decref(remap);
    tool_result_free(&r);
}

static void check_reports_the_rise_with_its_time(void **state)
{
    (void)state;
    tool_result r = run_tool(
        (const char *[]){"check", "--sim", example("h100x8-ecc-arrives.json"), "--duration", "60", "--json", NULL},
        env);
    assert_int_equal(r.exit_code, 2);
    assert_non_null(r.json);
    size_t i;
    json_t *x;
    bool seen = false;
    json_array_foreach(json_object_get(r.json, "findings"), i, x)
    {
        if (strcmp(json_string_value(json_object_get(x, "id")), "health.ecc_uncorrectable") != 0)
            continue;
        assert_int_equal(json_integer_value(json_object_get(x, "gpu")), 2);
        assert_non_null(strstr(json_string_value(json_object_get(x, "title")), "2 new uncorrectable errors at "));
        json_t *rise = json_array_get(json_object_get(json_object_get(x, "evidence"), "new_in_window"), 0);
        assert_true(json_number_value(json_object_get(rise, "at_s")) == 40.0);
        assert_string_equal(json_string_value(json_object_get(rise, "counter")), "volatile_uncorrected");
        assert_int_equal(json_integer_value(json_object_get(rise, "increase")), 2);
        assert_true(is_clock(json_string_value(json_object_get(rise, "at"))));
        seen = true;
    }
    assert_true(seen);
    tool_result_free(&r);
}

/* check --json's facts: GPU 5 link 7's NVLink errors as the last re-read
 * (second 45) saw them, every other link 0; no "nvlink" key where NVML
 * gives no counter (the training scenario lists links without counters). */
static void check_reports_the_nvlink_error_counters(void **state)
{
    (void)state;
    tool_result r = run_tool(
        (const char *[]){"check", "--sim", example("h100x8-nvlink-errors.json"), "--duration", "45", "--json", NULL},
        env);
    /* nvlink.errors judges the rises of the window: GPU 5 link 7 only, critical (a recovery). */
    assert_int_equal(r.exit_code, 2);
    assert_int_equal(count_findings(r.json, "nvlink.errors", -2), 1);
    assert_int_equal(count_findings(r.json, "nvlink.errors", 5), 1);
    size_t k;
    json_t *fnd;
    json_array_foreach(json_object_get(r.json, "findings"), k, fnd)
    {
        if (strcmp(json_string_value(json_object_get(fnd, "id")), "nvlink.errors") != 0)
            continue;
        assert_string_equal(json_string_value(json_object_get(fnd, "severity")), "critical");
        json_t *links = json_object_get(json_object_get(fnd, "evidence"), "links");
        assert_int_equal(json_array_size(links), 1);
        json_t *l7 = json_array_get(links, 0);
        assert_int_equal(json_integer_value(json_object_get(l7, "link")), 7);
        assert_int_equal(json_integer_value(json_object_get(l7, "crc_flit")), 550);
        assert_int_equal(json_integer_value(json_object_get(l7, "crc_data")), 30);
        assert_int_equal(json_integer_value(json_object_get(l7, "replay")), 52);
        assert_int_equal(json_integer_value(json_object_get(l7, "recovery")), 1);
        /* first rise seen at the re-read after second 20 */
        double first = json_number_value(json_object_get(l7, "first_seen_s"));
        assert_true(first >= 20.0 && first <= 25.0);
    }
    assert_non_null(r.json);
    json_t *gpus = json_object_get(r.json, "gpus");
    assert_int_equal(json_array_size(gpus), 8);
    size_t g, l;
    json_t *gpu, *link;
    json_array_foreach(gpus, g, gpu)
    {
        json_t *links = json_object_get(gpu, "nvlink");
        assert_int_equal(json_array_size(links), 18);
        json_array_foreach(links, l, link)
        {
            bool bad = g == 5 && json_integer_value(json_object_get(link, "link")) == 7;
            assert_int_equal(json_integer_value(json_object_get(link, "crc_flit")), bad ? 550 : 0);
            assert_int_equal(json_integer_value(json_object_get(link, "crc_data")), bad ? 30 : 0);
            assert_int_equal(json_integer_value(json_object_get(link, "replay")), bad ? 52 : 0);
            assert_int_equal(json_integer_value(json_object_get(link, "recovery")), bad ? 1 : 0);
        }
    }
    tool_result_free(&r);
    /* Each link's version where NVML gives one: none for the link that is down. */
    r = run_tool(
        (const char *[]){"check", "--sim", example("h100x8-nvlink-degraded.json"), "--duration", "2", "--json", NULL},
        env);
    assert_non_null(r.json);
    json_t *g3 = json_object_get(json_array_get(json_object_get(r.json, "gpus"), 3), "nvlink");
    assert_int_equal(json_array_size(g3), 18);
    assert_int_equal(json_integer_value(json_object_get(json_array_get(g3, 0), "version")), 6);
    assert_true(json_is_null(json_object_get(json_array_get(g3, 17), "version")));
    tool_result_free(&r);
    r = run_tool((const char *[]){"check", "--sim", example("h100x8-training.json"), "--duration", "5", "--json", NULL},
                 env);
    assert_non_null(r.json);
    json_array_foreach(json_object_get(r.json, "gpus"), g, gpu) assert_null(json_object_get(gpu, "nvlink"));
    tool_result_free(&r);
}

static void run_reports_nvml_xids_and_a_recording_keeps_them(void **state)
{
    (void)state;
    char *dir = temp_dir();
    /* A live job plays the scenario at wall speed: the Xids of seconds 5
     * and 8, moved to 0.5 and 0.8, fall inside a 1.5 s job. */
    char *sc = xid_without_log(dir, 0.1);
    char rec[1024];
    snprintf(rec, sizeof rec, "%s/w.jsonl", dir);
    tool_result r =
        run_tool((const char *[]){"run", "--sim", sc, "--json", "--record", rec, "--", "sleep", "1.5", NULL}, env);
    assert_int_equal(r.exit_code, 0);
    if (count_findings(r.json, "health.xid", 3) != 1 || count_findings(r.json, "health.xid", 4) != 1)
        fail_msg("run: no health.xid on GPU 3 and 4: %s", r.out);
    size_t i;
    json_t *x;
    json_array_foreach(json_object_get(r.json, "findings"), i, x)
    {
        if (strcmp(json_string_value(json_object_get(x, "id")), "health.xid") == 0 &&
            json_integer_value(json_object_get(x, "gpu")) == 3) {
            json_t *row = json_array_get(json_object_get(json_object_get(x, "evidence"), "xids"), 0);
            assert_int_equal(json_integer_value(json_object_get(row, "xid")), 79);
            assert_true(json_number_value(json_object_get(row, "last_in_window_s")) >= 0.5);
            assert_true(is_clock(json_string_value(json_object_get(row, "last_in_window"))));
        }
    }
    tool_result_free(&r);
    /* The recording's replay judges the same Xids. */
    r = run_tool((const char *[]){"check", "--from", rec, "--json", NULL}, env);
    assert_int_equal(r.exit_code, 2);
    assert_int_equal(count_findings(r.json, "health.xid", 3), 1);
    assert_int_equal(count_findings(r.json, "health.xid", 4), 1);
    tool_result_free(&r);
    free(sc);
    remove_tree(dir);
    free(dir);
}

/* A GPU lost at second 6 is a finding at the sample of second 6. */
static void a_lost_gpu_is_seen_within_one_interval(void **state)
{
    (void)state;
    tool_result r = run_tool(
        (const char *[]){"watch", "--sim", example("h100x8-gpu-lost.json"), "--count", "10", "--format", "jsonl", NULL},
        env);
    assert_int_equal(r.exit_code, 0);
    json_t *x = first_finding(r.out, "health.gpu_lost", 3);
    if (!x)
        fail_msg("no health.gpu_lost line for GPU 3: %s", r.out);
    assert_true(json_number_value(json_object_get(x, "time_s")) == 6.0);
    json_decref(x);
    tool_result_free(&r);
}

/* The log rotated while watch follows it, by `rotate` about a second in
 * (after which it writes an Xid 48 of GPU 6 at the log's name): that Xid
 * is an Xid of the session. The log starts with 4 KiB of lines, longer
 * than what comes after a rotation. */
static void followed_across(void (*rotate)(const char *log))
{
    char *dir = temp_dir();
    FILE *in = fopen(example("h100x8-training.json"), "r");
    json_t *sc = json_loadf(in, 0, NULL);
    fclose(in);
    json_object_set_new(json_object_get(sc, "host"), "kernel_log", json_string("dmesg.txt"));
    char *text = json_dumps(sc, 0);
    json_decref(sc);
    char *path = write_temp_file(dir, "follow.json", text);
    free(text);
    char filler[4096 + 64] = "";
    while (strlen(filler) < 4096)
        strcat(filler, "[    1.000000] usb 1-1: new high-speed USB device number 2\n");
    char *log = write_temp_file(dir, "dmesg.txt", filler);
    const char *const paced[] = {"GPUDOCTOR_SIM_TIMESCALE=20", "NO_COLOR=", "GPUDOCTOR_ROOT=", NULL};
    tool_proc p = run_tool_start((const char *[]){"watch", "--sim", path, "--count", "60", "--format", "jsonl", NULL},
                                 paced, NULL);
    usleep(1000 * 1000);
    rotate(log);
    usleep(300 * 1000); /* a sample or more sees the rotation alone */
    FILE *a = fopen(log, "a");
    assert_non_null(a);
    fputs("[ 9100.000000] NVRM: Xid (PCI:0000:ba:00): 48, pid=4242, An uncorrectable double bit error\n", a);
    fclose(a);
    tool_result r = run_tool_wait(&p);
    assert_int_equal(r.exit_code, 0);
    json_t *x = first_finding(r.out, "health.xid", 6);
    if (!x)
        fail_msg("the Xid 48 of GPU 6 written after the rotation was not seen: %s", r.err);
    assert_true(json_number_value(json_object_get(x, "time_s")) > 0);
    json_decref(x);
    /* The healthy GPUs stay quiet: the filler, read again, is no Xid. */
    assert_null(first_finding(r.out, "health.xid", 0));
    tool_result_free(&r);
    free(log);
    free(path);
    remove_tree(dir);
    free(dir);
}

/* logrotate's copytruncate: the file is emptied in place. */
static void truncate_in_place(const char *log)
{
    assert_int_equal(truncate(log, 0), 0);
}

/* logrotate's default: the file is renamed and a new one made at its name. */
static void rename_and_recreate(const char *log)
{
    char old[4200];
    snprintf(old, sizeof old, "%s.1", log);
    assert_int_equal(rename(log, old), 0);
    FILE *fresh = fopen(log, "w");
    assert_non_null(fresh);
    fclose(fresh);
}

/* No rotation: a line written to the kernel log while watch runs is an Xid
 * of the session. */
static void left_alone(const char *log)
{
    (void)log;
}

static void the_kernel_log_is_followed(void **state)
{
    (void)state;
    followed_across(left_alone);
}

static void a_truncated_kernel_log_is_read_again(void **state)
{
    (void)state;
    followed_across(truncate_in_place);
}

static void a_renamed_kernel_log_is_followed_at_its_name(void **state)
{
    (void)state;
    followed_across(rename_and_recreate);
}

/* Every GPU's calls fail from second 20: the driver stopped answering. */
static void a_silent_driver_is_a_finding_with_its_time(void **state)
{
    (void)state;
    char *dir = temp_dir();
    FILE *in = fopen(example("h100x8-training.json"), "r");
    json_t *sc = json_loadf(in, 0, NULL);
    fclose(in);
    size_t g;
    json_t *gpu;
    json_array_foreach(json_object_get(sc, "gpus"), g, gpu) json_array_append_new(
        json_object_get(gpu, "timeline"), json_pack("{s:i, s:{s:s}}", "t", 20, "errors", "*", "NVML_ERROR_UNKNOWN"));
    char *text = json_dumps(sc, 0);
    json_decref(sc);
    char *path = write_temp_file(dir, "silent.json", text);
    free(text);
    tool_result r = run_tool((const char *[]){"watch", "--sim", path, "--count", "25", "--format", "jsonl", NULL}, env);
    assert_int_equal(r.exit_code, 0);
    json_t *x = first_finding(r.out, "health.driver_unresponsive", -1);
    if (!x)
        fail_msg("no health.driver_unresponsive line: %s", r.out);
    assert_true(json_number_value(json_object_get(x, "time_s")) == 20.0);
    json_decref(x);
    tool_result_free(&r);
    r = run_tool((const char *[]){"check", "--sim", path, "--duration", "30", "--json", NULL}, env);
    assert_int_equal(r.exit_code, 2);
    assert_int_equal(count_findings(r.json, "health.driver_unresponsive", -2), 1);
    tool_result_free(&r);
    free(path);
    remove_tree(dir);
    free(dir);
}

/* GPU 3 lost for 6 s and back, on a CUDA 14 driver (nvmlDeviceGetTemperature
 * deprecated there): the lost GPU is asked again with the sampler's call,
 * so its return is seen (asked with the deprecated call, it never came back). */
static void a_lost_gpu_comes_back_on_a_cuda_14_driver(void **state)
{
    (void)state;
    char *dir = temp_dir();
    FILE *in = fopen(example("h100x8-training.json"), "r");
    json_t *sc = json_loadf(in, 0, NULL);
    fclose(in);
    json_object_set_new(sc, "cuda_driver_version", json_integer(14000));
    json_t *tl = json_object_get(json_array_get(json_object_get(sc, "gpus"), 3), "timeline");
    json_int_t last = (json_int_t)json_number_value(json_object_get(json_array_get(tl, json_array_size(tl) - 1), "t"));
    json_array_append_new(tl, json_pack("{s:I, s:{s:s}}", "t", last + 6, "errors", "nvmlDeviceGetTemperatureV",
                                        "NVML_ERROR_GPU_IS_LOST"));
    json_array_append_new(
        tl, json_pack("{s:I, s:{s:s}}", "t", last + 12, "errors", "nvmlDeviceGetTemperatureV", "NVML_SUCCESS"));
    char *text = json_dumps(sc, 0);
    json_decref(sc);
    char *path = write_temp_file(dir, "back.json", text);
    free(text);
    tool_result r = run_tool((const char *[]){"check", "--sim", path, "--duration", "40", "--json", NULL}, env);
    assert_int_equal(r.exit_code, 2);
    assert_int_equal(count_findings(r.json, "health.gpu_lost", 3), 1);
    size_t k;
    json_t *x;
    const char *title = NULL;
    json_array_foreach(json_object_get(r.json, "findings"), k, x)
    {
        if (strcmp(json_string_value(json_object_get(x, "id")), "health.gpu_lost") == 0)
            title = json_string_value(json_object_get(x, "title"));
    }
    if (!title || !strstr(title, "answered again"))
        fail_msg("GPU 3's return was not seen: %s", title ? title : "(no title)");
    tool_result_free(&r);
    free(path);
    remove_tree(dir);
    free(dir);
}

static void a_bad_event_is_refused(void **state)
{
    (void)state;
    char *dir = temp_dir();
    FILE *in = fopen(example("h100x8-training.json"), "r");
    json_t *sc = json_loadf(in, 0, NULL);
    fclose(in);
    json_object_set_new(json_array_get(json_object_get(sc, "gpus"), 0), "events",
                        json_pack("[{s:i}]", "ecc_uncorrected", 2));
    char *text = json_dumps(sc, 0);
    json_decref(sc);
    char *path = write_temp_file(dir, "bad.json", text);
    free(text);
    tool_result r = run_tool((const char *[]){"check", "--sim", path, "--duration", "2", NULL}, env);
    assert_int_equal(r.exit_code, 3);
    assert_non_null(strstr(r.err, "gpus[0].events[0]"));
    tool_result_free(&r);
    free(path);
    remove_tree(dir);
    free(dir);
}

/* The training scenario with a fault (`fault` applied to it), then 1100
 * Xid 13 on GPU 1 through NVML's events from second 30: more than the ring
 * of 1024 events holds. Written into dir as name. */
static char *with_a_storm_after(char *dir, const char *name, void (*fault)(json_t *sc))
{
    FILE *in = fopen(example("h100x8-training.json"), "r");
    json_t *sc = json_loadf(in, 0, NULL);
    fclose(in);
    assert_non_null(sc);
    fault(sc);
    json_t *storm = json_array();
    for (int k = 0; k < 1100; k++)
        json_array_append_new(storm, json_pack("{s:f, s:i}", "t", 30 + k * 0.01, "xid", 13));
    json_object_set_new(json_array_get(json_object_get(sc, "gpus"), 1), "events", storm);
    char *text = json_dumps(sc, 0);
    json_decref(sc);
    char *path = write_temp_file(dir, name, text);
    free(text);
    return path;
}

static void xid_79_on_gpu_0(json_t *sc)
{
    json_object_set_new(json_array_get(json_object_get(sc, "gpus"), 0), "events",
                        json_pack("[{s:i, s:i}]", "t", 2, "xid", 79));
}

/* `set` (an error for every call, or NVML_SUCCESS) from `after` seconds past the timeline's last point. */
static void calls_answer(json_t *gpu, double after, const char *set)
{
    json_t *tl = json_object_get(gpu, "timeline");
    double last = json_number_value(json_object_get(json_array_get(tl, json_array_size(tl) - 1), "t"));
    json_array_append_new(tl, json_pack("{s:f, s:{s:s}}", "t", last + after, "errors", "*", set));
}

static void gpu_3_lost_and_back(json_t *sc)
{
    json_t *gpu = json_array_get(json_object_get(sc, "gpus"), 3);
    calls_answer(gpu, 3, "NVML_ERROR_GPU_IS_LOST");
    calls_answer(gpu, 6, "NVML_SUCCESS");
}

static void driver_silent_for_5_s(json_t *sc)
{
    size_t g;
    json_t *gpu;
    json_array_foreach(json_object_get(sc, "gpus"), g, gpu)
    {
        calls_answer(gpu, 3, "NVML_ERROR_UNKNOWN");
        calls_answer(gpu, 5, "NVML_SUCCESS");
    }
}

/* A critical event is never forgotten: an Xid 79, a GPU that fell off the
 * bus and came back, a driver that stopped answering, each followed by 1100
 * Xid 13 on another GPU, stay critical findings (exit 2), and so do the
 * replays of their recordings. */
static void a_critical_event_outlives_an_xid_storm(void **state)
{
    (void)state;
    char *dir = temp_dir();
    static const struct {
        const char *name, *id;
        void (*fault)(json_t *);
        int gpu;
    } cases[] = {
        {"xid79.json", "health.xid", xid_79_on_gpu_0, 0},
        {"lost.json", "health.gpu_lost", gpu_3_lost_and_back, 3},
        {"driver.json", "health.driver_unresponsive", driver_silent_for_5_s, -1},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        char *path = with_a_storm_after(dir, cases[c].name, cases[c].fault);
        char rec[1024];
        snprintf(rec, sizeof rec, "%s/%s.jsonl", dir, cases[c].name);
        tool_result r = run_tool(
            (const char *[]){"check", "--sim", path, "--duration", "60", "--json", "--record", rec, NULL}, env);
        if (r.exit_code != 2 || count_findings(r.json, cases[c].id, cases[c].gpu < 0 ? -2 : cases[c].gpu) != 1)
            fail_msg("%s: exit %d, no %s after the storm: %s", cases[c].name, r.exit_code, cases[c].id, r.out);
        assert_int_equal(count_findings(r.json, "health.xid", 1), 1); /* the storm itself is seen */
        tool_result_free(&r);
        r = run_tool((const char *[]){"check", "--from", rec, "--json", NULL}, env);
        if (r.exit_code != 2 || count_findings(r.json, cases[c].id, cases[c].gpu < 0 ? -2 : cases[c].gpu) != 1)
            fail_msg("%s replayed: exit %d, no %s: %s", cases[c].name, r.exit_code, cases[c].id, r.out);
        tool_result_free(&r);
        free(path);
    }
    remove_tree(dir);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(watch_writes_the_xids_with_their_time),
        cmocka_unit_test(a_healthy_machine_gives_no_finding_lines),
        cmocka_unit_test(an_ecc_error_at_40_s_is_seen_by_45_s),
        cmocka_unit_test(check_reports_the_rise_with_its_time),
        cmocka_unit_test(check_reports_the_nvlink_error_counters),
        cmocka_unit_test(run_reports_nvml_xids_and_a_recording_keeps_them),
        cmocka_unit_test(a_lost_gpu_is_seen_within_one_interval),
        cmocka_unit_test(the_kernel_log_is_followed),
        cmocka_unit_test(a_truncated_kernel_log_is_read_again),
        cmocka_unit_test(a_renamed_kernel_log_is_followed_at_its_name),
        cmocka_unit_test(a_silent_driver_is_a_finding_with_its_time),
        cmocka_unit_test(a_lost_gpu_comes_back_on_a_cuda_14_driver),
        cmocka_unit_test(a_bad_event_is_refused),
        cmocka_unit_test(a_critical_event_outlives_an_xid_storm),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
