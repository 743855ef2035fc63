/* SPDX-License-Identifier: Apache-2.0 */
/* The planner's advice: which changes make a training setup fit, cheapest first. */
#include "vram_plan.h"

#include "core/data_tables.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A change: applies itself to x and describes itself; false when it does
 * not apply to this setup. Costs: Korthikanti et al. 2022 (selective
 * recompute 2.7% of FLOPs for GPT-3, full recompute one extra forward,
 * 30-40% of time), ZeRO section 7 (ZeRO-1/2 move as much data as data
 * parallelism, ZeRO-3 1.5x), Dettmers et al. 2022 (8-bit Adam). */
typedef bool (*change_fn)(gd_vram_setup *x, gd_vram_suggestion *out);

static void describe(gd_vram_suggestion *o, int rank, double speed_pct, const char *label, const char *change,
                     const char *cost)
{
    o->cost_rank = rank;
    snprintf(o->label, sizeof o->label, "%s", label);
    o->speed_cost_pct = speed_pct;
    snprintf(o->change, sizeof o->change, "%s", change);
    snprintf(o->cost, sizeof o->cost, "%s", cost);
}

static bool flash(gd_vram_setup *x, gd_vram_suggestion *o)
{
    if (x->attention != GD_ATTN_EAGER || (!x->inference && x->ckpt != GD_CKPT_NONE))
        return false;
    x->attention = GD_ATTN_SDPA;
    describe(o, 0, -10, "SDPA / FlashAttention",
             "use memory-efficient attention (attn_implementation=\"sdpa\", the Hugging Face default, or "
             "\"flash_attention_2\")",
             "none: usually faster, the s x s attention scores are never written to memory");
    return true;
}

static bool mixed(gd_vram_setup *x, gd_vram_suggestion *o)
{
    if (x->precision != GD_PREC_FP32)
        return false;
    x->precision = GD_PREC_MIXED;
    describe(o, 0, -50, "mixed precision", "train in mixed precision (bf16 autocast, fp32 master weights)",
             "none: 2x or more faster on tensor cores; model states stay 16 bytes/param, activations halve");
    return true;
}

static bool eight_bit(gd_vram_setup *x, gd_vram_suggestion *o)
{
    if (x->optimizer != GD_OPT_ADAM && x->optimizer != GD_OPT_ADAMW)
        return false;
    x->optimizer = GD_OPT_ADAM8BIT;
    describe(o, 1, 0, "8-bit Adam", "use an 8-bit Adam (bitsandbytes.optim.AdamW8bit)",
             "about the same speed; matched 32-bit Adam on the tasks of Dettmers et al. 2022");
    return true;
}

static bool shard(gd_vram_setup *x, gd_vram_suggestion *o, gd_vram_sharding to)
{
    long dp = x->gpus / x->tp;
    bool deeper = to > x->sharding && !(to == GD_SHARD_ZERO3 && x->sharding == GD_SHARD_FSDP);
    if (dp < 2 || !deeper)
        return false;
    x->sharding = to;
    char what[160], label[80];
    snprintf(label, sizeof label, "ZeRO-%d over %ld GPUs", to == GD_SHARD_ZERO2 ? 2 : 3, dp);
    if (to == GD_SHARD_ZERO2) {
        snprintf(what, sizeof what, "shard optimizer states and gradients over %ld GPUs (ZeRO-2, FSDP SHARD_GRAD_OP)",
                 dp);
        describe(o, 1, 2, label, what, "little: the same communication volume as plain data parallelism (ZeRO 7.1)");
    } else {
        snprintf(what, sizeof what, "shard weights, gradients and optimizer over %ld GPUs (ZeRO-3, FSDP FULL_SHARD)",
                 dp);
        describe(o, 2, 15, label, what,
                 "1.5x the communication of data parallelism (ZeRO 7.2): ~10-20% slower without NVLink");
    }
    return true;
}

static bool zero2(gd_vram_setup *x, gd_vram_suggestion *o)
{
    return shard(x, o, GD_SHARD_ZERO2);
}

static bool full_shard_of(const gd_vram_setup *x)
{
    return x->sharding == GD_SHARD_ZERO3 || x->sharding == GD_SHARD_FSDP;
}
static bool zero3(gd_vram_setup *x, gd_vram_suggestion *o)
{
    return shard(x, o, GD_SHARD_ZERO3);
}

