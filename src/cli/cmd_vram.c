/* SPDX-License-Identifier: Apache-2.0 */
/* gpudoctor vram: the memory a training, fine-tuning or serving run needs per GPU, and whether it fits. */
#include "analysis/vram_model.h"
#include "analysis/vram_plan.h"
#include "sources/collect.h"
#include "cli.h"
#include "core/data_tables.h"
#include "core/numparse.h"
#include "report/vram_report.h"

#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char gd_vram_help[] = "usage: gpudoctor vram (--params N | --config FILE | --layers N --hidden N)\n"
                            "                      [OPTIONS] [--json]\n"
                            "\n"
                            "How much memory training, fine-tuning (LoRA, QLoRA) or serving needs on each\n"
                            "GPU: weights, gradients, optimizer states, activations, KV cache, overhead;\n"
                            "whether it fits with a safety margin, the largest micro-batch that fits, the\n"
                            "cheapest changes that make it fit. Without a GPU size it plans anyway and\n"
                            "shows on which common boards (24 to 192 GB) it fits.\n"
                            "\n"
                            "Model:\n"
                            "  --params N        parameters: 7B, 350M, 7.5e9 (else estimated from the shape)\n"
                            "  --config FILE     a Hugging Face config.json (hidden_size, layers, heads ...)\n"
                            "  --layers N --hidden N --heads N --kv-heads N --ffn N --vocab N\n"
                            "                    the shape, for activations (override the config's values)\n"
                            "  --shape-from llama  with --params alone: take the shape of the Llama model\n"
                            "                    nearest in size (never done unless asked)\n"
                            "Training:\n"
                            "  --seq N           sequence length (default 2048, not the config's context)\n"
                            "  --batch N         micro-batch per GPU (default 1); serving: sequences at once\n"
                            "  --accumulation N  gradient accumulation steps (default 1)\n"
                            "  --precision P     fp32 | mixed (default) | bf16 (pure: no fp32 master copy)\n"
                            "  --optimizer O     adam (default) | adamw | sgd | adam8bit\n"
                            "  --checkpointing C none (default) | selective | full\n"
                            "  --attention A     sdpa (default: memory-efficient, no s x s scores kept) |\n"
                            "                    flash | eager (keeps the scores)\n"
                            "  --flash-attention the same as --attention flash\n"
                            "  --offload O       none (default) | optimizer (ZeRO-Offload: the optimizer states) | all "
                            "(the weights too: FSDP CPU offload)\n"
                            "Fine-tuning:\n"
                            "  --method M        full (default) | lora | qlora (NF4 base, bf16 adapters)\n"
                            "  --lora-rank R     adapter rank (default 8)\n"
                            "  --lora-targets T  q,k,v,o (default: the attention projections) | all | a list\n"
                            "                    of the projections q,k,v,o,gate,up,down\n"
                            "Serving:\n"
                            "  --inference       weights + KV cache (+ prefill work space), no training state\n"
                            "  --weights W       fp16 (default) | fp8 | int8 | int4\n"
                            "  --kv-cache K      fp16 (default) | fp8\n"
                            "GPUs:\n"
                            "  --gpus N          GPUs in all (default: this machine's, else 1)\n"
                            "  --gpu NAME        a board by name: 4090, 5090, a100-40g, a100, l40s, a6000,\n"
                            "                    h100, h100-nvl, h200, b200, ... (the memory NVML reports)\n"
                            "  --gpu-memory SIZE memory per GPU: 80G, 40GiB, 24576M (default: this machine's)\n"
                            "  --margin PCT      fits only when the estimate plus PCT % fits (default 10)\n"
                            "  --sharding S      none (default) | zero1 | zero2 | zero3 | fsdp\n"
                            "  --tp N            tensor-parallel degree (default 1)\n"
                            "  --sim SCENARIO    take the GPUs from a simulated machine (examples/*.json)\n"
                            "  --json            the plan as JSON, bytes per GPU (docs/vram.md)\n"
                            "\n"
                            "Examples:\n"
                            "  gpudoctor vram --params 7B --shape-from llama      # no GPU: the fits-on table\n"
                            "  gpudoctor vram --config config.json --method qlora --lora-targets all \\\n"
                            "      --gpu 4090\n"
                            "  gpudoctor vram --params 70B --shape-from llama --inference --seq 4096 \\\n"
                            "      --gpus 2 --tp 2 --gpu h100\n";

