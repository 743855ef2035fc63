/* SPDX-License-Identifier: Apache-2.0 */
/* End to end: the live memory checks on their scenarios, and `gpudoctor vram`. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "run_tool.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The fast scenario clock; lines as long as they come (the texts are matched, not their wrapping). */
static const char *const fast[] = {"GPUDOCTOR_SIM_TIMESCALE=", "NO_COLOR=", "COLUMNS=400", NULL};

static const char *const vram_ids[] = {"vram.near_full", "vram.growing", "vram.foreign_process"};

static tool_result check(const char *scenario, const char *pid)
{
    const char *argv[] = {"check", "--json",          "--duration",         "10", "--interval", "1000",
                          "--sim", example(scenario), pid ? "--pid" : NULL, pid,  NULL};
    tool_result r = run_tool(argv, fast);
    if (!r.json)
        fail_msg("%s: no JSON; stderr: %s", scenario, r.err);
    return r;
}

static size_t vram_findings(json_t *report)
{
    size_t n = 0;
    for (size_t i = 0; i < sizeof vram_ids / sizeof vram_ids[0]; i++)
        n += count_findings(report, vram_ids[i], -2);
    return n;
}

static void healthy_scenarios_have_no_vram_finding(void **state)
{
    (void)state;
    static const char *const healthy[] = {"h100x8-training.json", "h100x8-idle.json"};
    for (size_t i = 0; i < 2; i++) {
        tool_result r = check(healthy[i], NULL);
        assert_int_equal(vram_findings(r.json), 0);
        tool_result_free(&r);
        r = check(healthy[i], "1"); /* a job that is on no GPU: a note, no finding */
        assert_int_equal(vram_findings(r.json), 0);
        tool_result_free(&r);
    }
}

static void each_vram_scenario_yields_its_finding(void **state)
{
    (void)state;
    static const struct {
        const char *scenario, *pid, *id;
        int gpu, exit_code;
    } cases[] = {
        {"vram-near-full.json", NULL, "vram.near_full", 1, 0}, /* flat: the allocator holds it, info */
        {"vram-growing.json", NULL, "vram.growing", 0, 2},
        {"vram-foreign-process.json", "41000", "vram.foreign_process", 2, 1},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        tool_result r = check(cases[c].scenario, cases[c].pid);
        size_t all = json_array_size(json_object_get(r.json, "findings"));
        if (count_findings(r.json, cases[c].id, cases[c].gpu) != 1 || all != 1 || r.exit_code != cases[c].exit_code) {
            char *dump = json_dumps(json_object_get(r.json, "findings"), JSON_COMPACT);
            fail_msg("%s: exit %d, findings %s", cases[c].scenario, r.exit_code, dump);
        }
        json_t *f = json_array_get(json_object_get(r.json, "findings"), 0);
        assert_true(strlen(json_string_value(json_object_get(f, "fix"))) > 100);
        tool_result_free(&r);
    }
}

static void growth_reports_rate_and_time_left(void **state)
{
    (void)state;
    tool_result r = check("vram-growing.json", NULL);
    json_t *ev = json_object_get(json_array_get(json_object_get(r.json, "findings"), 0), "evidence");
    /* 400 MiB per scenario second: rates are in scenario seconds. */
    double rate = json_number_value(json_object_get(ev, "rate_mib_per_s"));
    assert_true(rate > 380 && rate < 420);
    double left = json_number_value(json_object_get(ev, "seconds_until_full"));
    assert_true(left > 80 && left < 110); /* (81559 - 43985) MiB at 400 MiB/s */
    tool_result_free(&r);
}

