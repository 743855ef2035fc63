/* SPDX-License-Identifier: Apache-2.0 */
/* The planner's formulas against published figures, and its rules at their edges. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "analysis/vram_plan.h"
#include "core/data_tables.h"

#include <math.h>
#include <string.h>

#define GIB 1073741824.0

/* Within 2 % of a published figure (the bar). */
#define assert_within_2pct(got, want)                                                                                  \
    do {                                                                                                               \
        double g_ = (got), w_ = (want);                                                                                \
        if (!(fabs(g_ - w_) <= 0.02 * fabs(w_)))                                                                       \
            fail_msg("%s = %.6g, want %.6g (2%%)", #got, g_, w_);                                                      \
    } while (0)

/* A GPT-style shape exactly as Korthikanti et al. assume it: MLP 4h, no GQA, no vocab. */
static gd_vram_setup gpt(long layers, long hidden, long heads, long seq, long batch)
{
    gd_vram_setup s = {
        .model = {.params = -1, .layers = layers, .hidden = hidden, .heads = heads},
        .seq = seq,
        .batch = batch,
        .precision = GD_PREC_MIXED,
        .optimizer = GD_OPT_ADAM,
        .gpus = 1,
        .tp = 1,
        .accum_steps = 1,
        .gpu_memory_bytes = 80 * GIB,
    };
    gd_vram_fill_model(&s.model);
    return s;
}

static void zero_paper_7_5b_is_120_gb_of_model_states(void **state)
{
    (void)state;
    gd_vram_setup s = gpt(0, 0, 0, 2048, 1);
    s.model.params = 7.5e9;
    gd_vram_breakdown b = gd_vram_breakdown_of(&s);
    assert_within_2pct(b.weights, 15e9);
    assert_within_2pct(b.gradients, 15e9);
    assert_within_2pct(b.optimizer, 90e9);
    assert_within_2pct(b.weights + b.gradients + b.optimizer, 120e9); /* ZeRO Table 1, DP = 1 */
    assert_true(b.activations < 0); /* no shape: not counted, not 0 */
    assert_true(b.total > 120e9); /* context and workspaces on top */
}

static void zero_paper_stages_over_64_gpus(void **state)
{
    (void)state;
    /* ZeRO Table 1, 7.5B at Nd = 64: 31.4 / 16.6 / 1.88 GB. */
    static const struct {
        gd_vram_sharding s;
        double gb;
    } rows[] = {{GD_SHARD_ZERO1, 31.4}, {GD_SHARD_ZERO2, 16.6}, {GD_SHARD_ZERO3, 1.88}, {GD_SHARD_FSDP, 1.88}};
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        gd_vram_setup s = gpt(0, 0, 0, 2048, 1);
        s.model.params = 7.5e9;
        s.gpus = 64;
        s.sharding = rows[i].s;
        gd_vram_breakdown b = gd_vram_breakdown_of(&s);
        assert_within_2pct(b.weights + b.gradients + b.optimizer, rows[i].gb * 1e9);
    }
}

static void bytes_per_param_for_each_precision_and_optimizer(void **state)
{
    (void)state;
    static const struct {
        gd_vram_precision p;
        gd_vram_optimizer o;
        double w, g, opt;
    } rows[] = {
        {GD_PREC_MIXED, GD_OPT_ADAM, 2, 2, 12},   {GD_PREC_MIXED, GD_OPT_ADAMW, 2, 2, 12},
        {GD_PREC_MIXED, GD_OPT_SGD, 2, 2, 8},     {GD_PREC_MIXED, GD_OPT_ADAM8BIT, 2, 2, 6},
        {GD_PREC_FP32, GD_OPT_ADAM, 4, 4, 8},     {GD_PREC_FP32, GD_OPT_SGD, 4, 4, 4},
        {GD_PREC_FP32, GD_OPT_ADAM8BIT, 4, 4, 2}, {GD_PREC_BF16, GD_OPT_ADAM, 2, 2, 4},
        {GD_PREC_BF16, GD_OPT_SGD, 2, 2, 2},      {GD_PREC_BF16, GD_OPT_ADAM8BIT, 2, 2, 2},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        gd_vram_per_param pp = gd_vram_bytes_per_param(rows[i].p, rows[i].o);
        assert_float_equal(pp.weights, rows[i].w, 0);
        assert_float_equal(pp.gradients, rows[i].g, 0);
        assert_float_equal(pp.optimizer, rows[i].opt, 0);
    }
}

