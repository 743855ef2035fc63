/* SPDX-License-Identifier: Apache-2.0 */
/*
 * End to end on real captures (../shared/realdata, see its SOURCES.md):
 * every nvidia-smi XML, text, CSV and dmon file parses, its GPU 0 reads as
 * the file says, the problems it shows are reported and nothing else warns.
 * Expected values were read off the files by hand. Skips without the data.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "run_tool.h"

#include <dlfcn.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NA NAN

typedef struct expect {
    const char *file;
    int gpus;
    const char *name, *driver; /* driver NULL: null */
    double cuda, temp_c;
    const char *reasons; /* active at capture, "a,b"; NULL: not reported */
    double power_w, limit_w, gen, width, gen_max, width_max, mem_used, mem_total;
    double ecc, remap_pending, retired_dbe; /* from info --json */
    int exit_code;
    const char *problems; /* every warning/critical id, "a,b" */
} expect;

static const expect cases[] = {
    {"smi-xml/a100-sxm4-40gb-mig-gcp-netdata.xml",
     1,
     "NVIDIA A100-SXM4-40GB",
     "510.47.03",
     11060,
     36,
     "",
     66.92,
     400,
     4,
     16,
     4,
     16,
     38,
     40960,
     1,
     NA,
     NA,
     0,
     ""}, /* MIG on purpose: info */
    {"smi-xml/a100-sxm4-80gb-mig-trimmed-telegraf.xml",
     1,
     "NVIDIA A100-SXM4-80GB",
     "535.54.03",
     12020,
     27,
     "",
     67.03,
     500,
     4,
     16,
     4,
     16,
     50,
     81920,
     1,
     NA,
     NA,
     0,
     ""}, /* MIG on purpose: info */
    {"smi-xml/a10g-aws-x8-idle-telegraf.xml",
     1,
     "NVIDIA A10G",
     "515.105.01",
     11070,
     17,
     "gpu_idle",
     25.58,
     300,
     1,
     8,
     4,
     16,
     22,
     23028,
     1,
     0,
     NA,
     0,
     ""},
    {"smi-xml/dual-rtx-a5000-telegraf.xml",
     2,
     "NVIDIA RTX A5000",
     "590.44.01",
     13010,
     13,
     "gpu_idle",
     6.41,
     230,
     1,
     16,
     4,
     16,
     22437,
     24564,
     0,
     0,
     NA,
     0,
     ""},
    {"smi-xml/dual-rtx2070-x8-telegraf.xml",
     2,
     "NVIDIA GeForce RTX 2070",
     "590.44.01",
     13010,
     14,
     "gpu_idle",
     9.23,
     175,
     1,
     8,
     3,
     16,
     1,
     8192,
     NA,
     NA,
     NA,
     0,
     ""},
    {"smi-xml/grid-p4-1q-vgpu-telegraf.xml",
     1,
     "GRID P4-1Q",
     "513.46",
     11060,
     0,
     NULL,
     NA,
     NA,
     NA,
     NA,
     NA,
     NA,
     807,
     1024,
     NA,
     NA,
     NA,
     0,
     ""},
    {"smi-xml/gtx1070-x1-riser-load-trimmed-pai.xml",
     2,
     "GeForce GTX 1070",
     "384.66",
     NA,
     60,
     "",
     119.47,
     180,
     3,
     1,
     3,
     16,
     2028,
     8112,
     NA,
     NA,
     NA,
     2,
     "pcie.link_downgraded"},
    {"smi-xml/k80-4gpu-azure-ecc-retired-pai.xml",
     4,
     "Tesla K80",
     "430.26",
     NA,
     64,
     "applications_clocks_setting",
     135.72,
     149,
     3,
     16,
     3,
     16,
     587,
     11441,
     1,
     NA,
     1,
     0, /* its double-bit errors' pages retired, none pending: history (info) */
     ""},
    {"smi-xml/rtx-pro-6000-blackwell-maxq-gen4host-telegraf.xml",
     1,
     "NVIDIA RTX PRO 6000 Blackwell Max-Q Workstation Edition",
     "590.44.01",
     13010,
     24,
     "",
     3.97,
     300,
     1,
     16,
     4,
     16,
     65720,
     97887,
     0,
     0,
     NA,
     1,
     "pcie.slot_limited"}, /* a Gen5 card in a Gen4 host: Gen4 together */
    {"smi-xml/rtx3080-load-v13-telegraf.xml",
     1,
     "NVIDIA GeForce RTX 3080",
     "595.58.03",
     13020,
     27,
     "",
     139.62,
     320,
     4,
     16,
     4,
     16,
     9184,
     10240,
     NA,
     NA,
     NA,
     0,
     ""},
    {"smi-xml/rtx3080-windows-wddm-telegraf.xml",
     1,
     "NVIDIA GeForce RTX 3080",
     "536.40",
     12020,
     31,
     "gpu_idle",
     22.78,
     336,
     4,
     16,
     4,
     16,
     1128,
     10240,
     NA,
     NA,
     NA,
     0,
     ""},
    {"smi-xml/rtx3090-powerlimit-200w-telegraf.xml",
     1,
     "NVIDIA GeForce RTX 3090",
     "525.147.05",
     12000,
     37,
     "gpu_idle",
     27.23,
     200,
     1,
     16,
     4,
     16,
     1,
     24576,
     NA,
     NA,
     NA,
     1,
     "power.limit_lowered"},
    {"smi-xml/rtx3090-v13-swpowercap-idle-telegraf.xml",
     1,
     "NVIDIA GeForce RTX 3090",
     "590.44.01",
     13010,
     32,
     "sw_power_cap",
     35.06,
     350,
     1,
     16,
     4,
     16,
     7,
     24576,
     NA,
     NA,
     NA,
     0,
     ""},
    {"smi-xml/rtx4090-gen3host-netdata.xml",
     1,
     "NVIDIA GeForce RTX 4090",
     "535.86.05",
     12020,
     40,
     "gpu_idle",
     26.84,
     450,
     1,
     16,
     3,
     16,
     2,
     24564,
     0,
     0,
     NA,
     1,
     "pcie.slot_limited"}, /* a Gen4 card in a Gen3 host */
    {"smi-xml/tesla-p100-gcp-sbe-netdata.xml",
     1,
     "Tesla P100-PCIE-16GB",
     "510.47.03",
     11060,
     38,
     "gpu_idle",
     26.16,
     250,
     3,
     16,
     3,
     16,
     0,
     16384,
     1,
     NA,
     0,
     0,
     ""},
    {"smi-xml/tesla-t4-aws-x8-telegraf.xml",
     1,
     "Tesla T4",
     "515.105.01",
     11070,
     40,
     "",
     26.78,
     70,
     3,
     8,
     3,
     16,
     1032,
     15360,
     1,
     NA,
     0,
     0,
     ""},
    {"smi-xml/v100-sxm3-dbe-retired-pending-pai.xml",
     1,
     "Tesla V100-SXM3-32GB",
     "410.104",
     10000,
     33,
     "gpu_idle",
     50.6,
     350,
     3,
     16,
     3,
     16,
     0,
     32480,
     1,
     NA,
     2,
     2,
     "health.ecc_uncorrectable,health.row_remap"},
    {"smi-text/a10-row-remap-pending-gpud.txt",
     1,
     "NVIDIA A10",
     "535.129.03",
     12020,
     33,
     "gpu_idle",
     43.89,
     150,
     4,
     16,
     4,
     16,
     4,
     23028,
     1,
     1,
     NA,
     2,
     "health.row_remap"},
    {"smi-text/h100-sxm-load-utku.txt",
     1,
     "NVIDIA H100 80GB HBM3",
     "590.48.01",
     13010,
     59,
     "",
     629.45,
     700,
     5,
     16,
     5,
     16,
     19818,
     81559,
     1,
     0,
     NA,
     0,
     ""},
    {"smi-text/h100x8-hw-slowdown-power-brake-gpud.txt",
     8,
     "NVIDIA H100 80GB HBM3",
     "535.161.08",
     12020,
     29,
     "hw_slowdown,hw_power_brake_slowdown",
     67.74,
     700,
     5,
     16,
     5,
     16,
     0,
     81559,
     1,
     0,
     NA,
     1,
     "power.brake"},
    {"smi-text/h100x8-one-gpu-swcap-brake-swthermal-gpud.txt",
     8,
     "NVIDIA H100 80GB HBM3",
     "535.183.01",
     12020,
     36,
     "gpu_idle",
     71.97,
     700,
     5,
     16,
     5,
     16,
     0,
     81559,
     1,
     0,
     NA,
     0,
     ""}, /* GPU 2: flag set, clocks at max: info */
    {"smi-text/h200-mig-load-utku.txt",
     1,
     "NVIDIA H200",
     "590.48.01",
     13010,
     36,
     "",
     294.94,
     700,
     5,
     16,
     5,
     16,
     16959,
     143771,
     1,
     NA,
     NA,
     0,
     ""}, /* MIG on purpose: info */
    {"smi-text/rtx4090x8-idle-gpud.txt",
     8,
     "NVIDIA GeForce RTX 4090",
     "535.154.05",
     12020,
     31,
     "gpu_idle",
     17.11,
     450,
     1,
     16,
     4,
     16,
     6730,
     24564,
     0,
     0,
     NA,
     0,
     ""},
    {"smi-text/rtx4090x8-swpowercap-under-load-gpud.txt",
     8,
     "NVIDIA GeForce RTX 4090",
     "535.154.05",
     12020,
     30,
     "gpu_idle",
     18.9,
     450,
     1,
     16,
     4,
     16,
     0,
     24564,
     0,
     0,
     NA,
     0,
     ""}, /* 96 % held, no pressure: info */
    {"smi-text/titan-v-idle-gpud.txt",
     1,
     "NVIDIA TITAN V",
     "560.35.03",
     12060,
     44,
     "gpu_idle",
     29.02,
     250,
     1,
     16,
     3,
     16,
     290,
     12288,
     NA,
     NA,
     NA,
     0,
     ""},
    {"smi-csv/h100-load-dmon-utku.txt", 1, "", NULL, NA, 65, NULL, 636, NA, NA, NA, NA, NA, NA, NA, NA, NA, NA, 0, ""},
    {"smi-csv/h200-mig-load-dmon-utku.txt",
     1,
     "",
     NULL,
     NA,
     37,
     NULL,
     294,
     NA,
     NA,
     NA,
     NA,
     NA,
     NA,
     NA,
     NA,
     NA,
     NA,
     0,
     ""},
    {"smi-csv/l40s-load-query-gpu-utku.csv",
     1,
     "NVIDIA L40S",
     "595.80",
     NA,
     54,
     "",
     110.23,
     350,
     4,
     16,
     4,
     16,
     1235,
     46068,
     1,
     0,
     NA,
     0,
     ""},
    {"smi-csv/tesla-p100-query-gpu-netdata.csv",
     1,
     "Tesla P100-PCIE-16GB",
     NULL,
     NA,
     37,
     NULL,
     28.16,
     NA,
     NA,
     NA,
     NA,
     NA,
     0,
     NA,
     NA,
     NA,
     NA,
     0,
     ""},
};