static void foreign_process_names_pid_name_memory_and_the_container_caveat(void **state)
{
    (void)state;
    tool_result r = check("vram-foreign-process.json", "41000");
    json_t *f = json_array_get(json_object_get(r.json, "findings"), 0);
    json_t *p = json_array_get(json_object_get(json_object_get(f, "evidence"), "foreign_processes"), 0);
    assert_int_equal(json_integer_value(json_object_get(p, "pid")), 52311);
    assert_string_equal(json_string_value(json_object_get(p, "name")), "jupyter-kernel");
    assert_int_equal(json_integer_value(json_object_get(p, "used_mib")), 12000);
    /* Its owner, from the scenario's /proc (uid 65534: "nobody" where this host names it). */
    const char *user = json_string_value(json_object_get(p, "user"));
    assert_non_null(user);
    assert_true(strcmp(user, "nobody") == 0 || strcmp(user, "uid 65534") == 0);
    assert_non_null(strstr(json_string_value(json_object_get(f, "title")), user));
    char *skips = json_dumps(json_object_get(r.json, "not_checked"), JSON_COMPACT);
    assert_non_null(strstr(skips, "NVML lists no process: inside a container"));
    free(skips);
    tool_result_free(&r);
    /* The text report lists each GPU's memory and how many processes NVML names. */
    const char *argv[] = {"check", "--details", "--duration", "0", "--sim", example("vram-foreign-process.json"),
                          "--pid", "41000",     NULL};
    r = run_tool(argv, fast);
    assert_non_null(strstr(r.out, "memory used (MiB, last sample): GPU 0 61000/81559 (1 process)"));
    assert_non_null(strstr(r.out, "GPU 2 73000/81559 (2 processes)"));
    assert_non_null(strstr(r.out, "GPU 3 61300/81559 (0 processes)"));
    tool_result_free(&r);
}

static tool_result vram(const char *const *args)
{
    const char *argv[32] = {"vram"};
    size_t n = 1;
    while (args[n - 1] && n < 31) {
        argv[n] = args[n - 1];
        n++;
    }
    argv[n] = NULL;
    return run_tool(argv, fast);
}

#define SEVEN_B                                                                                                        \
    "--params", "7B", "--layers", "32", "--hidden", "4096", "--heads", "32", "--seq", "2048", "--vocab", "32000"

static double bytes(json_t *plan, const char *key)
{
    return json_number_value(json_object_get(json_object_get(plan, "bytes"), key));
}

static void seven_b_one_gpu_does_not_fit_eight_with_zero3_does(void **state)
{
    (void)state;
    tool_result r = vram((const char *[]){SEVEN_B, "--gpus", "1", "--gpu-memory", "80G", "--json", NULL});
    assert_int_equal(r.exit_code, 0);
    assert_non_null(r.json);
    assert_false(json_is_true(json_object_get(r.json, "fits")));
    assert_int_equal(json_integer_value(json_object_get(r.json, "gpu_memory_bytes")), 85899345920LL);
    assert_int_equal(json_integer_value(json_object_get(r.json, "max_micro_batch")), 0);
    json_t *sg = json_object_get(r.json, "suggestions");
    assert_true(json_array_size(sg) >= 2);
    json_t *first = json_array_get(sg, 0);
    assert_true(json_is_true(json_object_get(first, "fits")));
    assert_true(json_number_value(json_object_get(first, "total_bytes")) <= 85899345920.0);
    assert_true(strlen(json_string_value(json_object_get(first, "cost"))) > 5);
    tool_result_free(&r);

    r = vram((const char *[]){SEVEN_B, "--gpus", "8", "--sharding", "zero3", "--gpu-memory", "80G", "--json", NULL});
    assert_true(json_is_true(json_object_get(r.json, "fits")));
    assert_true(json_integer_value(json_object_get(r.json, "max_micro_batch")) >= 1);
    assert_int_equal(json_array_size(json_object_get(r.json, "suggestions")), 0);
    tool_result_free(&r);

    r = vram((const char *[]){SEVEN_B, "--gpus", "1", "--gpu-memory", "80G", NULL});
    assert_int_equal(r.exit_code, 0);
    /* Exit 0: a plan is an answer, not a finding (docs/interface.md, "One vocabulary"); its
     * GB beside the MiB that NVML, check and info give for the same board. */
    assert_non_null(strstr(r.out, "Does not fit"));
    assert_non_null(strstr(r.out, "the GPU has 85.9 GB (81920 MiB)"));
    assert_non_null(strstr(r.out, "1 GPU of 85.9 GB (81920 MiB)"));
    assert_non_null(strstr(r.out, "Cheapest changes that make it fit"));
    assert_non_null(strstr(r.out, "the model states alone need 112.0 GB"));
    tool_result_free(&r);

    /* The "fits on" table labels its columns: the board's class beside the
     * memory NVML reports of it (an unlabelled middle column before). */
    r = vram((const char *[]){"--params", "7B", "--shape-from", "llama", NULL});
    assert_non_null(strstr(r.out, "    class  board                                     memory  verdict\n"));
    assert_non_null(strstr(r.out, "    80 GB  H100 80GB"));
    tool_result_free(&r);

    /* States fit under ZeRO-3, one long sequence does not: the answer says so. */
    r = vram((const char *[]){"--params", "7B", "--layers", "32", "--hidden", "4096", "--heads", "32", "--seq", "16384",
                              "--gpus", "8", "--sharding", "zero3", "--gpu-memory", "80G", NULL});
    assert_int_equal(r.exit_code, 0);
    assert_non_null(strstr(r.out, "one sequence of 16384 tokens needs more than what is left"));
    assert_null(strstr(r.out, "model states alone"));
    tool_result_free(&r);
}