/* Korthikanti et al. eq. 1: sbh(34 + 5as/h) per layer; selective 34sbh; full 2sbh. */
static void korthikanti_per_layer(long h, long a, long s_len, long b)
{
    gd_vram_setup s = gpt(1, h, a, s_len, b);
    double sbh = (double)s_len * (double)b * (double)h;
    assert_within_2pct(gd_vram_layer_activation_bytes(&s, (double)b), sbh * (34 + 5.0 * a * s_len / h));
    s.ckpt = GD_CKPT_SELECTIVE;
    assert_within_2pct(gd_vram_layer_activation_bytes(&s, (double)b), 34 * sbh);
    s.ckpt = GD_CKPT_FULL;
    assert_within_2pct(gd_vram_layer_activation_bytes(&s, (double)b), 2 * sbh);
    s.ckpt = GD_CKPT_NONE;
    s.attention = GD_ATTN_FLASH; /* drops the 5as^2b scores, as selective recompute does */
    assert_within_2pct(gd_vram_layer_activation_bytes(&s, (double)b), 34 * sbh);
}

static void korthikanti_activations_two_configurations(void **state)
{
    (void)state;
    korthikanti_per_layer(4096, 32, 2048, 1); /* 7B-class: 956.3 MB per layer (facts.md 4.2) */
    korthikanti_per_layer(12288, 96, 2048, 1); /* GPT-3 175B */
    korthikanti_per_layer(6144, 64, 2048, 4); /* the paper's 22B, micro-batch 4 */
    gd_vram_setup s = gpt(1, 4096, 32, 2048, 1);
    assert_within_2pct(gd_vram_layer_activation_bytes(&s, 1), 956.3e6);
}

static void korthikanti_tensor_parallel_form(void **state)
{
    (void)state;
    /* sbh(10 + 24/t + 5as/(ht)) for GPT-3 at t = 8; selective without sequence parallelism: sbh(10 + 24/t). */
    gd_vram_setup s = gpt(96, 12288, 96, 2048, 1);
    s.gpus = s.tp = 8;
    double sbh = 2048.0 * 12288;
    assert_within_2pct(gd_vram_layer_activation_bytes(&s, 1), sbh * (10 + 24.0 / 8 + 5.0 * 96 * 2048 / (12288.0 * 8)));
    s.ckpt = GD_CKPT_SELECTIVE;
    assert_within_2pct(gd_vram_layer_activation_bytes(&s, 1), sbh * (10 + 24.0 / 8));
}

static void activations_scale_with_batch_and_fp32_doubles_values(void **state)
{
    (void)state;
    gd_vram_setup s = gpt(32, 4096, 32, 2048, 1);
    double one = gd_vram_activation_bytes(&s, 1);
    assert_within_2pct(gd_vram_activation_bytes(&s, 8), 8 * one);
    assert_within_2pct(one, 32 * 956.3e6);
    s.precision = GD_PREC_FP32; /* 16-bit values double, 1-byte masks stay */
    double sbh = 2048.0 * 4096;
    assert_within_2pct(gd_vram_layer_activation_bytes(&s, 1), sbh * 66 + 9 * 32.0 * 2048 * 2048);
    s.precision = GD_PREC_MIXED;
    s.ckpt = GD_CKPT_FULL; /* 2sbh per layer plus one layer re-materialised */
    assert_within_2pct(gd_vram_activation_bytes(&s, 1), 32 * 2 * sbh + 956.3e6);
    s.model.vocab = 32000; /* + fp32 logits and their gradient */
    assert_within_2pct(gd_vram_activation_bytes(&s, 1), 32 * 2 * sbh + 956.3e6 + 8.0 * 2048 * 32000);
}

