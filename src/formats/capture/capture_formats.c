/* SPDX-License-Identifier: Apache-2.0 */
/* The table of capture formats, and detection over it. */
#include "capture_formats.h"
#include "net_readers.h"
#include "core/text_safe.h"

#include <jansson.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* In detection order for a tie on one line: a paste names nvidia-smi's own
 * banner or matrix before a first line could pass for a log or a table. */
/* clang-format off */
const gd_capture_format gd_capture_formats[] = {
    {GD_IMPORT_RECORDING, "gpudoctor recording", gd_detect_recording, gd_import_recording, GD_CAPTURE_ALONE, 0},
    {GD_IMPORT_SMI_XML, "nvidia-smi -q -x", gd_detect_smi_xml, gd_import_smi_xml, GD_CAPTURE_GPUS, 0},
    {GD_IMPORT_SMI_TEXT, "nvidia-smi -q", gd_detect_smi_text, gd_import_smi_text, GD_CAPTURE_GPUS, 0},
    {GD_IMPORT_TOPO, "nvidia-smi topo -m", gd_detect_topo, gd_import_topo, GD_CAPTURE_ONTO_GPUS, 2},
    {GD_IMPORT_KERNEL_LOG, "kernel log", gd_detect_kernel_log, gd_import_kernel_log, GD_CAPTURE_ONTO_GPUS, 1},
    {GD_IMPORT_DMON, "nvidia-smi dmon", gd_detect_dmon, gd_import_dmon, GD_CAPTURE_GPUS, 0},
    {GD_IMPORT_SMI_CSV, "nvidia-smi --query-gpu csv", gd_detect_smi_csv, gd_import_smi_csv, GD_CAPTURE_GPUS, 0},
    {GD_IMPORT_LSPCI, "lspci -vv", gd_detect_lspci, gd_import_lspci, GD_CAPTURE_ONTO_GPUS, 1},
    {GD_IMPORT_NCCL_LOG, "NCCL log", gd_detect_nccl_log, gd_import_nccl_log, GD_CAPTURE_ONTO_GPUS, 1},
    {GD_IMPORT_NCCL_TESTS, "nccl-tests output", gd_detect_nccl_tests, gd_import_nccl_tests, GD_CAPTURE_ONTO_GPUS, 1},
    /* The node's RDMA NICs and what serves them (net_readers.h): into f->net, joined by device and port. */
    {GD_IMPORT_IBSTAT, "ibstat", gd_detect_ibstat, gd_import_ibstat, GD_CAPTURE_ONTO_GPUS, 1},
    {GD_IMPORT_IBSTATUS, "ibstatus", gd_detect_ibstatus, gd_import_ibstatus, GD_CAPTURE_ONTO_GPUS, 1},
    {GD_IMPORT_IBV_DEVINFO, "ibv_devinfo", gd_detect_ibv_devinfo, gd_import_ibv_devinfo, GD_CAPTURE_ONTO_GPUS, 1},
    {GD_IMPORT_IBDEV2NETDEV, "ibdev2netdev", gd_detect_ibdev2netdev, gd_import_ibdev2netdev, GD_CAPTURE_ONTO_GPUS, 1},
    {GD_IMPORT_SHOW_GIDS, "show_gids", gd_detect_show_gids, gd_import_show_gids, GD_CAPTURE_ONTO_GPUS, 1},
    {GD_IMPORT_LSMOD, "lsmod", gd_detect_lsmod, gd_import_lsmod, GD_CAPTURE_ONTO_GPUS, 1},
    {GD_IMPORT_IP_BRIEF, "ip -br a", gd_detect_ip_brief, gd_import_ip_brief, GD_CAPTURE_ONTO_GPUS, 1},
    {GD_IMPORT_LSPCI_ACS, "lspci -vvv | grep ACSCtl", gd_detect_lspci_acs, gd_import_lspci_acs, GD_CAPTURE_ONTO_GPUS, 1},
    {GD_IMPORT_RDMA_LINK, "rdma link", gd_detect_rdma_link, gd_import_rdma_link, GD_CAPTURE_ONTO_GPUS, 1},
};
/* clang-format on */
const size_t gd_capture_format_count = sizeof gd_capture_formats / sizeof gd_capture_formats[0];