/* docs/vram.md: every stable key, with its JSON type. */
static void json_has_every_documented_key(void **state)
{
    (void)state;
    tool_result r = vram((const char *[]){SEVEN_B, "--gpus", "1", "--gpu-memory", "80G", "--json", NULL});
    assert_int_equal(r.exit_code, 0);
    json_t *j = r.json, *m = json_object_get(j, "model"), *b = json_object_get(j, "bytes");
    assert_true(json_is_number(json_object_get(m, "params")));
    static const char *const counts[] = {"layers", "hidden", "heads", "seq", "batch"};
    for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++)
        if (!json_is_integer(json_object_get(m, counts[i])))
            fail_msg("model.%s is not an integer", counts[i]);
    static const char *const names[] = {"precision", "optimizer", "sharding"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (!json_is_string(json_object_get(j, names[i])))
            fail_msg("%s is not a string", names[i]);
    assert_true(json_is_integer(json_object_get(j, "gpus")));
    static const char *const parts[] = {"weights", "gradients", "optimizer", "activations", "overhead", "total"};
    double sum = 0;
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++) {
        if (!json_is_number(json_object_get(b, parts[i])))
            fail_msg("bytes.%s is not a number", parts[i]);
        sum += i < 5 ? json_number_value(json_object_get(b, parts[i])) : 0;
    }
    assert_true(fabs(sum - json_number_value(json_object_get(b, "total"))) < 2);
    assert_true(json_is_number(json_object_get(j, "gpu_memory_bytes")));
    assert_true(json_is_boolean(json_object_get(j, "fits")));
    assert_true(json_is_integer(json_object_get(j, "max_micro_batch")));
    json_t *sg = json_object_get(j, "suggestions");
    assert_true(json_is_array(sg) && json_array_size(sg) > 0);
    size_t i;
    json_t *x;
    json_array_foreach(sg, i, x)
    {
        assert_true(json_is_string(json_object_get(x, "change")));
        assert_true(json_is_number(json_object_get(x, "total_bytes")));
        assert_true(json_is_boolean(json_object_get(x, "fits")));
        assert_true(json_is_string(json_object_get(x, "cost")));
    }
    tool_result_free(&r);
}

static void zero_paper_figure_through_the_command(void **state)
{
    (void)state;
    tool_result r = vram((const char *[]){"--params", "7.5e9", "--gpu-memory", "80G", "--json", NULL});
    double states = bytes(r.json, "weights") + bytes(r.json, "gradients") + bytes(r.json, "optimizer");
    assert_true(fabs(states - 120e9) < 0.02 * 120e9);
    assert_true(json_is_null(json_object_get(json_object_get(r.json, "bytes"), "activations")));
    assert_string_equal(json_string_value(json_object_get(r.json, "precision")), "mixed");
    /* No shape, but the states alone exceed the GPU: no micro-batch fits (the documented example). */
    assert_int_equal(json_integer_value(json_object_get(r.json, "max_micro_batch")), 0);
    assert_true(json_is_integer(json_object_get(r.json, "max_micro_batch")));
    tool_result_free(&r);
}