static void params_estimated_from_published_shapes(void **state)
{
    (void)state;
    gd_vram_model llama = {
        .params = -1, .layers = 32, .hidden = 4096, .heads = 32, .ffn = 11008, .vocab = 32000, .gated_mlp = true};
    gd_vram_fill_model(&llama);
    assert_true(llama.params_estimated);
    assert_within_2pct(llama.params, 6.74e9); /* Llama-2-7B */
    gd_vram_model mistral = {.params = -1,
                             .layers = 32,
                             .hidden = 4096,
                             .heads = 32,
                             .kv_heads = 8,
                             .ffn = 14336,
                             .vocab = 32000,
                             .gated_mlp = true};
    gd_vram_fill_model(&mistral);
    assert_within_2pct(mistral.params, 7.24e9); /* Mistral-7B */
    gd_vram_model gpt2 = {
        .params = -1, .layers = 48, .hidden = 1600, .heads = 25, .vocab = 50257, .tied_embeddings = true};
    gd_vram_fill_model(&gpt2);
    assert_within_2pct(gpt2.params, 1.558e9); /* GPT-2 XL */
    gd_vram_model given = {.params = 7e9, .layers = 32, .hidden = 4096};
    gd_vram_fill_model(&given);
    assert_false(given.params_estimated);
    assert_float_equal(given.params, 7e9, 0);
    assert_int_equal(given.heads, 32); /* head dimension 128 assumed */
    gd_vram_model none = {.params = -1};
    gd_vram_fill_model(&none);
    assert_true(none.params < 0);
}

static gd_vram_setup seven_b(void)
{
    gd_vram_setup s = gpt(32, 4096, 32, 2048, 1);
    s.model.params = 7e9;
    s.model.params_estimated = false;
    s.model.vocab = 32000;
    return s;
}

static void seven_b_on_one_80gb_gpu_does_not_fit_and_gets_ranked_changes(void **state)
{
    (void)state;
    gd_vram_setup s = seven_b();
    gd_vram_plan p = {0};
    gd_vram_plan_make(&s, &p);
    assert_false(p.fits);
    assert_int_equal(p.max_micro_batch, 0);
    assert_true(p.nsuggestions >= 2);
    assert_true(p.suggestions[0].fits);
    for (size_t i = 1; i < p.nsuggestions; i++) {
        const gd_vram_suggestion *a = &p.suggestions[i - 1], *b = &p.suggestions[i];
        assert_true(a->fits >= b->fits);
        if (a->fits && b->fits)
            assert_true(a->cost_rank <= b->cost_rank);
        assert_true(b->bytes.total < gd_vram_breakdown_of(&s).total);
    }
    for (size_t i = 0; i < p.nsuggestions; i++)
        if (p.suggestions[i].fits)
            assert_true(p.suggestions[i].bytes.total <= s.gpu_memory_bytes);
}

static void seven_b_on_eight_gpus_with_zero3_fits(void **state)
{
    (void)state;
    gd_vram_setup s = seven_b();
    s.gpus = 8;
    s.sharding = GD_SHARD_ZERO3;
    gd_vram_plan p = {0};
    gd_vram_plan_make(&s, &p);
    assert_true(p.fits);
    assert_true(p.max_micro_batch >= 1);
    assert_int_equal(p.nsuggestions, 0);
    assert_within_2pct(p.bytes.weights + p.bytes.gradients + p.bytes.optimizer, 16 * 7e9 / 8);
}

static void max_micro_batch_is_the_last_that_fits(void **state)
{
    (void)state;
    gd_vram_setup s = seven_b();
    s.gpus = 8;
    s.sharding = GD_SHARD_ZERO3;
    long m = gd_vram_max_micro_batch(&s);
    assert_true(m >= 1 && m < GD_VRAM_MAX_BATCH);
    s.batch = m;
    assert_true(gd_vram_breakdown_of(&s).total <= s.gpu_memory_bytes);
    s.batch = m + 1;
    assert_true(gd_vram_breakdown_of(&s).total > s.gpu_memory_bytes);
    gd_vram_setup noshape = gpt(0, 0, 0, 2048, 1);
    noshape.model.params = 1e9;
    assert_int_equal(gd_vram_max_micro_batch(&noshape), -1);
    noshape.model.params = 7.5e9; /* 120 GB of states: no micro-batch, whatever the shape */
    assert_int_equal(gd_vram_max_micro_batch(&noshape), 0);
    /* The states fit but one sample does not: 0, not -1 or 1. */
    gd_vram_setup long_seq = seven_b();
    long_seq.gpus = 8;
    long_seq.sharding = GD_SHARD_ZERO3;
    long_seq.seq = 4096 * 4;
    assert_int_equal(gd_vram_max_micro_batch(&long_seq), 0);
    long_seq.batch = 1;
    assert_true(gd_vram_breakdown_of(&long_seq).total > long_seq.gpu_memory_bytes);
}