static const char *const env[] = {"NO_COLOR=", NULL};

/* Number (or null when want is NAN) at key of o; a message naming it otherwise. */
static void want_number(const char *file, const char *key, json_t *o, double want)
{
    json_t *v = json_object_get(o, key);
    if (isnan(want)) {
        if (!json_is_null(v))
            fail_msg("%s: %s is %g, want null", file, key, json_number_value(v));
        return;
    }
    if (!json_is_number(v) || fabs(json_number_value(v) - want) > 1e-6)
        fail_msg("%s: %s is %s%g, want %g", file, key, json_is_number(v) ? "" : "(not a number) ", json_number_value(v),
                 want);
}

static void want_reasons(const char *file, json_t *reasons, const char *want)
{
    if (!want) {
        if (!json_is_null(reasons))
            fail_msg("%s: event_reasons reported, want null", file);
        return;
    }
    char got[256] = "";
    size_t i;
    json_t *r;
    json_array_foreach(reasons, i, r)
    {
        size_t used = strlen(got);
        snprintf(got + used, sizeof got - used, "%s%s", i ? "," : "", json_string_value(r));
    }
    if (strcmp(got, want) != 0)
        fail_msg("%s: event_reasons '%s', want '%s'", file, got, want);
}

/* Every warning or critical id is listed in want, and every listed one is there. */
static void want_problems(const char *file, json_t *report, const char *want)
{
    size_t i;
    json_t *x;
    json_array_foreach(json_object_get(report, "findings"), i, x)
    {
        const char *id = json_string_value(json_object_get(x, "id"));
        const char *sev = json_string_value(json_object_get(x, "severity"));
        if (strcmp(sev, "info") != 0 && !strstr(want, id))
            fail_msg("%s: unexpected %s %s: %s", file, sev, id, json_string_value(json_object_get(x, "title")));
    }
    char list[256];
    snprintf(list, sizeof list, "%s", want);
    for (char *save = NULL, *id = strtok_r(list, ",", &save); id; id = strtok_r(NULL, ",", &save))
        if (count_findings(report, id, -2) == 0)
            fail_msg("%s: %s not reported", file, id);
}

static void every_real_capture_reads_as_the_file_says(void **state)
{
    (void)state;
    need_realdata();
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        const expect *x = &cases[c];
        tool_result r = run_tool((const char *[]){"check", "--json", "--from", realdata(x->file), NULL}, env);
        if (!r.json)
            fail_msg("%s: no JSON (exit %d); stderr: %s", x->file, r.exit_code, r.err);
        if (r.exit_code != x->exit_code)
            fail_msg("%s: exit %d, want %d", x->file, r.exit_code, x->exit_code);
        json_t *gpus = json_object_get(r.json, "gpus"), *g0 = json_array_get(gpus, 0);
        if ((int)json_array_size(gpus) != x->gpus)
            fail_msg("%s: %zu GPUs, want %d", x->file, json_array_size(gpus), x->gpus);
        json_t *name = json_object_get(g0, "name"); /* null when the capture names no GPU */
        if (x->name[0] ? !json_is_string(name) || strcmp(json_string_value(name), x->name) != 0 : !json_is_null(name))
            fail_msg("%s: name %s", x->file, json_is_string(name) ? json_string_value(name) : "null");
        json_t *drv = json_object_get(r.json, "driver");
        json_t *ver = json_object_get(drv, "version");
        if (x->driver ? !json_is_string(ver) || strcmp(json_string_value(ver), x->driver) != 0 : !json_is_null(ver))
            fail_msg("%s: driver version %s", x->file, json_is_string(ver) ? json_string_value(ver) : "null");
        want_number(x->file, "cuda_driver_version", drv, x->cuda);
        json_t *st = json_object_get(g0, "state");
        want_number(x->file, "temp_c", st, x->temp_c);
        want_reasons(x->file, json_object_get(st, "event_reasons"), x->reasons);
        want_number(x->file, "power_w", st, x->power_w);
        want_number(x->file, "power_limit_w", st, x->limit_w);
        want_number(x->file, "pcie_gen", st, x->gen);
        want_number(x->file, "pcie_width", st, x->width);
        want_number(x->file, "pcie_gen_max", st, x->gen_max);
        want_number(x->file, "pcie_width_max", st, x->width_max);
        want_number(x->file, "mem_used_mib", st, x->mem_used);
        want_number(x->file, "mem_total_mib", st, x->mem_total);
        json_t *w = json_object_get(r.json, "window");
        assert_true(json_is_true(json_object_get(w, "captured")));
        want_problems(x->file, r.json, x->problems);
        tool_result_free(&r);

        r = run_tool((const char *[]){"info", "--json", "--from", realdata(x->file), NULL}, env);
        if (r.exit_code != 0 || !r.json)
            fail_msg("%s: info exit %d; stderr: %s", x->file, r.exit_code, r.err);
        json_t *i0 = json_array_get(json_object_get(r.json, "gpus"), 0);
        want_number(x->file, "ecc_enabled", i0, x->ecc);
        want_number(x->file, "remap_pending", i0, x->remap_pending);
        want_number(x->file, "retired_pages_dbe", i0, x->retired_dbe);
        tool_result_free(&r);
    }
}

