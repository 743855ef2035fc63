/* SPDX-License-Identifier: Apache-2.0 */
/*
 * An NVML of four GPUs whose nvmlDeviceGetPcieThroughput blocks 20 ms of
 * wall time, as the real one samples for 20 ms before it answers, and whose
 * driver has no PCIe byte counters (every field value NOT_SUPPORTED), so
 * the throughput call is the one there is. It notes each call of
 * nvmlDeviceGetFieldValues (a sample's first reading of a GPU) and of the
 * throughput call: when (CLOCK_MONOTONIC), for which GPU, from which
 * thread, in which sample (slow_stub_sample). tests/sim/test_pcie_poll.c
 * reads the notes back (slow_stub_notes).
 */
#include "gpudoctor/abi/nvml_api.h"

#include <errno.h>
#include <pthread.h>
#include <stddef.h>
#include <string.h>
#include <time.h>

#define EXPORT __attribute__((visibility("default")))
#define GPUS 4u
#define MAX_NOTES 4096

typedef struct slow_stub_note {
    double t; /* CLOCK_MONOTONIC seconds */
    unsigned gpu;
    int sample; /* slow_stub_sample's last word */
    int throughput; /* 1: nvmlDeviceGetPcieThroughput, 0: nvmlDeviceGetFieldValues */
    pthread_t thread;
} slow_stub_note;

static struct nvmlDevice_st {
    int unused;
} devices[GPUS];

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static slow_stub_note notes[MAX_NOTES];
static size_t nnotes;
static int sample = -1;
static int inits;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void note(unsigned gpu, int throughput)
{
    pthread_mutex_lock(&lock);
    if (nnotes < MAX_NOTES)
        notes[nnotes++] = (slow_stub_note){now_s(), gpu, sample, throughput, pthread_self()};
    pthread_mutex_unlock(&lock);
}

static int gpu_of(nvmlDevice_t d)
{
    for (unsigned i = 0; i < GPUS; i++)
        if (d == &devices[i])
            return (int)i;
    return -1;
}

EXPORT void slow_stub_sample(int k)
{
    pthread_mutex_lock(&lock);
    sample = k;
    pthread_mutex_unlock(&lock);
}

/* The notes so far (copied into out, at most max); forgets them. */
EXPORT size_t slow_stub_notes(slow_stub_note *out, size_t max)
{
    pthread_mutex_lock(&lock);
    size_t n = nnotes < max ? nnotes : max;
    memcpy(out, notes, n * sizeof *out);
    nnotes = 0;
    pthread_mutex_unlock(&lock);
    return n;
}

EXPORT nvmlReturn_t nvmlInit_v2(void)
{
    inits++;
    return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlShutdown(void)
{
    if (!inits)
        return NVML_ERROR_UNINITIALIZED;
    inits--;
    return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int *n)
{
    if (!n)
        return NVML_ERROR_INVALID_ARGUMENT;
    *n = GPUS;
    return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int i, nvmlDevice_t *d)
{
    if (!d || i >= GPUS)
        return NVML_ERROR_INVALID_ARGUMENT;
    *d = &devices[i];
    return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceGetFieldValues(nvmlDevice_t d, int count, nvmlFieldValue_t *values)
{
    int g = gpu_of(d);
    if (g < 0 || count < 0 || !values)
        return NVML_ERROR_INVALID_ARGUMENT;
    note((unsigned)g, 0);
    for (int k = 0; k < count; k++)
        values[k].nvmlReturn = NVML_ERROR_NOT_SUPPORTED;
    return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceGetPcieThroughput(nvmlDevice_t d, nvmlPcieUtilCounter_t counter, unsigned int *value)
{
    int g = gpu_of(d);
    if (g < 0 || !value)
        return NVML_ERROR_INVALID_ARGUMENT;
    note((unsigned)g, 1);
    struct timespec ts = {0, 20 * 1000 * 1000};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
    *value = counter == NVML_PCIE_UTIL_TX_BYTES ? 1000u + (unsigned)g : 2000u + (unsigned)g;
    return NVML_SUCCESS;
}
