/* The planner's advice: which changes make a training setup fit, cheapest first. */
#include "vram_plan.h"

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
    if (x->flash_attention || x->ckpt != GD_CKPT_NONE)
        return false;
    x->flash_attention = true;
    describe(o, 0, -10, "FlashAttention",
             "use FlashAttention (torch scaled_dot_product_attention, attn_implementation=\"flash_attention_2\")",
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
        snprintf(what, sizeof what, "shard optimizer states and gradients over %ld GPUs (ZeRO-2, FSDP SHARD_GRAD_OP)", dp);
        describe(o, 1, 2, label, what, "little: the same communication volume as plain data parallelism (ZeRO 7.1)");
    } else {
        snprintf(what, sizeof what, "shard weights, gradients and optimizer over %ld GPUs (ZeRO-3, FSDP FULL_SHARD)", dp);
        describe(o, 2, 15, label, what,
                 "1.5x the communication of data parallelism (ZeRO 7.2): ~10-20% slower without NVLink");
    }
    return true;
}

static bool zero2(gd_vram_setup *x, gd_vram_suggestion *o) { return shard(x, o, GD_SHARD_ZERO2); }
static bool zero3(gd_vram_setup *x, gd_vram_suggestion *o) { return shard(x, o, GD_SHARD_ZERO3); }

static bool selective(gd_vram_setup *x, gd_vram_suggestion *o)
{
    if (x->ckpt != GD_CKPT_NONE || x->flash_attention)
        return false; /* FlashAttention already drops what selective recompute would */
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
    o->fits = o->bytes.total <= o->setup.gpu_memory_bytes;
}

static int by_rank(const void *pa, const void *pb)
{
    const gd_vram_suggestion *a = pa, *b = pb;
    if (a->fits != b->fits)
        return a->fits ? -1 : 1;
    if (a->fits && a->cost_rank != b->cost_rank)
        return a->cost_rank - b->cost_rank;
    if (a->fits && a->speed_cost_pct != b->speed_cost_pct)
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
    if (!acc->fits && accumulate(&step.setup, &step)) {
        evaluate(&step);
        if (step.fits) {
            take(acc, &step, used++);
            *used_mask |= acc_bit;
        }
    }
    return acc->fits && used >= 2;
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

/* The fewest GPUs (doubling) over which ZeRO-3 fits; false past 4096. */
static bool more_gpus(const gd_vram_setup *s, gd_vram_suggestion *o)
{
    gd_vram_suggestion x = {.setup = *s};
    x.setup.sharding = GD_SHARD_ZERO3;
    for (long n = s->gpus * 2; n <= 4096; n *= 2) {
        x.setup.gpus = n;
        evaluate(&x);
        if (x.fits) {
            char what[80];
            snprintf(what, sizeof what, "ZeRO-3 / FSDP FULL_SHARD over %ld GPUs of this size", n);
            describe(&x, 4, 15, what, what, "more GPUs; 1.5x the communication of data parallelism");
            *o = x;
            return true;
        }
    }
    return false;
}

size_t gd_vram_suggest(const gd_vram_setup *s, gd_vram_suggestion *out)
{
    gd_vram_breakdown now = gd_vram_breakdown_of(s);
    if (now.total <= s->gpu_memory_bytes)
        return 0;
    size_t n = 0;
    bool any_fits = false;
    for (size_t i = 0; i < NCHANGES && n < GD_VRAM_MAX_SUGGESTIONS; i++) {
        gd_vram_suggestion x = {.setup = *s};
        if (!changes[i](&x.setup, &x))
            continue;
        evaluate(&x);
        if (x.bytes.total >= now.total)
            continue;
        any_fits |= x.fits;
        out[n++] = x;
    }
    /* No single change is enough: a combination on this hardware, and the hardware that would do. */
    if (!any_fits && n < GD_VRAM_MAX_SUGGESTIONS && combine(s, &out[n]))
        n++;
    if (!any_fits && n < GD_VRAM_MAX_SUGGESTIONS && more_gpus(s, &out[n]))
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

void gd_vram_plan_make(const gd_vram_setup *s, gd_vram_plan *out)
{
    out->setup = *s;
    out->bytes = gd_vram_breakdown_of(s);
    out->fits = out->bytes.total <= s->gpu_memory_bytes;
    out->max_micro_batch = gd_vram_max_micro_batch(s);
    out->nsuggestions = gd_vram_suggest(s, out->suggestions);
    if (out->bytes.activations < 0)
        gd_vram_plan_note(out, "activations not counted: give --layers, --hidden and --seq (or --config) to include them");
    if (s->sharding != GD_SHARD_NONE && s->gpus / s->tp < 2)
        gd_vram_plan_note(out, "%s shards across data-parallel GPUs: with one it saves nothing",
                          gd_vram_sharding_name(s->sharding));
    if (s->optimizer == GD_OPT_SGD)
        gd_vram_plan_note(out, "SGD is counted with momentum (one state per parameter)");
}