static void gradient_accumulation_keeps_the_effective_batch(void **state)
{
    (void)state;
    gd_vram_setup s = seven_b();
    s.gpus = 8;
    s.sharding = GD_SHARD_ZERO3;
    s.batch = 64;
    gd_vram_suggestion out[GD_VRAM_MAX_SUGGESTIONS];
    size_t n = gd_vram_suggest(&s, out);
    bool seen = false;
    for (size_t i = 0; i < n; i++) {
        if (!strstr(out[i].change, "accumulation"))
            continue;
        seen = true;
        assert_true(out[i].fits);
        assert_int_equal(out[i].setup.batch * out[i].setup.accum_steps, 64);
        assert_true(out[i].setup.batch < 64);
    }
    assert_true(seen);
}

/* When no single change fits, the combination offered is the cheapest set:
 * ZeRO-2 is not stacked under ZeRO-3, a speed cost is preferred to pure
 * bf16's accuracy risk, and the effective batch is kept. */
static void combination_is_the_cheapest_set_that_fits(void **state)
{
    (void)state;
    static const char *const parts[] = {"FlashAttention",     "8-bit Adam", "ZeRO-2",      "ZeRO-3",
                                        "full checkpointing", "pure bf16",  "accumulation"};
    struct {
        long params_b, layers, hidden, seq, batch, gpus;
        const char *absent;
    } cases[] = {
        {7, 32, 4096, 4096, 8, 1, "pure bf16"}, /* the example on one 80 GB GPU */
        {30, 60, 6656, 2048, 16, 8, "ZeRO-2"},
        {70, 80, 8192, 4096, 4, 8, "ZeRO-2"},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        gd_vram_setup s = gpt(cases[c].layers, cases[c].hidden, cases[c].hidden / 128, cases[c].seq, cases[c].batch);
        s.model.params = (double)cases[c].params_b * 1e9;
        s.model.vocab = 32000;
        s.gpus = cases[c].gpus;
        gd_vram_suggestion out[GD_VRAM_MAX_SUGGESTIONS];
        size_t n = gd_vram_suggest(&s, out);
        assert_true(n >= 1);
        const gd_vram_suggestion *x = &out[0];
        if (!x->fits || !strstr(x->change, " + "))
            fail_msg("case %zu: first suggestion '%s' is not a fitting combination", c, x->change);
        if (strstr(x->change, cases[c].absent))
            fail_msg("case %zu: '%s' has %s", c, x->change, cases[c].absent);
        assert_int_equal(x->setup.batch * x->setup.accum_steps, cases[c].batch);
        for (size_t i = 1; i < n; i++)
            assert_false(out[i].fits && strstr(out[i].change, " + "));
        /* It names at least two of the modelled changes. */
        size_t used = 0;
        for (size_t k = 0; k < sizeof parts / sizeof parts[0]; k++)
            used += strstr(x->change, parts[k]) != NULL;
        assert_true(used >= 2);
        assert_true(x->bytes.total <= s.gpu_memory_bytes);
    }
}

static void validation_names_the_bad_value(void **state)
{
    (void)state;
    char err[256];
    gd_vram_setup s = seven_b();
    assert_int_equal(gd_vram_setup_validate(&s, err, sizeof err), 0);
    s.model.params = -3;
    assert_int_equal(gd_vram_setup_validate(&s, err, sizeof err), -1);
    assert_non_null(strstr(err, "--params"));
    s = seven_b();
    s.tp = 3;
    s.gpus = 8;
    assert_int_equal(gd_vram_setup_validate(&s, err, sizeof err), -1);
    assert_non_null(strstr(err, "--tp"));
    s = seven_b();
    s.seq = 0;
    assert_int_equal(gd_vram_setup_validate(&s, err, sizeof err), -1);
    s = seven_b();
    s.gpu_memory_bytes = 0; /* not known: planned without a GPU (issue 12), not an error */
    assert_int_equal(gd_vram_setup_validate(&s, err, sizeof err), 0);
    s.gpu_memory_bytes = -1;
    assert_int_equal(gd_vram_setup_validate(&s, err, sizeof err), -1);
    assert_non_null(strstr(err, "--gpu-memory"));
    s = seven_b();
    s.model.heads = 8192;
    assert_int_equal(gd_vram_setup_validate(&s, err, sizeof err), -1);
}

