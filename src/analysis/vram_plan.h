/*
 * The training memory planner: how many bytes each GPU needs to train a
 * transformer, whether that fits, and what to change when it does not.
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
    GD_SHARD_FSDP,  /* FULL_SHARD: the memory of ZeRO-3 */
} gd_vram_sharding;
typedef enum gd_vram_ckpt { GD_CKPT_NONE, GD_CKPT_SELECTIVE, GD_CKPT_FULL } gd_vram_ckpt;

/* The model. 0 means "not known"; params < 0 means "estimate from the shape". */
typedef struct gd_vram_model {
    double params;
    bool params_estimated; /* set by gd_vram_fill_model when it computed params */
    long layers, hidden, heads, kv_heads, ffn, vocab, max_positions;
    bool gated_mlp;       /* SwiGLU-style MLP (Llama, Mistral...): three matrices, four wide tensors */
    bool tied_embeddings; /* input embedding shared with the output layer */
} gd_vram_model;

typedef struct gd_vram_setup {
    gd_vram_model model;
    long seq, batch;       /* sequence length and micro-batch per GPU */
    gd_vram_precision precision;
    gd_vram_optimizer optimizer;
    gd_vram_sharding sharding;
    gd_vram_ckpt ckpt;
    bool flash_attention;
    long gpus, tp;         /* GPUs in all; tensor-parallel degree (divides gpus) */
    long accum_steps;      /* gradient accumulation steps (>= 1), for the effective batch */
    double gpu_memory_bytes;
} gd_vram_setup;

/* Bytes per GPU. activations < 0 when the shape is unknown (not counted). */
typedef struct gd_vram_breakdown {
    double weights, gradients, optimizer, activations, overhead, total;
} gd_vram_breakdown;

/* Value names for the command line and JSON; parse returns -1 when unknown. */
const char *gd_vram_precision_name(gd_vram_precision p);
const char *gd_vram_optimizer_name(gd_vram_optimizer o);
const char *gd_vram_sharding_name(gd_vram_sharding s);
const char *gd_vram_ckpt_name(gd_vram_ckpt c);
int gd_vram_precision_parse(const char *s);
int gd_vram_optimizer_parse(const char *s);
int gd_vram_sharding_parse(const char *s);
int gd_vram_ckpt_parse(const char *s);

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
 * 16-bit activations except under fp32. */
double gd_vram_layer_activation_bytes(const gd_vram_setup *s, double b);

/* Activation bytes of the whole model per GPU for micro-batch b (layers,
 * the re-materialised layer under full recompute, logits); < 0 when the
 * shape is unknown. */
double gd_vram_activation_bytes(const gd_vram_setup *s, double b);

/* The breakdown per GPU for the setup's micro-batch. */
gd_vram_breakdown gd_vram_breakdown_of(const gd_vram_setup *s);

/* Largest micro-batch that fits (0 when not even 1 does, or when the model
 * states alone do not); -1 when the shape is unknown and they do; capped at
 * GD_VRAM_MAX_BATCH. */
#define GD_VRAM_MAX_BATCH 65536L
long gd_vram_max_micro_batch(const gd_vram_setup *s);

/* Checks a setup for values the formulas cannot take; returns 0, or -1 with
 * a message naming the option. */
int gd_vram_setup_validate(const gd_vram_setup *s, char *err, size_t errlen);

/* One change that helps the setup fit. */
typedef struct gd_vram_suggestion {
    char change[400];     /* what to change, as a user would do it */
    char label[80];       /* the same in a few words, for combinations */
    char cost[200];       /* its speed (or accuracy) cost, in words */
    double speed_cost_pct; /* rough extra step time; negative = faster */
    int cost_rank;        /* 0 free .. 4 needs more hardware: the ranking key */
    gd_vram_setup setup;  /* the setup after the change */
    gd_vram_breakdown bytes;
    bool fits;
} gd_vram_suggestion;

#define GD_VRAM_MAX_SUGGESTIONS 12

/* The cheapest changes, ranked: the ones that fit first, by cost then
 * memory, then (when no single one fits) a combination that does. Returns
 * the number written to out (at most GD_VRAM_MAX_SUGGESTIONS). */
size_t gd_vram_suggest(const gd_vram_setup *s, gd_vram_suggestion *out);

/* The whole answer: breakdown, verdict, largest micro-batch, advice and
 * the assumptions a reader must know about. */
#define GD_VRAM_MAX_NOTES 8
typedef struct gd_vram_plan {
    gd_vram_setup setup;
    gd_vram_breakdown bytes;
    bool fits;
    long max_micro_batch; /* -1: unknown (no shape) */
    size_t nsuggestions;
    gd_vram_suggestion suggestions[GD_VRAM_MAX_SUGGESTIONS];
    size_t nnotes;
    char notes[GD_VRAM_MAX_NOTES][200];
} gd_vram_plan;

/* Plans a validated setup. Notes already in out (nnotes) are kept. */
void gd_vram_plan_make(const gd_vram_setup *s, gd_vram_plan *out);

/* Adds a note (ignored past GD_VRAM_MAX_NOTES). */
void gd_vram_plan_note(gd_vram_plan *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
