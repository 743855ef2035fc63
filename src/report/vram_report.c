/* SPDX-License-Identifier: Apache-2.0 */
/* The memory plan (training, fine-tuning, serving) as JSON (docs/vram.md) and as an expert's answer. */
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
    const struct {
        const char *key;
        long v;
    } counts[] = {
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
    const struct {
        const char *key;
        double v;
    } parts[] = {
        {"weights", b->weights},     {"gradients", b->gradients},
        {"optimizer", b->optimizer}, {"activations", b->activations},
        {"kv_cache", b->kv_cache},   {"overhead", b->overhead},
        {"total", b->total},
    };
    json_t *o = json_object();
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++)
        json_object_set_new(o, parts[i].key, bytes_json(parts[i].v));
    return o;
}

static const char *const fit_names[] = {"no", "yes", "states_fit", "unknown"};

/* true / false, or null when it cannot be said (activations not counted, no GPU size). */
static json_t *fits_json(gd_vram_fit f)
{
    return f == GD_FIT_YES ? json_true() : f == GD_FIT_NO ? json_false() : json_null();
}

static json_t *suggestion_json(const gd_vram_suggestion *x)
{
    json_t *o = json_object();
    json_object_set_new(o, "change", json_string(x->change));
    json_object_set_new(o, "total_bytes", bytes_json(x->bytes.total));
    json_object_set_new(o, "fits", fits_json(x->fit));
    json_object_set_new(o, "fit", json_string(fit_names[x->fit]));
    json_object_set_new(o, "cost", json_string(x->cost));
    json_object_set_new(o, "speed_cost_pct", gd_json_number(x->speed_cost_pct));
    json_object_set_new(o, "bytes", breakdown_json(&x->bytes));
    json_object_set_new(o, "micro_batch", json_integer(x->setup.batch));
    json_object_set_new(o, "accumulation_steps", json_integer(x->setup.accum_steps));
    return o;
}

static json_t *boards_json(const gd_vram_plan *p)
{
    json_t *a = json_array();
    for (size_t i = 0; i < p->nboards; i++) {
        const gd_vram_board_fit *b = &p->boards[i];
        json_t *o = json_object();
        json_object_set_new(o, "gpu", json_string(b->name));
        json_object_set_new(o, "label", json_string(b->label));
        json_object_set_new(o, "nominal_gb", json_integer(b->nominal_gb));
        json_object_set_new(o, "memory_bytes", bytes_json(b->memory_bytes));
        json_object_set_new(o, "fits", fits_json(b->fit));
        json_object_set_new(o, "fit", json_string(fit_names[b->fit]));
        json_object_set_new(o, "max_micro_batch",
                            b->max_micro_batch < 0 ? json_null() : json_integer(b->max_micro_batch));
        json_array_append_new(a, o);
    }
    return a;
}

/* Fine-tuning and serving keys: null where they do not apply. */
static void method_json(json_t *root, const gd_vram_plan *p)
{
    const gd_vram_setup *s = &p->setup;
    bool lora = s->method != GD_METHOD_FULL;
    json_object_set_new(root, "mode", json_string(s->inference ? "inference" : "training"));
    json_object_set_new(root, "method", s->inference ? json_null() : json_string(gd_vram_method_name(s->method)));
    json_object_set_new(root, "lora_rank", lora ? json_integer(s->lora_rank) : json_null());
    char targets[64];
    gd_vram_lora_targets_format(s->lora_targets ? s->lora_targets : GD_LORA_ATTENTION, targets, sizeof targets);
    json_object_set_new(root, "lora_targets", lora ? json_string(targets) : json_null());
    json_object_set_new(root, "adapter_params", lora ? gd_json_number(round(p->adapter_params)) : json_null());
    json_object_set_new(root, "weights", s->inference ? json_string(gd_vram_weights_name(s->weights)) : json_null());
    json_object_set_new(root, "kv_cache", s->inference ? json_string(gd_vram_kv_name(s->kv_cache)) : json_null());
    json_object_set_new(root, "offload", json_string(gd_vram_offload_name(s->offload)));
    json_object_set_new(root, "attention", json_string(gd_vram_attention_name(s->attention)));
    json_object_set_new(root, "margin_pct", gd_json_number(s->margin_pct));
}