static void names_round_trip(void **state)
{
    (void)state;
    assert_int_equal(gd_vram_precision_parse("bf16"), GD_PREC_BF16);
    assert_int_equal(gd_vram_precision_parse("fp16"), -1);
    assert_int_equal(gd_vram_optimizer_parse("adam8bit"), GD_OPT_ADAM8BIT);
    assert_int_equal(gd_vram_sharding_parse("fsdp"), GD_SHARD_FSDP);
    assert_int_equal(gd_vram_ckpt_parse("selective"), GD_CKPT_SELECTIVE);
    assert_int_equal(gd_vram_ckpt_parse(NULL), -1);
    assert_string_equal(gd_vram_sharding_name(GD_SHARD_ZERO2), "zero2");
}

#define MIB 1048576.0

/* A Llama shape from its Hugging Face config.json (gated MLP, untied embeddings). */
static gd_vram_setup llama(double params, long layers, long hidden, long heads, long kv, long ffn)
{
    gd_vram_setup s = gpt(layers, hidden, heads, 2048, 1);
    s.model = (gd_vram_model){.params = params,
                              .layers = layers,
                              .hidden = hidden,
                              .heads = heads,
                              .kv_heads = kv,
                              .ffn = ffn,
                              .vocab = 32000,
                              .gated_mlp = true};
    s.attention = GD_ATTN_SDPA;
    s.margin_pct = 10;
    return s;
}

/* PEFT's print_trainable_parameters() for Llama-2-7b with LoraConfig(r=8,
 * target_modules=["q_proj", "v_proj"]): "trainable params: 4,194,304". */
static void lora_adapters_match_peft_for_llama2_7b(void **state)
{
    (void)state;
    gd_vram_setup s = llama(6.74e9, 32, 4096, 32, 32, 11008);
    s.method = GD_METHOD_LORA;
    s.lora_rank = 8;
    s.lora_targets = GD_LORA_Q | GD_LORA_V;
    assert_float_equal(gd_vram_adapter_params(&s), 4194304, 0);
    s.lora_targets = 0; /* the default: q, k, v, o */
    assert_float_equal(gd_vram_adapter_params(&s), 2 * 4194304, 0);
    /* Frozen base in bf16; gradients and optimizer states only for the adapters. */
    gd_vram_breakdown b = gd_vram_breakdown_of(&s);
    double a = 2 * 4194304.0;
    assert_float_equal(b.weights, 6.74e9 * 2 + a * 2, 1);
    assert_float_equal(b.gradients, a * 2, 1);
    assert_float_equal(b.optimizer, a * 12, 1); /* mixed precision Adam: fp32 master + 2 states */
    s.method = GD_METHOD_FULL;
    assert_float_equal(gd_vram_adapter_params(&s), 0, 0);
}

/* QLoRA (Dettmers et al. 2023), abstract: finetuning a 65B model drops "from
 * >780GB of GPU memory to <48GB". Section 3: NF4 with double quantisation
 * stores 8/64 + 32/(64*256) = 0.127 bits of constants per parameter; the
 * Guanaco runs use r = 64 on every linear layer, bf16 adapters, paged AdamW
 * (32-bit states) and gradient checkpointing. The 48 GB board: RTX A6000,
 * 49140 MiB as NVML reports it (data/gpus.tsv). */