/* The whole of a file, NUL-terminated; fails the test when unreadable. */
static char *slurp(const char *path)
{
    FILE *fp = fopen(path, "rb");
    if (!fp)
        fail_msg("cannot read %s", path);
    fseek(fp, 0, SEEK_END);
    long n = ftell(fp);
    rewind(fp);
    char *buf = calloc(1, (size_t)n + 1);
    if (!buf || fread(buf, 1, (size_t)n, fp) != (size_t)n)
        fail_msg("cannot read %s", path);
    fclose(fp);
    return buf;
}

/* text with the first `from` replaced by `to` (a new string). */
static char *replaced(const char *text, const char *from, const char *to)
{
    const char *at = strstr(text, from);
    if (!at)
        fail_msg("'%s' not in the capture", from);
    size_t head = (size_t)(at - text), n = strlen(text) - strlen(from) + strlen(to);
    char *out = malloc(n + 1);
    assert_non_null(out);
    snprintf(out, n + 1, "%.*s%s%s", (int)head, text, to, at + strlen(from));
    return out;
}

/* check --json --from one file written from text; returns the result. */
static tool_result check_text(const char *name, const char *text)
{
    char *dir = temp_dir();
    char *path = write_temp_file(dir, name, text);
    tool_result r = run_tool((const char *[]){"check", "--json", "--from", path, NULL}, env);
    remove_tree(dir);
    free(path);
    free(dir);
    if (!r.json)
        fail_msg("%s: no JSON (exit %d): %s", name, r.exit_code, r.err);
    return r;
}

static void want_state(const char *what, json_t *report, size_t gpu, double gen_max, double gen_max_device)
{
    json_t *st = json_object_get(json_array_get(json_object_get(report, "gpus"), gpu), "state");
    want_number(what, "pcie_gen_max", st, gen_max);
    want_number(what, "pcie_gen_max_device", st, gen_max_device);
}

/* A card faster than its slot, from every format that tells the card's and
 * the slot's maxima apart; the unchanged capture beside it stays quiet. */
static void slot_limits_from_each_format(void **state)
{
    (void)state;
    need_realdata();
    /* nvidia-smi -q: GPU 0 of eight (Max 4, Device Max 4, Host Max 5) moved to a Gen3 host. */
    char *orig = slurp(realdata("smi-text/rtx4090x8-idle-gpud.txt"));
    char *a = replaced(orig, "                Max                       : 4",
                       "                Max                       : 3");
    char *b = replaced(a, "Host Max                  : 5", "Host Max                  : 3");
    tool_result r = check_text("rtx4090x8-gpu0-gen3host.txt", b);
    const char *const text_ids[] = {"pcie.slot_limited@0", NULL};
    assert_exact_findings("text capture, GPU 0 in a Gen3 slot", &r, 1, text_ids);
    want_state("text", r.json, 0, 3, 4);
    want_state("text", r.json, 1, 4, 4);
    tool_result_free(&r);
    free(a);
    free(b);
    free(orig);

    /* --query-gpu CSV: pcie.link.gen.max 3, gpumax 4, hostmax 3. */
    orig = slurp(realdata("smi-csv/l40s-load-query-gpu-utku.csv"));
    a = replaced(orig, ", 4, 4, 4, 4, [N/A], 16, 16,", ", 3, 3, 3, 4, 3, 16, 16,");
    r = check_text("l40s-gen3host.csv", a);
    assert_int_equal(count_findings(r.json, "pcie.slot_limited", 0), 1);
    assert_int_equal(count_findings(r.json, "pcie.link_downgraded", -2), 0); /* Gen3 is what the slot allows */
    want_state("csv", r.json, 0, 3, 4);
    tool_result_free(&r);
    free(a);
    r = check_text("l40s.csv", orig);
    assert_int_equal(count_findings(r.json, "pcie.slot_limited", -2), 0);
    want_state("csv", r.json, 0, 4, 4);
    tool_result_free(&r);
    free(orig);
}

/* lspci -vv alone: the NVIDIA devices are the GPUs, judged by their LnkCap
 * against the port above's; a low LnkSta is not judged without load. */
static const char lspci_slot[] =
    "00:03.0 PCI bridge: Intel Corporation Device 2030 (rev 04) (prog-if 00 [Normal decode])\n"
    "\tBus: primary=00, secondary=02, subordinate=02, sec-latency=0\n"
    "\tCapabilities: [90] Express (v2) Root Port (Slot+), MSI 00\n"
    "\t\tLnkCap:\tPort #5, Speed PORTSPEED, Width x16, ASPM L1, Exit Latency L1 <16us\n"
    "\t\tLnkSta:\tSpeed 8GT/s (ok), Width x16 (ok)\n"
    "02:00.0 3D controller: NVIDIA Corporation GA100 [A100 PCIe 80GB] (rev a1)\n"
    "\tCapabilities: [68] Express (v2) Endpoint, MSI 00\n"
    "\t\tLnkCap:\tPort #0, Speed 16GT/s, Width x16, ASPM not supported\n"
    "\t\tLnkSta:\tSpeed 8GT/s (downgraded), Width GPUWIDTH (ok)\n";

/* Whether libpci and its database are here to name GPUs by their id. */
static bool pci_ids_installed(void)
{
    void *h = dlopen("libpci.so.3", RTLD_NOW | RTLD_LOCAL);
    if (h)
        dlclose(h);
    return h && access("/usr/share/misc/pci.ids", R_OK) == 0;
}

