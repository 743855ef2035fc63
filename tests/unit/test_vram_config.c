/* SPDX-License-Identifier: Apache-2.0 */
/* The config.json reader: real configs, and every way a file can be wrong. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "analysis/vram_config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int parse(const char *json, gd_vram_model *m, char *err, size_t errlen)
{
    *m = (gd_vram_model){.params = -1};
    err[0] = '\0';
    return gd_vram_config_parse(json, strlen(json), m, err, errlen);
}

static void reads_a_llama_config(void **state)
{
    (void)state;
    gd_vram_model m;
    char err[256];
    assert_int_equal(parse("{\"hidden_size\":4096,\"num_hidden_layers\":32,\"num_attention_heads\":32,"
                           "\"num_key_value_heads\":8,\"intermediate_size\":11008,\"vocab_size\":32000,"
                           "\"max_position_embeddings\":4096,\"model_type\":\"llama\",\"hidden_act\":\"silu\","
                           "\"tie_word_embeddings\":false,\"rope_scaling\":null}",
                           &m, err, sizeof err),
                     0);
    assert_int_equal(m.hidden, 4096);
    assert_int_equal(m.layers, 32);
    assert_int_equal(m.heads, 32);
    assert_int_equal(m.kv_heads, 8);
    assert_int_equal(m.ffn, 11008);
    assert_int_equal(m.vocab, 32000);
    assert_int_equal(m.max_positions, 4096);
    assert_true(m.gated_mlp);
    assert_false(m.tied_embeddings);
    assert_true(m.params < 0); /* the planner estimates it */
}

static void reads_gpt2_aliases_and_null(void **state)
{
    (void)state;
    gd_vram_model m;
    char err[256];
    assert_int_equal(parse("{\"n_embd\":1600,\"n_layer\":48,\"n_head\":25,\"n_inner\":null,\"n_positions\":1024,"
                           "\"vocab_size\":50257,\"activation_function\":\"gelu_new\",\"model_type\":\"gpt2\"}",
                           &m, err, sizeof err),
                     0);
    assert_int_equal(m.hidden, 1600);
    assert_int_equal(m.layers, 48);
    assert_int_equal(m.ffn, 0); /* null: not given, 4h later */
    assert_false(m.gated_mlp);
    assert_true(m.tied_embeddings); /* transformers' default */
}

static void reads_the_text_config_of_a_multimodal_model(void **state)
{
    (void)state;
    gd_vram_model m;
    char err[256];
    assert_int_equal(parse("{\"model_type\":\"llava\",\"text_config\":{\"hidden_size\":5120,\"num_hidden_layers\":40,"
                           "\"num_attention_heads\":40}}",
                           &m, err, sizeof err),
                     0);
    assert_int_equal(m.hidden, 5120);
    assert_int_equal(m.layers, 40);
}

static void rejects_bad_files_with_a_message(void **state)
{
    (void)state;
    static const struct {
        const char *json, *says;
    } bad[] = {
        {"", "not valid JSON"},
        {"{\"hidden_size\": 4096,", "not valid JSON"},
        {"[1,2,3]", "top level"},
        {"{}", "no hidden_size"},
        {"{\"hidden_size\":4096}", "no hidden_size"},
        {"{\"hidden_size\":-1,\"num_hidden_layers\":2}", "hidden_size"},
        {"{\"hidden_size\":0,\"num_hidden_layers\":2}", "hidden_size"},
        {"{\"hidden_size\":1e12,\"num_hidden_layers\":2}", "hidden_size"},
        {"{\"hidden_size\":4096.5,\"num_hidden_layers\":2}", "hidden_size"},
        {"{\"hidden_size\":\"4096\",\"num_hidden_layers\":2}", "hidden_size"},
        {"{\"hidden_size\":4096,\"num_hidden_layers\":99999999999}", "num_hidden_layers"},
        {"{\"hidden_size\":64,\"num_hidden_layers\":2,\"num_attention_heads\":128}", "num_attention_heads"},
        {"{\"hidden_size\":64,\"num_hidden_layers\":2,\"num_attention_heads\":8,\"num_key_value_heads\":16}",
         "num_key_value_heads"},
        {"{\"hidden_size\":64,\"hidden_size\":65,\"num_hidden_layers\":2}", "not valid JSON"},
        /* a context length the planner would take as --seq: bounded like --seq */
        {"{\"hidden_size\":64,\"num_hidden_layers\":2,\"max_position_embeddings\":1073741824}",
         "max_position_embeddings"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        gd_vram_model m;
        char err[256];
        if (parse(bad[i].json, &m, err, sizeof err) != -1)
            fail_msg("accepted %s", bad[i].json);
        if (!strstr(err, bad[i].says))
            fail_msg("%s: message '%s' does not say '%s'", bad[i].json, err, bad[i].says);
    }
}

static void a_failed_parse_leaves_the_model_alone(void **state)
{
    (void)state;
    gd_vram_model m = {.params = 7e9, .hidden = 4096, .layers = 32};
    char err[256];
    const char *json = "{\"hidden_size\":8192,\"num_hidden_layers\":-4}";
    assert_int_equal(gd_vram_config_parse(json, strlen(json), &m, err, sizeof err), -1);
    assert_int_equal(m.hidden, 4096);
}

static char *temp_file(const char *content, size_t len)
{
    const char *tmp = getenv("TMPDIR");
    char *path = malloc(4096);
    snprintf(path, 4096, "%s/gdvramXXXXXX", tmp && *tmp ? tmp : "/tmp");
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "wb");
    for (size_t done = 0; done < len;)
        done += fwrite(content, 1, strlen(content) < len - done ? strlen(content) : len - done, f);
    fclose(f);
    return path;
}

static void loads_files_and_rejects_huge_or_missing_ones(void **state)
{
    (void)state;
    gd_vram_model m = {.params = -1};
    char err[256];
    const char *good = "{\"hidden_size\":1024,\"num_hidden_layers\":24}";
    char *path = temp_file(good, strlen(good));
    assert_int_equal(gd_vram_config_load(path, &m, err, sizeof err), 0);
    assert_int_equal(m.hidden, 1024);
    unlink(path);
    free(path);

    path = temp_file("                ", GD_VRAM_CONFIG_MAX_BYTES + 1); /* valid-looking whitespace, too much of it */
    assert_int_equal(gd_vram_config_load(path, &m, err, sizeof err), -1);
    assert_non_null(strstr(err, "larger than 1 MiB"));
    unlink(path);
    free(path);

    assert_int_equal(gd_vram_config_load("/nonexistent/config.json", &m, err, sizeof err), -1);
    assert_non_null(strstr(err, "/nonexistent/config.json"));
    assert_int_equal(gd_vram_config_load("/dev/zero", &m, err, sizeof err), -1); /* endless: stops at the limit */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(reads_a_llama_config),
        cmocka_unit_test(reads_gpt2_aliases_and_null),
        cmocka_unit_test(reads_the_text_config_of_a_multimodal_model),
        cmocka_unit_test(rejects_bad_files_with_a_message),
        cmocka_unit_test(a_failed_parse_leaves_the_model_alone),
        cmocka_unit_test(loads_files_and_rejects_huge_or_missing_ones),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