static void config_file_and_simulated_gpus(void **state)
{
    (void)state;
    char cfg[4096];
    snprintf(cfg, sizeof cfg, "%s", example("models/llama-2-7b.json"));
    tool_result r = vram((const char *[]){"--config", cfg, "--sim", example("h100x8-training.json"), "--json", NULL});
    assert_int_equal(r.exit_code, 0);
    json_t *model = json_object_get(r.json, "model");
    assert_true(json_is_true(json_object_get(model, "params_estimated")));
    assert_true(fabs(json_number_value(json_object_get(model, "params")) - 6.74e9) < 0.02 * 6.74e9);
    /* 2048, not the model's 4096 context: a context length is not a run's sequence (issue 12). */
    assert_int_equal(json_integer_value(json_object_get(model, "seq")), 2048);
    assert_int_equal(json_integer_value(json_object_get(r.json, "gpus")), 8);
    assert_int_equal(json_integer_value(json_object_get(r.json, "gpu_memory_bytes")), 81559LL * 1048576);
    char *notes = json_dumps(json_object_get(r.json, "notes"), JSON_COMPACT);
    assert_non_null(strstr(notes, "already holds"));
    free(notes);
    tool_result_free(&r);
}

static void bad_input_is_a_clear_error(void **state)
{
    (void)state;
    char *dir = temp_dir();
    char *bad_json = write_temp_file(dir, "bad.json", "{\"hidden_size\": 4096,");
    char *huge = malloc(1100000);
    memset(huge, ' ', 1099999);
    huge[1099999] = '\0';
    huge[0] = '{';
    char *huge_json = write_temp_file(dir, "huge.json", huge);
    free(huge);
    char *negative = write_temp_file(dir, "neg.json", "{\"hidden_size\": -4096, \"num_hidden_layers\": 32}");
    static const struct {
        const char *args[8];
        const char *says;
    } cases[] = {
        {{"--params", "-3", "--gpu-memory", "80G"}, "--params"},
        {{"--params", "7B", "--seq", "0", "--gpu-memory", "80G"}, "--seq"},
        {{"--params", "7B", "--precision", "fp8", "--gpu-memory", "80G"}, "--precision"},
        {{"--params", "7B", "--optimizer", "lion", "--gpu-memory", "80G"}, "--optimizer"},
        {{"--params", "7B", "--gpu-memory", "80"}, "--gpu-memory"},
        {{"--params", "7B", "--gpus", "8", "--tp", "3", "--gpu-memory", "80G"}, "--tp"},
        {{"--params", "lots", "--gpu-memory", "80G"}, "--params"},
        {{"--gpu-memory", "80G"}, "--params"},
        {{"--params", "7B", "--batch"}, "--batch"},
        {{"--params", "7B", "--frobnicate"}, "--frobnicate"},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        tool_result r = vram(cases[c].args);
        if (r.exit_code != 3 || !strstr(r.err, cases[c].says))
            fail_msg("case %zu: exit %d, stderr '%s'", c, r.exit_code, r.err);
        tool_result_free(&r);
    }
    const char *files[] = {bad_json, huge_json, negative, "/nonexistent/config.json"};
    const char *says[] = {"not valid JSON", "larger than 1 MiB", "hidden_size", "No such file"};
    for (size_t i = 0; i < 4; i++) {
        tool_result r = vram((const char *[]){"--config", files[i], "--gpu-memory", "80G", NULL});
        if (r.exit_code != 3 || !strstr(r.err, says[i]))
            fail_msg("%s: exit %d, stderr '%s'", files[i], r.exit_code, r.err);
        tool_result_free(&r);
    }
    free(bad_json);
    free(huge_json);
    free(negative);
    remove_tree(dir);
    free(dir);
}

/* Issue 12: planning happens on a laptop. Without a GPU size the plan is
 * made anyway: bytes per GPU, fits and gpu_memory_bytes null, and the
 * "fits on" table of the common boards. */
