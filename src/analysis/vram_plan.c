/* SPDX-License-Identifier: Apache-2.0 */
/* The memory planner: the formulas (docs/vram.md has the sources). */
#include "vram_plan.h"

#include "core/data_tables.h"

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
static const char *const attention_names[] = {"eager", "sdpa", "flash"};
static const char *const method_names[] = {"full", "lora", "qlora"};
static const char *const weights_names[] = {"fp16", "fp8", "int8", "int4"};
static const char *const kv_names[] = {"fp16", "fp8"};
static const char *const offload_names[] = {"none", "optimizer", "all"};
static const char *const lora_module_names[] = {"q", "k", "v", "o", "gate", "up", "down"};

#define COUNT(a) (int)(sizeof a / sizeof a[0])

static int parse_name(const char *s, const char *const *names, int n)
{
    for (int i = 0; s && i < n; i++)
        if (strcmp(s, names[i]) == 0)
            return i;
    return -1;
}

const char *gd_vram_precision_name(gd_vram_precision p)
{
    return precision_names[p];
}
const char *gd_vram_optimizer_name(gd_vram_optimizer o)
{
    return optimizer_names[o];
}
const char *gd_vram_sharding_name(gd_vram_sharding s)
{
    return sharding_names[s];
}
const char *gd_vram_ckpt_name(gd_vram_ckpt c)
{
    return ckpt_names[c];
}
int gd_vram_precision_parse(const char *s)
{
    return parse_name(s, precision_names, COUNT(precision_names));
}
int gd_vram_optimizer_parse(const char *s)
{
    return parse_name(s, optimizer_names, COUNT(optimizer_names));
}
int gd_vram_sharding_parse(const char *s)
{
    return parse_name(s, sharding_names, COUNT(sharding_names));
}
int gd_vram_ckpt_parse(const char *s)
{
    return parse_name(s, ckpt_names, COUNT(ckpt_names));
}
const char *gd_vram_attention_name(gd_vram_attention a)
{
    return attention_names[a];
}
const char *gd_vram_method_name(gd_vram_method m)
{
    return method_names[m];
}
const char *gd_vram_weights_name(gd_vram_weights w)
{
    return weights_names[w];
}
const char *gd_vram_kv_name(gd_vram_kv k)
{
    return kv_names[k];
}
const char *gd_vram_offload_name(gd_vram_offload o)
{
    return offload_names[o];
}
int gd_vram_attention_parse(const char *s)
{
    return parse_name(s, attention_names, COUNT(attention_names));
}
int gd_vram_method_parse(const char *s)
{
    return parse_name(s, method_names, COUNT(method_names));
}
int gd_vram_weights_parse(const char *s)
{
    return parse_name(s, weights_names, COUNT(weights_names));
}
int gd_vram_kv_parse(const char *s)
{
    return parse_name(s, kv_names, COUNT(kv_names));
}
int gd_vram_offload_parse(const char *s)
{
    return parse_name(s, offload_names, COUNT(offload_names));
}

unsigned gd_vram_lora_targets_parse(const char *s)
{
    if (!s)
        return 0;
    if (strcmp(s, "attention") == 0)
        return GD_LORA_ATTENTION;
    if (strcmp(s, "all") == 0)
        return GD_LORA_ALL;
    unsigned bits = 0;
    char buf[128];
    snprintf(buf, sizeof buf, "%s", s);
    for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        int i = parse_name(tok, lora_module_names, COUNT(lora_module_names));
        if (i < 0)
            return 0;
        bits |= 1u << i;
    }
    return bits;
}

void gd_vram_lora_targets_format(unsigned targets, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < COUNT(lora_module_names) && used < len; i++)
        if (targets & (1u << i))
            used += (size_t)snprintf(buf + used, len - used, "%s%s", used ? "," : "", lora_module_names[i]);
}

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
    /* Softmax output, its dropout mask and output: 5as^2b. Memory-efficient
     * attention (SDPA, FlashAttention) and selective recompute never keep them. */
    if (s->ckpt == GD_CKPT_NONE && s->attention == GD_ATTN_EAGER)
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

static bool full_shard(const gd_vram_setup *s)
{
    return s->sharding == GD_SHARD_ZERO3 || s->sharding == GD_SHARD_FSDP;
}

/* Embedding parameters (input, and output unless tied); 0 without a vocabulary. */
static double embedding_params(const gd_vram_model *m)
{
    return m->vocab > 0 && m->hidden > 0 ? (double)m->vocab * (double)m->hidden * (m->tied_embeddings ? 1 : 2) : 0;
}

/* The 16-bit embeddings stay as they are when the linear layers are
 * quantised (bitsandbytes, GPTQ, AWQ and vLLM's fp8 quantise nn.Linear). */