typedef struct vram_opts {
    gd_vram_setup setup;
    gd_vram_model_opts model;
    const char *sim, *gpu_name;
    const char *params_bare; /* --params as a bare count below a million: a unit forgotten? */
    bool gpus_given, memory_given, lora_given, serving_given;
    int json;
} vram_opts;

/* A whole number in [lo, hi] for option `name` into *out; 0 or exit code 3. */
static int whole(const char *name, const char *arg, long lo, long hi, long *out)
{
    if (gd_cli_integer(arg, lo, hi, out) != 0)
        return gd_cli_error("%s wants a whole number from %ld to %ld, not '%s'", name, lo, hi, arg);
    return 0;
}

static int bad_choice(const char *name, const char *arg, const char *allowed)
{
    return gd_cli_error("%s: unknown value '%s' (one of %s)", name, arg, allowed);
}

enum {
    O_PARAMS = 256,
    O_LAYERS,
    O_HIDDEN,
    O_HEADS,
    O_KV,
    O_FFN,
    O_VOCAB,
    O_SEQ,
    O_BATCH,
    O_ACCUM,
    O_PREC,
    O_OPT,
    O_CKPT,
    O_FLASH,
    O_GPUS,
    O_MEM,
    O_SHARD,
    O_TP,
    O_CONFIG,
    O_SIM,
    O_JSON,
    O_GPU,
    O_ATTN,
    O_METHOD,
    O_RANK,
    O_TARGETS,
    O_INFER,
    O_WEIGHTS,
    O_KV_CACHE,
    O_MARGIN,
    O_SHAPE_FROM,
    O_OFFLOAD,
};

/* One choice of a named list into *out; 0 or exit code 3. */
static int choice(const char *name, const char *arg, int (*parse_fn)(const char *), const char *allowed, int *out)
{
    int v = parse_fn(arg);
    if (v < 0)
        return bad_choice(name, arg, allowed);
    *out = v;
    return 0;
}

static int margin(const char *arg, double *out)
{
    double v;
    if (gd_parse_percent(arg, &v) != 0 || !(v >= 0 && v <= 100))
        return gd_cli_error("--margin wants a percentage from 0 to 100 like 10, not '%s'", arg);
    *out = v;
    return 0;
}

/* --params: a count of at least 1 (at most 1e15: no model is near it). */
static int params(const char *arg, double *out)
{
    double v;
    if (gd_parse_count(arg, &v) != 0 || v < 1 || v > 1e15)
        return gd_cli_error("--params wants a positive count like 7B, 350M or 7.5e9, not '%s'", arg);
    *out = v;
    return 0;
}

/* --gpu-memory: from 1 MiB (a bare small number is a forgotten unit, not a
 * few bytes) to 1e15 bytes. */
static int gpu_memory(const char *arg, double *out)
{
    double v;
    if (gd_parse_size(arg, &v) != 0 || v < 1048576.0 || v > 1e15)
        return gd_cli_error("--gpu-memory wants a size with its unit like 80G, 40GiB or 24576M, not '%s'", arg);
    *out = v;
    return 0;
}

