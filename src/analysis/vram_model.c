/* SPDX-License-Identifier: Apache-2.0 */
/* The options -> the planner's model (vram_model.h). */
#include "vram_model.h"
#include "vram_config.h"
#include "core/data_tables.h"

/* --shape-from llama: the Llama shape nearest --params, for the fields not given. */
static void shape_from_llama(gd_vram_model *m, gd_vram_plan *plan)
{
    if (m->layers > 0 && m->hidden > 0) {
        gd_vram_plan_note(plan, "--shape-from llama not used: the shape is given");
        return;
    }
    gd_model_shape sh;
    if (!gd_model_shape_nearest(m->params, &sh))
        return;
    long *dst[] = {&m->layers, &m->hidden, &m->heads, &m->kv_heads, &m->ffn, &m->vocab};
    const long src[] = {sh.layers, sh.hidden, sh.heads, sh.kv_heads, sh.ffn, sh.vocab};
    for (size_t i = 0; i < sizeof src / sizeof src[0]; i++)
        if (*dst[i] <= 0)
            *dst[i] = src[i];
    m->gated_mlp = true;
    m->tied_embeddings = sh.tied;
    gd_vram_plan_note(plan,
                      "shape from %s (%.2fB, the Llama shape nearest --params; data/model-shapes.tsv): "
                      "%ld layers, hidden %ld, %ld heads, %ld KV heads, MLP %ld, vocabulary %ld",
                      sh.name, sh.params / 1e9, m->layers, m->hidden, m->heads, m->kv_heads, m->ffn, m->vocab);
}

int gd_vram_model_build(const gd_vram_model_opts *o, gd_vram_setup *s, gd_vram_plan *plan, char *err, size_t errlen)
{
    gd_vram_model *m = &s->model;
    if (o->config && gd_vram_config_load(o->config, m, err, errlen) != 0)
        return -1;
    const gd_vram_model *f = &o->shape;
    long *dst[] = {&m->layers, &m->hidden, &m->heads, &m->kv_heads, &m->ffn, &m->vocab};
    const long src[] = {f->layers, f->hidden, f->heads, f->kv_heads, f->ffn, f->vocab};
    for (size_t i = 0; i < sizeof src / sizeof src[0]; i++)
        if (src[i] > 0)
            *dst[i] = src[i];
    if (o->shape_from_llama)
        shape_from_llama(m, plan);
    if (m->hidden > 0 && m->heads <= 0)
        gd_vram_plan_note(plan, "attention heads not given: assumed hidden/128 = %ld (head dimension 128)",
                          m->hidden >= 128 ? m->hidden / 128 : 1);
    gd_vram_fill_model(m);
    if (!o->seq_given) {
        s->seq = 2048; /* a context length is what the model can take, not what a run uses */
        if (m->layers > 0 && m->max_positions > 0)
            gd_vram_plan_note(plan,
                              "--seq not given: 2048, the default (the model's context length is %ld: "
                              "--seq %ld plans for it)",
                              m->max_positions, m->max_positions);
        else if (m->layers > 0)
            gd_vram_plan_note(plan, "--seq not given: 2048, the default");
    }
    if (!o->attention_given && m->layers > 0)
        gd_vram_plan_note(plan, "--attention not given: sdpa (PyTorch scaled_dot_product_attention, the Hugging Face "
                                "default), which keeps no s x s scores; --attention eager counts them");
    return 0;
}
