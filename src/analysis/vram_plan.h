/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The memory planner: how many bytes each GPU needs to train, fine-tune
 * (LoRA, QLoRA) or serve a transformer, whether that fits with a margin,
 * on which common boards it fits, and what to change when it does not.
 *
 * Pure arithmetic over a description of the model and the setup; no I/O.
 * Formulas and their sources are in docs/vram.md: model states after the
 * ZeRO paper (Rajbhandari et al. 2020, section 3.1, Table 1), activations
 * after Korthikanti et al. 2022 ("Reducing Activation Recomputation in Large
 * Transformer Models", eq. 1 and section 4).
 */
#ifndef GD_VRAM_PLAN_H
#define GD_VRAM_PLAN_H

#include <stdbool.h>
#include <stddef.h>

typedef enum gd_vram_precision { GD_PREC_FP32, GD_PREC_MIXED, GD_PREC_BF16 } gd_vram_precision;
typedef enum gd_vram_optimizer { GD_OPT_ADAM, GD_OPT_ADAMW, GD_OPT_SGD, GD_OPT_ADAM8BIT } gd_vram_optimizer;
typedef enum gd_vram_sharding {
    GD_SHARD_NONE,
    GD_SHARD_ZERO1, /* optimizer states */
    GD_SHARD_ZERO2, /* + gradients */
    GD_SHARD_ZERO3, /* + parameters */
    GD_SHARD_FSDP, /* FULL_SHARD: the memory of ZeRO-3 */
} gd_vram_sharding;
typedef enum gd_vram_ckpt { GD_CKPT_NONE, GD_CKPT_SELECTIVE, GD_CKPT_FULL } gd_vram_ckpt;
/* eager keeps the s x s attention scores; sdpa (memory-efficient) and flash do not. */
typedef enum gd_vram_attention { GD_ATTN_EAGER, GD_ATTN_SDPA, GD_ATTN_FLASH } gd_vram_attention;
typedef enum gd_vram_method { GD_METHOD_FULL, GD_METHOD_LORA, GD_METHOD_QLORA } gd_vram_method;
/* Serving: weight and KV-cache data types. */
typedef enum gd_vram_weights { GD_WEIGHTS_FP16, GD_WEIGHTS_FP8, GD_WEIGHTS_INT8, GD_WEIGHTS_INT4 } gd_vram_weights;
typedef enum gd_vram_kv { GD_KV_FP16, GD_KV_FP8 } gd_vram_kv;
/* CPU offload: ZeRO-Offload (optimizer states and gradients in CPU memory),
 * or everything but the layers being computed (ZeRO-3 / FSDP CPU offload). */
typedef enum gd_vram_offload { GD_OFFLOAD_NONE, GD_OFFLOAD_OPTIMIZER, GD_OFFLOAD_ALL } gd_vram_offload;
/* LoRA target modules (bits). */
enum {
    GD_LORA_Q = 1,
    GD_LORA_K = 2,
    GD_LORA_V = 4,
    GD_LORA_O = 8,
    GD_LORA_GATE = 16,
    GD_LORA_UP = 32,
    GD_LORA_DOWN = 64,
    GD_LORA_ATTENTION = 15,
    GD_LORA_ALL = 127,
};
/* The verdict: it fits; it does not; the counted part fits but activations
 * (or the KV cache) are not counted; no GPU size to judge against. */
typedef enum gd_vram_fit { GD_FIT_NO, GD_FIT_YES, GD_FIT_STATES, GD_FIT_UNKNOWN } gd_vram_fit;

/* The model. 0 means "not known"; params < 0 means "estimate from the shape". */
typedef struct gd_vram_model {
    double params;
    bool params_estimated; /* set by gd_vram_fill_model when it computed params */
    long layers, hidden, heads, kv_heads, ffn, vocab, max_positions;
    bool gated_mlp; /* SwiGLU-style MLP (Llama, Mistral...): three matrices, four wide tensors */
    bool tied_embeddings; /* input embedding shared with the output layer */
} gd_vram_model;

typedef struct gd_vram_setup {
    gd_vram_model model;
    long seq, batch; /* sequence length and micro-batch per GPU */
    gd_vram_precision precision;
    gd_vram_optimizer optimizer;
    gd_vram_sharding sharding;
    gd_vram_ckpt ckpt;
    gd_vram_attention attention;
    gd_vram_method method;
    long lora_rank; /* LoRA / QLoRA rank r */
    unsigned lora_targets; /* GD_LORA_* bits; 0 = the attention projections */
    gd_vram_offload offload;
    bool inference; /* serving: weights + KV cache, no training state */
    gd_vram_weights weights;
    gd_vram_kv kv_cache;
    long gpus, tp; /* GPUs in all; tensor-parallel degree (divides gpus) */
    long accum_steps; /* gradient accumulation steps (>= 1), for the effective batch */
    double gpu_memory_bytes; /* 0: not known (plan without a GPU) */
    double margin_pct; /* fits only when total x (1 + margin/100) <= GPU memory */
} gd_vram_setup;

/* Bytes per GPU. activations (and kv_cache when serving) < 0 when the shape
 * is unknown (not counted). */
typedef struct gd_vram_breakdown {
    double weights, gradients, optimizer, activations, kv_cache, overhead, total;
} gd_vram_breakdown;

/* Value names for the command line and JSON; parse returns -1 when unknown. */
const char *gd_vram_precision_name(gd_vram_precision p);
const char *gd_vram_optimizer_name(gd_vram_optimizer o);
const char *gd_vram_sharding_name(gd_vram_sharding s);
const char *gd_vram_ckpt_name(gd_vram_ckpt c);
const char *gd_vram_attention_name(gd_vram_attention a);
const char *gd_vram_method_name(gd_vram_method m);
const char *gd_vram_weights_name(gd_vram_weights w);
const char *gd_vram_kv_name(gd_vram_kv k);
const char *gd_vram_offload_name(gd_vram_offload o);
int gd_vram_precision_parse(const char *s);
int gd_vram_optimizer_parse(const char *s);
int gd_vram_sharding_parse(const char *s);
int gd_vram_ckpt_parse(const char *s);
int gd_vram_attention_parse(const char *s);
int gd_vram_method_parse(const char *s);
int gd_vram_weights_parse(const char *s);
int gd_vram_kv_parse(const char *s);
int gd_vram_offload_parse(const char *s);
/* "q,k,v,o", "attention", "all" -> GD_LORA_* bits; 0 when a name is unknown. */
unsigned gd_vram_lora_targets_parse(const char *s);
/* The targets as "q,k,v,o" into buf. */
void gd_vram_lora_targets_format(unsigned targets, char *buf, size_t len);

/* QLoRA's stored bits per base weight: 4-bit NF4 plus double-quantised
 * constants, 8/64 + 32/(64*256) = 0.127 bits (Dettmers et al. 2023, sec. 3). */
#define GD_QLORA_BITS_PER_PARAM (4.0 + 0.127)

/* Trainable adapter parameters of LoRA over the model's layers: r(d_in +
 * d_out) per targeted matrix; 0 without a shape or in full training. */
double gd_vram_adapter_params(const gd_vram_setup *s);

/* Bytes of weights kept per parameter when serving: fp16 2, fp8 / int8 1,
 * int4 0.5 plus a 16-bit scale per group of 128 (4.125 bits). */
double gd_vram_serving_weight_bytes(gd_vram_weights w);

/* KV-cache bytes per token of one sequence: layers x 2 (K and V) x
 * kv_heads x head_dim x bytes, over min(tp, kv_heads) GPUs; < 0 without a shape. */
double gd_vram_kv_bytes_per_token(const gd_vram_setup *s);

/* The memory a fit is judged against: GPU memory / (1 + margin). */
double gd_vram_budget(const gd_vram_setup *s);

/* The verdict for a breakdown of this setup. */
gd_vram_fit gd_vram_fit_of(const gd_vram_setup *s, const gd_vram_breakdown *b);

/* Bytes per parameter before sharding: 16-bit (or fp32) weights, gradients
 * and optimizer states (fp32 master copy included). */
typedef struct gd_vram_per_param {
    double weights, gradients, optimizer;
} gd_vram_per_param;
gd_vram_per_param gd_vram_bytes_per_param(gd_vram_precision p, gd_vram_optimizer o);

/* Parameters from the shape: attention 2h^2 (Q, O) + 2h^2 kv/a (K, V), MLP
 * 2hf (3hf gated), embeddings vh (2vh untied), norms 2h per layer. Returns
 * NAN when layers or hidden are unknown. */
double gd_vram_estimate_params(const gd_vram_model *m);

/* Fills what can be derived: params when < 0 and the shape allows, heads
 * (head dim 128) and kv_heads (= heads) and ffn (4h) when 0. */
void gd_vram_fill_model(gd_vram_model *m);

/* Activation bytes of one transformer layer (Korthikanti et al. eq. 1 and
 * its tensor-parallel and recompute forms), micro-batch b, tensor parallel t.
 * 16-bit activations except under fp32. Eager attention adds the scores. */
double gd_vram_layer_activation_bytes(const gd_vram_setup *s, double b);

/* Activation bytes of the whole model per GPU for micro-batch b (layers,
 * the re-materialised layer under full recompute, logits); < 0 when the
 * shape is unknown. */
double gd_vram_activation_bytes(const gd_vram_setup *s, double b);

/* The breakdown per GPU for the setup's micro-batch. */
gd_vram_breakdown gd_vram_breakdown_of(const gd_vram_setup *s);

/* Largest micro-batch that fits the budget (0 when not even 1 does, or
 * when the model states alone do not); -1 when the shape is unknown and they
 * do, or when the GPU size is not known; capped at GD_VRAM_MAX_BATCH. Serving:
 * the most sequences of --seq tokens at once. */
#define GD_VRAM_MAX_BATCH 65536L
long gd_vram_max_micro_batch(const gd_vram_setup *s);

/* Checks a setup for values the formulas cannot take; returns 0, or -1 with
 * a message naming the option. */
int gd_vram_setup_validate(const gd_vram_setup *s, char *err, size_t errlen);

/* One change that helps the setup fit. */
typedef struct gd_vram_suggestion {
    char change[400]; /* what to change, as a user would do it */
    char label[80]; /* the same in a few words, for combinations */
    char cost[200]; /* its speed (or accuracy) cost, in words */
    double speed_cost_pct; /* rough extra step time; negative = faster */
    int cost_rank; /* 0 free .. 4 needs more hardware: the ranking key */
    gd_vram_setup setup; /* the setup after the change */
    gd_vram_breakdown bytes;
    gd_vram_fit fit;
    bool fits; /* fit == GD_FIT_YES */
} gd_vram_suggestion;

#define GD_VRAM_MAX_SUGGESTIONS 14

/* The cheapest changes, ranked: the ones that fit first, by cost then
 * memory, then (when no single one fits) a combination that does. Returns
 * the number written to out (at most GD_VRAM_MAX_SUGGESTIONS). */
size_t gd_vram_suggest(const gd_vram_setup *s, gd_vram_suggestion *out);

/* One row of the "fits on" table: a common board (data/gpus.tsv). */
#define GD_VRAM_MAX_BOARDS 16
typedef struct gd_vram_board_fit {
    char name[32], label[64];
    int nominal_gb;
    double memory_bytes;
    gd_vram_fit fit;
    long max_micro_batch; /* -1: unknown (no shape) */
} gd_vram_board_fit;

/* The table for this setup on each board of data/gpus.tsv's table; returns the count. */
size_t gd_vram_fits_on(const gd_vram_setup *s, gd_vram_board_fit *out, size_t max);

/* The whole answer: breakdown, verdict, largest micro-batch, advice and
 * the assumptions a reader must know about. */
#define GD_VRAM_MAX_NOTES 12
typedef struct gd_vram_plan {
    gd_vram_setup setup;
    gd_vram_breakdown bytes;
    gd_vram_fit fit;
    bool fits; /* fit == GD_FIT_YES */
    double adapter_params;
    long max_micro_batch; /* -1: unknown (no shape, or no GPU size) */
    size_t nsuggestions;
    gd_vram_suggestion suggestions[GD_VRAM_MAX_SUGGESTIONS];
    size_t nnotes;
    char notes[GD_VRAM_MAX_NOTES][240];
    size_t nboards;
    gd_vram_board_fit boards[GD_VRAM_MAX_BOARDS];
} gd_vram_plan;

/* Plans a validated setup. Notes already in out (nnotes) are kept. */
void gd_vram_plan_make(const gd_vram_setup *s, gd_vram_plan *out);

/* Adds a note (ignored past GD_VRAM_MAX_NOTES). */
void gd_vram_plan_note(gd_vram_plan *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
