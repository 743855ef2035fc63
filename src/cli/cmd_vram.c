/* gpudoctor vram: the memory a training run needs per GPU, and whether it fits. */
#include "analysis/vram_config.h"
#include "analysis/vram_plan.h"
#include "backends/collect.h"
#include "cli.h"
#include "report/vram_report.h"

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>

static const char help[] =
    "usage: gpudoctor vram (--params N | --config FILE | --layers N --hidden N) [OPTIONS] [--json]\n"
    "\n"
    "How much memory training needs on each GPU: weights, gradients, optimizer\n"
    "states, activations and overhead; whether it fits, the largest micro-batch\n"
    "that fits, and the cheapest changes that make it fit.\n"
    "\n"
    "Model:\n"
    "  --params N        parameters: 7B, 350M, 7.5e9 (else estimated from the shape)\n"
    "  --config FILE     a Hugging Face config.json (hidden_size, num_hidden_layers, ...)\n"
    "  --layers N --hidden N --heads N --kv-heads N --ffn N --vocab N\n"
    "                    the shape, for activations (override the config's values)\n"
    "Training:\n"
    "  --seq N           sequence length (default: the config's context length, else 2048)\n"
    "  --batch N         micro-batch per GPU (default 1)\n"
    "  --accumulation N  gradient accumulation steps (default 1)\n"
    "  --precision P     fp32 | mixed (default) | bf16 (pure bf16, no fp32 master copy)\n"
    "  --optimizer O     adam (default) | adamw | sgd | adam8bit\n"
    "  --checkpointing C none (default) | selective | full\n"
    "  --flash-attention FlashAttention / fused attention (no s x s scores kept)\n"
    "GPUs:\n"
    "  --gpus N          GPUs in all (default: this machine's, else 1)\n"
    "  --gpu-memory SIZE memory per GPU: 80G, 40GiB, 24576M (default: this machine's)\n"
    "  --sharding S      none (default) | zero1 | zero2 | zero3 | fsdp\n"
    "  --tp N            tensor-parallel degree (default 1)\n"
    "  --sim SCENARIO    take the GPUs from a simulated machine (examples/*.json)\n"
    "  --json            the plan as JSON, bytes per GPU (docs/vram.md)\n"
    "\n"
    "Example: gpudoctor vram --params 7B --layers 32 --hidden 4096 --heads 32 --seq 4096 \\\n"
    "           --batch 8 --vocab 32000 --gpus 1 --gpu-memory 80G\n";

typedef struct vram_opts {
    gd_vram_setup setup;
    gd_vram_model shape; /* flags given; 0 = not given */
    const char *config, *sim;
    bool gpus_given, seq_given, memory_given;
    int json;
} vram_opts;

/* "7B", "350M", "7.5e9", "1.2T": a positive count. */
static int parse_count(const char *s, double *out)
{
    char *end = NULL;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || !isfinite(v))
        return -1;
    static const struct { char c; double mul; } suffix[] = {{'k', 1e3}, {'m', 1e6}, {'b', 1e9}, {'g', 1e9}, {'t', 1e12}};
    for (size_t i = 0; *end && i < sizeof suffix / sizeof suffix[0]; i++)
        if (tolower((unsigned char)*end) == suffix[i].c && end[1] == '\0') {
            v *= suffix[i].mul;
            end++;
        }
    if (*end || !(v >= 1) || v > 1e15)
        return -1;
    *out = v;
    return 0;
}

/* "80G", "80GB", "80GiB", "24576M", "85899345920": bytes. Units are binary
 * (GPU memory is sold in GiB-sized parts: an "80GB" H100 holds 79.6 GiB). */
