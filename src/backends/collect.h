/*
 * Collection: opens the machine (real NVML, or the simulated one under
 * --sim), takes the snapshot of static facts, then samples every dynamic
 * metric of every GPU at a fixed interval over the window.
 */
#ifndef GD_COLLECT_H
#define GD_COLLECT_H

#include "gpudoctor/model.h"

#include <signal.h>

/* The most of a window the series keeps (its newest part): one hour. A
 * day-long session keeps the memory of an hour-long one. */
#define GD_RETENTION_S 3600.0

typedef struct gd_collect_opts {
    const char *sim_scenario; /* NULL: this machine */
    double duration_s;        /* 0: one sample (a snapshot) */
    double interval_s;        /* > 0 */
    /* Called after each sample (may be NULL). */
    void (*progress)(void *ud, double done_s, double total_s, size_t gpus);
    void *progress_ud;
    /* Set asynchronously (SIGINT) to end the window early (may be NULL). */
    volatile sig_atomic_t *stop;
    long pid;                  /* the job (--pid), or -1 */
    const char *const *python; /* --python PATH (repeatable) */
    size_t python_count;
    const char *const *from;   /* --from FILE (repeatable): captured evidence instead of a machine */
    size_t from_count;
} gd_collect_opts;

/*
 * Fills f. Returns 0 when the machine could be examined (f->driver_loaded
 * false when no driver: that is a finding, not an error); -1 with a message
 * when it could not be checked at all (bad scenario, simulator missing, no
 * memory): exit code 3.
 */
int gd_collect(const gd_collect_opts *o, gd_facts *f, char *err, size_t errlen);

/* Directory holding the simulated libraries: $GPUDOCTOR_SIM_DIR, else the
 * directory of the running executable. Returns 0 or -1. */
int gd_sim_dir(char *out, size_t len);

#endif