static void lspci_alone_judges_its_gpus(void **state)
{
    (void)state;
    char *a = replaced(lspci_slot, "PORTSPEED", "8GT/s"), *b = replaced(a, "GPUWIDTH", "x16");
    tool_result r = check_text("lspci-gen3-slot.txt", b);
    const char *const slot[] = {"pcie.slot_limited@0", NULL};
    assert_exact_findings("lspci, a Gen4 GPU under a Gen3 root port", &r, 1, slot);
    json_t *g0 = json_array_get(json_object_get(r.json, "gpus"), 0);
    assert_string_equal(json_string_value(json_object_get(g0, "name")), "NVIDIA A100 PCIe 80GB (GA100)");
    assert_string_equal(json_string_value(json_object_get(g0, "pci_bus_id")), "00000000:02:00.0");
    want_state("lspci", r.json, 0, 3, 4);
    tool_result_free(&r);
    free(a);
    free(b);
    /* The same GPU under a Gen4 port at Gen3 x8: load unknown, so the speed is
     * not judged but said; the width, which idle links keep, is said as info. */
    a = replaced(lspci_slot, "PORTSPEED", "16GT/s");
    b = replaced(a, "GPUWIDTH", "x8");
    r = check_text("lspci-gen4-slot.txt", b);
    const char *const none[] = {NULL}, *const narrow[] = {"pcie.width_reduced@0", NULL};
    assert_exact_findings("lspci, a Gen4 GPU under a Gen4 root port", &r, 0, narrow);
    char *skips = json_dumps(json_object_get(r.json, "not_checked"), 0);
    assert_non_null(strstr(skips, "Gen3 x8 of Gen4 x16, but its load is unknown"));
    assert_non_null(strstr(skips, "load unknown"));
    free(skips);
    tool_result_free(&r);
    free(a);
    free(b);

    need_realdata();
    /* Names: the PCI id database's model where lspci gives the device id
     * ("Device 2330", or lspci -x's dump), lspci's words otherwise; never
     * the vendor's "Corporation"; the id kept. */
    bool db = pci_ids_installed();
    static const struct {
        const char *file;
        size_t gpus;
        const char *name0, *id, *model; /* model: in the name where the database is installed */
        int exit_code; /* lspci -v -xxx decodes no link: nothing judged, 3 */
    } real_ones[] = {
        {"lspci/h100x8-dell-lspci-vvv-gpud.txt", 8, NULL, "(GH100, 10de:2330)", "NVIDIA H100", 0},
        {"lspci/p100x2-dell-lspci-vvv-cmlgpu.txt", 2, "NVIDIA Tesla P100 PCIe 12GB (GP100GL)", NULL, NULL, 0},
        {"lspci/grid-k520-aws-g2-xen-lspci-vvv.txt", 1, "NVIDIA GRID K520 (GK104GL)", NULL, NULL, 0},
        {"lspci/rtx2080ti-x4-lspci-v-xxx-hexdump-bugreport-toolman.txt", 4, NULL, "10de:1e07)", "RTX 2080 Ti", 3},
    };
    for (size_t i = 0; i < sizeof real_ones / sizeof real_ones[0]; i++) {
        r = run_tool((const char *[]){"check", "--json", "--from", realdata(real_ones[i].file), NULL}, env);
        assert_exact_findings(real_ones[i].file, &r, real_ones[i].exit_code, none);
        json_t *gpus = json_object_get(r.json, "gpus");
        assert_int_equal(json_array_size(gpus), real_ones[i].gpus);
        const char *name = json_string_value(json_object_get(json_array_get(gpus, 0), "name"));
        if (real_ones[i].name0)
            assert_string_equal(name, real_ones[i].name0);
        if (strstr(name, "Corporation") || (real_ones[i].id && !strstr(name, db ? real_ones[i].id : "10de:")) ||
            (db && real_ones[i].model && !strstr(name, real_ones[i].model)))
            fail_msg("%s: GPU 0 named '%s' (PCI id database %s)", real_ones[i].file, name, db ? "installed" : "absent");
        tool_result_free(&r);
    }
    /* The K520 (a Xen guest, no port above) reads Gen1 of Gen3: said, not judged. */
    r = run_tool(
        (const char *[]){"check", "--json", "--from", realdata("lspci/grid-k520-aws-g2-xen-lspci-vvv.txt"), NULL}, env);
    skips = json_dumps(json_object_get(r.json, "not_checked"), 0);
    assert_non_null(strstr(skips, "Gen1 x16 of Gen3 x16, but its load is unknown"));
    free(skips);
    tool_result_free(&r);
}

/* A -q dump is one instant: said so, and titles speak of capture time. */
static void snapshot_says_what_it_cannot_show(void **state)
{
    (void)state;
    need_realdata();
    tool_result r = run_tool((const char *[]){"check", "--json", "--from",
                                              realdata("smi-text/h100x8-one-gpu-swcap-brake-swthermal-gpud.txt"), NULL},
                             env);
    assert_non_null(r.json);
    assert_int_equal(count_findings(r.json, "power.brake", 2), 1);
    assert_int_equal(count_findings(r.json, "power.brake", -2), 1);
    /* GPU 2's brake flag is set while its SM clock is at its 1980 MHz maximum
     * and HW Slowdown reads Not Active: a flag the clocks contradict. */
    json_t *x = json_array_get(json_object_get(r.json, "findings"), 0);
    assert_non_null(strstr(json_string_value(json_object_get(x, "title")), "flag set, clocks not reduced"));
    assert_string_equal(json_string_value(json_object_get(x, "severity")), "info");
    assert_int_equal(r.exit_code, 0);
    assert_null(json_object_get(x, "timeline")); /* one sample has no timeline */
    char *skips = json_dumps(json_object_get(r.json, "not_checked"), 0);
    assert_non_null(strstr(skips, "one snapshot"));
    assert_non_null(strstr(skips, "idle when captured"));
    free(skips);
    tool_result_free(&r);
    r = run_tool((const char *[]){"check", "--json", "--from",
                                  realdata("smi-text/h100x8-hw-slowdown-power-brake-gpud.txt"), NULL},
                 env);
    assert_int_equal(count_findings(r.json, "power.brake", -2), 8);
    /* Braked in P0 at 86 MHz: the clock leads, and all eight at once is the chassis. */
    x = json_array_get(json_object_get(r.json, "findings"), 0);
    assert_non_null(strstr(json_string_value(json_object_get(x, "title")), "at SM 86 of 1980 MHz in P0"));
    assert_non_null(strstr(json_string_value(json_object_get(x, "title")), "at capture time"));
    assert_non_null(strstr(json_string_value(json_object_get(x, "fix")), "chassis or power supply signal"));
    tool_result_free(&r);
}

/* One cause on eight GPUs is one block in the text report, with a per-GPU
 * table; JSON keeps one finding per GPU. */
static void one_cause_is_one_text_block(void **state)
{
    (void)state;
    need_realdata();
    tool_result r = run_tool(
        (const char *[]){"check", "--from", realdata("smi-text/h100x8-hw-slowdown-power-brake-gpud.txt"), NULL}, env);
    size_t blocks = 0;
    for (const char *p = r.out; (p = strstr(p, "  power.brake\n")); p++)
        blocks++;
    assert_int_equal(blocks, 1);
    assert_non_null(strstr(r.out, "GPUs 0-7  power.brake"));
    assert_non_null(strstr(r.out, "8 GPUs (0-7): held by the hardware power brake at SM 86 of 1980 MHz"));
    assert_non_null(strstr(r.out, "per GPU"));
    const char *fix = strstr(r.out, "chassis or power supply signal");
    assert_non_null(fix);
    assert_null(strstr(fix + 1, "chassis or power supply signal")); /* one fix, not eight */
    tool_result_free(&r);
}

/* The performance state reads as its number in every format ("P8" -> 8). */
static void performance_state_is_read(void **state)
{
    (void)state;
    need_realdata();
    static const struct {
        const char *file;
        int pstate;
    } want[] = {{"smi-xml/rtx4090-gen3host-netdata.xml", 8},
                {"smi-text/h100x8-hw-slowdown-power-brake-gpud.txt", 0},
                {"smi-csv/tesla-p100-query-gpu-netdata.csv", 0}};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        tool_result r = run_tool((const char *[]){"info", "--json", "--from", realdata(want[i].file), NULL}, env);
        assert_non_null(r.json);
        json_t *st = json_object_get(json_array_get(json_object_get(r.json, "gpus"), 0), "state");
        json_t *ps = json_object_get(st, "pstate");
        if (!json_is_integer(ps) || json_integer_value(ps) != want[i].pstate)
            fail_msg("%s: pstate is not %d", want[i].file, want[i].pstate);
        tool_result_free(&r);
    }
}

