/* The training memory planner: the formulas (docs/vram.md has the sources). */
#include "vram_plan.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* CUDA context of a PyTorch process with lazy module loading (its default
 * since 2.0): 287,047,680 bytes measured in pytorch/pytorch#86509. */
#define CONTEXT_BYTES 287047680.0
/* cuBLAS / cuDNN workspaces and, with more than one GPU, NCCL buffers: a
 * rough allowance (cuBLAS alone is 2 x 4 MiB + 8 x 16 KiB per stream). */
#define WORKSPACE_BYTES (256.0 * 1048576.0)
#define NCCL_BYTES (512.0 * 1048576.0)
/* Caching-allocator fragmentation over the activations, which are freed and
 * allocated every step. ZeRO section 3.2 saw OOM "with over 30% of memory
 * still available in some extreme cases"; 10% is the typical case. */
#define FRAGMENTATION_SHARE 0.10
/* Logits and their gradient, in fp32 for the loss: 4 + 4 bytes per value. */
#define LOGIT_BYTES 8.0

static const char *const precision_names[] = {"fp32", "mixed", "bf16"};
static const char *const optimizer_names[] = {"adam", "adamw", "sgd", "adam8bit"};
static const char *const sharding_names[] = {"none", "zero1", "zero2", "zero3", "fsdp"};
static const char *const ckpt_names[] = {"none", "selective", "full"};

#define COUNT(a) (int)(sizeof a / sizeof a[0])

static int parse_name(const char *s, const char *const *names, int n)
{
    for (int i = 0; s && i < n; i++)
        if (strcmp(s, names[i]) == 0)
            return i;
    return -1;
}

const char *gd_vram_precision_name(gd_vram_precision p) { return precision_names[p]; }
const char *gd_vram_optimizer_name(gd_vram_optimizer o) { return optimizer_names[o]; }
const char *gd_vram_sharding_name(gd_vram_sharding s) { return sharding_names[s]; }
const char *gd_vram_ckpt_name(gd_vram_ckpt c) { return ckpt_names[c]; }
int gd_vram_precision_parse(const char *s) { return parse_name(s, precision_names, COUNT(precision_names)); }
int gd_vram_optimizer_parse(const char *s) { return parse_name(s, optimizer_names, COUNT(optimizer_names)); }
int gd_vram_sharding_parse(const char *s) { return parse_name(s, sharding_names, COUNT(sharding_names)); }
int gd_vram_ckpt_parse(const char *s) { return parse_name(s, ckpt_names, COUNT(ckpt_names)); }

/* Optimizer state bytes per parameter in the states' own precision:
 * Adam keeps momentum and variance, SGD (with momentum) one buffer, 8-bit
 * Adam (Dettmers et al. 2022) two 1-byte states. */
static double optimizer_state_bytes(gd_vram_optimizer o, double state_bytes)
{
    switch (o) {
    case GD_OPT_ADAM:
    case GD_OPT_ADAMW: return 2 * state_bytes;
    case GD_OPT_SGD: return state_bytes;
    case GD_OPT_ADAM8BIT: return 2;
    }
    return 2 * state_bytes;
}

gd_vram_per_param gd_vram_bytes_per_param(gd_vram_precision p, gd_vram_optimizer o)
{
    switch (p) {
    case GD_PREC_FP32: return (gd_vram_per_param){4, 4, optimizer_state_bytes(o, 4)};
    /* ZeRO 3.1: fp16 weights and gradients, fp32 master weights + states (K = 12 for Adam). */
    case GD_PREC_MIXED: return (gd_vram_per_param){2, 2, 4 + optimizer_state_bytes(o, 4)};
    /* Pure bf16: states kept in the parameters' dtype (torch.optim's default), no master copy. */
    case GD_PREC_BF16: return (gd_vram_per_param){2, 2, optimizer_state_bytes(o, 2)};
    }
    return (gd_vram_per_param){4, 4, 8};
}

