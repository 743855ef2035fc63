/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The simulated NVML counts its calls: every exported NVML function counts
 * itself on entry (gdsim_count), so that what a sample costs the driver is
 * measured, not guessed (on a real driver each call is an ioctl). The
 * counts are read through gdsim_nvml_calls, or written at the last
 * nvmlShutdown to $GPUDOCTOR_SIM_NVML_COUNT (docs/scenarios.md).
 *
 * Process-wide like NVML itself: a table of the functions called, under
 * its own mutex (a machine's PCIe thread calls NVML beside the sampler).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nvml_sim.h"

#define MAX_FUNCTIONS 160 /* more than the library exports */

static struct {
    pthread_mutex_t lock;
    size_t n;
    struct {
        const char *name; /* the function's __func__: static storage */
        unsigned long long calls;
    } fn[MAX_FUNCTIONS];
} counts = {.lock = PTHREAD_MUTEX_INITIALIZER};

void gdsim_count(unsigned *slot, const char *fn)
{
    pthread_mutex_lock(&counts.lock);
    if (*slot == 0 && counts.n < MAX_FUNCTIONS) {
        counts.fn[counts.n].name = fn;
        *slot = (unsigned)++counts.n; /* 1-based: 0 is "not yet in the table" */
    }
    if (*slot)
        counts.fn[*slot - 1].calls++;
    pthread_mutex_unlock(&counts.lock);
}

GDSIM_EXPORT const char *gdsim_nvml_calls(size_t i, unsigned long long *calls)
{
    pthread_mutex_lock(&counts.lock);
    const char *name = i < counts.n ? counts.fn[i].name : NULL;
    if (name && calls)
        *calls = counts.fn[i].calls;
    pthread_mutex_unlock(&counts.lock);
    return name;
}

static int most_first(const void *a, const void *b)
{
    const unsigned long long *x = a, *y = b;
    return (x[0] < y[0]) - (x[0] > y[0]);
}

void gdsim_count_write(void)
{
    const char *path = getenv("GPUDOCTOR_SIM_NVML_COUNT");
    if (!path || !*path)
        return;
    /* Pairs of (calls, index) sorted by calls, most first. */
    unsigned long long order[MAX_FUNCTIONS][2];
    pthread_mutex_lock(&counts.lock);
    size_t n = counts.n;
    for (size_t i = 0; i < n; i++) {
        order[i][0] = counts.fn[i].calls;
        order[i][1] = i;
    }
    pthread_mutex_unlock(&counts.lock);
    qsort(order, n, sizeof order[0], most_first);
    FILE *f = fopen(path, "w");
    if (!f)
        return; /* a count nobody can read: the simulation goes on */
    for (size_t i = 0; i < n; i++)
        fprintf(f, "%llu %s\n", order[i][0], counts.fn[order[i][1]].name);
    fclose(f);
}
