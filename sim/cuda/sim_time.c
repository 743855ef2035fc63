/* Real-time helpers: the simulation's copies and kernels take wall time. */
#include <errno.h>
#include <math.h>

#include "sim_cuda.h"

struct timespec sim_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts;
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
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &end, NULL) == EINTR)
        ;
}

double sim_elapsed_ms(struct timespec from, struct timespec to)
{
    return (double)(to.tv_sec - from.tv_sec) * 1e3 + (double)(to.tv_nsec - from.tv_nsec) / 1e6;
}