double gd_vram_estimate_params(const gd_vram_model *m)
{
    if (m->layers <= 0 || m->hidden <= 0)
        return NAN;
    double h = (double)m->hidden;
    double kv_ratio = m->heads > 0 && m->kv_heads > 0 ? (double)m->kv_heads / (double)m->heads : 1.0;
    double f = m->ffn > 0 ? (double)m->ffn : 4 * h;
    double attention = 2 * h * h + 2 * h * h * kv_ratio;
    double mlp = (m->gated_mlp ? 3 : 2) * h * f;
    double per_layer = attention + mlp + 2 * h;
    double embed = m->vocab > 0 ? (double)m->vocab * h * (m->tied_embeddings ? 1 : 2) : 0;
    return (double)m->layers * per_layer + embed;
}

void gd_vram_fill_model(gd_vram_model *m)
{
    if (m->hidden > 0 && m->heads <= 0 && m->hidden >= 128)
        m->heads = m->hidden / 128; /* head dimension 128: Llama, GPT-3 XL and larger */
    if (m->hidden > 0 && m->heads <= 0)
        m->heads = 1;
    if (m->heads > 0 && m->kv_heads <= 0)
        m->kv_heads = m->heads;
    if (m->hidden > 0 && m->ffn <= 0)
        m->ffn = 4 * m->hidden;
    if (m->params < 0) {
        double p = gd_vram_estimate_params(m);
        if (!isnan(p)) {
            m->params = p;
            m->params_estimated = true;
        }
    }
}

static bool has_shape(const gd_vram_setup *s)
{
    const gd_vram_model *m = &s->model;
    return m->layers > 0 && m->hidden > 0 && m->heads > 0 && s->seq > 0;
}

double gd_vram_layer_activation_bytes(const gd_vram_setup *s, double b)
{
    const gd_vram_model *m = &s->model;
    double sbh = (double)s->seq * b * (double)m->hidden;
    double k = s->precision == GD_PREC_FP32 ? 2 : 1; /* activation bytes / 2 */
    if (s->ckpt == GD_CKPT_FULL)
        return 2 * k * sbh; /* only the layer's input is kept */
    double t = (double)s->tp;
    double h = (double)m->hidden, a = (double)m->heads;
    double r = m->kv_heads > 0 ? (double)m->kv_heads / a : 1.0;
    double f = m->ffn > 0 ? (double)m->ffn : 4 * h;
    /* Not split by tensor parallelism: two LayerNorm inputs, the QKV and MLP
     * inputs, two 1-byte dropout masks (Korthikanti's "10"). */
    double replicated = 8 * k + 2;
    /* Split: Q, K, V, the projection input, the MLP's wide tensors (the "24"). */
    double split = (4 + 4 * r) * k + (m->gated_mlp ? 8 : 4) * k * f / h;
    double bytes = sbh * (replicated + split / t);
    /* Softmax output, its dropout mask and output: 5as^2b. FlashAttention and
     * selective recompute never keep them. */
    if (s->ckpt == GD_CKPT_NONE && !s->flash_attention)
        bytes += (4 * k + 1) * a * (double)s->seq * (double)s->seq * b / t;
    return bytes;
}

double gd_vram_activation_bytes(const gd_vram_setup *s, double b)
{
    if (!has_shape(s))
        return -1;
    double total = (double)s->model.layers * gd_vram_layer_activation_bytes(s, b);
    if (s->ckpt == GD_CKPT_FULL) {
        /* The backward pass re-materialises one layer at a time. */
        gd_vram_setup one = *s;
        one.ckpt = GD_CKPT_NONE;
        total += gd_vram_layer_activation_bytes(&one, b);
    }
    if (s->model.vocab > 0)
        total += LOGIT_BYTES * (double)s->seq * b * (double)s->model.vocab / (double)s->tp;
    return total;
}

static double dp_degree(const gd_vram_setup *s)
{
    return (double)(s->gpus / s->tp);
}

