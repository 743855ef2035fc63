/* SPDX-License-Identifier: Apache-2.0 */
/* The options -> the planner's model (analysis/vram_model.h): the config,
 * the shape options over it, --shape-from llama, the defaults and their
 * notes. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "analysis/vram_model.h"

#include <stdlib.h>
#include <string.h>

#define EXAMPLES GD_DOCS_DIR "/../examples"

static gd_vram_setup setup(void)
{
    return (gd_vram_setup){.model = {.params = -1}, .batch = 1, .gpus = 1, .tp = 1, .accum_steps = 1};
}

static bool noted(const gd_vram_plan *p, const char *part)
{
    for (size_t i = 0; i < p->nnotes; i++)
        if (strstr(p->notes[i], part))
            return true;
    return false;
}

static void shape_options_override_the_config(void **state)
{
    (void)state;
    gd_vram_model_opts o = {.config = EXAMPLES "/models/llama-2-7b.json", .shape = {.layers = 40}};
    gd_vram_setup s = setup();
    gd_vram_plan *p = calloc(1, sizeof *p);
    char err[256] = "";
    assert_int_equal(gd_vram_model_build(&o, &s, p, err, sizeof err), 0);
    assert_int_equal(s.model.layers, 40);
    assert_int_equal(s.model.hidden, 4096);
    assert_true(s.model.params > 0); /* estimated from the shape */
    assert_int_equal(s.seq, 2048); /* the default, not the context length */
    assert_true(noted(p, "the model's context length is 4096"));
    assert_true(noted(p, "--attention not given"));
    free(p);
}

static void shape_from_llama_fills_what_is_not_given(void **state)
{
    (void)state;
    gd_vram_model_opts o = {
        .shape = {.vocab = 50000}, .shape_from_llama = true, .seq_given = true, .attention_given = true};
    gd_vram_setup s = setup();
    s.model.params = 7e9;
    s.seq = 512;
    gd_vram_plan *p = calloc(1, sizeof *p);
    char err[256] = "";
    assert_int_equal(gd_vram_model_build(&o, &s, p, err, sizeof err), 0);
    assert_int_equal(s.model.layers, 32);
    assert_int_equal(s.model.hidden, 4096);
    assert_int_equal(s.model.vocab, 50000); /* given: kept */
    assert_true(s.model.gated_mlp);
    assert_true(s.model.params == 7e9);
    assert_int_equal(s.seq, 512);
    assert_true(noted(p, "shape from llama-2-7b"));
    assert_false(noted(p, "--seq not given"));
    assert_false(noted(p, "--attention not given"));

    /* A shape given in full: nothing to take, and a note says so. */
    gd_vram_model_opts given = {.shape = {.layers = 24, .hidden = 2048}, .shape_from_llama = true};
    s = setup();
    s.model.params = 7e9;
    memset(p, 0, sizeof *p);
    assert_int_equal(gd_vram_model_build(&given, &s, p, err, sizeof err), 0);
    assert_int_equal(s.model.layers, 24);
    assert_true(noted(p, "--shape-from llama not used"));
    assert_true(noted(p, "attention heads not given: assumed hidden/128 = 16"));
    free(p);
}

static void a_config_that_cannot_be_read_is_an_error(void **state)
{
    (void)state;
    gd_vram_model_opts o = {.config = "/nonexistent/config.json"};
    gd_vram_setup s = setup();
    gd_vram_plan *p = calloc(1, sizeof *p);
    char err[256] = "";
    assert_int_equal(gd_vram_model_build(&o, &s, p, err, sizeof err), -1);
    assert_non_null(strstr(err, "/nonexistent/config.json"));
    free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(shape_options_override_the_config),
        cmocka_unit_test(shape_from_llama_fills_what_is_not_given),
        cmocka_unit_test(a_config_that_cannot_be_read_is_an_error),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