static int parse_size(const char *s, double *out)
{
    char *end = NULL;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || !isfinite(v) || v <= 0)
        return -1;
    static const struct { const char *unit; double mul; } units[] = {
        {"", 1}, {"K", 1024.0}, {"KB", 1024.0}, {"KiB", 1024.0}, {"M", 1048576.0}, {"MB", 1048576.0},
        {"MiB", 1048576.0}, {"G", 1073741824.0}, {"GB", 1073741824.0}, {"GiB", 1073741824.0},
        {"T", 1099511627776.0}, {"TB", 1099511627776.0}, {"TiB", 1099511627776.0}};
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
        if (strcasecmp(end, units[i].unit) == 0) {
            v *= units[i].mul;
            /* A bare small number is a forgotten unit, not a few bytes. */
            if (v < 1048576.0 || v > 1e15)
                return -1;
            *out = v;
            return 0;
        }
    return -1;
}

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
    O_PARAMS = 256, O_LAYERS, O_HIDDEN, O_HEADS, O_KV, O_FFN, O_VOCAB, O_SEQ, O_BATCH, O_ACCUM, O_PREC, O_OPT,
    O_CKPT, O_FLASH, O_GPUS, O_MEM, O_SHARD, O_TP, O_CONFIG, O_SIM, O_JSON,
};

static int option(int c, const char *arg, vram_opts *o)
{
    gd_vram_setup *s = &o->setup;
    gd_vram_model *m = &o->shape;
    int v;
    switch (c) {
    case O_PARAMS:
        if (parse_count(arg, &s->model.params) != 0)
            return gd_cli_error("--params wants a positive count like 7B, 350M or 7.5e9, not '%s'", arg);
        return 0;
    case O_LAYERS: return whole("--layers", arg, 1, 100000, &m->layers);
    case O_HIDDEN: return whole("--hidden", arg, 1, 1L << 20, &m->hidden);
    case O_HEADS: return whole("--heads", arg, 1, 1L << 16, &m->heads);
    case O_KV: return whole("--kv-heads", arg, 1, 1L << 16, &m->kv_heads);
    case O_FFN: return whole("--ffn", arg, 1, 1L << 24, &m->ffn);
    case O_VOCAB: return whole("--vocab", arg, 1, 1L << 27, &m->vocab);
    case O_SEQ: o->seq_given = true; return whole("--seq", arg, 1, 1L << 24, &s->seq);
    case O_BATCH: return whole("--batch", arg, 1, 1L << 20, &s->batch);
    case O_ACCUM: return whole("--accumulation", arg, 1, 1L << 20, &s->accum_steps);
    case O_GPUS: o->gpus_given = true; return whole("--gpus", arg, 1, 1L << 20, &s->gpus);
    case O_TP: return whole("--tp", arg, 1, 1024, &s->tp);
    case O_PREC:
        if ((v = gd_vram_precision_parse(arg)) < 0)
            return bad_choice("--precision", arg, "fp32, mixed, bf16");
        s->precision = (gd_vram_precision)v;
        return 0;
    case O_OPT:
        if ((v = gd_vram_optimizer_parse(arg)) < 0)
            return bad_choice("--optimizer", arg, "adam, adamw, sgd, adam8bit");
        s->optimizer = (gd_vram_optimizer)v;
        return 0;
    case O_CKPT:
        if ((v = gd_vram_ckpt_parse(arg)) < 0)
            return bad_choice("--checkpointing", arg, "none, selective, full");
        s->ckpt = (gd_vram_ckpt)v;
        return 0;
    case O_SHARD:
        if ((v = gd_vram_sharding_parse(arg)) < 0)
            return bad_choice("--sharding", arg, "none, zero1, zero2, zero3, fsdp");
        s->sharding = (gd_vram_sharding)v;
        return 0;
    case O_FLASH: s->flash_attention = true; return 0;
    case O_MEM:
        o->memory_given = true;
        if (parse_size(arg, &s->gpu_memory_bytes) != 0)
            return gd_cli_error("--gpu-memory wants a size with its unit like 80G, 40GiB or 24576M, not '%s'", arg);
        return 0;
    case O_CONFIG: o->config = arg; return 0;
    case O_SIM: o->sim = arg; return 0;
    case O_JSON: o->json = 1; return 0;
    default: return GD_EXIT_ERROR;
    }
}