static void model_states(const gd_vram_setup *s, gd_vram_breakdown *out)
{
    gd_vram_per_param pp = gd_vram_bytes_per_param(s->precision, s->optimizer);
    double p = s->model.params / (double)s->tp, nd = dp_degree(s);
    bool full_shard = s->sharding == GD_SHARD_ZERO3 || s->sharding == GD_SHARD_FSDP;
    out->weights = p * pp.weights / (full_shard ? nd : 1);
    out->gradients = p * pp.gradients / (full_shard || s->sharding == GD_SHARD_ZERO2 ? nd : 1);
    out->optimizer = p * pp.optimizer / (s->sharding != GD_SHARD_NONE ? nd : 1);
}

static double overhead_bytes(const gd_vram_setup *s, double activations)
{
    double o = CONTEXT_BYTES + WORKSPACE_BYTES + (s->gpus > 1 ? NCCL_BYTES : 0);
    if (activations > 0)
        o += FRAGMENTATION_SHARE * activations;
    bool full_shard = s->sharding == GD_SHARD_ZERO3 || s->sharding == GD_SHARD_FSDP;
    if (full_shard && dp_degree(s) > 1 && s->model.layers > 0) {
        /* The layer being computed and the one prefetched, gathered whole. */
        gd_vram_per_param pp = gd_vram_bytes_per_param(s->precision, s->optimizer);
        o += 2 * s->model.params / (double)s->model.layers / (double)s->tp * pp.weights;
    }
    return o;
}

static gd_vram_breakdown breakdown_at(const gd_vram_setup *s, double b)
{
    gd_vram_breakdown x = {0};
    model_states(s, &x);
    x.activations = gd_vram_activation_bytes(s, b);
    x.overhead = overhead_bytes(s, x.activations);
    x.total = x.weights + x.gradients + x.optimizer + x.overhead + (x.activations > 0 ? x.activations : 0);
    return x;
}

gd_vram_breakdown gd_vram_breakdown_of(const gd_vram_setup *s)
{
    return breakdown_at(s, (double)s->batch);
}

long gd_vram_max_micro_batch(const gd_vram_setup *s)
{
    /* Every activation term is linear in the micro-batch. */
    double t0 = breakdown_at(s, 0).total;
    if (t0 > s->gpu_memory_bytes)
        return 0; /* the model states alone do not fit: known without the shape */
    if (!has_shape(s))
        return -1;
    double t1 = breakdown_at(s, 1).total;
    double per_sample = t1 - t0;
    if (t1 > s->gpu_memory_bytes || per_sample <= 0)
        return 0;
    double b = floor((s->gpu_memory_bytes - t0) / per_sample);
    return b > (double)GD_VRAM_MAX_BATCH ? GD_VRAM_MAX_BATCH : (long)b;
}

static int fail(char *err, size_t errlen, const char *msg)
{
    snprintf(err, errlen, "%s", msg);
    return -1;
}

int gd_vram_setup_validate(const gd_vram_setup *s, char *err, size_t errlen)
{
    const gd_vram_model *m = &s->model;
    if (!(m->params > 0) || !isfinite(m->params))
        return fail(err, errlen, "the parameter count is unknown: give --params (e.g. 7B), --config FILE, "
                                 "or --layers and --hidden to estimate it");
    if (m->params > 1e15)
        return fail(err, errlen, "--params: more than 10^15 parameters is not a model this planner can judge");
    if (m->heads > m->hidden && m->hidden > 0)
        return fail(err, errlen, "--heads cannot exceed --hidden");
    if (m->kv_heads > m->heads && m->heads > 0)
        return fail(err, errlen, "num_key_value_heads cannot exceed the number of attention heads");
    if (s->gpus < 1 || s->tp < 1 || s->gpus % s->tp != 0)
        return fail(err, errlen, "--tp must divide --gpus (tensor-parallel groups fill the GPUs)");
    if (s->batch < 1 || s->seq < 1 || s->accum_steps < 1)
        return fail(err, errlen, "--batch and --seq must be at least 1");
    if (!(s->gpu_memory_bytes > 0) || !isfinite(s->gpu_memory_bytes))
        return fail(err, errlen, "the GPU memory is unknown: give --gpu-memory (e.g. 80G)");
    return 0;
}
