/* SPDX-License-Identifier: Apache-2.0 */
/* nvlink.down (src/checks/nvlink.c): a GPU with fewer active NVLinks than its
 * peers; boards without NVLink say nothing. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "facts_fixture.h"

#include <string.h>

static void nvlink_down_needs_nvlink_somewhere(void **state)
{
    (void)state;
    gd_facts f;
    fx_facts(&f, 2, 3);
    for (size_t g = 0; g < 2; g++) {
        f.gpus[g].nvlink_count = 4;
        for (unsigned l = 0; l < 4; l++)
            f.gpus[g].nvlink[l] = (gd_nvlink){.link = l, .active = gd_val(0)};
    }
    gd_findings fs;
    fx_run(&f, "nvlink.down", &fs); /* PCIe boards without a bridge: all inactive */
    assert_int_equal(fs.n, 0);
    gd_findings_free(&fs);
    for (unsigned l = 0; l < 4; l++)
        f.gpus[0].nvlink[l].active = gd_val(1);
    for (unsigned l = 0; l < 3; l++)
        f.gpus[1].nvlink[l].active = gd_val(1);
    fx_run(&f, "nvlink.down", &fs);
    assert_int_equal(fx_count(&fs, "nvlink.down", 1), 1);
    assert_int_equal(fs.n, 1);
    gd_findings_free(&fs);
    gd_facts_free(&f);
}

static void down_compares_with_peers(void **state)
{
    (void)state;
    gd_facts f;
    fx_facts(&f, 8, 2);
    fx_nvlinks(&f, 18);
    f.gpus[3].nvlink[17].active = gd_val(0);
    gd_findings out;
    fx_run(&f, "nvlink.down", &out);
    const gd_finding *x = fx_only(&out, "nvlink.down");
    assert_int_equal(x->gpu, 3);
    assert_int_equal(x->severity, GD_SEV_WARNING);
    assert_int_equal(json_integer_value(json_object_get(x->evidence, "links_active")), 17);
    /* 17 is the down link's index, named so; the count is a count (issue 39: "links_down=17"). */
    assert_int_equal(json_integer_value(json_object_get(x->evidence, "links_down")), 1);
    assert_int_equal(json_integer_value(json_array_get(json_object_get(x->evidence, "down_link_indices"), 0)), 17);
    assert_non_null(strstr(x->title, "(link 17; 17 of 18 active"));
    assert_int_equal(json_integer_value(json_object_get(x->evidence, "peers_links_active")), 18);
    assert_non_null(strstr(x->title, "its peers have 18 active"));
    gd_findings_free(&out);
    /* Every GPU with the same link down: as many as its peers, said so. */
    for (size_t g = 0; g < 8; g++)
        f.gpus[g].nvlink[17].active = gd_val(0);
    fx_run(&f, "nvlink.down", &out);
    assert_int_equal(fx_count(&out, "nvlink.down", -2), 8);
    assert_non_null(strstr(out.v[0].title, "as many as its peers"));
    gd_findings_free(&out);
    gd_facts_free(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(nvlink_down_needs_nvlink_somewhere),
        cmocka_unit_test(down_compares_with_peers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