static bool selective(gd_vram_setup *x, gd_vram_suggestion *o)
{
    if (x->ckpt != GD_CKPT_NONE || x->attention != GD_ATTN_EAGER)
        return false; /* memory-efficient attention already drops what selective recompute would */
    x->ckpt = GD_CKPT_SELECTIVE;
    describe(o, 1, 3, "selective recompute", "selective activation recomputation (recompute attention scores only)",
             "~3% more compute (2.7% of FLOPs for GPT-3, Korthikanti et al. 2022)");
    return true;
}

static bool full(gd_vram_setup *x, gd_vram_suggestion *o)
{
    if (x->ckpt == GD_CKPT_FULL)
        return false;
    x->ckpt = GD_CKPT_FULL;
    describe(o, 3, 33, "full checkpointing", "full activation checkpointing (keep only each layer's input)",
             "~33% more compute: one extra forward pass per step (30-40% measured)");
    return true;
}

static bool pure_bf16(gd_vram_setup *x, gd_vram_suggestion *o)
{
    if (x->precision == GD_PREC_BF16)
        return false;
    x->precision = GD_PREC_BF16;
    describe(o, 3, -5, "pure bf16", "pure bf16 weights and optimizer states (no fp32 master copy)",
             "accuracy risk: updates below bf16 resolution are lost; use Kahan summation or stochastic rounding");
    return true;
}

/* Largest divisor of n that is at most cap. */
static long divisor_at_most(long n, long cap)
{
    for (long d = cap < n ? cap : n; d > 1; d--)
        if (n % d == 0)
            return d;
    return 1;
}

static bool accumulate(gd_vram_setup *x, gd_vram_suggestion *o)
{
    long fit = gd_vram_max_micro_batch(x);
    if (x->batch < 2 || fit < 1 || fit >= x->batch)
        return false;
    long b = divisor_at_most(x->batch, fit); /* keeps the effective batch exact */
    x->accum_steps *= x->batch / b;
    char what[160], label[80];
    snprintf(label, sizeof label, "micro-batch %ld x %ld accumulation steps", b, x->accum_steps);
    snprintf(what, sizeof what, "micro-batch %ld with %ld gradient accumulation steps (effective batch %ld kept)", b,
             x->accum_steps, b * x->accum_steps);
    x->batch = b;
    describe(o, 2, 10, label, what, "same result; smaller kernels run less efficiently: a few % to ~15% slower");
    return true;
}

/* Cheapest first: the order the combination tries them in. */
static const change_fn changes[] = {flash, mixed, eight_bit, zero2, selective, accumulate, zero3, full, pure_bf16};
#define NCHANGES (sizeof changes / sizeof changes[0])

static void evaluate(gd_vram_suggestion *o)
{
    o->bytes = gd_vram_breakdown_of(&o->setup);
    o->fit = gd_vram_fit_of(&o->setup, &o->bytes);
    o->fits = o->fit == GD_FIT_YES;
}

/* Fits, or fits as far as it is counted (activations unknown): ranked alike. */
static bool ok(const gd_vram_suggestion *o)
{
    return o->fit == GD_FIT_YES || o->fit == GD_FIT_STATES;
}

static int by_rank(const void *pa, const void *pb)
{
    const gd_vram_suggestion *a = pa, *b = pb;
    if (ok(a) != ok(b))
        return ok(a) ? -1 : 1;
    if (ok(a) && a->cost_rank != b->cost_rank)
        return a->cost_rank - b->cost_rank;
    if (ok(a) && a->speed_cost_pct != b->speed_cost_pct)
        return a->speed_cost_pct < b->speed_cost_pct ? -1 : 1;
    return (a->bytes.total > b->bytes.total) - (a->bytes.total < b->bytes.total);
}

/* Adds step to the combination acc. */
static void take(gd_vram_suggestion *acc, const gd_vram_suggestion *step, size_t used)
{
    size_t len = strlen(acc->change);
    snprintf(acc->change + len, sizeof acc->change - len, "%s%s", used ? " + " : "", step->label);
    acc->setup = step->setup;
    acc->cost_rank = step->cost_rank > acc->cost_rank ? step->cost_rank : acc->cost_rank;
    acc->speed_cost_pct += step->speed_cost_pct;
    evaluate(acc);
}

/* The combination of changes in `mask` (bits of changes[]), then a smaller
 * micro-batch with accumulation when it still does not fit. False when a
 * change does not apply or saves nothing after the others: a smaller set
 * does the same for less. */