json_t *gd_vram_report_json(const gd_vram_plan *p)
{
    const gd_vram_setup *s = &p->setup;
    json_t *root = json_object();
    if (!root)
        return NULL;
    json_object_set_new(root, "model", model_json(s));
    method_json(root, p);
    json_object_set_new(root, "precision", json_string(gd_vram_precision_name(s->precision)));
    json_object_set_new(root, "optimizer", json_string(gd_vram_optimizer_name(s->optimizer)));
    json_object_set_new(root, "gpus", json_integer(s->gpus));
    json_object_set_new(root, "sharding", json_string(gd_vram_sharding_name(s->sharding)));
    json_object_set_new(root, "tp", json_integer(s->tp));
    json_object_set_new(root, "checkpointing", json_string(gd_vram_ckpt_name(s->ckpt)));
    json_object_set_new(root, "flash_attention", json_boolean(s->attention != GD_ATTN_EAGER));
    json_object_set_new(root, "accumulation_steps", json_integer(s->accum_steps));
    json_object_set_new(root, "bytes", breakdown_json(&p->bytes));
    bool sized = s->gpu_memory_bytes > 0;
    json_object_set_new(root, "gpu_memory_bytes", sized ? bytes_json(s->gpu_memory_bytes) : json_null());
    json_object_set_new(root, "budget_bytes", sized ? bytes_json(gd_vram_budget(s)) : json_null());
    json_object_set_new(root, "fits", fits_json(p->fit));
    json_object_set_new(root, "fit", json_string(fit_names[p->fit]));
    json_object_set_new(root, "fits_on", boards_json(p));
    json_object_set_new(root, "max_micro_batch",
                        p->max_micro_batch < 0 ? json_null() : json_integer(p->max_micro_batch));
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

static const char *plan_title(const gd_vram_setup *s)
{
    if (s->inference)
        return "Serving memory plan";
    static const char *const titles[] = {"Training memory plan", "LoRA fine-tuning memory plan",
                                         "QLoRA fine-tuning memory plan"};
    return titles[s->method];
}

static void print_setup(FILE *out, const gd_vram_plan *p, const gd_text_style *st)
{
    const gd_vram_setup *s = &p->setup;
    const gd_vram_model *m = &s->model;
    char count[32]; /* 7.00B; a small count as it is (a bare "--params 7" read "0.00B") */
    if (m->params >= 1e8)
        snprintf(count, sizeof count, "%.2fB", m->params / 1e9);
    else if (m->params >= 1e6)
        snprintf(count, sizeof count, "%.1fM", m->params / 1e6);
    else
        snprintf(count, sizeof count, "%.0f", m->params);
    fprintf(out, "%s%s%s: %s parameters%s", gd_c(st, GD_ANSI_BOLD), plan_title(s), gd_c(st, GD_ANSI_RESET), count,
            m->params_estimated ? " (estimated from the shape)" : "");
    if (m->layers > 0)
        fprintf(out, ", %ld layers, hidden %ld, %ld heads", m->layers, m->hidden, m->heads);
    if (m->layers > 0 && m->kv_heads > 0 && m->kv_heads != m->heads)
        fprintf(out, " (%ld KV)", m->kv_heads);
    fputc('\n', out);
    if (s->inference) {
        fprintf(out, "  seq %ld x %ld sequence%s, %s weights, %s KV cache\n", s->seq, s->batch,
                s->batch == 1 ? "" : "s", gd_vram_weights_name(s->weights), gd_vram_kv_name(s->kv_cache));
    } else {
        fprintf(out, "  seq %ld x micro-batch %ld", s->seq, s->batch);
        if (s->accum_steps > 1)
            fprintf(out, " x %ld accumulation steps", s->accum_steps);
        static const char *const optimizer_words[] = {"Adam", "AdamW", "SGD with momentum", "8-bit Adam"};
        fprintf(out, ", %s, %s%s\n",
                s->method == GD_METHOD_QLORA ? "bf16 compute over a 4-bit base" : precision_words(s->precision),
                optimizer_words[s->optimizer], s->method == GD_METHOD_QLORA ? " (32-bit states)" : "");
    }
    if (s->gpu_memory_bytes > 0)
        /* GB (10^9) as plans and boards are quoted, beside the MiB that NVML, check and info report. */
        fprintf(out, "  %ld GPU%s of %.1f GB (%.0f MiB)", s->gpus, s->gpus == 1 ? "" : "s", s->gpu_memory_bytes / GB,
                s->gpu_memory_bytes / 1048576.0);
    else
        fprintf(out, "  %ld GPU%s, size not given", s->gpus, s->gpus == 1 ? "" : "s");
    if (!s->inference)
        fprintf(out, ", sharding %s", gd_vram_sharding_name(s->sharding));
    if (s->tp > 1)
        fprintf(out, ", tensor parallel %ld", s->tp);
    if (!s->inference)
        fprintf(out, ", checkpointing %s", gd_vram_ckpt_name(s->ckpt));
    if (s->offload != GD_OFFLOAD_NONE)
        fprintf(out, ", CPU offload (%s)", gd_vram_offload_name(s->offload));
    fprintf(out, ", attention %s\n\n", gd_vram_attention_name(s->attention));
}

static void row(FILE *out, const char *name, const char *how, double bytes)
{
    /* The figures in one column: a longer description takes its own line. */
    int n = fprintf(out, "  %-12s %s", name, how);
    if (n > 59) {
        fputc('\n', out);
        n = 0;
    }
    if (bytes < 0)
        fprintf(out, "%*s%9s\n", 60 - n, "", "not known");
    else
        fprintf(out, "%*s%9.1f\n", 60 - n, "", bytes / GB);
}

/* "/ 8 GPUs" after a per-parameter figure, when split. */
static void split_suffix(char *how, size_t len, long by)
{
    size_t used = strlen(how);
    if (by > 1)
        snprintf(how + used, len - used, " / %ld GPUs", by);
}

static void print_state_rows(FILE *out, const gd_vram_plan *p)
{
    const gd_vram_setup *s = &p->setup;
    gd_vram_per_param pp = gd_vram_bytes_per_param(s->precision, s->optimizer);
    long dp = s->gpus / s->tp;
    bool full = s->sharding == GD_SHARD_ZERO3 || s->sharding == GD_SHARD_FSDP;
    bool sharded[3] = {full, full || s->sharding == GD_SHARD_ZERO2, s->sharding != GD_SHARD_NONE};
    const double per[3] = {pp.weights, pp.gradients, pp.optimizer},
                 got[3] = {p->bytes.weights, p->bytes.gradients, p->bytes.optimizer};
    static const char *const names[3] = {"weights", "gradients", "optimizer"};
    char how[64];
    for (int i = 0; i < 3; i++) {
        if (s->method == GD_METHOD_FULL)
            snprintf(how, sizeof how, "%g B/param%s", per[i],
                     i == 2 && s->precision == GD_PREC_MIXED ? " (fp32 master + states)" : "");
        else if (i == 0)
            snprintf(how, sizeof how, "%s base + adapters",
                     s->method == GD_METHOD_QLORA   ? "4.127-bit NF4"
                     : s->precision == GD_PREC_FP32 ? "fp32"
                                                    : "bf16");
        else
            snprintf(how, sizeof how, "adapters only (%.1fM)", p->adapter_params / 1e6);
        if (s->offload != GD_OFFLOAD_NONE && (i > 0 || s->offload == GD_OFFLOAD_ALL))
            snprintf(how, sizeof how, "in CPU memory (offloaded)");
        else
            split_suffix(how, sizeof how, (sharded[i] && dp > 1 ? dp : 1) * s->tp);
        row(out, names[i], how, got[i]);
    }
    static const char *const ckpt_words[] = {"no recompute", "selective recompute", "full checkpoints"};
    snprintf(how, sizeof how, "%s, %s, micro-batch %ld", ckpt_words[s->ckpt], gd_vram_attention_name(s->attention),
             s->batch);
    row(out, "activations", how, p->bytes.activations);
}

static void print_serving_rows(FILE *out, const gd_vram_plan *p)
{
    const gd_vram_setup *s = &p->setup;
    char how[64];
    snprintf(how, sizeof how, "%g B/param (%s; embeddings 16-bit)", gd_vram_serving_weight_bytes(s->weights),
             gd_vram_weights_name(s->weights));
    split_suffix(how, sizeof how, s->tp);
    row(out, "weights", how, p->bytes.weights);
    double per_token = gd_vram_kv_bytes_per_token(s);
    if (per_token > 0)
        snprintf(how, sizeof how, "%.0f KiB/token x %ld tokens x %ld", per_token / 1024, s->seq, s->batch);
    else
        snprintf(how, sizeof how, "needs the shape");
    row(out, "KV cache", how, p->bytes.kv_cache);
    snprintf(how, sizeof how, "prefill working set, %s attention", gd_vram_attention_name(s->attention));
    row(out, "activations", how, p->bytes.activations);
}

static void print_breakdown(FILE *out, const gd_vram_plan *p, const gd_text_style *st)
{
    const gd_vram_setup *s = &p->setup;
    fprintf(out, "%sMemory per GPU%s %54s\n", gd_c(st, GD_ANSI_BOLD), gd_c(st, GD_ANSI_RESET), "GB");
    if (s->inference)
        print_serving_rows(out, p);
    else
        print_state_rows(out, p);
    row(out, "overhead", "CUDA context, workspaces, fragmentation", p->bytes.overhead);
    fprintf(out, "  %-12s %-44s %s%9.1f%s\n", "total", p->bytes.activations < 0 ? "(lower bound: not all counted)" : "",
            gd_c(st, GD_ANSI_BOLD), p->bytes.total / GB, gd_c(st, GD_ANSI_RESET));
    if (s->gpu_memory_bytes > 0) {
        row(out, "GPU memory", "", s->gpu_memory_bytes);
        char how[64];
        snprintf(how, sizeof how, "GPU memory / (1 + %g%% margin)", s->margin_pct);
        row(out, "budget", how, gd_vram_budget(s));
    }
    fputc('\n', out);
}

static void print_verdict(FILE *out, const gd_vram_plan *p, const gd_text_style *st)
{
    const gd_vram_setup *s = &p->setup;
    double states = p->bytes.weights + p->bytes.gradients + p->bytes.optimizer;
    gd_vram_setup none = *s; /* no sample: model states and fixed overhead */
    none.batch = 0;
    double fixed = gd_vram_breakdown_of(&none).total;
    double mem = s->gpu_memory_bytes;
    switch (p->fit) {
    case GD_FIT_YES:
        fprintf(out, "%sFits%s with a %g%% margin: %.1f GB of %.1f GB per GPU (%.0f%%).\n", gd_c(st, GD_ANSI_GREEN),
                gd_c(st, GD_ANSI_RESET), s->margin_pct, p->bytes.total / GB, mem / GB, 100 * p->bytes.total / mem);
        break;
    case GD_FIT_NO:
        fprintf(out,
                "%sDoes not fit%s with a %g%% margin: needs %.1f GB per GPU (%.1f GB with the margin), the GPU "
                "has %.1f GB (%.0f MiB).\n",
                gd_c(st, GD_ANSI_RED), gd_c(st, GD_ANSI_RESET), s->margin_pct, p->bytes.total / GB,
                p->bytes.total * (1 + s->margin_pct / 100) / GB, mem / GB, mem / 1048576.0);
        break;
    case GD_FIT_STATES:
        fprintf(out, "%sStates fit; %s not counted%s: %.1f GB of %.1f GB per GPU is a lower bound, not a yes.\n",
                gd_c(st, GD_ANSI_YELLOW), s->inference ? "KV cache and activations" : "activations",
                gd_c(st, GD_ANSI_RESET), p->bytes.total / GB, mem / GB);
        break;
    case GD_FIT_UNKNOWN:
        fprintf(out, "No GPU size given (--gpu NAME or --gpu-memory SIZE): %.1f GB per GPU%s.\n", p->bytes.total / GB,
                p->bytes.activations < 0 ? " counted so far" : "");
        return;
    }
    const char *what = s->inference ? "sequences of that length at once" : "micro-batch that fits";
    if (p->max_micro_batch > 0)
        fprintf(out, "%s %s: %ld%s.\n", s->inference ? "Most" : "Largest", what, p->max_micro_batch,
                p->max_micro_batch >= GD_VRAM_MAX_BATCH ? " or more" : "");
    else if (p->max_micro_batch == 0 && fixed > gd_vram_budget(s))
        fprintf(out, "No %s: the %s alone need %.1f GB (%.1f GB with the CUDA context and workspaces).\n",
                s->inference ? "sequence fits" : "micro-batch fits", s->inference ? "weights" : "model states",
                (s->inference ? p->bytes.weights : states) / GB, fixed / GB);
    else if (p->max_micro_batch == 0)
        fprintf(out, "No %s: one sequence of %ld tokens needs more than what is left.\n",
                s->inference ? "sequence fits" : "micro-batch fits", s->seq);
}

static const char *board_fit_words(const gd_vram_board_fit *b)
{
    switch (b->fit) {
    case GD_FIT_YES: return "fits";
    case GD_FIT_NO: return "does not fit";
    case GD_FIT_STATES: return "states fit, activations not counted";
    case GD_FIT_UNKNOWN: break;
    }
    return "";
}

static void print_fits_on(FILE *out, const gd_vram_plan *p, const gd_text_style *st)
{
    const gd_vram_setup *s = &p->setup;
    fprintf(out, "\n%sFits on%s (%ld GPU%s each, the memory NVML reports, %g%% margin):\n", gd_c(st, GD_ANSI_BOLD),
            gd_c(st, GD_ANSI_RESET), s->gpus, s->gpus == 1 ? "" : "s", s->margin_pct);
    /* The class is the board's name; the memory is what NVML reports of it. */
    fprintf(out, "%s  %7s  %-38s %9s  %s%s\n", gd_c(st, GD_ANSI_DIM), "class", "board", "memory", "verdict",
            gd_c(st, GD_ANSI_RESET));
    for (size_t i = 0; i < p->nboards; i++) {
        const gd_vram_board_fit *b = &p->boards[i];
        fprintf(out, "  %4d GB  %-38s %6.1f GB  %s", b->nominal_gb, b->label, b->memory_bytes / GB, board_fit_words(b));
        if (b->max_micro_batch > 0)
            fprintf(out, ", %s %ld%s", s->inference ? "sequences" : "micro-batch up to", b->max_micro_batch,
                    b->max_micro_batch >= GD_VRAM_MAX_BATCH ? "+" : "");
        fputc('\n', out);
    }
}

static void print_suggestions(FILE *out, const gd_vram_plan *p, const gd_text_style *st)
{
    size_t shown = 0;
    for (size_t i = 0; i < p->nsuggestions; i++) {
        const gd_vram_suggestion *x = &p->suggestions[i];
        bool ok = x->fit != GD_FIT_NO, prev_ok = i > 0 && p->suggestions[i - 1].fit != GD_FIT_NO;
        if (shown == 0 && ok)
            fprintf(out, "\n%sCheapest changes that make it fit%s, ranked:\n", gd_c(st, GD_ANSI_BOLD),
                    gd_c(st, GD_ANSI_RESET));
        if (!ok && (i == 0 || prev_ok))
            fprintf(out, "\n%sThese help, but do not fit on their own%s:\n", gd_c(st, GD_ANSI_BOLD),
                    gd_c(st, GD_ANSI_RESET));
        char line[sizeof x->change + sizeof x->cost + 96];
        snprintf(line, sizeof line, "%s -> %.1f GB%s. Cost: %s.", x->change, x->bytes.total / GB,
                 x->fit == GD_FIT_YES ? ", fits"
                 : ok                 ? ", states fit (activations not counted)"
                                      : "",
                 x->cost);
        fprintf(out, "  %zu. ", ++shown);
        gd_wrap(out, st, 5, 5, line);
    }
    if (p->fit == GD_FIT_NO && p->nsuggestions == 0)
        fprintf(out, "\nNo change modelled here makes it fit: this model needs more or larger GPUs%s.\n",
                p->setup.inference ? " or a smaller model"
                                   : ", or a parameter-efficient method (--method lora or qlora)");
}

static void vram_text(FILE *out, const gd_vram_plan *p, const gd_text_style *st);

void gd_vram_report_text(FILE *out, const gd_vram_plan *p, const gd_text_style *st)
{
    gd_wrapped w; /* every line wrapped to the width */
    vram_text(gd_wrapped_open(&w, out), p, st);
    gd_wrapped_close(&w, st);
}

static void vram_text(FILE *out, const gd_vram_plan *p, const gd_text_style *st)
{
    print_setup(out, p, st);
    print_breakdown(out, p, st);
    print_verdict(out, p, st);
    if (p->fit == GD_FIT_UNKNOWN)
        print_fits_on(out, p, st);
    print_suggestions(out, p, st);
    if (p->nnotes)
        fputc('\n', out);
    for (size_t i = 0; i < p->nnotes; i++) {
        fprintf(out, "Note: ");
        gd_wrap(out, st, 6, 6, p->notes[i]);
    }
    fprintf(out,
            "\n%sGB = 10^9 bytes. Estimates within ~10-15%%, hence the margin: real frameworks add buffers; "
            "see docs/vram.md.%s\n",
            gd_c(st, GD_ANSI_DIM), gd_c(st, GD_ANSI_RESET));
}
