/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Captured evidence (`--from FILE`): nvidia-smi XML, text, CSV and dmon logs,
 * lspci -vv, nvidia-smi topo -m and kernel logs, recognised by content, merged into one
 * gd_facts as if read from the machine at capture time.
 */
#ifndef GD_IMPORT_H
#define GD_IMPORT_H

#include "gpudoctor/model.h"

#include <stdbool.h>
#include <stddef.h>

/* The formats `--from` understands, recognised by content (detect.c). */
typedef enum gd_import_kind {
    GD_IMPORT_UNKNOWN = 0,
    GD_IMPORT_SMI_XML, /* nvidia-smi -q -x */
    GD_IMPORT_SMI_TEXT, /* nvidia-smi -q */
    GD_IMPORT_SMI_CSV, /* nvidia-smi --query-gpu=... --format=csv */
    GD_IMPORT_DMON, /* nvidia-smi dmon */
    GD_IMPORT_LSPCI, /* lspci -vv */
    GD_IMPORT_TOPO, /* nvidia-smi topo -m */
    GD_IMPORT_KERNEL_LOG, /* dmesg, dmesg -T, journalctl -k */
    GD_IMPORT_RECORDING, /* gpudoctor's own (--record FILE.jsonl) */
    GD_IMPORT_NCCL_LOG, /* NCCL_DEBUG=INFO output (f->net->nccl) */
    GD_IMPORT_NCCL_TESTS, /* nccl-tests output: all_reduce_perf and its siblings */
    /* The node's RDMA NICs, GPUDirect's module, interfaces, ACS (net_readers.h). */
    GD_IMPORT_IBSTAT, /* ibstat */
    GD_IMPORT_IBSTATUS, /* ibstatus */
    GD_IMPORT_IBV_DEVINFO, /* ibv_devinfo [-v] */
    GD_IMPORT_IBDEV2NETDEV, /* ibdev2netdev [-v] */
    GD_IMPORT_SHOW_GIDS, /* show_gids */
    GD_IMPORT_LSMOD, /* lsmod, lsmod | grep ... */
    GD_IMPORT_IP_BRIEF, /* ip -br a */
    GD_IMPORT_LSPCI_ACS, /* lspci -vvv | grep ACSCtl */
    GD_IMPORT_RDMA_LINK, /* rdma link [show] */
} gd_import_kind;

/* What the bytes are; GD_IMPORT_UNKNOWN for anything else. */
gd_import_kind gd_import_detect(const char *text, size_t len);

/* Why text is no format (detection gave GD_IMPORT_UNKNOWN), as "NAME:LINE:
 * 'the line' begins none of the formats gpudoctor reads" or "NAME: an
 * empty file"; gd_import_formats_help lists what was expected. */
void gd_import_undetected(const char *name, const char *text, size_t len, char *out, size_t olen);

/* True when the first bytes hold control characters no text capture has. */
bool gd_import_looks_binary(const char *text, size_t len);

/* "nvidia-smi -q -x" and so on. */
const char *gd_import_kind_name(gd_import_kind k);

/* Every understood format with its first line, one a line, for error messages. */
extern const char gd_import_formats_help[];

/*
 * The nvidia-smi parsers. Each fills a zeroed f with the GPUs of the file,
 * their static facts and a series (one sample for -q dumps, one per logged
 * line for CSV and dmon). Values the capture shows as "N/A" are "not
 * supported", never 0. Return 0, or -1 with a message naming `name` (and
 * the line where it helps); f is then to be freed by the caller.
 */
int gd_import_smi_xml(const char *name, const char *text, size_t len, gd_facts *f, char *err, size_t errlen);
int gd_import_smi_text(const char *name, const char *text, size_t len, gd_facts *f, char *err, size_t errlen);
int gd_import_smi_csv(const char *name, const char *text, size_t len, gd_facts *f, char *err, size_t errlen);
int gd_import_dmon(const char *name, const char *text, size_t len, gd_facts *f, char *err, size_t errlen);

