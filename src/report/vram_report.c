/* The training memory plan as JSON (docs/vram.md) and as an expert's answer. */
#include "vram_report.h"

#include "core/json_util.h"
#include "text_util.h"

#include <math.h>
#include <string.h>

#define GB 1e9

/* Bytes as a whole number: the JSON's unit. */
static json_t *bytes_json(double b)
{
    return b < 0 ? json_null() : gd_json_number(round(b));
}

static json_t *count_json(long v)
{
    return v > 0 ? json_integer(v) : json_null();
}

/* Shape fields: whole numbers, null when not known. */
static json_t *model_json(const gd_vram_setup *s)
{
    const gd_vram_model *m = &s->model;
    const struct { const char *key; long v; } counts[] = {
        {"layers", m->layers}, {"hidden", m->hidden}, {"heads", m->heads}, {"kv_heads", m->kv_heads},
        {"ffn", m->ffn},       {"vocab", m->vocab},   {"seq", s->seq},     {"batch", s->batch},
    };
    json_t *o = json_object();
    json_object_set_new(o, "params", gd_json_number(round(m->params)));
    json_object_set_new(o, "params_estimated", json_boolean(m->params_estimated));
    for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++)
        json_object_set_new(o, counts[i].key, count_json(counts[i].v));
    return o;
}

static json_t *breakdown_json(const gd_vram_breakdown *b)
{
    const struct { const char *key; double v; } parts[] = {
        {"weights", b->weights},         {"gradients", b->gradients}, {"optimizer", b->optimizer},
        {"activations", b->activations}, {"overhead", b->overhead},   {"total", b->total},
    };
    json_t *o = json_object();
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++)
        json_object_set_new(o, parts[i].key, bytes_json(parts[i].v));
    return o;
}

static json_t *suggestion_json(const gd_vram_suggestion *x)
{
    json_t *o = json_object();
    json_object_set_new(o, "change", json_string(x->change));
    json_object_set_new(o, "total_bytes", bytes_json(x->bytes.total));
    json_object_set_new(o, "fits", json_boolean(x->fits));
    json_object_set_new(o, "cost", json_string(x->cost));
    json_object_set_new(o, "speed_cost_pct", gd_json_number(x->speed_cost_pct));
    json_object_set_new(o, "bytes", breakdown_json(&x->bytes));
    json_object_set_new(o, "micro_batch", json_integer(x->setup.batch));
    json_object_set_new(o, "accumulation_steps", json_integer(x->setup.accum_steps));
    return o;
}

json_t *gd_vram_report_json(const gd_vram_plan *p)
{
    const gd_vram_setup *s = &p->setup;
    json_t *root = json_object();
    if (!root)
        return NULL;
    json_object_set_new(root, "model", model_json(s));
    json_object_set_new(root, "precision", json_string(gd_vram_precision_name(s->precision)));
    json_object_set_new(root, "optimizer", json_string(gd_vram_optimizer_name(s->optimizer)));
    json_object_set_new(root, "gpus", json_integer(s->gpus));
    json_object_set_new(root, "sharding", json_string(gd_vram_sharding_name(s->sharding)));
    json_object_set_new(root, "tp", json_integer(s->tp));
    json_object_set_new(root, "checkpointing", json_string(gd_vram_ckpt_name(s->ckpt)));
    json_object_set_new(root, "flash_attention", json_boolean(s->flash_attention));
    json_object_set_new(root, "accumulation_steps", json_integer(s->accum_steps));
    json_object_set_new(root, "bytes", breakdown_json(&p->bytes));
    json_object_set_new(root, "gpu_memory_bytes", bytes_json(s->gpu_memory_bytes));
    json_object_set_new(root, "fits", json_boolean(p->fits));
    json_object_set_new(root, "max_micro_batch", p->max_micro_batch < 0 ? json_null() : json_integer(p->max_micro_batch));
    json_t *sg = json_array();
    for (size_t i = 0; i < p->nsuggestions; i++)
        json_array_append_new(sg, suggestion_json(&p->suggestions[i]));
    json_object_set_new(root, "suggestions", sg);
    json_t *notes = json_array();
    for (size_t i = 0; i < p->nnotes; i++)
        json_array_append_new(notes, json_string(p->notes[i]));
    json_object_set_new(root, "notes", notes);
    return root;
}