static double quantised_bytes(const gd_vram_model *m, double bytes_per_param)
{
    double embed = embedding_params(m);
    if (embed > m->params)
        embed = 0;
    return (m->params - embed) * bytes_per_param + embed * 2;
}

double gd_vram_adapter_params(const gd_vram_setup *s)
{
    const gd_vram_model *m = &s->model;
    if (s->method == GD_METHOD_FULL || m->layers <= 0 || m->hidden <= 0 || m->heads <= 0)
        return 0;
    unsigned t = s->lora_targets ? s->lora_targets : GD_LORA_ATTENTION;
    double h = (double)m->hidden, f = m->ffn > 0 ? (double)m->ffn : 4 * h;
    double kv = (double)(m->kv_heads > 0 ? m->kv_heads : m->heads) * h / (double)m->heads;
    /* d_in + d_out of q, k, v, o, gate, up, down; a plain MLP has no gate. */
    const double dims[] = {2 * h, h + kv, h + kv, 2 * h, m->gated_mlp ? h + f : 0, h + f, f + h};
    double per_layer = 0;
    for (size_t i = 0; i < sizeof dims / sizeof dims[0]; i++)
        if (t & (1u << i))
            per_layer += (double)s->lora_rank * dims[i];
    return (double)m->layers * per_layer;
}

double gd_vram_serving_weight_bytes(gd_vram_weights w)
{
    switch (w) {
    case GD_WEIGHTS_FP16: return 2;
    case GD_WEIGHTS_FP8:
    case GD_WEIGHTS_INT8: return 1;
    case GD_WEIGHTS_INT4: return (4 + 16.0 / 128) / 8;
    }
    return 2;
}

double gd_vram_kv_bytes_per_token(const gd_vram_setup *s)
{
    const gd_vram_model *m = &s->model;
    if (m->layers <= 0 || m->hidden <= 0 || m->heads <= 0)
        return -1;
    double kv = (double)(m->kv_heads > 0 ? m->kv_heads : m->heads);
    double head_dim = (double)m->hidden / (double)m->heads;
    double split = (double)s->tp < kv ? (double)s->tp : kv; /* fewer KV heads than GPUs: replicated */
    return (double)m->layers * 2 * kv * head_dim * (s->kv_cache == GD_KV_FP8 ? 1 : 2) / split;
}

/* Weights, gradients and optimizer states per GPU. Full training: every
 * parameter is trained. LoRA: the base is frozen in the training precision
 * (4 bytes under fp32, else 2), only the adapters have gradients and
 * optimizer states. QLoRA: the base in 4-bit NF4 with double quantisation,
 * adapters in bf16 with 32-bit optimizer states (the paper's paged AdamW). */
static void model_states(const gd_vram_setup *s, gd_vram_breakdown *out)
{
    const gd_vram_model *m = &s->model;
    gd_vram_per_param pp = gd_vram_bytes_per_param(s->precision, s->optimizer);
    double frozen = 0, trained = m->params;
    if (s->method != GD_METHOD_FULL) {
        trained = gd_vram_adapter_params(s);
        if (s->method == GD_METHOD_LORA) {
            frozen = m->params * (s->precision == GD_PREC_FP32 ? 4 : 2);
        } else {
            frozen = quantised_bytes(m, GD_QLORA_BITS_PER_PARAM / 8);
            pp = (gd_vram_per_param){2, 2, optimizer_state_bytes(s->optimizer, 4)};
        }
    }
    double t = (double)s->tp, nd = dp_degree(s);
    bool full = full_shard(s);
    out->weights = (frozen + trained * pp.weights) / t / (full ? nd : 1);
    out->gradients = trained * pp.gradients / t / (full || s->sharding == GD_SHARD_ZERO2 ? nd : 1);
    out->optimizer = trained * pp.optimizer / t / (s->sharding != GD_SHARD_NONE ? nd : 1);
    if (s->offload != GD_OFFLOAD_NONE) /* gradients stream to the CPU, the step runs there */
        out->gradients = out->optimizer = 0;
    if (s->offload == GD_OFFLOAD_ALL)
        out->weights = 0; /* fetched layer by layer: counted in the overhead */
}

/* Serving: one layer's live tensors during a prefill of seq tokens (its
 * input and output, the MLP's wide tensors), the eager attention scores of
 * one layer, and the last position's logits in fp32. */
static double serving_activation_bytes(const gd_vram_setup *s, double b)
{
    const gd_vram_model *m = &s->model;
    if (m->layers <= 0 || m->hidden <= 0 || m->heads <= 0)
        return -1;
    double sb = (double)s->seq * b, h = (double)m->hidden, f = m->ffn > 0 ? (double)m->ffn : 4 * h;
    double bytes = 2 * sb * (2 * h + (m->gated_mlp ? 2 : 1) * f) / (double)s->tp;
    if (s->attention == GD_ATTN_EAGER)
        bytes += 2 * (double)m->heads * (double)s->seq * sb / (double)s->tp;
    if (m->vocab > 0)
        bytes += 4 * b * (double)m->vocab / (double)s->tp;
    return bytes;
}