static int parse(int argc, char **argv, vram_opts *o)
{
    static const struct option longopts[] = {
        {"params", required_argument, NULL, O_PARAMS}, {"layers", required_argument, NULL, O_LAYERS},
        {"hidden", required_argument, NULL, O_HIDDEN}, {"heads", required_argument, NULL, O_HEADS},
        {"kv-heads", required_argument, NULL, O_KV}, {"ffn", required_argument, NULL, O_FFN},
        {"vocab", required_argument, NULL, O_VOCAB}, {"seq", required_argument, NULL, O_SEQ},
        {"batch", required_argument, NULL, O_BATCH}, {"accumulation", required_argument, NULL, O_ACCUM},
        {"precision", required_argument, NULL, O_PREC}, {"optimizer", required_argument, NULL, O_OPT},
        {"checkpointing", required_argument, NULL, O_CKPT}, {"flash-attention", no_argument, NULL, O_FLASH},
        {"gpus", required_argument, NULL, O_GPUS}, {"gpu-memory", required_argument, NULL, O_MEM},
        {"sharding", required_argument, NULL, O_SHARD}, {"tp", required_argument, NULL, O_TP},
        {"config", required_argument, NULL, O_CONFIG}, {"sim", required_argument, NULL, O_SIM},
        {"json", no_argument, NULL, O_JSON}, {"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0},
    };
    *o = (vram_opts){.setup = {.model = {.params = -1}, .batch = 1, .precision = GD_PREC_MIXED, .gpus = 1, .tp = 1,
                               .accum_steps = 1}};
    optind = 1;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, "+:h", longopts, NULL)) != -1) {
        if (c == 'h') {
            fputs(help, stdout);
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
    return 0;
}

/* The config first, then every shape flag given on top of it. */
static int build_model(vram_opts *o, gd_vram_plan *plan)
{
    gd_vram_model *m = &o->setup.model;
    char err[512];
    if (o->config && gd_vram_config_load(o->config, m, err, sizeof err) != 0)
        return gd_cli_error("%s", err);
    const gd_vram_model *f = &o->shape;
    long *dst[] = {&m->layers, &m->hidden, &m->heads, &m->kv_heads, &m->ffn, &m->vocab};
    const long src[] = {f->layers, f->hidden, f->heads, f->kv_heads, f->ffn, f->vocab};
    for (size_t i = 0; i < sizeof src / sizeof src[0]; i++)
        if (src[i] > 0)
            *dst[i] = src[i];
    if (m->hidden > 0 && m->heads <= 0)
        gd_vram_plan_note(plan, "attention heads not given: assumed hidden/128 = %ld (head dimension 128)",
                          m->hidden >= 128 ? m->hidden / 128 : 1);
    gd_vram_fill_model(m);
    if (!o->seq_given) {
        o->setup.seq = m->max_positions > 0 ? m->max_positions : 2048;
        if (m->layers > 0)
            gd_vram_plan_note(plan, "--seq not given: %ld, %s", o->setup.seq,
                              m->max_positions > 0 ? "the model's context length" : "a common default");
    }
    return 0;
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
        return gd_cli_error("%s", err);
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
    if (!loaded || count == 0 || !isfinite(min_mib))
        return gd_cli_error("no GPU memory size to plan for (%s): give --gpu-memory SIZE (e.g. 80G), or --sim SCENARIO",
                            !loaded ? why : count == 0 ? "no GPU found" : "the driver does not report GPU memory");
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
    if (build_model(&o, plan) != 0 || (!o.memory_given && machine_gpus(&o, plan) != 0))
        code = GD_EXIT_ERROR;
    else if (gd_vram_setup_validate(&o.setup, err, sizeof err) != 0)
        code = gd_cli_error("%s", err);
    if (code != GD_EXIT_OK) {
        free(plan);
        return code;
    }
    gd_vram_plan_make(&o.setup, plan);
    if (o.json) {
        json_t *j = gd_vram_report_json(plan);
        if (!j || gd_json_print(stdout, j) != 0)
            code = gd_cli_error("cannot write JSON");
        json_decref(j);
    } else {
        gd_text_style st = gd_cli_text_style();
        gd_vram_report_text(stdout, plan, &st);
    }
    free(plan);
    return code;
}