/* A -q dump and a dmon log of one machine: one GPU, the log's time axis. */
static void files_of_one_machine_merge(void **state)
{
    (void)state;
    need_realdata();
    char dump[1024];
    snprintf(dump, sizeof dump, "%s", realdata("smi-text/h200-mig-load-utku.txt"));
    tool_result r = run_tool((const char *[]){"check", "--json", "--from", dump, "--from",
                                              realdata("smi-csv/h200-mig-load-dmon-utku.txt"), NULL},
                             env);
    assert_non_null(r.json);
    json_t *gpus = json_object_get(r.json, "gpus"), *st = json_object_get(json_array_get(gpus, 0), "state");
    assert_int_equal(json_array_size(gpus), 1);
    assert_string_equal(json_string_value(json_object_get(json_array_get(gpus, 0), "name")), "NVIDIA H200");
    want_number("merge", "power_w", st, 294); /* the log's last line */
    want_number("merge", "mem_used_mib", st, 16959); /* the dump, where dmon had no fb column */
    want_number("merge", "samples", json_object_get(r.json, "window"), 5);
    tool_result_free(&r);
}

/* The source of a finding of a capture names the file and its fields; no
 * capture's report cites an NVML call, since none was made. */
static void captured_evidence_cites_file_and_field(void **state)
{
    (void)state;
    need_realdata();
    static const struct {
        const char *file, *id, *source;
    } want[] = {
        {"smi-xml/rtx3090-powerlimit-200w-telegraf.xml", "power.limit_lowered",
         "capture:rtx3090-powerlimit-200w-telegraf.xml:<enforced_power_limit>,<power_limit>,<default_power_limit>"},
        {"smi-xml/v100-sxm3-dbe-retired-pending-pai.xml", "health.ecc_uncorrectable",
         "capture:v100-sxm3-dbe-retired-pending-pai.xml:<volatile/double_bit/total>,<aggregate/double_bit/total>"},
        {"smi-xml/gtx1070-x1-riser-load-trimmed-pai.xml", "pcie.link_downgraded",
         "capture:gtx1070-x1-riser-load-trimmed-pai.xml:<current_link_gen>,<current_link_width>; maxima: "
         "capture:gtx1070-x1-riser-load-trimmed-pai.xml:<max_link_gen>,<max_device_link_gen>,<max_host_link_gen>,"
         "<max_link_width>"},
        {"smi-text/h100x8-hw-slowdown-power-brake-gpud.txt", "power.brake",
         "capture:h100x8-hw-slowdown-power-brake-gpud.txt:<Clocks Event Reasons/HW Slowdown/HW Power Brake Slowdown>,"
         "<Clocks/SM>,<Max Clocks/SM>,<Max Clocks/Memory>,<Performance State>"},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        tool_result r = run_tool((const char *[]){"check", "--json", "--from", realdata(want[i].file), NULL}, env);
        assert_non_null(r.json);
        size_t k;
        json_t *x, *hit = NULL;
        json_array_foreach(json_object_get(r.json, "findings"), k,
                           x) if (!hit && strcmp(json_string_value(json_object_get(x, "id")), want[i].id) == 0) hit = x;
        if (!hit)
            fail_msg("%s: no %s", want[i].file, want[i].id);
        const char *src = json_string_value(json_object_get(json_object_get(hit, "evidence"), "source"));
        if (!src || strcmp(src, want[i].source) != 0)
            fail_msg("%s: %s cites '%s', want '%s'", want[i].file, want[i].id, src ? src : "(none)", want[i].source);
        tool_result_free(&r);
    }
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        tool_result r = run_tool((const char *[]){"check", "--json", "--from", realdata(cases[c].file), NULL}, env);
        if (strstr(r.out, "nvml:"))
            fail_msg("%s: the report of a capture cites NVML: %s", cases[c].file, strstr(r.out, "nvml:"));
        tool_result_free(&r);
    }
}

/* A simulated run reads through (simulated) NVML and still says so. */
static void simulated_runs_cite_nvml(void **state)
{
    (void)state;
    tool_result r = run_tool((const char *[]){"check", "--json", "--duration", "5", "--sim",
                                              example("h100x8-power-limit-lowered.json"), NULL},
                             env);
    assert_non_null(r.json);
    size_t k;
    json_t *x;
    int seen = 0;
    json_array_foreach(json_object_get(r.json, "findings"), k, x)
    {
        if (strcmp(json_string_value(json_object_get(x, "id")), "power.limit_lowered") != 0)
            continue;
        seen++;
        assert_string_equal(json_string_value(json_object_get(json_object_get(x, "evidence"), "source")),
                            "nvml:nvmlDeviceGetEnforcedPowerLimit,nvmlDeviceGetPowerManagementLimit,"
                            "nvmlDeviceGetPowerManagementDefaultLimit");
    }
    assert_true(seen > 0);
    assert_null(strstr(r.out, "capture:"));
    tool_result_free(&r);
}

/* Files of two machines are refused (exit 3) with both names and what
 * differs; two samples of one machine still merge. */
static void captures_of_different_machines_are_refused(void **state)
{
    (void)state;
    need_realdata();
    static const struct {
        const char *a, *b, *says;
    } pairs[] = {
        {"smi-xml/rtx3090-powerlimit-200w-telegraf.xml", "smi-xml/tesla-t4-aws-x8-telegraf.xml",
         "driver 525.147.05 and driver 515.105.01"},
        /* same driver and the same bus id on two cloud VMs: the UUIDs differ */
        {"smi-xml/a10g-aws-x8-idle-telegraf.xml", "smi-xml/tesla-t4-aws-x8-telegraf.xml",
         "bus id 00000000:00:1E.0 is GPU-"},
        /* same driver, other bus ids: GPU 0 is another board */
        {"smi-xml/dual-rtx-a5000-telegraf.xml", "smi-xml/dual-rtx2070-x8-telegraf.xml",
         "GPU index 0 is 'NVIDIA RTX A5000'"},
    };
    for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
        char a[1024];
        snprintf(a, sizeof a, "%s", realdata(pairs[i].a));
        tool_result r =
            run_tool((const char *[]){"check", "--json", "--from", a, "--from", realdata(pairs[i].b), NULL}, env);
        const char *base_a = strrchr(pairs[i].a, '/') + 1, *base_b = strrchr(pairs[i].b, '/') + 1;
        if (r.exit_code != 3 || !strstr(r.err, pairs[i].says) || !strstr(r.err, base_a) || !strstr(r.err, base_b) ||
            !strstr(r.err, "different machines"))
            fail_msg("%s + %s: exit %d, stderr '%s' (want 3, both names and '%s')", base_a, base_b, r.exit_code, r.err,
                     pairs[i].says);
        tool_result_free(&r);
    }
    /* Two samples of one machine. */
    char a[1024];
    snprintf(a, sizeof a, "%s", realdata("smi-xml/tesla-t4-aws-x8-telegraf.xml"));
    tool_result r = run_tool((const char *[]){"check", "--json", "--from", a, "--from", a, NULL}, env);
    if (r.exit_code != 0 || !r.json)
        fail_msg("one machine twice: exit %d, %s", r.exit_code, r.err);
    assert_int_equal(json_array_size(json_object_get(r.json, "gpus")), 1);
    assert_string_equal(json_string_value(json_object_get(json_object_get(r.json, "driver"), "version")), "515.105.01");
    tool_result_free(&r);
}

