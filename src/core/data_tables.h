/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The data tables of the tables in data/ (embedded at build time, see cmake/embed.cmake):
 * CUDA release -> minimum driver, Xid -> meaning, GPU board -> the memory NVML
 * reports, and the size-matched default model shapes.
 */
#ifndef GD_DATA_TABLES_H
#define GD_DATA_TABLES_H

#include <stdbool.h>
#include <stddef.h>

/* A row of data/cuda-drivers.tsv. */
typedef struct gd_cuda_release {
    int cuda; /* 1000*major + 10*minor */
    char driver_min[24]; /* the driver shipped with it */
    char family_min[24]; /* minimum under minor-version compatibility (11.0+) */
} gd_cuda_release;

/* The release row for CUDA version `cuda`: the row itself, or for a minor
 * the table lacks (12.7) the nearest lower one of the same major. Returns
 * false when the major is not in the table (older than 10, newer than the
 * table). */
bool gd_cuda_release_find(int cuda, gd_cuda_release *out);

/* The newest CUDA version in the table. */
int gd_cuda_release_newest(void);

/* A row of data/xid.tsv. */
typedef struct gd_xid_info {
    int xid;
    char dcgm[8]; /* "fail", "warn" or "-" */
    char action[8]; /* rma, reboot, reset, hw, support, remap, update, restart, app, watch (data/xid.tsv) */
    char meaning[160];
} gd_xid_info;

/* Returns false (and a generic row) for an Xid the table does not know. */
bool gd_xid_lookup(int xid, gd_xid_info *out);

/* Compares dotted driver versions numerically ("535.54.03" < "535.104.05").
 * Returns <0, 0 or >0. */
int gd_driver_version_cmp(const char *a, const char *b);

/* A row of data/gpus.tsv. */
typedef struct gd_gpu_board {
    char name[32]; /* what --gpu takes */
    char aliases[96]; /* comma-separated, or "" */
    char label[64]; /* as the plan prints it */
    double mib; /* total memory NVML reports, MiB */
    int table_gb; /* nominal GB when a row of the "fits on" table, else 0 */
} gd_gpu_board;

/* The i-th board in the file's order; false past the end. */
bool gd_gpu_board_at(size_t i, gd_gpu_board *out);

/* The board named `name` or one of its aliases (case-insensitive). */
bool gd_gpu_board_find(const char *name, gd_gpu_board *out);

/* A row of data/model-shapes.tsv: a Llama-family shape (gated MLP). */
typedef struct gd_model_shape {
    char name[32];
    double params;
    long layers, hidden, heads, kv_heads, ffn, vocab;
    bool tied;
} gd_model_shape;

/* The shape whose parameter count is nearest `params` by ratio. */
bool gd_model_shape_nearest(double params, gd_model_shape *out);

#endif