static int option(int c, const char *arg, vram_opts *o)
{
    gd_vram_setup *s = &o->setup;
    gd_vram_model *m = &o->model.shape;
    int v = 0;
    switch (c) {
    case O_PARAMS:
        /* "7" plans 7 parameters: said, since the user most likely meant 7B. */
        o->params_bare = arg[strspn(arg, "0123456789.")] == '\0' && atof(arg) < 1e6 ? arg : NULL;
        return params(arg, &s->model.params);
    case O_LAYERS: return whole("--layers", arg, 1, 100000, &m->layers);
    case O_HIDDEN: return whole("--hidden", arg, 1, 1L << 20, &m->hidden);
    case O_HEADS: return whole("--heads", arg, 1, 1L << 16, &m->heads);
    case O_KV: return whole("--kv-heads", arg, 1, 1L << 16, &m->kv_heads);
    case O_FFN: return whole("--ffn", arg, 1, 1L << 24, &m->ffn);
    case O_VOCAB: return whole("--vocab", arg, 1, 1L << 27, &m->vocab);
    case O_SEQ: o->model.seq_given = true; return whole("--seq", arg, 1, 1L << 24, &s->seq);
    case O_BATCH: return whole("--batch", arg, 1, 1L << 20, &s->batch);
    case O_ACCUM: return whole("--accumulation", arg, 1, 1L << 20, &s->accum_steps);
    case O_GPUS: o->gpus_given = true; return whole("--gpus", arg, 1, 1L << 20, &s->gpus);
    case O_TP: return whole("--tp", arg, 1, 1024, &s->tp);
    case O_PREC:
        if (choice("--precision", arg, gd_vram_precision_parse, "fp32, mixed, bf16", &v) != 0)
            return GD_EXIT_ERROR;
        s->precision = (gd_vram_precision)v;
        return 0;
    case O_OPT:
        if (choice("--optimizer", arg, gd_vram_optimizer_parse, "adam, adamw, sgd, adam8bit", &v) != 0)
            return GD_EXIT_ERROR;
        s->optimizer = (gd_vram_optimizer)v;
        return 0;
    case O_CKPT:
        if (choice("--checkpointing", arg, gd_vram_ckpt_parse, "none, selective, full", &v) != 0)
            return GD_EXIT_ERROR;
        s->ckpt = (gd_vram_ckpt)v;
        return 0;
    case O_SHARD:
        if (choice("--sharding", arg, gd_vram_sharding_parse, "none, zero1, zero2, zero3, fsdp", &v) != 0)
            return GD_EXIT_ERROR;
        s->sharding = (gd_vram_sharding)v;
        return 0;
    case O_ATTN:
        o->model.attention_given = true;
        if (choice("--attention", arg, gd_vram_attention_parse, "eager, sdpa, flash", &v) != 0)
            return GD_EXIT_ERROR;
        s->attention = (gd_vram_attention)v;
        return 0;
    case O_METHOD:
        if (choice("--method", arg, gd_vram_method_parse, "full, lora, qlora", &v) != 0)
            return GD_EXIT_ERROR;
        s->method = (gd_vram_method)v;
        return 0;
    case O_OFFLOAD:
        if (choice("--offload", arg, gd_vram_offload_parse, "none, optimizer, all", &v) != 0)
            return GD_EXIT_ERROR;
        s->offload = (gd_vram_offload)v;
        return 0;
    case O_WEIGHTS:
        o->serving_given = true;
        if (choice("--weights", arg, gd_vram_weights_parse, "fp16, fp8, int8, int4", &v) != 0)
            return GD_EXIT_ERROR;
        s->weights = (gd_vram_weights)v;
        return 0;
    case O_KV_CACHE:
        o->serving_given = true;
        if (choice("--kv-cache", arg, gd_vram_kv_parse, "fp16, fp8", &v) != 0)
            return GD_EXIT_ERROR;
        s->kv_cache = (gd_vram_kv)v;
        return 0;
    case O_RANK: o->lora_given = true; return whole("--lora-rank", arg, 1, 65536, &s->lora_rank);
    case O_TARGETS:
        o->lora_given = true;
        if ((s->lora_targets = gd_vram_lora_targets_parse(arg)) == 0)
            return bad_choice("--lora-targets", arg, "attention, all, or a comma list of q, k, v, o, gate, up, down");
        return 0;
    case O_INFER: s->inference = true; return 0;
    case O_MARGIN: return margin(arg, &s->margin_pct);
    case O_GPU: o->gpu_name = arg; return 0;
    case O_SHAPE_FROM:
        if (strcmp(arg, "llama") != 0)
            return bad_choice("--shape-from", arg, "llama");
        o->model.shape_from_llama = true;
        return 0;
    case O_FLASH:
        o->model.attention_given = true;
        s->attention = GD_ATTN_FLASH;
        return 0;
    case O_MEM: o->memory_given = true; return gpu_memory(arg, &s->gpu_memory_bytes);
    case O_CONFIG: o->model.config = arg; return 0;
    case O_SIM: o->sim = gd_cli_scenario(arg); return 0;
    case O_JSON: o->json = 1; return 0;
    default: return GD_EXIT_ERROR;
    }
}