/* Host names differ: two machines, however alike; the same name merges. */
static void captures_of_two_hosts_are_refused(void **state)
{
    (void)state;
    char *dir = temp_dir();
    char *a = write_temp_file(dir, "node-a.csv", "hostname, index, name, temperature.gpu\nnode-a, 0, Tesla T4, 40\n");
    char *b = write_temp_file(dir, "node-b.csv", "hostname, index, name, temperature.gpu\nnode-b, 0, Tesla T4, 41\n");
    char *a2 =
        write_temp_file(dir, "node-a-later.csv", "hostname, index, name, temperature.gpu\nnode-a, 0, Tesla T4, 42\n");
    tool_result r = run_tool((const char *[]){"check", "--json", "--from", a, "--from", b, NULL}, env);
    if (r.exit_code != 3 || !strstr(r.err, "host 'node-a' and host 'node-b'") || !strstr(r.err, "node-a.csv") ||
        !strstr(r.err, "node-b.csv"))
        fail_msg("two hosts: exit %d, stderr '%s'", r.exit_code, r.err);
    tool_result_free(&r);
    r = run_tool((const char *[]){"check", "--json", "--from", a, "--from", a2, NULL}, env);
    if (r.exit_code == 3 || !r.json)
        fail_msg("one host twice: exit %d, %s", r.exit_code, r.err);
    assert_int_equal(json_array_size(json_object_get(r.json, "gpus")), 1);
    tool_result_free(&r);
    free(a);
    free(b);
    free(a2);
    remove_tree(dir);
    free(dir);
}

/* lspci of another machine: its GPUs are not tied to the nvidia-smi GPUs
 * (no finding, no link of theirs judged), and both check and topo say so;
 * lspci of the same machine maps every GPU by bus id. */
static void lspci_maps_by_bus_id_only(void **state)
{
    (void)state;
    need_realdata();
    char smi[1024];
    snprintf(smi, sizeof smi, "%s", realdata("smi-xml/tesla-p100-gcp-sbe-netdata.xml")); /* bus 00:04.0 */
    const char *lspci = realdata("lspci/p100x2-dell-lspci-vvv-cmlgpu.txt"); /* 04:00.0, 82:00.0 */
    tool_result r = run_tool((const char *[]){"check", "--json", "--from", smi, "--from", lspci, NULL}, env);
    assert_non_null(r.json);
    char *skips = json_dumps(json_object_get(r.json, "not_checked"), 0);
    assert_non_null(strstr(skips, "0000:04:00.0, 0000:82:00.0 that the nvidia-smi capture does not"));
    free(skips);
    tool_result_free(&r);
    r = run_tool((const char *[]){"topo", "--json", "--from", smi, "--from", lspci, NULL}, env);
    assert_int_equal(r.exit_code, 0);
    json_t *g;
    size_t i;
    json_array_foreach(json_object_get(r.json, "gpus"), i, g) assert_true(json_is_false(json_object_get(g, "matched")));
    tool_result_free(&r);

    snprintf(smi, sizeof smi, "%s", realdata("smi-text/h100x8-hw-slowdown-power-brake-gpud.txt"));
    lspci = realdata("lspci/h100x8-dell-lspci-vvv-gpud.txt");
    r = run_tool((const char *[]){"topo", "--json", "--from", smi, "--from", lspci, NULL}, env);
    assert_int_equal(r.exit_code, 0);
    assert_int_equal(json_array_size(json_object_get(r.json, "gpus")), 8);
    json_array_foreach(json_object_get(r.json, "gpus"), i, g) assert_true(json_is_true(json_object_get(g, "matched")));
    assert_string_equal(
        json_string_value(json_object_get(json_array_get(json_object_get(r.json, "gpus"), 4), "pci_bus_id")),
        "0000:9b:00.0");
    tool_result_free(&r);
    r = run_tool((const char *[]){"check", "--json", "--from", smi, "--from", lspci, NULL}, env);
    skips = json_dumps(json_object_get(r.json, "not_checked"), 0);
    assert_null(strstr(skips, "does not: not the same machine"));
    free(skips);
    tool_result_free(&r);
    /* topo reads captures by content too: an nvidia-smi dump alone has no tree. */
    r = run_tool((const char *[]){"topo", "--from", smi, NULL}, env);
    assert_int_equal(r.exit_code, 3);
    assert_non_null(strstr(r.err, "neither 'nvidia-smi topo -m' nor 'lspci -vv'"));
    tool_result_free(&r);
}

/* Captures saved on Windows: a UTF-8 byte order mark and CRLF line ends. */
static void bom_and_crlf_captures_read(void **state)
{
    (void)state;
    char *dir = temp_dir();
    char *dmon = write_temp_file(
        dir, "dmon.txt",
        "\xef\xbb\xbf# gpu    pwr  gtemp  mtemp     sm    mem\r\n# Idx      W      C      C      %      %\r\n"
        "    0    631     63     57    100     10\r\n    0    634     64     58    100     10\r\n");
    tool_result r = run_tool((const char *[]){"check", "--json", "--from", dmon, NULL}, env);
    if (!r.json)
        fail_msg("dmon with BOM: exit %d, %s", r.exit_code, r.err);
    want_number("dmon with BOM", "temp_c", json_object_get(json_array_get(json_object_get(r.json, "gpus"), 0), "state"),
                64);
    tool_result_free(&r);
    char *topo = write_temp_file(dir, "topo.txt",
                                 "\xef\xbb\xbf\tGPU0\tGPU1\tCPU Affinity\tNUMA Affinity\r\n"
                                 "GPU0\t X \tNV12\t0-23\t0\r\nGPU1\tNV12\t X \t0-23\t0\r\n");
    r = run_tool((const char *[]){"topo", "--json", "--from", topo, NULL}, env);
    if (r.exit_code != 0 || !r.json)
        fail_msg("topo with BOM: exit %d, %s", r.exit_code, r.err);
    assert_string_equal(json_string_value(json_array_get(json_array_get(json_object_get(r.json, "matrix"), 0), 1)),
                        "NV12");
    tool_result_free(&r);
    free(dmon);
    free(topo);
    remove_tree(dir);
    free(dir);
}

