/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What info and topo show of a GPU (issue 39): a MIG GPU's instances in a
 * table and its NVLinks as not applicable, a compute mode that does not
 * contradict the GPU's own utilisation, names whole where the width has
 * room, and topo with the banner of check, "n/a" for a bus id it lacks and
 * each GPU's PCIe link generation and width.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "run_tool.h"

#include <stdio.h>
#include <string.h>

static const char *const plain[] = {"NO_COLOR=1", "COLUMNS=", NULL};

/* The GPU table cuts a name only where the width has no room for it:
 * "GeForce RTX 4090" whole at 80 columns ("GeForce RTX 4~" before). */
static void names_take_the_room_the_width_has(void **state)
{
    (void)state;
    tool_result r = run_tool((const char *[]){"info", "--sim", example("rtx4090x8-no-p2p.json"), NULL}, plain);
    assert_int_equal(r.exit_code, 0);
    assert_null(strstr(r.out, "~"));
    assert_non_null(strstr(r.out, "  0  GeForce RTX 4090 "));
    tool_result_free(&r);
    /* fleet's node names too: whole where the line has room ("h100x8-thermal-throttli..." at 24 before). */
    r = run_tool((const char *[]){"fleet", GD_FIXTURES_DIR "/fleet", NULL}, plain);
    assert_non_null(strstr(r.out, "\n  h100x8-thermal-throttling  thermal.throttling\n"));
    assert_null(strstr(r.out, "\u2026"));
    tool_result_free(&r);
    /* At 40 columns there is no room: cut, and said with the mark. */
    r = run_tool((const char *[]){"info", "--sim", example("rtx4090x8-no-p2p.json"), NULL},
                 (const char *[]){"NO_COLOR=1", "COLUMNS=40", NULL});
    assert_non_null(strstr(r.out, "~"));
    tool_result_free(&r);
}

/* info's "MIG devices" table, failing the test where there is none. */
static const char *mig_table(const tool_result *r)
{
    assert_int_equal(r->exit_code, 0);
    const char *mig = strstr(r->out, "MIG devices");
    if (!mig)
        fail_msg("no MIG devices table: %s", r->out);
    return mig;
}

/* info lists a MIG GPU's instances as nvidia-smi's "MIG devices" table does,
 * says its NVLinks are not reported in MIG mode (not "0 of 18 links
 * active"), and names a compute mode that is not the default. */
static void info_lists_mig_instances(void **state)
{
    (void)state;
    const char *sc = example("h100x8-misconfigured.json");
    tool_result r = run_tool((const char *[]){"info", "--sim", sc, NULL}, plain);
    const char *mig = mig_table(&r);
    assert_non_null(strstr(mig, "GPU  GI  Profile"));
    assert_non_null(strstr(mig, "  0   1  3g.40gb"));
    assert_non_null(strstr(mig, "30208/40192"));
    assert_non_null(strstr(mig, "  0  13  1g.10gb"));
    assert_non_null(strstr(mig, "MIG-5e1d1f3a-0005-4000-8000-000000000005"));
    assert_non_null(strstr(r.out, "compute mode prohibited"));
    tool_result_free(&r);
    r = run_tool((const char *[]){"info", "--details", "--sim", sc, NULL}, plain);
    const char *gpu0 = strstr(r.out, "\nGPU 0  "), *gpu1 = strstr(r.out, "\nGPU 1  ");
    assert_true(gpu0 && gpu1 && gpu0 < gpu1);
    const char *nvlink = strstr(gpu0, "  NVLink ");
    assert_true(nvlink && nvlink < gpu1);
    assert_true(strncmp(nvlink, "  NVLink      not reported in MIG mode", 38) == 0);
    assert_non_null(strstr(gpu1, "  NVLink      18 of 18 links active"));
    tool_result_free(&r);
    r = run_tool((const char *[]){"info", "--json", "--sim", sc, NULL}, plain);
    json_t *devs = json_object_get(json_array_get(json_object_get(r.json, "gpus"), 0), "mig_devices");
    assert_int_equal(json_array_size(devs), 3);
    json_t *d0 = json_array_get(devs, 0);
    assert_int_equal(json_integer_value(json_object_get(d0, "gpu_instance_id")), 1);
    assert_string_equal(json_string_value(json_object_get(d0, "profile")), "3g.40gb");
    assert_int_equal(json_integer_value(json_object_get(d0, "memory_total_mib")), 40192);
    assert_int_equal(
        json_array_size(json_object_get(json_array_get(json_object_get(r.json, "gpus"), 1), "mig_devices")), 0);
    tool_result_free(&r);
}