const gd_capture_format *gd_capture_format_of(gd_import_kind k)
{
    for (size_t i = 0; i < gd_capture_format_count; i++)
        if (gd_capture_formats[i].kind == k)
            return &gd_capture_formats[i];
    return NULL;
}

const char *gd_import_kind_name(gd_import_kind k)
{
    const gd_capture_format *c = gd_capture_format_of(k);
    return c ? c->name : "unknown";
}

gd_import_kind gd_import_detect(const char *text, size_t len)
{
    gd_capture_view *v = malloc(sizeof *v);
    if (!v || !gd_capture_view_init(v, text, len)) {
        free(v);
        return GD_IMPORT_UNKNOWN;
    }
    gd_import_kind best = GD_IMPORT_UNKNOWN;
    long at = -1;
    for (size_t i = 0; i < gd_capture_format_count; i++) {
        long line = gd_capture_formats[i].detect(v);
        if (line >= 0 && (at < 0 || line < at)) {
            at = line;
            best = gd_capture_formats[i].kind;
        }
    }
    free(v);
    return best;
}

/* JSON that gpudoctor reads, but not through --from: named, with the
 * command that reads it (a scenario handed to --from read "not a format"). */
static void json_kind(const char *name, const char *text, size_t len, char *out, size_t olen)
{
    json_t *j = json_loadb(text, len, JSON_DISABLE_EOF_CHECK, NULL);
    const json_t *gpus = json_object_get(j, "gpus");
    if (json_object_get(j, "traceEvents"))
        snprintf(out, olen, "%s: a profiler trace, not a capture: 'gpudoctor trace %s' reads it", name, name);
    else if (json_is_array(gpus) && json_object_get(j, "tool") && json_object_get(j, "findings"))
        snprintf(out, olen,
                 "%s: a gpudoctor report, not a capture: 'gpudoctor fleet %s ...' compares reports; "
                 "'check --record FILE.jsonl' writes what --from replays",
                 name, name);
    else if (json_is_array(gpus) && !json_object_get(j, "tool") &&
             (json_object_get(j, "driver_version") || json_object_get(j, "description") ||
              json_object_get(j, "timescale") || json_object_get(json_array_get(gpus, 0), "timeline")))
        snprintf(out, olen, "%s: a gpudoctor scenario (a simulated machine), not a capture: run it with --sim %s", name,
                 name);
    else
        snprintf(out, olen, "%s: JSON that is not a gpudoctor recording (its first key is not \"gpudoctor_recording\")",
                 name);
    json_decref(j);
}

/* What stands where a format should have begun: "NAME:LINE: ...". */
void gd_import_undetected(const char *name, const char *text, size_t len, char *out, size_t olen)
{
    gd_capture_view *v = malloc(sizeof *v);
    if (!v) {
        snprintf(out, olen, "%s: out of memory", name);
        return;
    }
    if (len == 0) {
        snprintf(out, olen, "%s: an empty file", name);
    } else if (!gd_capture_view_init(v, text, len)) {
        snprintf(out, olen, "%s: binary data, not a text capture", name);
    } else if (v->shape == GD_VIEW_XML) {
        snprintf(out, olen, "%s: an XML document without nvidia-smi's root element <nvidia_smi_log>", name);
    } else if (v->shape == GD_VIEW_JSON) {
        json_kind(name, text, len, out, olen);
    } else if (v->first >= v->nlines) {
        snprintf(out, olen, "%s: only blank lines%s", name, v->journal_banner ? " and journalctl's banner" : "");
    } else {
        const char *l = v->lines[v->first].text;
        char safe[64]; /* the line as it can be shown: cut, no control or stray bytes */
        gd_text_safe(l, safe, sizeof safe);
        snprintf(out, olen, "%s:%ld: '%s%s' begins none of the formats gpudoctor reads", name,
                 v->lines[v->first].number, safe, strlen(l) >= sizeof safe ? "..." : "");
    }
    free(v);
}
