/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The simulated GPUs' time. Under the fast scenario clock
 * (GPUDOCTOR_SIM_TIMESCALE unset or empty at cuInit) it is virtual: a copy
 * or kernel moves its stream's clock on by the time it takes and returns at
 * once, and events read that clock, so what they time is exact whatever the
 * host's load. Otherwise, and from the first gdsim_cuda_clock_set on (bench
 * stress, whose session runs in wall time), copies and kernels take real
 * time, a sleep to the computed end.
 */
#include <errno.h>
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "sim_cuda.h"

static atomic_bool virtual_time;

void sim_time_init(void)
{
    const char *pace = getenv("GPUDOCTOR_SIM_TIMESCALE");
    atomic_store(&virtual_time, !pace || !*pace);
}

void sim_time_real(void)
{
    atomic_store(&virtual_time, false);
}

/* The calling thread's stream under virtual time: seconds of device work
 * done so far. */
static _Thread_local double virtual_end;

static struct timespec timespec_of(double s)
{
    struct timespec t = {.tv_sec = (time_t)floor(s), .tv_nsec = (long)((s - floor(s)) * 1e9)};
    if (t.tv_nsec >= 1000000000L) {
        t.tv_sec++;
        t.tv_nsec -= 1000000000L;
    }
    return t;
}

struct timespec sim_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts;
}

/*
 * The calling thread's stream: when its last copy or kernel ends. A GPU
 * runs queued work back to back while the host enqueues more; here the
 * host blocks in each call and wakes up late: by microseconds, or by tens
 * to hundreds of milliseconds when a loaded machine (sanitizers, two
 * cores shared with other builds, eight benchmark threads) deschedules it.
 * Work or an event that comes within SIM_QUEUE_SLACK_S after that end
 * starts at the end, as if it had been queued, so wake-up latency is paid
 * once per synchronisation, not once per copy or multiply.
 */
static _Thread_local double queue_end;
#define SIM_QUEUE_SLACK_S 1.0

static double seconds_of(struct timespec t)
{
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

struct timespec sim_stream_now(void)
{
    if (atomic_load(&virtual_time))
        return timespec_of(virtual_end);
    struct timespec now = sim_now();
    double n = seconds_of(now);
    if (queue_end > 0 && n >= queue_end && n - queue_end < SIM_QUEUE_SLACK_S)
        now = timespec_of(queue_end);
    return now;
}

void gdsim_device_busy(double seconds)
{
    sim_sleep_until(sim_stream_now(), seconds);
}

void sim_sleep_until(struct timespec start, double seconds)
{
    if (!(seconds > 0))
        return;
    if (seconds > 3600.0) /* a runaway figure must not hang a test for days */
        seconds = 3600.0;
    double whole = floor(seconds);
    struct timespec end = start;
    end.tv_sec += (time_t)whole;
    end.tv_nsec += (long)((seconds - whole) * 1e9);
    if (end.tv_nsec >= 1000000000L) {
        end.tv_sec++;
        end.tv_nsec -= 1000000000L;
    }
    if (atomic_load(&virtual_time)) {
        virtual_end = seconds_of(end);
        return;
    }
    queue_end = seconds_of(end);
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &end, NULL) == EINTR)
        ;
}

double sim_elapsed_ms(struct timespec from, struct timespec to)
{
    return (double)(to.tv_sec - from.tv_sec) * 1e3 + (double)(to.tv_nsec - from.tv_nsec) / 1e6;
}