/* An nvidia-smi -q -x capture of a MIG GPU lists its instances too. */
static void a_captured_mig_gpu_lists_its_instances(void **state)
{
    (void)state;
    need_realdata();
    tool_result r = run_tool(
        (const char *[]){"info", "--from", realdata("smi-xml/a100-sxm4-40gb-mig-gcp-netdata.xml"), NULL}, plain);
    const char *mig = mig_table(&r);
    assert_non_null(strstr(mig, "  0   1"));
    assert_non_null(strstr(mig, "  0   2"));
    assert_non_null(strstr(mig, "19/19968"));
    tool_result_free(&r);
}

/* topo says where its matrix comes from, as check does (SIMULATION or
 * CAPTURE, first line), and shows each GPU's PCIe link (generation and width,
 * now and at most) and the slowest link on its way to the CPU. */
static void topo_has_the_banner_and_the_links(void **state)
{
    (void)state;
    tool_result r = run_tool((const char *[]){"topo", "--sim", example("pcie-h100x8-switches.json"), NULL}, plain);
    assert_int_equal(r.exit_code, 0);
    assert_true(strncmp(r.out, "gpudoctor ", 10) == 0);
    /* "SIMULATION of": the path after it may wrap to the next line, as deep
     * as the checkout lies. */
    assert_true(strstr(r.out, "SIMULATION of") && strstr(r.out, "SIMULATION of") < strchr(r.out, '\n'));
    const char *links = strstr(r.out, "PCIe links");
    if (!links)
        fail_msg("no PCIe links table: %s", r.out);
    assert_non_null(strstr(links, "GPU0    Gen5 x16  Gen5 x16"));
    tool_result_free(&r);
    /* A slot slower than its card: the narrowest link is named. */
    r = run_tool((const char *[]){"topo", "--sim", example("pcie-a100x3-bridge-downgraded.json"), NULL}, plain);
    links = strstr(r.out, "PCIe links");
    assert_non_null(links);
    assert_non_null(strstr(links, "slowest "));
    tool_result_free(&r);
}

/* A topo -m capture: the banner says CAPTURE, a bus id it does not give is
 * "n/a" (it was blank), and the links it does not give are "n/a"; lspci
 * gives them. */
static void topo_of_captures(void **state)
{
    (void)state;
    need_realdata();
    tool_result r =
        run_tool((const char *[]){"topo", "--from", realdata("topo/h100-8gpu-nv18-stas00.txt"), NULL}, plain);
    assert_int_equal(r.exit_code, 0);
    assert_true(strstr(r.out, "CAPTURE") && strstr(r.out, "CAPTURE") < strchr(r.out, '\n'));
    assert_non_null(strstr(r.out, "GPU0    0-51,104-155    0              n/a\n"));
    assert_non_null(strstr(r.out, "PCIe links: not in this capture"));
    for (const char *p = r.out; (p = strstr(p, " \n")); p++)
        fail_msg("a line ends in a blank: %.40s", p > r.out + 40 ? p - 40 : r.out);
    tool_result_free(&r);
    r = run_tool((const char *[]){"topo", "--from", realdata("lspci/h100x8-dell-lspci-vvv-gpud.txt"), NULL}, plain);
    const char *links = strstr(r.out, "PCIe links");
    assert_non_null(links);
    assert_non_null(strstr(links, "GPU0    Gen5 x16  Gen5 x16"));
    tool_result_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(names_take_the_room_the_width_has),
        cmocka_unit_test(info_lists_mig_instances),
        cmocka_unit_test(a_captured_mig_gpu_lists_its_instances),
        cmocka_unit_test(topo_has_the_banner_and_the_links),
        cmocka_unit_test(topo_of_captures),
    };
    return realdata_exit(cmocka_run_group_tests(tests, NULL, NULL));
}
