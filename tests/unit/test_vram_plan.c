/* The planner's formulas against published figures, and its rules at their edges. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "analysis/vram_plan.h"

#include <math.h>
#include <string.h>

#define GIB 1073741824.0

/* Within 2 % of a published figure (the bar). */
#define assert_within_2pct(got, want)                                                                          \
    do {                                                                                                       \
        double g_ = (got), w_ = (want);                                                                        \
        if (!(fabs(g_ - w_) <= 0.02 * fabs(w_)))                                                               \
            fail_msg("%s = %.6g, want %.6g (2%%)", #got, g_, w_);                                              \
    } while (0)

/* A GPT-style shape exactly as Korthikanti et al. assume it: MLP 4h, no GQA, no vocab. */
static gd_vram_setup gpt(long layers, long hidden, long heads, long seq, long batch)
{
    gd_vram_setup s = {
        .model = {.params = -1, .layers = layers, .hidden = hidden, .heads = heads},
        .seq = seq, .batch = batch, .precision = GD_PREC_MIXED, .optimizer = GD_OPT_ADAM,
        .gpus = 1, .tp = 1, .accum_steps = 1, .gpu_memory_bytes = 80 * GIB,
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
    assert_true(b.activations < 0);                                   /* no shape: not counted, not 0 */
    assert_true(b.total > 120e9);                                     /* context and workspaces on top */
}

static void zero_paper_stages_over_64_gpus(void **state)
{
    (void)state;
    /* ZeRO Table 1, 7.5B at Nd = 64: 31.4 / 16.6 / 1.88 GB. */
    static const struct { gd_vram_sharding s; double gb; } rows[] = {
        {GD_SHARD_ZERO1, 31.4}, {GD_SHARD_ZERO2, 16.6}, {GD_SHARD_ZERO3, 1.88}, {GD_SHARD_FSDP, 1.88}};
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
    static const struct { gd_vram_precision p; gd_vram_optimizer o; double w, g, opt; } rows[] = {
        {GD_PREC_MIXED, GD_OPT_ADAM, 2, 2, 12},  {GD_PREC_MIXED, GD_OPT_ADAMW, 2, 2, 12},
        {GD_PREC_MIXED, GD_OPT_SGD, 2, 2, 8},    {GD_PREC_MIXED, GD_OPT_ADAM8BIT, 2, 2, 6},
        {GD_PREC_FP32, GD_OPT_ADAM, 4, 4, 8},    {GD_PREC_FP32, GD_OPT_SGD, 4, 4, 4},
        {GD_PREC_FP32, GD_OPT_ADAM8BIT, 4, 4, 2}, {GD_PREC_BF16, GD_OPT_ADAM, 2, 2, 4},
        {GD_PREC_BF16, GD_OPT_SGD, 2, 2, 2},     {GD_PREC_BF16, GD_OPT_ADAM8BIT, 2, 2, 2},
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
    korthikanti_per_layer(4096, 32, 2048, 1);  /* 7B-class: 956.3 MB per layer (facts.md 4.2) */
    korthikanti_per_layer(12288, 96, 2048, 1); /* GPT-3 175B */
    korthikanti_per_layer(6144, 64, 2048, 4);  /* the paper's 22B, micro-batch 4 */
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
    gd_vram_model llama = {.params = -1, .layers = 32, .hidden = 4096, .heads = 32, .ffn = 11008, .vocab = 32000,
                           .gated_mlp = true};
    gd_vram_fill_model(&llama);
    assert_true(llama.params_estimated);
    assert_within_2pct(llama.params, 6.74e9); /* Llama-2-7B */
    gd_vram_model mistral = {.params = -1, .layers = 32, .hidden = 4096, .heads = 32, .kv_heads = 8, .ffn = 14336,
                             .vocab = 32000, .gated_mlp = true};
    gd_vram_fill_model(&mistral);
    assert_within_2pct(mistral.params, 7.24e9); /* Mistral-7B */
    gd_vram_model gpt2 = {.params = -1, .layers = 48, .hidden = 1600, .heads = 25, .vocab = 50257, .tied_embeddings = true};
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
    static const char *const parts[] = {"FlashAttention", "8-bit Adam", "ZeRO-2", "ZeRO-3", "full checkpointing",
                                        "pure bf16", "accumulation"};
    struct { long params_b, layers, hidden, seq, batch, gpus; const char *absent; } cases[] = {
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
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