static bool apply_set(const gd_vram_setup *s, unsigned mask, unsigned acc_bit, gd_vram_suggestion *acc,
                      unsigned *used_mask)
{
    *used_mask = mask;
    *acc = (gd_vram_suggestion){.setup = *s};
    evaluate(acc);
    size_t used = 0;
    for (size_t i = 0; i < NCHANGES; i++) {
        if (!(mask & (1u << i)))
            continue;
        gd_vram_suggestion step = {.setup = acc->setup};
        if (!changes[i](&step.setup, &step))
            return false;
        evaluate(&step);
        if (step.bytes.total >= acc->bytes.total)
            return false;
        take(acc, &step, used++);
    }
    gd_vram_suggestion step = {.setup = acc->setup};
    if (!ok(acc) && accumulate(&step.setup, &step)) {
        evaluate(&step);
        if (ok(&step)) {
            take(acc, &step, used++);
            *used_mask |= acc_bit;
        }
    }
    return ok(acc) && used >= 2;
}

static int bits(unsigned m)
{
    int n = 0;
    for (; m; m &= m - 1)
        n++;
    return n;
}

static int highest(unsigned m)
{
    int i = -1;
    for (; m; m >>= 1)
        i++;
    return i;
}

/* Is combination a cheaper than b? Its dearest change first (changes[] is
 * ordered by cost, so a speed cost comes before pure bf16's accuracy risk),
 * then the summed speed cost, fewer changes, less memory. */
static bool cheaper(const gd_vram_suggestion *a, unsigned mask_a, const gd_vram_suggestion *b, unsigned mask_b)
{
    if (highest(mask_a) != highest(mask_b))
        return highest(mask_a) < highest(mask_b);
    if (a->speed_cost_pct != b->speed_cost_pct)
        return a->speed_cost_pct < b->speed_cost_pct;
    int na = bits(mask_a), nb = bits(mask_b);
    if (na != nb)
        return na < nb;
    return a->bytes.total < b->bytes.total;
}

/* The cheapest combination on this hardware that fits, tried over every set
 * of changes (2^8 small evaluations); false when none does. ZeRO-3 already
 * shards what ZeRO-2 does, and accumulation is tried last in every set. */
static bool combine(const gd_vram_setup *s, gd_vram_suggestion *o)
{
    unsigned z2 = 0, z3 = 0, acc_bit = 0;
    for (size_t i = 0; i < NCHANGES; i++) {
        z2 |= changes[i] == zero2 ? 1u << i : 0;
        z3 |= changes[i] == zero3 ? 1u << i : 0;
        acc_bit |= changes[i] == accumulate ? 1u << i : 0;
    }
    bool found = false;
    unsigned best_mask = 0, used;
    for (unsigned mask = 1; mask < 1u << NCHANGES; mask++) {
        gd_vram_suggestion x;
        if ((mask & acc_bit) || ((mask & z2) && (mask & z3)) || !apply_set(s, mask, acc_bit, &x, &used))
            continue;
        if (!found || cheaper(&x, used, o, best_mask)) {
            *o = x;
            best_mask = used;
            found = true;
        }
    }
    if (!found)
        return false;
    if (o->speed_cost_pct < 0)
        snprintf(o->cost, sizeof o->cost, "together about %.0f%% faster", -o->speed_cost_pct);
    else if (o->speed_cost_pct > 0)
        snprintf(o->cost, sizeof o->cost, "together about %.0f%% slower", o->speed_cost_pct);
    else
        snprintf(o->cost, sizeof o->cost, "together about the same speed");
    return true;
}

/* The fewest GPUs over which the chosen sharding fits (ZeRO-3 when none was
 * chosen: plain data parallelism copies everything); serving: the smallest
 * tensor-parallel degree (a power of two) that fits. False past 4096. */
static bool scale_out(const gd_vram_setup *s, gd_vram_suggestion *o)
{
    gd_vram_suggestion x = {.setup = *s};
    char what[160], label[80];
    if (s->inference) {
        for (long n = s->tp * 2; n <= 64; n *= 2) {
            x.setup.tp = n;
            x.setup.gpus = s->gpus / s->tp * n;
            evaluate(&x);
            if (!ok(&x))
                continue;
            snprintf(what, sizeof what, "tensor parallel over %ld GPUs of this size (vLLM --tensor-parallel-size %ld)",
                     n, n);
            snprintf(label, sizeof label, "tensor parallel over %ld GPUs", n);
            describe(&x, 4, 0, label, what, "more GPUs; all-reduce per layer, fast over NVLink");
            *o = x;
            return true;
        }
        return false;
    }
    if (s->sharding == GD_SHARD_NONE || s->sharding == GD_SHARD_ZERO1)
        x.setup.sharding = GD_SHARD_ZERO3;
    for (long n = s->gpus + s->tp; n <= 4096; n += s->tp) {
        x.setup.gpus = n;
        evaluate(&x);
        if (!ok(&x))
            continue;
        const char *how =
            x.setup.sharding == s->sharding ? gd_vram_sharding_name(s->sharding) : "ZeRO-3 / FSDP FULL_SHARD";
        snprintf(what, sizeof what, "scale out to %ld GPUs of this size with %s", n, how);
        snprintf(label, sizeof label, "%ld GPUs", n);
        describe(&x, 4, 15, label, what, "more GPUs; sharding adds communication (1.5x data parallelism for ZeRO-3)");
        *o = x;
        return true;
    }
    return false;
}