static void without_gpu_memory_it_plans_for_the_common_boards(void **state)
{
    (void)state;
    tool_result r =
        vram((const char *[]){"--params", "7.5B", "--precision", "mixed", "--optimizer", "adam", "--json", NULL});
    assert_int_equal(r.exit_code, 0);
    if (json_is_null(json_object_get(r.json, "gpu_memory_bytes"))) {
        assert_true(json_is_null(json_object_get(r.json, "fits")));
        double states = bytes(r.json, "weights") + bytes(r.json, "gradients") + bytes(r.json, "optimizer");
        assert_true(fabs(states - 120e9) < 0.02 * 120e9); /* ZeRO Table 1 */
    } else { /* a machine with a real GPU answers for itself */
        assert_true(json_number_value(json_object_get(r.json, "gpu_memory_bytes")) > 0);
    }
    /* 24, 32, 40, 48, 80, 94, 141, 192 GB, at what NVML reports on each board. */
    static const struct {
        int gb;
        long long mib;
    } boards[] = {{24, 24564}, {32, 32607}, {40, 40960},   {48, 46068},
                  {80, 81559}, {94, 95830}, {141, 143771}, {192, 183359}};
    json_t *table = json_object_get(r.json, "fits_on");
    assert_int_equal(json_array_size(table), 8);
    for (size_t i = 0; i < 8; i++) {
        json_t *row = json_array_get(table, i);
        assert_int_equal(json_integer_value(json_object_get(row, "nominal_gb")), boards[i].gb);
        assert_int_equal(json_integer_value(json_object_get(row, "memory_bytes")), boards[i].mib * 1048576);
        /* 120 GB of states: known not to fit up to 94 GB; above, the activations are not counted. */
        json_t *fits = json_object_get(row, "fits");
        if (boards[i].gb <= 94)
            assert_true(json_is_false(fits));
        else
            assert_true(json_is_null(fits));
    }
    tool_result_free(&r);
    /* The text answers without a GPU too, and names the boards. */
    r = vram((const char *[]){"--params", "7B", "--shape-from", "llama", "--gpus", "1", NULL});
    assert_int_equal(r.exit_code, 0);
    if (strstr(r.out, "size not given")) {
        assert_non_null(strstr(r.out, "Fits on"));
        assert_non_null(strstr(r.out, "RTX 4090"));
        assert_non_null(strstr(r.out, "B200"));
        assert_non_null(strstr(r.out, "micro-batch up to"));
    }
    tool_result_free(&r);
    r = vram((const char *[]){"--help", NULL});
    assert_int_equal(r.exit_code, 0);
    assert_non_null(strstr(r.out, "--gpu-memory"));
    tool_result_free(&r);
}

/* Issue 12: --params alone never gets a silent shape; fits is null, not true,
 * and the text says what to pass. With --shape-from llama it is counted. */
static void unknown_activations_never_fit(void **state)
{
    (void)state;
    tool_result r =
        vram((const char *[]){"--params", "7B", "--optimizer", "adam8bit", "--gpu-memory", "80G", "--json", NULL});
    assert_int_equal(r.exit_code, 0);
    assert_true(json_is_null(json_object_get(r.json, "fits")));
    assert_string_equal(json_string_value(json_object_get(r.json, "fit")), "states_fit");
    assert_true(json_is_null(json_object_get(json_object_get(r.json, "bytes"), "activations")));
    assert_true(json_is_null(json_object_get(json_object_get(r.json, "model"), "layers")));
    tool_result_free(&r);
    r = vram((const char *[]){"--params", "7B", "--optimizer", "adam8bit", "--gpu-memory", "80G", NULL});
    assert_non_null(strstr(r.out, "States fit; activations not counted"));
    assert_non_null(strstr(r.out, "--shape-from llama"));
    assert_null(strstr(r.out, "Fits with"));
    tool_result_free(&r);
    /* 7B full training on one 80 GB GPU: the 8-bit Adam suggestion is "states fit", not "fits". */
    r = vram((const char *[]){"--params", "7B", "--gpu-memory", "80G", "--json", NULL});
    json_t *sg = json_object_get(r.json, "suggestions");
    size_t i;
    json_t *x;
    json_array_foreach(sg, i, x) assert_false(json_is_true(json_object_get(x, "fits")));
    tool_result_free(&r);
    r = vram((const char *[]){"--params", "7B", "--shape-from", "llama", "--gpu-memory", "80G", "--json", NULL});
    json_t *m = json_object_get(r.json, "model");
    assert_int_equal(json_integer_value(json_object_get(m, "layers")), 32); /* llama-2-7b */
    assert_int_equal(json_integer_value(json_object_get(m, "ffn")), 11008);
    assert_true(json_is_number(json_object_get(json_object_get(r.json, "bytes"), "activations")));
    assert_true(json_is_boolean(json_object_get(r.json, "fits")));
    tool_result_free(&r);
}