const struct option gd_vram_options[] = {
    {"params", required_argument, NULL, O_PARAMS},
    {"layers", required_argument, NULL, O_LAYERS},
    {"hidden", required_argument, NULL, O_HIDDEN},
    {"heads", required_argument, NULL, O_HEADS},
    {"kv-heads", required_argument, NULL, O_KV},
    {"ffn", required_argument, NULL, O_FFN},
    {"vocab", required_argument, NULL, O_VOCAB},
    {"seq", required_argument, NULL, O_SEQ},
    {"batch", required_argument, NULL, O_BATCH},
    {"accumulation", required_argument, NULL, O_ACCUM},
    {"precision", required_argument, NULL, O_PREC},
    {"optimizer", required_argument, NULL, O_OPT},
    {"checkpointing", required_argument, NULL, O_CKPT},
    {"flash-attention", no_argument, NULL, O_FLASH},
    {"gpus", required_argument, NULL, O_GPUS},
    {"gpu-memory", required_argument, NULL, O_MEM},
    {"sharding", required_argument, NULL, O_SHARD},
    {"tp", required_argument, NULL, O_TP},
    {"config", required_argument, NULL, O_CONFIG},
    {"sim", required_argument, NULL, O_SIM},
    {"json", no_argument, NULL, O_JSON},
    {"gpu", required_argument, NULL, O_GPU},
    {"attention", required_argument, NULL, O_ATTN},
    {"method", required_argument, NULL, O_METHOD},
    {"lora-rank", required_argument, NULL, O_RANK},
    {"lora-targets", required_argument, NULL, O_TARGETS},
    {"inference", no_argument, NULL, O_INFER},
    {"weights", required_argument, NULL, O_WEIGHTS},
    {"kv-cache", required_argument, NULL, O_KV_CACHE},
    {"margin", required_argument, NULL, O_MARGIN},
    {"shape-from", required_argument, NULL, O_SHAPE_FROM},
    {"offload", required_argument, NULL, O_OFFLOAD},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

static int parse(int argc, char **argv, vram_opts *o)
{
    *o = (vram_opts){.setup = {.model = {.params = -1},
                               .batch = 1,
                               .precision = GD_PREC_MIXED,
                               .gpus = 1,
                               .tp = 1,
                               .accum_steps = 1,
                               .attention = GD_ATTN_SDPA,
                               .lora_rank = 8,
                               .margin_pct = 10}};
    optind = 1;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, "+:h", gd_vram_options, NULL)) != -1) {
        if (c == 'h') {
            gd_cli_help_print(stdout, gd_vram_help);
            return -1;
        }
        if (c == ':')
            return gd_cli_error("%s needs a value (see 'gpudoctor vram --help')", argv[optind - 1]);
        if (c == '?')
            return gd_cli_error("unknown option '%s' (see 'gpudoctor vram --help')", argv[optind - 1]);
        if (option(c, optarg, o) != 0)
            return GD_EXIT_ERROR;
    }
    if (optind < argc)
        return gd_cli_error("unexpected argument '%s' (see 'gpudoctor vram --help')", argv[optind]);
    if (o->lora_given && o->setup.method == GD_METHOD_FULL)
        return gd_cli_error("--lora-rank and --lora-targets need --method lora or qlora");
    if (o->serving_given && !o->setup.inference)
        return gd_cli_error("--weights and --kv-cache need --inference (they describe serving)");
    if (o->gpu_name && o->memory_given)
        return gd_cli_error("--gpu and --gpu-memory both give the GPU size: give one");
    if (o->model.shape_from_llama && !(o->setup.model.params > 0))
        return gd_cli_error("--shape-from llama matches a shape to --params: give --params too");
    return 0;
}

/* --gpu NAME: the memory NVML reports on that board. */
static int gpu_by_name(vram_opts *o)
{
    gd_gpu_board b;
    if (gd_gpu_board_find(o->gpu_name, &b)) {
        o->setup.gpu_memory_bytes = b.mib * 1048576.0;
        return 0;
    }
    char known[512] = "";
    size_t used = 0;
    for (size_t i = 0; gd_gpu_board_at(i, &b) && used < sizeof known; i++)
        used += (size_t)snprintf(known + used, sizeof known - used, "%s%s", used ? ", " : "", b.name);
    return gd_cli_error("--gpu: unknown GPU '%s' (known: %s; or give --gpu-memory SIZE)", o->gpu_name, known);
}

static void no_gpu_note(gd_vram_plan *plan, const char *why)
{
    gd_vram_plan_note(plan,
                      "no GPU size given and none read here (%s): planned per GPU, with the \"fits on\" table "
                      "of common boards; --gpu NAME or --gpu-memory SIZE judges one",
                      why);
}

