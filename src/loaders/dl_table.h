/* SPDX-License-Identifier: Apache-2.0 */
/*
 * One loader for the vendor libraries that gpudoctor opens with dlopen (NVML,
 * the CUDA driver; cuBLASLt or any other later). A library is described by a
 * const table: for each function pointer of the caller's struct, its offset
 * there, the exported names to try (newest first) and whether a load without
 * it fails. Nothing here knows any one library.
 */
#ifndef GD_DL_TABLE_H
#define GD_DL_TABLE_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

#define GD_DL_MAX_NAMES 4

typedef struct gd_dl_sym {
    size_t offset; /* of the pointer in the caller's struct */
    bool required; /* the load fails without it */
    const char *names[GD_DL_MAX_NAMES]; /* newest first; NULL-terminated when shorter */
} gd_dl_sym;

typedef struct gd_dl_table {
    const char *what; /* for messages: "the NVML library" */
    const gd_dl_sym *syms;
    size_t count;
} gd_dl_table;

/* An open library: the dlopen handle and the candidate that opened. */
typedef struct gd_dl_lib {
    void *handle; /* NULL when not loaded */
    char path[512];
} gd_dl_lib;

/*
 * Opens the first of paths[0..npaths) that dlopen accepts and resolves every
 * entry of the table into the struct at fns, each with the first of its
 * names that the library exports (NULL for a missing optional one). When
 * found is non-NULL, found[i] becomes the name that filled entry i, or NULL.
 *
 * Returns 0, or a negative errno value with a message in err (when err is
 * non-NULL), every entry and found[] NULL and *lib cleared:
 *   -EINVAL  no table, struct, library or path;
 *   -ENOENT  no path opened: the message names every path tried and
 *            dlerror's reason for the last;
 *   -ENOSYS  a required entry is missing: the message names the library and
 *            the entry's newest name. The library is closed again.
 */
int gd_dl_open(gd_dl_lib *lib, const gd_dl_table *table, const char *const *paths, size_t npaths, void *fns,
               const char **found, char *err, size_t errlen);

/* The library a loader opens: path when given and non-empty (the context's
 * choice: the library reads no environment), else def. */
const char *gd_dl_choose_path(const char *path, const char *def);

/* dlcloses the library and clears *lib; safe on a cleared one and on NULL. */
void gd_dl_close(gd_dl_lib *lib);

/*
 * A library that only some commands need (Expat, libmicrohttpd), opened on
 * first use, once per process, and never closed: a static gd_dl_lazy per
 * library, GD_DL_LAZY(table, paths, lib, fns).
 */
typedef struct gd_dl_lazy {
    pthread_mutex_t lock;
    bool tried;
    int rc;
    const gd_dl_table *table;
    const char *const *paths;
    size_t npaths;
    gd_dl_lib *lib;
    void *fns;
    char err[640];
} gd_dl_lazy;
#define GD_DL_LAZY(table_, paths_, lib_, fns_)                                                                         \
    {PTHREAD_MUTEX_INITIALIZER, false, 0, (table_), (paths_), sizeof(paths_) / sizeof((paths_)[0]), (lib_), (fns_), ""}

/* The loaded struct of pointers (thread-safe), or NULL with gd_dl_open's
 * message in err (when non-NULL); a failed load is not tried again. */
const void *gd_dl_lazy_get(gd_dl_lazy *l, char *err, size_t errlen);

/* Number of entries of the table that are NULL in fns. */
size_t gd_dl_missing(const gd_dl_table *table, const void *fns);

#endif