/* CPU offload: ZeRO-Offload moves optimizer states and gradients to the CPU
 * and runs the optimizer step there (Ren et al. 2021); under ZeRO-3 / FSDP
 * the parameters too (ZeRO-Infinity's offload_param, FSDP CPUOffload). */
static bool offload(gd_vram_setup *x, gd_vram_suggestion *o)
{
    if (x->inference || x->offload != GD_OFFLOAD_NONE)
        return false;
    if (full_shard_of(x)) {
        x->offload = GD_OFFLOAD_ALL;
        describe(o, 3, 100, "CPU offload of parameters and optimizer",
                 "CPU offload of parameters, gradients and optimizer states (FSDP CPUOffload(offload_params=True), "
                 "DeepSpeed ZeRO-3 offload_param + offload_optimizer)",
                 "much slower: every layer's weights cross PCIe twice a step and the optimizer runs on the CPU; "
                 "often 2x or more, needs CPU memory for all states");
    } else {
        x->offload = GD_OFFLOAD_OPTIMIZER;
        describe(o, 3, 50, "ZeRO-Offload",
                 "ZeRO-Offload: optimizer states and gradients in CPU memory, the optimizer step on the CPU "
                 "(DeepSpeed offload_optimizer)",
                 "slower: gradients cross PCIe every step and the CPU runs Adam; hidden at large batches "
                 "(Ren et al. 2021, ZeRO-Offload), not at small ones");
    }
    return true;
}

/* Serving changes: an fp8 KV cache, fp8 or int4 weights. */
static bool kv_fp8(gd_vram_setup *x, gd_vram_suggestion *o)
{
    if (!x->inference || x->kv_cache == GD_KV_FP8)
        return false;
    x->kv_cache = GD_KV_FP8;
    describe(o, 1, 0, "fp8 KV cache", "an fp8 KV cache (vLLM --kv-cache-dtype fp8)",
             "halves the cache; small accuracy loss, needs fp8 support (Hopper, Ada or newer) to be fast");
    return true;
}

static bool serve_weights(gd_vram_setup *x, gd_vram_suggestion *o, gd_vram_weights to)
{
    if (!x->inference || x->weights >= to || (to == GD_WEIGHTS_FP8 && x->weights == GD_WEIGHTS_INT8))
        return false;
    x->weights = to;
    if (to == GD_WEIGHTS_FP8)
        describe(o, 1, -10, "fp8 weights", "fp8 weights (vLLM --quantization fp8, or an FP8 checkpoint)",
                 "half the weight memory; near-lossless on most models, fast on Hopper / Ada and newer");
    else
        describe(o, 2, 0, "int4 weights", "4-bit weights (an AWQ or GPTQ checkpoint, group size 128)",
                 "a quarter of the 16-bit weight memory; some accuracy loss, larger on small models");
    return true;
}

static bool fp8_weights(gd_vram_setup *x, gd_vram_suggestion *o)
{
    return serve_weights(x, o, GD_WEIGHTS_FP8);
}
static bool int4_weights(gd_vram_setup *x, gd_vram_suggestion *o)
{
    return serve_weights(x, o, GD_WEIGHTS_INT4);
}

static const change_fn serving_changes[] = {flash, kv_fp8, fp8_weights, int4_weights};

/* Adds each change of `list` that saves memory; returns whether one fits. */
static bool try_each(const gd_vram_setup *s, const change_fn *list, size_t count, double now_total,
                     gd_vram_suggestion *out, size_t *n)
{
    bool any = false;
    for (size_t i = 0; i < count && *n < GD_VRAM_MAX_SUGGESTIONS; i++) {
        gd_vram_suggestion x = {.setup = *s};
        if (!list[i](&x.setup, &x))
            continue;
        evaluate(&x);
        if (x.bytes.total >= now_total)
            continue;
        any |= ok(&x);
        out[(*n)++] = x;
    }
    return any;
}