/* The GPUs of this machine (or of --sim): the smallest memory, their count,
 * and what they already hold. */
static int machine_gpus(vram_opts *o, gd_vram_plan *plan)
{
    gd_ctx ctx;
    int crc = gd_cli_context(&ctx);
    if (crc != 0)
        return crc;
    gd_collect_opts co = {.ctx = &ctx, .sim_scenario = o->sim, .duration_s = 0, .interval_s = 1, .pid = -1};
    gd_facts f;
    char err[1024];
    if (gd_collect(&co, &f, err, sizeof err) != 0) {
        gd_facts_free(&f);
        if (o->sim)
            return gd_cli_error("%s", err);
        no_gpu_note(plan, err);
        return 0;
    }
    double min_mib = INFINITY, used_max = 0;
    int busiest = -1;
    for (size_t g = 0; g < f.gpu_count; g++) {
        if (gd_ok(f.gpus[g].mem_total_mib) && f.gpus[g].mem_total_mib.v < min_mib)
            min_mib = f.gpus[g].mem_total_mib.v;
        gd_value used = f.series.n ? gd_series_at(&f.series, 0, g, GD_M_MEM_USED_MIB) : gd_missing(GD_ST_UNREAD);
        if (gd_ok(used) && used.v > used_max) {
            used_max = used.v;
            busiest = f.gpus[g].index;
        }
    }
    size_t count = f.gpu_count;
    bool loaded = f.driver_loaded;
    char why[512];
    snprintf(why, sizeof why, "%s", f.driver_error);
    gd_facts_free(&f);
    if (!loaded || count == 0 || !isfinite(min_mib)) {
        if (o->sim)
            return gd_cli_error("--sim %s: no GPU memory size in the scenario", o->sim);
        no_gpu_note(plan, !loaded ? why : count == 0 ? "no GPU found" : "the driver does not report GPU memory");
        return 0;
    }
    o->setup.gpu_memory_bytes = min_mib * 1048576.0;
    if (!o->gpus_given)
        o->setup.gpus = (long)count;
    if (used_max >= 1024)
        gd_vram_plan_note(plan, "the plan assumes empty GPUs, but GPU %d already holds %.1f GB", busiest,
                          used_max * 1048576.0 / 1e9);
    return 0;
}

int gd_cmd_vram(int argc, char **argv)
{
    vram_opts o;
    int rc = parse(argc, argv, &o);
    if (rc != 0)
        return rc < 0 ? GD_EXIT_OK : rc;
    gd_vram_plan *plan = calloc(1, sizeof *plan); /* ~20 KiB of suggestions: off the stack */
    if (!plan)
        return gd_cli_error("out of memory");
    char err[512];
    int code = GD_EXIT_OK;
    if (gd_vram_model_build(&o.model, &o.setup, plan, err, sizeof err) != 0)
        code = gd_cli_error("%s", err);
    else if ((o.gpu_name && gpu_by_name(&o) != 0) || (!o.memory_given && !o.gpu_name && machine_gpus(&o, plan) != 0))
        code = GD_EXIT_ERROR;
    else if (gd_vram_setup_validate(&o.setup, err, sizeof err) != 0)
        code = gd_cli_error("%s", err);
    if (code != GD_EXIT_OK) {
        free(plan);
        return code;
    }
    if (o.params_bare) {
        char why[256];
        snprintf(why, sizeof why,
                 "--params %s reads as %s parameters (a count without a unit); %s billion is written %sB or %se9, "
                 "%s million %sM",
                 o.params_bare, o.params_bare, o.params_bare, o.params_bare, o.params_bare, o.params_bare,
                 o.params_bare);
        fprintf(stderr, "gpudoctor: note: %s\n", why);
        gd_vram_plan_note(plan, "%s", why);
    }
    gd_vram_plan_make(&o.setup, plan);
    if (o.json) {
        json_t *j = gd_vram_report_json(plan);
        if (gd_cli_print_json(j) != 0)
            code = GD_EXIT_ERROR;
        json_decref(j);
    } else {
        gd_text_style st = gd_cli_text_style();
        gd_vram_report_text(stdout, plan, &st);
    }
    free(plan);
    return code;
}