static void bad_inputs_exit_3_with_a_message(void **state)
{
    (void)state;
    char *dir = temp_dir();
    static const struct {
        const char *name, *content, *says;
    } bad[] = {
        {"laughs.xml",
         "<?xml version=\"1.0\"?><!DOCTYPE nvidia_smi_log [<!ENTITY a \"aaaaaaaaaa\"><!ENTITY b \"&a;&a;&a;&a;&a;\">"
         "<!ENTITY c \"&b;&b;&b;&b;&b;&b;\">]><nvidia_smi_log><driver_version>&c;</driver_version></nvidia_smi_log>",
         "entities"},
        {"xxe.xml",
         "<?xml version=\"1.0\"?><!DOCTYPE nvidia_smi_log [<!ENTITY x SYSTEM \"file:///etc/passwd\">]>"
         "<nvidia_smi_log><driver_version>&x;</driver_version></nvidia_smi_log>",
         "entities"},
        {"cut.xml", "<?xml version=\"1.0\"?>\n<nvidia_smi_log>\n<gpu id=\"00000000:01:00.0\">\n<product_name>T",
         "truncated"},
        {"huge.txt",
         "==============NVSMI LOG==============\nGPU 00000000:01:00.0\n    FB Memory Usage\n        Total : "
         "123456789012345678901234567890 MiB\n",
         "out of range"},
        {"garbage.bin",
         "\x7f"
         "ELF\x02\x01\x01\x03\xff\xfe\x10\x11",
         "binary data"},
        {"notes.txt", "the GPU is slow, please help\n", "nvidia-smi -q -x"},
        {"cut.csv", "name, temperature.gpu, power.draw [W]\nTesla T4, 40, 20 W\nTesla", "fields where the header"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char *path = write_temp_file(dir, bad[i].name, bad[i].content);
        tool_result r = run_tool((const char *[]){"check", "--from", path, NULL}, env);
        if (r.exit_code != 3 || !strstr(r.err, bad[i].says))
            fail_msg("%s: exit %d, stderr '%s' (want 3 and '%s')", bad[i].name, r.exit_code, r.err, bad[i].says);
        tool_result_free(&r);
        free(path);
    }
    tool_result r = run_tool((const char *[]){"info", "--from", "/nonexistent/capture.xml", NULL}, env);
    assert_int_equal(r.exit_code, 3);
    tool_result_free(&r);
    remove_tree(dir);
    free(dir);
}

/* MIG query-gpu CSV has no utilisation: a GPU drawing 434 of 700 W is
 * under load (power decides, and the report says so); one idle MIG dump
 * at 71 W stays idle. */
static void mig_load_judged_by_power(void **state)
{
    (void)state;
    need_realdata();
    static const struct {
        const char *file;
        int loaded_pct;
        const char *says;
    } caps[] = {{"smi-csv/h100-mig-load-query-gpu-utku.csv", 100, "under load in 1 of 1"},
                {"smi-text/h200-mig-load-utku.txt", 100, "under load in 1 of 1"},
                {"smi-text/h100-mig-4-instances-idle-utku.txt", 0, "idle in 1 of 1"}};
    for (size_t c = 0; c < sizeof caps / sizeof caps[0]; c++) {
        tool_result r = run_tool((const char *[]){"check", "--json", "--from", realdata(caps[c].file), NULL}, NULL);
        if (!r.json)
            fail_msg("%s: exit %d: %s", caps[c].file, r.exit_code, r.err);
        json_t *w = json_object_get(json_array_get(json_object_get(r.json, "gpus"), 0), "window");
        if (json_integer_value(json_object_get(w, "loaded_pct")) != caps[c].loaded_pct)
            fail_msg("%s: loaded_pct %lld, want %d", caps[c].file,
                     (long long)json_integer_value(json_object_get(w, "loaded_pct")), caps[c].loaded_pct);
        if (!strstr(r.out, "judged by its power draw") || !strstr(r.out, caps[c].says))
            fail_msg("%s: the report does not say that the power draw decided (%s)", caps[c].file, caps[c].says);
        tool_result_free(&r);
    }
}

/* What a verdict judged: an lspci capture alone judges PCIe links only, a
 * kernel log alone the GPUs' own word on their state (Xids, a GPU lost:
 * clean, exit 0); a topology matrix or an lspci hex dump without decoded
 * links none of it (exit 3). */
static void verdicts_say_what_was_judged(void **state)
{
    (void)state;
    need_realdata();
    static const char *const env_nc[] = {"NO_COLOR=", "COLUMNS=200", NULL};
    tool_result r =
        run_tool((const char *[]){"check", "--from", realdata("lspci/h100x8-dell-lspci-vvv-gpud.txt"), NULL}, env_nc);
    assert_int_equal(r.exit_code, 0);
    if (!strstr(r.out, "Verdict: OK on what could be judged: PCIe links of 8 GPUs\n") ||
        !strstr(r.out, "(not in this capture)"))
        fail_msg("lspci alone: %s", r.out);
    tool_result_free(&r);
    /* --details: each group that judged nothing says so, never "ok". */
    r = run_tool(
        (const char *[]){"check", "--details", "--from", realdata("lspci/h100x8-dell-lspci-vvv-gpud.txt"), NULL},
        env_nc);
    static const char *const not_ok[] = {"thermal", "power", "clocks"};
    for (size_t k = 0; k < sizeof not_ok / sizeof not_ok[0]; k++) {
        char line[64];
        snprintf(line, sizeof line, "\n    %-15s not judged", not_ok[k]);
        if (!strstr(r.out, line))
            fail_msg("lspci alone: group %s is not 'not judged':\n%s", not_ok[k], r.out);
    }
    /* A capture holds no job: never "no --pid" on one. */
    if (strstr(r.out, "no --pid") || !strstr(r.out, "job             not applicable"))
        fail_msg("lspci alone: the job's checks said of a capture:\n%s", r.out);
    tool_result_free(&r);
    r = run_tool((const char *[]){"check", "--json", "--from", realdata("lspci/h100x8-dell-lspci-vvv-gpud.txt"), NULL},
                 env_nc);
    size_t i;
    json_t *g;
    json_array_foreach(json_object_get(r.json, "checked"), i, g)
    {
        const char *name = json_string_value(json_object_get(g, "group"));
        bool judged = json_is_true(json_object_get(g, "judged"));
        if ((strcmp(name, "thermal") == 0 && judged) || (strcmp(name, "pcie") == 0 && !judged))
            fail_msg("lspci alone: checked group %s judged=%d", name, judged);
    }
    tool_result_free(&r);
    r = run_tool(
        (const char *[]){"check", "--from", realdata("logs/peermem-noise-journalctl-short-iso-gpud.log"), NULL},
        env_nc);
    if (r.exit_code != 0 ||
        !strstr(r.out, "Verdict: OK on what could be judged: the kernel log (47 lines, no Xid, no lost GPU)\n"))
        fail_msg("a clean kernel log alone: exit %d, out %s, err %s", r.exit_code, r.out, r.err);
    tool_result_free(&r);
    static const char *const none[] = {"topo/p5-8xh100-nv18-gnosia93.txt",
                                       "lspci/rtx2080ti-x4-lspci-v-xxx-hexdump-bugreport-toolman.txt"};
    for (size_t k = 0; k < sizeof none / sizeof none[0]; k++) {
        r = run_tool((const char *[]){"check", "--from", realdata(none[k]), NULL}, env_nc);
        if (r.exit_code != 3 || !strstr(r.out, "Verdict: NOT CHECKED - nothing of the GPUs' own state") ||
            !strstr(r.err, "exit 3") || strstr(r.out, "no problem found"))
            fail_msg("%s: exit %d, out %s, err %s", none[k], r.exit_code, r.out, r.err);
        tool_result_free(&r);
        /* --fail-on critical does not turn "not looked at" into "healthy" either. */
        r = run_tool((const char *[]){"check", "--fail-on", "critical", "--from", realdata(none[k]), NULL}, env_nc);
        assert_int_equal(r.exit_code, 3);
        tool_result_free(&r);
    }
}

/* The first finding of the JSON report `r` with this id, or NULL. */
static json_t *finding_of(const tool_result *r, const char *id)
{
    size_t i;
    json_t *x;
    json_array_foreach(json_object_get(r->json, "findings"), i, x)
    {
        if (strcmp(json_string_value(json_object_get(x, "id")), id) == 0)
            return x;
    }
    return NULL;
}

/* One --from file that cannot be read does not void the others: they are
 * judged, the file is named with its line and what stood there, and the
 * exit code says both: a critical finding stands (2), otherwise 3. */
static void a_file_not_read_leaves_the_others(void **state)
{
    (void)state;
    need_realdata();
    char *dir = temp_dir();
    char *notes = write_temp_file(dir, "notes.txt", "$ cat notes.txt\nthe GPU is slow, please help\n");
    char *cut = write_temp_file(dir, "cut.csv", "name, temperature.gpu, power.draw [W]\nTesla T4, 40, 20 W\nTesla");
    tool_result r = run_tool((const char *[]){"check", "--json", "--from", notes, "--from",
                                              realdata("logs/xid79-fallen-off-bus-dmesg-T-prompt-akash209.log"), NULL},
                             env);
    json_t *xid = finding_of(&r, "health.xid");
    const char *refused =
        json_string_value(json_array_get(json_object_get(json_object_get(r.json, "window"), "refused"), 0));
    if (r.exit_code != 2 || !xid || strcmp(json_string_value(json_object_get(xid, "severity")), "critical") != 0 ||
        !refused || !strstr(refused, "notes.txt:2: 'the GPU is slow, please help' begins none of the formats"))
        fail_msg("critical beside a file not read: exit %d, refused %s, out %.600s", r.exit_code, refused, r.out);
    tool_result_free(&r);
    r = run_tool((const char *[]){"check", "--from", cut, "--from",
                                  realdata("logs/a100-xid63-row-remapper-bare-nvrm-line-stas00.log"), NULL},
                 env);
    if (r.exit_code != 3 || !strstr(r.out, "Verdict: WARNING") || !strstr(r.out, "health.xid") ||
        !strstr(r.out, "Not read: ") || !strstr(r.out, "cut.csv:3: 1 fields where the header has 3") ||
        !strstr(r.err, "not read: ") || !strstr(r.err, "exit 3 (could not check), not 1"))
        fail_msg("a warning beside a file not read: exit %d, out %.800s, err %s", r.exit_code, r.out, r.err);
    tool_result_free(&r);
    /* Nothing read at all: the error names each file. */
    r = run_tool((const char *[]){"check", "--from", cut, "--from", notes, NULL}, env);
    if (r.exit_code != 3 || !strstr(r.err, "cut.csv:3:") || !strstr(r.err, "notes.txt:2:") ||
        !strstr(r.err, "nvidia-smi topo -m  GPU0"))
        fail_msg("no file read: exit %d, err %s", r.exit_code, r.err);
    tool_result_free(&r);
    free(notes);
    free(cut);
    remove_tree(dir);
    free(dir);
}

/* The file's text with every `from` replaced by `to` (caller frees). */
static char *edited(const char *path, const char *from, const char *to)
{
    FILE *fp = fopen(path, "rb");
    assert_non_null(fp);
    static char buf[1 << 17];
    size_t n = fread(buf, 1, sizeof buf - 1, fp);
    fclose(fp);
    buf[n] = '\0';
    char *out = malloc(2 * n + 1024);
    assert_non_null(out);
    size_t used = 0;
    for (const char *p = buf;;) {
        const char *q = strstr(p, from);
        if (!q) {
            strcpy(out + used, p);
            break;
        }
        memcpy(out + used, p, (size_t)(q - p));
        used += (size_t)(q - p);
        memcpy(out + used, to, strlen(to));
        used += strlen(to);
        p = q + strlen(from);
    }
    return out;
}

/* Driver 610's -q layout: limits under "GPU Ceiling Power Limit" are read
 * (a lowered one is found); a section no driver so far printed is skipped
 * and its values are "not reported", never taken for another's; the KMD
 * Version stands in for a driver version line that is gone. */
static void driver_610_layout_and_the_next_one(void **state)
{
    (void)state;
    need_realdata();
    const char *src = realdata("smi-text/rtx2080super-610-deprecated-driver-field-nvenc-load-utku.txt");
    char *dir = temp_dir();
    char *lowered = edited(src, "            Current Power Limit                        : 250.00 W",
                           "            Current Power Limit                        : 150.00 W");
    char *path = write_temp_file(dir, "lowered.txt", lowered);
    tool_result r = run_tool((const char *[]){"check", "--json", "--from", path, NULL}, NULL);
    if (!r.json || count_findings(r.json, "power.limit_lowered", 0) != 1)
        fail_msg("610 with a lowered limit: no power.limit_lowered (exit %d): %s", r.exit_code, r.out);
    tool_result_free(&r);
    free(path);
    char *moved = edited(src, "GPU Ceiling Power Limit", "GPU Future Power Envelope");
    char *next = edited(src, "Driver Version                                         : 610.57.04", "Xyz : 1");
    path = write_temp_file(dir, "moved.txt", moved);
    r = run_tool((const char *[]){"info", "--json", "--from", path, NULL}, NULL);
    json_t *g = json_array_get(json_object_get(r.json, "gpus"), 0);
    if (!json_is_null(json_object_get(g, "power_limit_w")) ||
        !json_is_null(json_object_get(g, "power_limit_default_w")))
        fail_msg("an unknown section's limits were taken: %s", r.out);
    tool_result_free(&r);
    r = run_tool((const char *[]){"info", "--details", "--from", path, NULL},
                 (const char *[]){"NO_COLOR=", "COLUMNS=200", NULL});
    if (!strstr(r.out, "not reported"))
        fail_msg("a value the dump lacks is not 'not reported': %s", r.out);
    tool_result_free(&r);
    r = run_tool((const char *[]){"check", "--json", "--from", path, NULL}, NULL);
    assert_int_equal(count_findings(r.json, "power.limit_lowered", -2), 0);
    tool_result_free(&r);
    free(path);
    path = write_temp_file(dir, "next.txt", next);
    r = run_tool((const char *[]){"info", "--json", "--from", path, NULL}, NULL);
    json_t *drv = json_object_get(r.json, "driver");
    assert_string_equal(json_string_value(json_object_get(drv, "version")), "610.57.04");
    assert_int_equal(json_integer_value(json_object_get(drv, "cuda_driver_version")), 13030);
    tool_result_free(&r);
    free(path);
    free(lowered);
    free(moved);
    free(next);
    remove_tree(dir);
    free(dir);
}

/* GH200 with NVLink-C2C: its Gen4 x1 PCIe link is not judged as the host path, and the report says so. */
static void grace_hopper_c2c_link_not_judged(void **state)
{
    (void)state;
    need_realdata();
    tool_result r = run_tool((const char *[]){"check", "--json", "--from",
                                              realdata("smi-text/gh200-c2c-pcie-gen4-x1-idle-princeton.txt"), NULL},
                             NULL);
    assert_non_null(r.json);
    assert_int_equal(count_findings(r.json, "pcie.slot_limited", -2), 0);
    if (!strstr(r.out, "NVLink-C2C") || !strstr(r.out, "not the host path"))
        fail_msg("GH200: the report does not say why its link is not judged: %s", r.out);
    tool_result_free(&r);
    r = run_tool((const char *[]){"info", "--json", "--from",
                                  realdata("smi-text/gh200-c2c-pcie-gen4-x1-idle-princeton.txt"), NULL},
                 NULL);
    assert_int_equal(
        json_integer_value(json_object_get(json_array_get(json_object_get(r.json, "gpus"), 0), "c2c_mode")), 1);
    tool_result_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_real_capture_reads_as_the_file_says),
        cmocka_unit_test(snapshot_says_what_it_cannot_show),
        cmocka_unit_test(one_cause_is_one_text_block),
        cmocka_unit_test(performance_state_is_read),
        cmocka_unit_test(files_of_one_machine_merge),
        cmocka_unit_test(captured_evidence_cites_file_and_field),
        cmocka_unit_test(simulated_runs_cite_nvml),
        cmocka_unit_test(captures_of_different_machines_are_refused),
        cmocka_unit_test(captures_of_two_hosts_are_refused),
        cmocka_unit_test(lspci_maps_by_bus_id_only),
        cmocka_unit_test(slot_limits_from_each_format),
        cmocka_unit_test(lspci_alone_judges_its_gpus),
        cmocka_unit_test(bom_and_crlf_captures_read),
        cmocka_unit_test(bad_inputs_exit_3_with_a_message),
        cmocka_unit_test(mig_load_judged_by_power),
        cmocka_unit_test(verdicts_say_what_was_judged),
        cmocka_unit_test(a_file_not_read_leaves_the_others),
        cmocka_unit_test(driver_610_layout_and_the_next_one),
        cmocka_unit_test(grace_hopper_c2c_link_not_judged),
    };
    return realdata_exit(cmocka_run_group_tests(tests, NULL, NULL));
}