/*
 * Adds one captured file's bytes to f: detects the format, parses it and
 * merges it (GPUs matched by bus id, else UUID, else index). nvidia-smi
 * files must come before lspci and topo, which map onto known GPUs.
 * Returns 0, or -1 with a message.
 */
int gd_import_buffer(const char *name, const char *text, size_t len, gd_facts *f, char *err, size_t errlen);

/*
 * --from FILE...: reads every file (nvidia-smi first, then lspci and topo)
 * into a zeroed f marked as captured. Returns 0, or -1 with a message
 * (unreadable, unknown format, malformed): exit code 3.
 */
int gd_import_files(const char *const *paths, size_t n, gd_facts *f, char *err, size_t errlen);

/*
 * A recording (--record): its header's static facts, one series sample per
 * line, the end line's PCIe and stack facts, into a zeroed f: the facts the
 * live run judged. A last line without its newline (a copy taken while
 * recording) is left out. 0, or -1 with a message naming `name` and the line.
 */
int gd_import_recording(const char *name, const char *text, size_t len, gd_facts *f, char *err, size_t errlen);

/*
 * The same, streamed: `head` (the bytes already read to recognise it), then
 * the rest from `rest` (formats/trace/trace_input.h; NULL: none), in bounded
 * memory whatever the file's size (a line, the samples the live run kept).
 * A recording without its end record is read to its last whole line and
 * `note` says where it ends ("cut short after 312.4 s (14:07:31): no end
 * record"); "" when whole.
 */
typedef struct gd_tsrc gd_tsrc;
int gd_import_recording_stream(const char *name, const char *head, size_t head_len, gd_tsrc *rest, gd_facts *f,
                               char *note, size_t notelen, char *err, size_t errlen);

/* Notes what a reader passed over ("FILE:LINE: ..."), said in the report
 * (f->capture_notes; past GD_CAPTURE_NOTES, counted). */
void gd_import_note(gd_facts *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* A file's name without its folders, as notes cite it. */
const char *gd_import_base(const char *name);

/* f takes part's notes (a file read into a part of its own). */
void gd_import_notes_take(gd_facts *f, const gd_facts *part);

/* Merges `part` (a parsed file) into f, its notes too; part is emptied. 0, or -1 (no memory). */
int gd_import_merge(gd_facts *f, gd_facts *part, char *err, size_t errlen);

/*
 * lspci -vv (or -vvv) output: link capability and status (LnkCap/LnkSta,
 * "downgraded"), AER counters, bridges, mapped to f's GPUs by bus id; fills
 * f->pcie. Returns 0, or -1 with a message naming `name`.
 */
int gd_import_lspci(const char *name, const char *text, size_t len, gd_facts *f, char *err, size_t errlen);

/* nvidia-smi topo -m output: the GPU-to-GPU matrix, CPU and NUMA affinity; fills f->pcie. */
int gd_import_topo(const char *name, const char *text, size_t len, gd_facts *f, char *err, size_t errlen);

/* A kernel log (dmesg, dmesg -T, journalctl -k): its Xid and PCIe AER
 * lines, mapped to f's GPUs by bus id (f->stack). 0, or -1 with a message. */
int gd_import_kernel_log(const char *name, const char *text, size_t len, gd_facts *f, char *err, size_t errlen);

/* NCCL's INFO log (NCCL_DEBUG=INFO, any launcher's prefixes): what NCCL
 * chose, into f->net->nccl; several files join one log. 0, or -1 with a message. */
int gd_import_nccl_log(const char *name, const char *text, size_t len, gd_facts *f, char *err, size_t errlen);
/* nccl-tests output (all_reduce_perf and its siblings) into f->net->tables
 * (formats/nccl_tests/). 0, or -1 with a message naming `name`. */
int gd_import_nccl_tests(const char *name, const char *text, size_t len, gd_facts *f, char *err, size_t errlen);

#endif