/* --gpu NAME: the memory NVML reports on that board (data/gpus.tsv). */
static void gpu_by_name_uses_what_nvml_reports(void **state)
{
    (void)state;
    /* An H100 is 85.5 GB as plans count, 81559 MiB as check and info say it: both said. */
    tool_result h = vram((const char *[]){"--params", "70B", "--gpu", "h100", NULL});
    assert_non_null(strstr(h.out, "1 GPU of 85.5 GB (81559 MiB)"));
    tool_result_free(&h);
    static const struct {
        const char *name;
        long long mib;
    } boards[] = {{"h100", 81559}, {"a100-40g", 40960}, {"4090", 24564},
                  {"a10", 23028},  {"l40s", 46068},     {"h200", 143771}};
    for (size_t i = 0; i < sizeof boards / sizeof boards[0]; i++) {
        tool_result r = vram((const char *[]){"--params", "1B", "--gpu", boards[i].name, "--json", NULL});
        assert_int_equal(r.exit_code, 0);
        assert_int_equal(json_integer_value(json_object_get(r.json, "gpu_memory_bytes")), boards[i].mib * 1048576);
        tool_result_free(&r);
    }
    tool_result r = vram((const char *[]){"--params", "1B", "--gpu", "h300", NULL});
    assert_int_equal(r.exit_code, 3);
    assert_non_null(strstr(r.err, "--gpu"));
    assert_non_null(strstr(r.err, "h300"));
    assert_non_null(strstr(r.err, "a100-40g"));
    assert_non_null(strstr(r.err, "b200"));
    tool_result_free(&r);
}

/* --params 7 plans 7 parameters, as asked, and says so: 7 billion is 7B or 7e9 (issue 39). */
static void a_bare_small_count_says_how_it_reads(void **state)
{
    (void)state;
    tool_result r = vram((const char *[]){"--params", "7", NULL});
    assert_int_equal(r.exit_code, 0);
    assert_non_null(strstr(r.out, "plan: 7 parameters"));
    assert_non_null(strstr(r.err, "--params 7 reads as 7 parameters"));
    assert_non_null(strstr(r.err, "7 billion is written 7B or 7e9"));
    tool_result_free(&r);
    r = vram((const char *[]){"--params", "7", "--json", NULL});
    char *notes = json_dumps(json_object_get(r.json, "notes"), 0);
    assert_non_null(strstr(notes, "7B or 7e9"));
    free(notes);
    tool_result_free(&r);
    /* A count with its unit, or a large bare one, is planned without a word. */
    static const char *const fine[] = {"7B", "7e9", "7000000000", "350M"};
    for (size_t i = 0; i < 4; i++) {
        r = vram((const char *[]){"--params", fine[i], NULL});
        assert_int_equal(r.exit_code, 0);
        assert_null(strstr(r.err, "reads as"));
        tool_result_free(&r);
    }
    r = vram((const char *[]){"--params", "7B", NULL});
    assert_non_null(strstr(r.out, "plan: 7.00B parameters"));
    tool_result_free(&r);
}

/* Defaults say so: seq 2048 (not the config's context), sdpa attention, a 10% margin. */
static void defaults_are_stated(void **state)
{
    (void)state;
    char cfg[4096];
    snprintf(cfg, sizeof cfg, "%s", example("models/mistral-7b.json"));
    tool_result r = vram((const char *[]){"--config", cfg, "--gpu", "h100", "--json", NULL});
    assert_int_equal(r.exit_code, 0);
    assert_int_equal(json_integer_value(json_object_get(json_object_get(r.json, "model"), "seq")), 2048);
    assert_string_equal(json_string_value(json_object_get(r.json, "attention")), "sdpa");
    assert_true(json_number_value(json_object_get(r.json, "margin_pct")) == 10);
    /* The 6376.7 GB came from seq 32768 and eager attention. */
    assert_true(bytes(r.json, "total") < 200e9);
    char *notes = json_dumps(json_object_get(r.json, "notes"), JSON_COMPACT);
    assert_non_null(strstr(notes, "--seq not given: 2048"));
    assert_non_null(strstr(notes, "context length is 32768"));
    assert_non_null(strstr(notes, "sdpa"));
    free(notes);
    double sdpa = bytes(r.json, "activations");
    tool_result_free(&r);
    r = vram((const char *[]){"--config", cfg, "--gpu", "h100", "--attention", "eager", "--json", NULL});
    assert_true(bytes(r.json, "activations") > sdpa); /* eager keeps the s x s scores */
    tool_result_free(&r);
    r = vram((const char *[]){"--params", "7B", "--shape-from", "llama", "--gpus", "8", "--sharding", "zero3", "--gpu",
                              "h100", NULL});
    assert_non_null(strstr(r.out, "Fits with a 10% margin"));
    tool_result_free(&r);
}