static const char *precision_words(gd_vram_precision p)
{
    switch (p) {
    case GD_PREC_FP32: return "fp32";
    case GD_PREC_MIXED: return "mixed precision (16-bit compute, fp32 master weights)";
    case GD_PREC_BF16: return "pure bf16";
    }
    return "";
}

static void print_setup(FILE *out, const gd_vram_plan *p, const gd_text_style *st)
{
    const gd_vram_setup *s = &p->setup;
    const gd_vram_model *m = &s->model;
    fprintf(out, "%sTraining memory plan%s: %.2fB parameters%s", gd_c(st, GD_ANSI_BOLD), gd_c(st, GD_ANSI_RESET),
            m->params / 1e9, m->params_estimated ? " (estimated from the shape)" : "");
    if (m->layers > 0)
        fprintf(out, ", %ld layers, hidden %ld, %ld heads", m->layers, m->hidden, m->heads);
    fputc('\n', out);
    fprintf(out, "  seq %ld x micro-batch %ld", s->seq, s->batch);
    if (s->accum_steps > 1)
        fprintf(out, " x %ld accumulation steps", s->accum_steps);
    static const char *const optimizer_words[] = {"Adam", "AdamW", "SGD with momentum", "8-bit Adam"};
    fprintf(out, ", %s, %s\n", precision_words(s->precision), optimizer_words[s->optimizer]);
    fprintf(out, "  %ld GPU%s of %.1f GB, sharding %s", s->gpus, s->gpus == 1 ? "" : "s", s->gpu_memory_bytes / GB,
            gd_vram_sharding_name(s->sharding));
    if (s->tp > 1)
        fprintf(out, ", tensor parallel %ld", s->tp);
    fprintf(out, ", checkpointing %s%s\n\n", gd_vram_ckpt_name(s->ckpt), s->flash_attention ? ", FlashAttention" : "");
}

static void row(FILE *out, const char *name, const char *how, double bytes)
{
    if (bytes < 0)
        fprintf(out, "  %-12s %-44s %9s\n", name, how, "not known");
    else
        fprintf(out, "  %-12s %-44s %9.1f\n", name, how, bytes / GB);
}

static void print_breakdown(FILE *out, const gd_vram_plan *p, const gd_text_style *st)
{
    const gd_vram_setup *s = &p->setup;
    gd_vram_per_param pp = gd_vram_bytes_per_param(s->precision, s->optimizer);
    char how[64];
    fprintf(out, "%sMemory per GPU%s %54s\n", gd_c(st, GD_ANSI_BOLD), gd_c(st, GD_ANSI_RESET), "GB");
    long dp = s->gpus / s->tp;
    bool full = s->sharding == GD_SHARD_ZERO3 || s->sharding == GD_SHARD_FSDP;
    bool sharded[3] = {full, full || s->sharding == GD_SHARD_ZERO2, s->sharding != GD_SHARD_NONE};
    const double per[3] = {pp.weights, pp.gradients, pp.optimizer}, got[3] = {p->bytes.weights, p->bytes.gradients,
                                                                              p->bytes.optimizer};
    static const char *const names[3] = {"weights", "gradients", "optimizer"};
    for (int i = 0; i < 3; i++) {
        int len = snprintf(how, sizeof how, "%g B/param%s", per[i],
                           i == 2 && s->precision == GD_PREC_MIXED ? " (fp32 master + states)" : "");
        if (s->tp > 1 || (sharded[i] && dp > 1))
            snprintf(how + len, sizeof how - (size_t)len, " / %ld GPUs", (sharded[i] && dp > 1 ? dp : 1) * s->tp);
        row(out, names[i], how, got[i]);
    }
    static const char *const ckpt_words[] = {"no recompute", "selective recompute", "full checkpointing"};
    snprintf(how, sizeof how, "%s%s, micro-batch %ld", ckpt_words[s->ckpt], s->flash_attention ? ", FlashAttention" : "",
             s->batch);
    row(out, "activations", how, p->bytes.activations);
    row(out, "overhead", "CUDA context, workspaces, fragmentation", p->bytes.overhead);
    fprintf(out, "  %-12s %-44s %s%9.1f%s\n", "total", "", gd_c(st, GD_ANSI_BOLD), p->bytes.total / GB,
            gd_c(st, GD_ANSI_RESET));
    row(out, "GPU memory", "", s->gpu_memory_bytes);
    fputc('\n', out);
}

