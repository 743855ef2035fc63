/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The capture builder shared by the nvidia-smi parsers (XML, text, CSV,
 * dmon). Each parser only maps its own keys (an XML path, a text label
 * path, a CSV header, a dmon column) to a field of this list; reading the
 * value ("43.89 W", "N/A", "[Not Supported]", "Active", "0x...") and storing
 * it into the model is done once, here, so the formats cannot drift apart.
 */
#ifndef GD_FORMATS_CAPTURE_CAPTURE_H
#define GD_FORMATS_CAPTURE_CAPTURE_H

#include "core/pcie_util.h"
#include "gpudoctor/model.h"

#include <stdbool.h>
#include <stddef.h>

/* Limits against hostile inputs: beyond them the file is refused. */
#define GD_CAP_MAX_GPUS 256
#define GD_CAP_MAX_ROWS 200000 /* samples x GPUs */
#define GD_CAP_MAX_ABS 1e15 /* no reading of any field is this large */

typedef enum gd_cap_field {
    /* Whole capture. */
    GD_CF_DRIVER_VERSION,
    GD_CF_CUDA_VERSION,
    GD_CF_HOSTNAME,
    /* GPU identity (strings). */
    GD_CF_NAME,
    GD_CF_UUID,
    GD_CF_BUS_ID,
    GD_CF_SERIAL,
    GD_CF_VBIOS,
    GD_CF_INDEX,
    GD_CF_COMPUTE_CAP,
    /* GPU static numbers (gd_gpu fields). */
    GD_CF_MEM_TOTAL,
    GD_CF_POWER_LIMIT,
    GD_CF_POWER_REQUESTED, /* also the enforced limit's last resort */
    GD_CF_POWER_DEFAULT,
    GD_CF_POWER_MIN,
    GD_CF_POWER_MAX,
    GD_CF_CLOCK_MAX_SM,
    GD_CF_CLOCK_MAX_MEM,
    GD_CF_CLOCK_APP_SM,
    GD_CF_CLOCK_APP_MEM,
    GD_CF_CLOCK_DEFAULT_APP_SM,
    GD_CF_CLOCK_DEFAULT_APP_MEM,
    GD_CF_TEMP_SHUTDOWN,
    GD_CF_TEMP_SLOWDOWN,
    GD_CF_TEMP_GPU_MAX,
    GD_CF_TEMP_MEM_MAX,
    GD_CF_PCIE_GEN_MAX,
    GD_CF_PCIE_WIDTH_MAX, /* card and slot together */
    GD_CF_PCIE_GEN_MAX_DEVICE,
    GD_CF_PCIE_GEN_MAX_HOST, /* the card's own, the host's */
    GD_CF_PERSISTENCE,
    GD_CF_COMPUTE_MODE,
    GD_CF_MIG,
    GD_CF_C2C,
    GD_CF_ECC,
    GD_CF_ECC_VOL_UNC,
    GD_CF_ECC_AGG_UNC, /* summed: DRAM + SRAM parts of one total */
    GD_CF_RETIRED_SBE,
    GD_CF_RETIRED_DBE,
    GD_CF_RETIRED_PENDING,
    GD_CF_REMAP_CORR,
    GD_CF_REMAP_UNC,
    GD_CF_REMAP_PENDING,
    GD_CF_REMAP_FAILURE,
    /* Processes: PID starts one, NAME and MEM fill the last one. */
    GD_CF_PROCESSES,
    GD_CF_PROC_PID,
    GD_CF_PROC_NAME,
    GD_CF_PROC_MEM,
    /* Sampled metrics: arg is the gd_metric. */
    GD_CF_METRIC,
    /* Clock event reasons: arg is the NVML bit ("Active" / "Not Active"). */
    GD_CF_REASON,
    /* A bitmask of reasons ("0x0000000000000004"). */
    GD_CF_REASON_MASK,
    /* A violation counter in microseconds, added to metric `arg` in ns. */
    GD_CF_VIOLATION_US,
    GD_CF_COUNT
} gd_cap_field;

/* One key of a format -> a field. prio: where several keys feed one field
 * ("Power Draw" vs "Average Power Draw"), the highest readable one wins.
 * scale multiplies numbers (dmon's MB/s into KB/s); 0 means 1. */