/* The 70B example: 8x80G, ZeRO-3, full checkpointing, pure bf16 was
 * "82.1 GB, fits"; with the margin it does not, and scaling out and CPU
 * offload are offered. */
static void seventy_b_needs_the_margin_and_gets_scale_out(void **state)
{
    (void)state;
    tool_result r = vram((const char *[]){"--params", "70B", "--shape-from", "llama", "--seq", "4096", "--gpus", "8",
                                          "--sharding", "zero3", "--checkpointing", "full", "--precision", "bf16",
                                          "--gpu-memory", "80G", "--json", NULL});
    assert_int_equal(r.exit_code, 0);
    double total = bytes(r.json, "total");
    if (total * 1.1 > 85899345920.0)
        assert_true(json_is_false(json_object_get(r.json, "fits")));
    char *sg = json_dumps(json_object_get(r.json, "suggestions"), JSON_COMPACT);
    assert_non_null(strstr(sg, "scale out to"));
    assert_non_null(strstr(sg, "CPU offload"));
    free(sg);
    tool_result_free(&r);
}

/* LoRA and QLoRA through the command (figures pinned in the unit tests). */
static void fine_tuning_methods(void **state)
{
    (void)state;
    tool_result r = vram((const char *[]){"--params", "65.2B", "--shape-from", "llama", "--method", "qlora",
                                          "--lora-rank", "64", "--lora-targets", "all", "--checkpointing", "full",
                                          "--seq", "512", "--gpu", "a6000", "--json", NULL});
    assert_int_equal(r.exit_code, 0);
    assert_true(json_is_true(json_object_get(r.json, "fits"))); /* QLoRA: 65B on one 48 GB GPU */
    assert_string_equal(json_string_value(json_object_get(r.json, "method")), "qlora");
    assert_int_equal(json_integer_value(json_object_get(r.json, "adapter_params")), 799539200);
    tool_result_free(&r);
    r = vram((const char *[]){"--params", "7B", "--shape-from", "llama", "--method", "lora", "--gpu", "4090", NULL});
    assert_int_equal(r.exit_code, 0);
    assert_non_null(strstr(r.out, "LoRA fine-tuning memory plan"));
    assert_non_null(strstr(r.out, "q,k,v,o (the attention projections, the default"));
    tool_result_free(&r);
    r = vram((const char *[]){"--params", "7B", "--shape-from", "llama", "--method", "qlora", "--lora-rank", "64",
                              "--lora-targets", "all", "--gpu", "4090", "--json", NULL});
    assert_true(json_is_true(json_object_get(r.json, "fits"))); /* 7B QLoRA on 24 GB, a 2048-token sequence */
    assert_true(json_integer_value(json_object_get(r.json, "max_micro_batch")) >= 1);
    tool_result_free(&r);
}

/* Serving Llama-2-70B at 4k context: 320 KiB of fp16 KV cache per token. */
static void serving_a_70b_model(void **state)
{
    (void)state;
    tool_result r = vram((const char *[]){"--params", "69B", "--shape-from", "llama", "--inference", "--seq", "4096",
                                          "--gpu", "h100", "--json", NULL});
    assert_int_equal(r.exit_code, 0);
    assert_string_equal(json_string_value(json_object_get(r.json, "mode")), "inference");
    assert_int_equal(json_integer_value(json_object_get(json_object_get(r.json, "bytes"), "kv_cache")),
                     327680LL * 4096);
    assert_true(json_is_false(json_object_get(r.json, "fits"))); /* 138 GB of fp16 weights on one 80 GB GPU */
    char *sg = json_dumps(json_object_get(r.json, "suggestions"), JSON_COMPACT);
    assert_non_null(strstr(sg, "4-bit weights"));
    assert_non_null(strstr(sg, "tensor parallel"));
    free(sg);
    tool_result_free(&r);
    r = vram((const char *[]){"--params", "69B", "--shape-from", "llama", "--inference", "--seq", "4096", "--weights",
                              "int4", "--kv-cache", "fp8", "--gpu", "h100", "--json", NULL});
    assert_true(json_is_true(json_object_get(r.json, "fits")));
    assert_int_equal(json_integer_value(json_object_get(json_object_get(r.json, "bytes"), "kv_cache")),
                     163840LL * 4096);
    tool_result_free(&r);
}