static void qlora_paper_65b_on_one_48gb_gpu(void **state)
{
    (void)state;
    assert_float_equal(GD_QLORA_BITS_PER_PARAM - 4, 8.0 / 64 + 32.0 / (64 * 256), 0.0001);
    gd_vram_setup s = llama(65.2e9, 80, 8192, 64, 64, 22016); /* LLaMA-65B */
    s.gpu_memory_bytes = 49140 * MIB;
    gd_vram_breakdown full = gd_vram_breakdown_of(&s);
    assert_true(full.weights + full.gradients + full.optimizer > 780e9);
    s.method = GD_METHOD_QLORA;
    s.lora_rank = 64;
    s.lora_targets = GD_LORA_ALL;
    s.ckpt = GD_CKPT_FULL;
    s.seq = 512;
    /* r(d_in + d_out) per matrix: 4 x 64 x 16384 + 3 x 64 x 30208 per layer, 80 layers. */
    assert_float_equal(gd_vram_adapter_params(&s), 80.0 * (4 * 64 * 16384 + 3 * 64 * 30208), 0);
    gd_vram_breakdown b = gd_vram_breakdown_of(&s);
    double embed = 2 * 32000.0 * 8192, a = gd_vram_adapter_params(&s);
    assert_float_equal(b.weights, (65.2e9 - embed) * 4.127 / 8 + embed * 2 + a * 2, 1e3);
    assert_float_equal(b.optimizer, a * 8, 1);
    assert_true(b.total < 48e9);
    gd_vram_plan p = {0};
    gd_vram_plan_make(&s, &p);
    assert_int_equal(p.fit, GD_FIT_YES);
    assert_true(p.fits);
}

/* 7B QLoRA on a 24 GB consumer card (RTX 4090: 24564 MiB as NVML reports)
 * with room for activations: a 2048-token sequence without recompute, and
 * several with full checkpointing. */
static void qlora_7b_on_a_24gb_card_with_room_for_activations(void **state)
{
    (void)state;
    gd_vram_setup s = llama(6.74e9, 32, 4096, 32, 32, 11008);
    s.gpu_memory_bytes = 24564 * MIB;
    s.method = GD_METHOD_QLORA;
    s.lora_rank = 64;
    s.lora_targets = GD_LORA_ALL;
    gd_vram_breakdown b = gd_vram_breakdown_of(&s);
    assert_true(b.weights + b.gradients + b.optimizer < 8e9);
    assert_true(gd_vram_max_micro_batch(&s) >= 1);
    s.ckpt = GD_CKPT_FULL;
    assert_true(gd_vram_max_micro_batch(&s) >= 8);
    s.method = GD_METHOD_FULL; /* full fine-tuning: 16 B/param, no micro-batch fits */
    assert_int_equal(gd_vram_max_micro_batch(&s), 0);
}

/* Llama-2-70B (Touvron et al. 2023, "Llama 2", section 2.2: grouped-query
 * attention for 70B; config.json: 80 layers, 64 heads, 8 KV heads, hidden
 * 8192 so head_dim 128): 80 x 2 x 8 x 128 x 2 bytes = 327,680 B = 320 KiB
 * per token in fp16, 1.25 GiB for one 4096-token sequence. */
static void kv_cache_of_llama2_70b_at_4k(void **state)
{
    (void)state;
    gd_vram_setup s = llama(-1, 80, 8192, 64, 8, 28672);
    gd_vram_fill_model(&s.model);
    assert_within_2pct(s.model.params, 68.98e9); /* the model card's 69B (68,976,648,192) */
    s.inference = true;
    s.seq = 4096;
    assert_float_equal(gd_vram_kv_bytes_per_token(&s), 327680, 0);
    gd_vram_breakdown b = gd_vram_breakdown_of(&s);
    assert_float_equal(b.kv_cache, 327680.0 * 4096, 0);
    assert_float_equal(b.kv_cache, 1.25 * 1073741824, 0);
    assert_float_equal(b.weights, s.model.params * 2, 1);
    assert_float_equal(b.gradients + b.optimizer, 0, 0);
    s.kv_cache = GD_KV_FP8;
    assert_float_equal(gd_vram_kv_bytes_per_token(&s), 163840, 0);
    s.kv_cache = GD_KV_FP16;
    s.model.kv_heads = 64; /* without GQA: 8x the cache */
    assert_float_equal(gd_vram_kv_bytes_per_token(&s), 8 * 327680.0, 0);
    s.model.kv_heads = 8;
    s.gpus = s.tp = 2; /* tensor parallel splits the KV heads */
    assert_float_equal(gd_vram_kv_bytes_per_token(&s), 163840, 0);
    /* int4: 4 bits + a 16-bit scale per 128 weights; embeddings stay 16-bit. */
    s.gpus = s.tp = 1;
    s.weights = GD_WEIGHTS_INT4;
    double embed = 2 * 32000.0 * 8192;
    assert_float_equal(gd_vram_breakdown_of(&s).weights, (s.model.params - embed) * 4.125 / 8 + embed * 2, 1);
    /* fp16 on one 80 GB H100 (81559 MiB): the weights alone do not fit; on two with TP they do. */
    s.weights = GD_WEIGHTS_FP16;
    s.gpu_memory_bytes = 81559 * MIB;
    assert_int_equal(gd_vram_max_micro_batch(&s), 0);
    s.gpus = s.tp = 2;
    assert_true(gd_vram_max_micro_batch(&s) >= 1);
}

