/*
 * The data tables of data/cuda-drivers.tsv and data/xid.tsv (embedded at build time, see
 * cmake/embed.cmake): CUDA release -> minimum driver, Xid -> meaning.
 */
#ifndef GD_DATA_TABLES_H
#define GD_DATA_TABLES_H

#include <stdbool.h>
#include <stddef.h>

/* A row of data/cuda-drivers.tsv. */
typedef struct gd_cuda_release {
    int cuda;            /* 1000*major + 10*minor */
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
    char dcgm[8];   /* "fail", "warn" or "-" */
    char action[8]; /* app, reset, reboot, rma, hw, watch */
    char meaning[160];
} gd_xid_info;

/* Returns false (and a generic row) for an Xid the table does not know. */
bool gd_xid_lookup(int xid, gd_xid_info *out);

/* Compares dotted driver versions numerically ("535.54.03" < "535.104.05").
 * Returns <0, 0 or >0. */
int gd_driver_version_cmp(const char *a, const char *b);

#endif