/* Bad input of the new options: exit 3, a message naming the field. */
static void bad_new_options_are_clear_errors(void **state)
{
    (void)state;
    char *dir = temp_dir();
    char *empty = write_temp_file(dir, "empty.json", "{\"model_type\": \"llama\"}");
    const struct {
        const char *args[10];
        const char *says;
    } cases[] = {
        {{"--params", "7B", "--gpu", "h300"}, "--gpu"},
        {{"--params", "7B", "--gpu", "h100", "--gpu-memory", "80G"}, "--gpu"},
        {{"--params", "7B", "--gpu-memory", "0G"}, "--gpu-memory"},
        {{"--params", "7B", "--gpu-memory", "-80G"}, "--gpu-memory"},
        {{"--params", "7B", "--gpu-memory", "9999999T"}, "--gpu-memory"},
        {{"--params", "0", "--gpu", "h100"}, "--params"},
        {{"--params", "1e20", "--gpu", "h100"}, "--params"},
        {{"--params", "7B", "--margin", "150"}, "--margin"},
        {{"--params", "7B", "--margin", "-5"}, "--margin"},
        {{"--params", "7B", "--method", "dora"}, "--method"},
        {{"--params", "7B", "--method", "lora"}, "--method"},
        {{"--params", "7B", "--shape-from", "llama", "--method", "lora", "--lora-rank", "0"}, "--lora-rank"},
        {{"--params", "7B", "--lora-rank", "8"}, "--lora-rank"},
        {{"--params", "7B", "--shape-from", "llama", "--method", "lora", "--lora-targets", "mlp"}, "--lora-targets"},
        {{"--params", "7B", "--attention", "xformers"}, "--attention"},
        {{"--params", "7B", "--weights", "int4"}, "--weights"},
        {{"--params", "7B", "--inference", "--kv-cache", "int2"}, "--kv-cache"},
        {{"--params", "7B", "--shape-from", "gpt"}, "--shape-from"},
        {{"--shape-from", "llama", "--gpu", "h100"}, "--params"},
        {{"--params", "7B", "--offload", "disk"}, "--offload"},
        {{"--params", "7B", "--seq", "-1"}, "--seq"},
        {{"--config", empty, "--gpu", "h100"}, "hidden_size"},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        tool_result r = vram(cases[c].args);
        if (r.exit_code != 3 || !strstr(r.err, cases[c].says))
            fail_msg("case %zu: exit %d, stderr '%s'", c, r.exit_code, r.err);
        tool_result_free(&r);
    }
    free(empty);
    remove_tree(dir);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(healthy_scenarios_have_no_vram_finding),
        cmocka_unit_test(each_vram_scenario_yields_its_finding),
        cmocka_unit_test(growth_reports_rate_and_time_left),
        cmocka_unit_test(foreign_process_names_pid_name_memory_and_the_container_caveat),
        cmocka_unit_test(seven_b_one_gpu_does_not_fit_eight_with_zero3_does),
        cmocka_unit_test(zero_paper_figure_through_the_command),
        cmocka_unit_test(json_has_every_documented_key),
        cmocka_unit_test(config_file_and_simulated_gpus),
        cmocka_unit_test(bad_input_is_a_clear_error),
        cmocka_unit_test(without_gpu_memory_it_plans_for_the_common_boards),
        cmocka_unit_test(unknown_activations_never_fit),
        cmocka_unit_test(gpu_by_name_uses_what_nvml_reports),
        cmocka_unit_test(defaults_are_stated),
        cmocka_unit_test(a_bare_small_count_says_how_it_reads),
        cmocka_unit_test(seventy_b_needs_the_margin_and_gets_scale_out),
        cmocka_unit_test(fine_tuning_methods),
        cmocka_unit_test(serving_a_70b_model),
        cmocka_unit_test(bad_new_options_are_clear_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