typedef struct gd_cap_map {
    const char *key;
    gd_cap_field field;
    long long arg;
    unsigned char prio;
    double scale;
} gd_cap_map;

/* One GPU in one sample, while building. */
typedef struct gd_cap_row {
    size_t sample, gpu;
    gd_value v[GD_M_COUNT];
    unsigned char prio[GD_M_COUNT];
    unsigned long long reasons;
    bool reasons_seen; /* at least one reason was readable: the mask means something */
} gd_cap_row;

typedef struct gd_cap {
    gd_facts *f; /* gpus[] grow here; the series is built by gd_cap_finish */
    const char *name; /* the file, for messages */
    char *err;
    size_t errlen;
    long line; /* current line (0: unknown), for messages */
    size_t gpu_cap;
    unsigned char (*gprio)[GD_CF_COUNT]; /* per GPU: priority of each static field's value */
    gd_cap_row *rows;
    size_t nrows, rowcap;
    double *t; /* per sample */
    size_t nsamples, tcap;
    gd_cap_row *cur; /* the row being filled */
    /* Origins cite a key's last part (XML: the element's name), or as many
     * last parts as tell it from the other keys of key_map. */
    bool key_leaf;
    const gd_cap_map *key_map;
    size_t key_map_len;
} gd_cap;

/* Looks a key up in a table, case-insensitively; NULL when unknown. */
const gd_cap_map *gd_cap_lookup(const gd_cap_map *map, size_t n, const char *key);

/* Starts building into f (zeroed by the caller); f->capture_files[0] is name. */
void gd_cap_begin(gd_cap *c, gd_facts *f, const char *name, char *err, size_t errlen);

/* Adds a GPU (all values unread) and returns its position, or -1. */
long gd_cap_add_gpu(gd_cap *c);

/* Position of the GPU whose bus id, UUID or index (as text) is key, or -1. */
long gd_cap_find_gpu(const gd_cap *c, gd_cap_field kind, const char *key);

/* Starts a sample at t_s (seconds from the first); returns its index or -1. */
long gd_cap_sample(gd_cap *c, double t_s);

/* Makes gpu g's row of the current sample current (creates it); 0 or -1. */
int gd_cap_row_for(gd_cap *c, size_t g);

/* Makes gpu g's row current, first starting a sample when `force`, when
 * there is none yet, or when g already has a row in the current one (a
 * log's next interval). t_s: seconds from the first sample, NAN when the
 * log has no time (then 1 s apart); kept non-decreasing. 0 or -1. */
int gd_cap_advance(gd_cap *c, size_t g, bool force, double t_s);

/* Calls fn on each line of text (without its "\n" or "\r"), keeping
 * c->line; a NUL byte fails with "binary data inside <what>". 0 or -1. */
typedef int (*gd_cap_line_fn)(void *ctx, const char *line, size_t len);
int gd_cap_each_line(gd_cap *c, const char *text, size_t len, const char *what, gd_cap_line_fn fn, void *ctx);

/* True when gpu g already has a row in the current sample. */
bool gd_cap_row_exists(const gd_cap *c, size_t g);

/* Stores raw text (len bytes, not NUL-terminated) for m into the current
 * GPU/row. Returns 0, or -1 with a message (a number out of any range). */
int gd_cap_set(gd_cap *c, const gd_cap_map *m, const char *raw, size_t len);

/* Turns what a full dump left unread into "not reported" (capture_set.c):
 * a field it lacks (an unknown layout) is never a value. */
void gd_cap_mark_unsupported(gd_gpu *gpu);

/* Notes where the PCIe maxima of every GPU came from: "capture:FILE:fields". */
void gd_cap_note_pcie_source(gd_cap *c, const char *fields);

/* Ends building: the series from the rows. `full_dump` (nvidia-smi -q) turns
 * what the dump did not show into "not supported". Returns 0 or -1. */
int gd_cap_finish(gd_cap *c, bool full_dump);

/* Seconds since 1970 of a calendar date and time (only differences matter). */
double gd_cap_civil_seconds(int y, int mo, int d, int h, int mi, double sec);

/* Frees what the builder holds (not f). */
void gd_cap_free(gd_cap *c);

/* capture_set.c. Fails with "NAME:LINE: message". Always returns -1. */
int gd_cap_fail(gd_cap *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