static void print_verdict(FILE *out, const gd_vram_plan *p, const gd_text_style *st)
{
    const gd_vram_setup *s = &p->setup;
    double states = p->bytes.weights + p->bytes.gradients + p->bytes.optimizer;
    gd_vram_setup none = *s; /* no sample: model states and fixed overhead */
    none.batch = 0;
    double fixed = gd_vram_breakdown_of(&none).total;
    if (p->fits)
        fprintf(out, "%sFits%s: %.1f GB of %.1f GB per GPU (%.0f%%).\n", gd_c(st, GD_ANSI_GREEN), gd_c(st, GD_ANSI_RESET),
                p->bytes.total / GB, s->gpu_memory_bytes / GB, 100 * p->bytes.total / s->gpu_memory_bytes);
    else
        fprintf(out, "%sDoes NOT fit%s: needs %.1f GB per GPU, the GPU has %.1f GB (%.1fx).\n", gd_c(st, GD_ANSI_RED),
                gd_c(st, GD_ANSI_RESET), p->bytes.total / GB, s->gpu_memory_bytes / GB,
                p->bytes.total / s->gpu_memory_bytes);
    if (p->max_micro_batch > 0)
        fprintf(out, "Largest micro-batch that fits: %ld%s.\n", p->max_micro_batch,
                p->max_micro_batch >= GD_VRAM_MAX_BATCH ? " or more" : "");
    else if (p->max_micro_batch == 0 && fixed > s->gpu_memory_bytes)
        fprintf(out, "No micro-batch fits: the model states alone need %.1f GB (%.1f GB with the CUDA context "
                     "and workspaces).\n", states / GB, fixed / GB);
    else if (p->max_micro_batch == 0)
        fprintf(out, "No micro-batch fits: one sequence of %ld tokens needs more than what is left.\n", s->seq);
}

static void print_suggestions(FILE *out, const gd_vram_plan *p, const gd_text_style *st)
{
    size_t shown = 0;
    for (size_t i = 0; i < p->nsuggestions; i++) {
        const gd_vram_suggestion *x = &p->suggestions[i];
        if (shown == 0 && x->fits)
            fprintf(out, "\n%sCheapest changes that make it fit%s, ranked:\n", gd_c(st, GD_ANSI_BOLD), gd_c(st, GD_ANSI_RESET));
        if (!x->fits && (i == 0 || p->suggestions[i - 1].fits))
            fprintf(out, "\n%sThese help, but do not fit on their own%s:\n", gd_c(st, GD_ANSI_BOLD), gd_c(st, GD_ANSI_RESET));
        char line[sizeof x->change + sizeof x->cost + 64];
        snprintf(line, sizeof line, "%s -> %.1f GB%s. Cost: %s.", x->change, x->bytes.total / GB, x->fits ? ", fits" : "",
                 x->cost);
        fprintf(out, "  %zu. ", ++shown);
        gd_wrap(out, st, 5, 5, line);
    }
    if (!p->fits && p->nsuggestions == 0)
        fprintf(out, "\nNo change modelled here makes it fit: this model needs more or larger GPUs, CPU offload\n"
                     "(ZeRO-Offload) or a parameter-efficient method (LoRA).\n");
}

void gd_vram_report_text(FILE *out, const gd_vram_plan *p, const gd_text_style *st)
{
    print_setup(out, p, st);
    print_breakdown(out, p, st);
    print_verdict(out, p, st);
    print_suggestions(out, p, st);
    if (p->nnotes)
        fputc('\n', out);
    for (size_t i = 0; i < p->nnotes; i++) {
        fprintf(out, "Note: ");
        gd_wrap(out, st, 6, 6, p->notes[i]);
    }
    fprintf(out, "\n%sGB = 10^9 bytes. Estimates within ~10-15%%: real frameworks add buffers; see docs/vram.md.%s\n",
            gd_c(st, GD_ANSI_DIM), gd_c(st, GD_ANSI_RESET));
}
