/* SPDX-License-Identifier: Apache-2.0 */
/* Hugging Face config.json -> the planner's model shape. */
#include "vram_config.h"
#include "core/input.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A shape key, its aliases across model families, and the largest value
 * that is still a model rather than a typo or an attack on the arithmetic. */
typedef struct shape_key {
    const char *names[4];
    size_t offset;
    long max;
} shape_key;

#define OFF(field) offsetof(gd_vram_model, field)

static const shape_key keys[] = {
    {{"hidden_size", "n_embd", "d_model", NULL}, OFF(hidden), 1L << 20},
    {{"num_hidden_layers", "n_layer", "num_layers", NULL}, OFF(layers), 100000},
    {{"num_attention_heads", "n_head", "num_heads", NULL}, OFF(heads), 1L << 16},
    {{"num_key_value_heads", "num_kv_heads", NULL, NULL}, OFF(kv_heads), 1L << 16},
    {{"intermediate_size", "n_inner", "ffn_dim", "d_ff"}, OFF(ffn), 1L << 24},
    {{"vocab_size", "padded_vocab_size", NULL, NULL}, OFF(vocab), 1L << 27},
    /* The planner's default --seq: the same bound as --seq. */
    {{"max_position_embeddings", "n_positions", "max_sequence_length", "seq_length"}, OFF(max_positions), 1L << 24},
};

/* Families whose MLP is gated (SwiGLU / GeGLU: three matrices). */
static const char *const gated_types[] = {"llama",  "mistral", "mixtral", "qwen2",       "qwen3",     "gemma",
                                          "gemma2", "phi3",    "olmo",    "deepseek_v2", "internlm2", "yi"};
static const char *const gated_acts[] = {"silu", "swish", "swiglu", "geglu"};

static bool in_list(const char *s, const char *const *list, size_t n)
{
    for (size_t i = 0; s && i < n; i++)
        if (strcmp(s, list[i]) == 0)
            return true;
    return false;
}

static int fail(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static int fail(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    return -1;
}

/* One key: absent or null leaves the field; anything but a whole number in
 * [1, max] is an error. */
static int read_key(json_t *root, const shape_key *k, gd_vram_model *m, char *err, size_t errlen)
{
    for (size_t i = 0; i < 4 && k->names[i]; i++) {
        json_t *v = json_object_get(root, k->names[i]);
        if (!v || json_is_null(v))
            continue;
        double x = json_is_integer(v) ? (double)json_integer_value(v) : json_is_real(v) ? json_real_value(v) : NAN;
        if (!(x >= 1) || x != floor(x) || x > (double)k->max) {
            snprintf(err, errlen, "config: \"%s\" must be a whole number between 1 and %ld", k->names[i], k->max);
            return -1;
        }
        *(long *)(void *)((char *)m + k->offset) = (long)x;
        return 0;
    }
    return 0;
}

static int read_shape(json_t *root, gd_vram_model *m, char *err, size_t errlen)
{
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        if (read_key(root, &keys[i], m, err, errlen) != 0)
            return -1;
    json_t *tie = json_object_get(root, "tie_word_embeddings");
    m->tied_embeddings = tie && json_is_boolean(tie) ? json_is_true(tie) : true; /* transformers' default */
    const char *type = json_string_value(json_object_get(root, "model_type"));
    const char *act = json_string_value(json_object_get(root, "hidden_act"));
    if (!act)
        act = json_string_value(json_object_get(root, "hidden_activation"));
    m->gated_mlp = in_list(type, gated_types, sizeof gated_types / sizeof gated_types[0]) ||
                   in_list(act, gated_acts, sizeof gated_acts / sizeof gated_acts[0]);
    if (m->hidden <= 0 || m->layers <= 0)
        return fail(err, errlen, "config: no hidden_size and num_hidden_layers: is this a model's config.json?");
    if (m->heads > m->hidden)
        return fail(err, errlen, "config: num_attention_heads is larger than hidden_size");
    if (m->kv_heads > 0 && m->heads > 0 && m->kv_heads > m->heads)
        return fail(err, errlen, "config: num_key_value_heads is larger than num_attention_heads");
    return 0;
}

int gd_vram_config_parse(const char *buf, size_t len, gd_vram_model *m, char *err, size_t errlen)
{
    if (len > GD_VRAM_CONFIG_MAX_BYTES)
        return fail(err, errlen, "config: larger than 1 MiB, not a model's config.json");
    json_error_t je;
    json_t *root = json_loadb(buf, len, JSON_REJECT_DUPLICATES, &je);
    if (!root) {
        snprintf(err, errlen, "config: not valid JSON (line %d: %.120s)", je.line, je.text);
        return -1;
    }
    int rc = 0;
    if (!json_is_object(root)) {
        rc = fail(err, errlen, "config: the top level must be an object");
    } else {
        /* Multimodal configs keep the language model in "text_config". */
        json_t *text = json_object_get(root, "text_config");
        json_t *shape = !json_object_get(root, "hidden_size") && json_is_object(text) ? text : root;
        gd_vram_model parsed = *m;
        rc = read_shape(shape, &parsed, err, errlen);
        if (rc == 0)
            *m = parsed;
    }
    json_decref(root);
    return rc;
}

int gd_vram_config_load(const char *path, gd_vram_model *m, char *err, size_t errlen)
{
    /* The bounded reader: a FIFO or a device is refused, never waited on. */
    char why[512];
    size_t n;
    char *buf = gd_input_read(path, GD_INPUT_FILE, GD_VRAM_CONFIG_MAX_BYTES, &n, why, sizeof why);
    if (!buf && errno == EFBIG)
        return fail(err, errlen, "--config %s: larger than 1 MiB, not a model's config.json", path);
    if (!buf)
        return fail(err, errlen, "--config %s", why);
    int rc = gd_vram_config_parse(buf, n, m, err, errlen);
    free(buf);
    return rc;
}