/* The example: 82 GB on an 80 GB part is not a "fit" under a
 * +-10-15% estimate; it fits only with the margin. */
static void fits_only_with_the_margin(void **state)
{
    (void)state;
    gd_vram_setup s = seven_b();
    s.gpus = 8;
    s.sharding = GD_SHARD_ZERO3;
    double total = gd_vram_breakdown_of(&s).total;
    s.gpu_memory_bytes = total * 1.05;
    gd_vram_breakdown b = gd_vram_breakdown_of(&s);
    s.margin_pct = 0;
    assert_int_equal(gd_vram_fit_of(&s, &b), GD_FIT_YES);
    s.margin_pct = 10;
    assert_int_equal(gd_vram_fit_of(&s, &b), GD_FIT_NO);
    assert_float_equal(gd_vram_budget(&s), s.gpu_memory_bytes / 1.1, 1);
    s.gpu_memory_bytes = 80 * GIB;
    long m = gd_vram_max_micro_batch(&s);
    s.batch = m;
    assert_true(gd_vram_breakdown_of(&s).total * 1.1 <= s.gpu_memory_bytes);
    s.batch = m + 1;
    assert_true(gd_vram_breakdown_of(&s).total * 1.1 > s.gpu_memory_bytes);
}

/* Activations unknown: never "fits", a lower bound; no GPU size: the table. */
static void unknown_activations_or_gpu_are_not_a_yes(void **state)
{
    (void)state;
    gd_vram_setup s = gpt(0, 0, 0, 2048, 1);
    s.model.params = 7e9;
    s.optimizer = GD_OPT_ADAM8BIT; /* 70 GB of states on 80 GiB: the "fits" */
    gd_vram_plan p = {0};
    gd_vram_plan_make(&s, &p);
    assert_int_equal(p.fit, GD_FIT_STATES);
    assert_false(p.fits);
    assert_int_equal(p.max_micro_batch, -1);
    assert_true(p.nnotes >= 1 && strstr(p.notes[0], "--shape-from llama"));
    s.gpu_memory_bytes = 0;
    gd_vram_plan q = {0};
    gd_vram_plan_make(&s, &q);
    assert_int_equal(q.fit, GD_FIT_UNKNOWN);
    assert_int_equal(q.nsuggestions, 0);
    assert_int_equal(q.nboards, 8);
    static const int gb[] = {24, 32, 40, 48, 80, 94, 141, 192};
    for (size_t i = 0; i < 8; i++)
        assert_int_equal(q.boards[i].nominal_gb, gb[i]);
    assert_float_equal(q.boards[4].memory_bytes, 81559 * MIB, 0); /* H100 80GB HBM3 as NVML reports it */
    assert_int_equal(q.boards[0].fit, GD_FIT_NO); /* 70 GB of states on 24 GB */
    assert_int_equal(q.boards[7].fit, GD_FIT_STATES);
}