static double overhead_bytes(const gd_vram_setup *s, double activations, double unsharded_weights)
{
    double o = CONTEXT_BYTES + WORKSPACE_BYTES + (s->gpus > 1 ? NCCL_BYTES : 0);
    if (activations > 0)
        o += FRAGMENTATION_SHARE * activations;
    bool gathered = (full_shard(s) && dp_degree(s) > 1) || s->offload == GD_OFFLOAD_ALL;
    if (!s->inference && gathered && s->model.layers > 0) {
        /* The layer being computed and the one prefetched, gathered whole. */
        o += 2 * unsharded_weights / (double)s->model.layers;
    }
    return o;
}

static gd_vram_breakdown breakdown_at(const gd_vram_setup *s, double b)
{
    gd_vram_breakdown x = {0};
    double unsharded_weights; /* per tensor-parallel rank, before ZeRO-3 or offload */
    if (s->inference) {
        x.weights = quantised_bytes(&s->model, gd_vram_serving_weight_bytes(s->weights)) / (double)s->tp;
        double per_token = gd_vram_kv_bytes_per_token(s);
        x.kv_cache = per_token < 0 ? -1 : per_token * (double)s->seq * b;
        x.activations = serving_activation_bytes(s, b);
        unsharded_weights = x.weights;
    } else {
        model_states(s, &x);
        x.activations = gd_vram_activation_bytes(s, b);
        gd_vram_setup whole = *s;
        whole.sharding = GD_SHARD_NONE;
        whole.offload = GD_OFFLOAD_NONE;
        gd_vram_breakdown w = {0};
        model_states(&whole, &w);
        unsharded_weights = w.weights;
    }
    x.overhead = overhead_bytes(s, x.activations, unsharded_weights);
    x.total = x.weights + x.gradients + x.optimizer + x.overhead + (x.activations > 0 ? x.activations : 0) +
              (x.kv_cache > 0 ? x.kv_cache : 0);
    return x;
}

gd_vram_breakdown gd_vram_breakdown_of(const gd_vram_setup *s)
{
    return breakdown_at(s, (double)s->batch);
}

double gd_vram_budget(const gd_vram_setup *s)
{
    return s->gpu_memory_bytes / (1 + s->margin_pct / 100);
}

gd_vram_fit gd_vram_fit_of(const gd_vram_setup *s, const gd_vram_breakdown *b)
{
    if (!(s->gpu_memory_bytes > 0))
        return GD_FIT_UNKNOWN;
    if (b->total > gd_vram_budget(s))
        return GD_FIT_NO; /* what is counted is a lower bound: known not to fit */
    return b->activations < 0 || b->kv_cache < 0 ? GD_FIT_STATES : GD_FIT_YES;
}

long gd_vram_max_micro_batch(const gd_vram_setup *s)
{
    /* Every activation (and KV-cache) term is linear in the micro-batch. */
    if (!(s->gpu_memory_bytes > 0))
        return -1;
    double budget = gd_vram_budget(s);
    double t0 = breakdown_at(s, 0).total;
    if (t0 > budget)
        return 0; /* the model states alone do not fit: known without the shape */
    if (!has_shape(s))
        return -1;
    double t1 = breakdown_at(s, 1).total;
    double per_sample = t1 - t0;
    if (t1 > budget || per_sample <= 0)
        return 0;
    double b = floor((budget - t0) / per_sample);
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
        return fail(err, errlen,
                    "the parameter count is unknown: give --params (e.g. 7B), --config FILE, "
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
    if (s->gpu_memory_bytes < 0 || !isfinite(s->gpu_memory_bytes))
        return fail(err, errlen, "--gpu-memory must be a positive size (e.g. 80G)");
    if (!(s->margin_pct >= 0 && s->margin_pct <= 100))
        return fail(err, errlen, "--margin must be a percentage from 0 to 100");
    if (s->method != GD_METHOD_FULL && (m->layers <= 0 || m->hidden <= 0))
        return fail(err, errlen,
                    "--method lora/qlora counts adapters on each layer: give --config FILE, --layers and "
                    "--hidden, or --shape-from llama");
    if (s->method != GD_METHOD_FULL && s->lora_rank < 1)
        return fail(err, errlen, "--lora-rank must be at least 1");
    if (s->inference && s->method != GD_METHOD_FULL)
        return fail(err, errlen, "--method plans fine-tuning; --inference plans serving: give one of them");
    return 0;
}