size_t gd_vram_suggest(const gd_vram_setup *s, gd_vram_suggestion *out)
{
    gd_vram_breakdown now = gd_vram_breakdown_of(s);
    if (gd_vram_fit_of(s, &now) != GD_FIT_NO)
        return 0;
    size_t n = 0;
    if (s->inference) {
        try_each(s, serving_changes, sizeof serving_changes / sizeof serving_changes[0], now.total, out, &n);
    } else {
        bool any_fits = try_each(s, changes, NCHANGES, now.total, out, &n);
        /* No single change is enough: a combination on this hardware. */
        if (!any_fits && n < GD_VRAM_MAX_SUGGESTIONS && combine(s, &out[n]))
            n++;
        const change_fn extra[] = {offload};
        try_each(s, extra, 1, now.total, out, &n);
    }
    /* And the hardware that would do. */
    if (n < GD_VRAM_MAX_SUGGESTIONS && scale_out(s, &out[n]))
        n++;
    qsort(out, n, sizeof *out, by_rank);
    return n;
}

void gd_vram_plan_note(gd_vram_plan *p, const char *fmt, ...)
{
    if (p->nnotes >= GD_VRAM_MAX_NOTES)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(p->notes[p->nnotes++], sizeof p->notes[0], fmt, ap);
    va_end(ap);
}

size_t gd_vram_fits_on(const gd_vram_setup *s, gd_vram_board_fit *out, size_t max)
{
    gd_gpu_board b;
    size_t n = 0;
    for (size_t i = 0; n < max && gd_gpu_board_at(i, &b); i++) {
        if (b.table_gb <= 0)
            continue;
        gd_vram_setup x = *s;
        x.gpu_memory_bytes = b.mib * 1048576.0;
        gd_vram_breakdown bytes = gd_vram_breakdown_of(&x);
        gd_vram_board_fit *r = &out[n++];
        snprintf(r->name, sizeof r->name, "%s", b.name);
        snprintf(r->label, sizeof r->label, "%s", b.label);
        r->nominal_gb = b.table_gb;
        r->memory_bytes = x.gpu_memory_bytes;
        r->fit = gd_vram_fit_of(&x, &bytes);
        r->max_micro_batch = gd_vram_max_micro_batch(&x);
    }
    return n;
}

void gd_vram_plan_make(const gd_vram_setup *s, gd_vram_plan *out)
{
    out->setup = *s;
    out->bytes = gd_vram_breakdown_of(s);
    out->fit = gd_vram_fit_of(s, &out->bytes);
    out->fits = out->fit == GD_FIT_YES;
    out->adapter_params = gd_vram_adapter_params(s);
    out->max_micro_batch = gd_vram_max_micro_batch(s);
    out->nsuggestions = gd_vram_suggest(s, out->suggestions);
    out->nboards = gd_vram_fits_on(s, out->boards, GD_VRAM_MAX_BOARDS);
    if (out->bytes.activations < 0)
        gd_vram_plan_note(out,
                          "%s not counted, so this is a lower bound and never \"fits\": give --config FILE, "
                          "--layers and --hidden, or --shape-from llama (a Llama shape matched to --params)",
                          s->inference ? "the KV cache and activations are" : "activations are");
    if (s->method != GD_METHOD_FULL) {
        char targets[64];
        gd_vram_lora_targets_format(s->lora_targets ? s->lora_targets : GD_LORA_ATTENTION, targets, sizeof targets);
        gd_vram_plan_note(out, "%s rank %ld on %s%s: %.1fM adapter parameters trained, the base frozen in %s",
                          s->method == GD_METHOD_LORA ? "LoRA" : "QLoRA", s->lora_rank, targets,
                          s->lora_targets ? "" : " (the attention projections, the default: --lora-targets to change)",
                          out->adapter_params / 1e6,
                          s->method == GD_METHOD_QLORA   ? "4-bit NF4 with double quantisation (4.127 bits/param)"
                          : s->precision == GD_PREC_FP32 ? "fp32"
                                                         : "bf16");
    }
    if (!s->inference && s->sharding != GD_SHARD_NONE && s->gpus / s->tp < 2)
        gd_vram_plan_note(out, "%s shards across data-parallel GPUs: with one it saves nothing",
                          gd_vram_sharding_name(s->sharding));
    if (!s->inference && s->optimizer == GD_OPT_SGD)
        gd_vram_plan_note(out, "SGD is counted with momentum (one state per parameter)");
}