/* Not fitting: the smallest GPU count with the chosen sharding, and CPU offload with its cost. */
static void scale_out_and_offload_are_suggested(void **state)
{
    (void)state;
    gd_vram_setup s = llama(69e9, 80, 8192, 64, 8, 28672);
    s.seq = 4096;
    s.gpus = 8;
    s.sharding = GD_SHARD_ZERO3;
    s.ckpt = GD_CKPT_FULL;
    s.gpu_memory_bytes = 80 * GIB;
    gd_vram_suggestion out[GD_VRAM_MAX_SUGGESTIONS];
    size_t n = gd_vram_suggest(&s, out);
    const gd_vram_suggestion *scale = NULL, *off = NULL;
    for (size_t i = 0; i < n; i++) {
        if (strstr(out[i].change, "scale out"))
            scale = &out[i];
        if (strstr(out[i].change, "CPU offload"))
            off = &out[i];
    }
    assert_non_null(scale);
    assert_non_null(off);
    assert_true(scale->fits && scale->setup.sharding == GD_SHARD_ZERO3);
    gd_vram_setup fewer = scale->setup;
    fewer.gpus -= 1;
    gd_vram_breakdown b = gd_vram_breakdown_of(&fewer);
    assert_int_equal(gd_vram_fit_of(&fewer, &b), GD_FIT_NO);
    assert_true(off->bytes.optimizer == 0 && off->bytes.weights == 0);
    assert_true(strstr(off->cost, "slower") != NULL && off->speed_cost_pct > 0);
}

static void data_tables_name_boards_and_shapes(void **state)
{
    (void)state;
    gd_gpu_board b;
    assert_true(gd_gpu_board_find("H100", &b));
    assert_float_equal(b.mib, 81559, 0);
    assert_true(gd_gpu_board_find("a100-40g", &b));
    assert_float_equal(b.mib, 40960, 0);
    assert_true(gd_gpu_board_find("rtx4090", &b));
    assert_float_equal(b.mib, 24564, 0);
    assert_true(gd_gpu_board_find("h200", &b));
    assert_float_equal(b.mib, 143771, 0);
    assert_false(gd_gpu_board_find("h300", &b));
    gd_model_shape sh;
    assert_true(gd_model_shape_nearest(7e9, &sh));
    assert_string_equal(sh.name, "llama-2-7b");
    assert_true(gd_model_shape_nearest(70e9, &sh));
    assert_string_equal(sh.name, "llama-2-70b");
    assert_int_equal(sh.kv_heads, 8);
    assert_true(gd_model_shape_nearest(65e9, &sh));
    assert_string_equal(sh.name, "llama-65b");
    assert_int_equal(gd_vram_lora_targets_parse("q,k,v,o"), GD_LORA_ATTENTION);
    assert_int_equal(gd_vram_lora_targets_parse("all"), GD_LORA_ALL);
    assert_int_equal(gd_vram_lora_targets_parse("q,x"), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(zero_paper_7_5b_is_120_gb_of_model_states),
        cmocka_unit_test(zero_paper_stages_over_64_gpus),
        cmocka_unit_test(bytes_per_param_for_each_precision_and_optimizer),
        cmocka_unit_test(korthikanti_activations_two_configurations),
        cmocka_unit_test(korthikanti_tensor_parallel_form),
        cmocka_unit_test(activations_scale_with_batch_and_fp32_doubles_values),
        cmocka_unit_test(params_estimated_from_published_shapes),
        cmocka_unit_test(seven_b_on_one_80gb_gpu_does_not_fit_and_gets_ranked_changes),
        cmocka_unit_test(seven_b_on_eight_gpus_with_zero3_fits),
        cmocka_unit_test(max_micro_batch_is_the_last_that_fits),
        cmocka_unit_test(gradient_accumulation_keeps_the_effective_batch),
        cmocka_unit_test(combination_is_the_cheapest_set_that_fits),
        cmocka_unit_test(validation_names_the_bad_value),
        cmocka_unit_test(names_round_trip),
        cmocka_unit_test(lora_adapters_match_peft_for_llama2_7b),
        cmocka_unit_test(qlora_paper_65b_on_one_48gb_gpu),
        cmocka_unit_test(qlora_7b_on_a_24gb_card_with_room_for_activations),
        cmocka_unit_test(kv_cache_of_llama2_70b_at_4k),
        cmocka_unit_test(fits_only_with_the_margin),
        cmocka_unit_test(unknown_activations_or_gpu_are_not_a_yes),
        cmocka_unit_test(scale_out_and_offload_are_suggested),
        cmocka_unit_test(data_tables_name_boards_and_shapes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
