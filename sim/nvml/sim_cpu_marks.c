/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The simulated NVML notes the process's CPU time at scenario times named in
 * $GPUDOCTOR_SIM_CPU_MARKS ("60,82800,86399.9"): the first time the caller's
 * clock (gdsim_clock_set, set for every sample) reaches each, one line
 * "SCENARIO_S CPU_S" (user + system of the whole process) is appended to
 * $GPUDOCTOR_SIM_CPU_FILE. One run of a continuous command then gives its
 * cost in its first minute and in its last hour (bench_tick_cost), where a
 * difference of two runs was noise as large as the figure.
 */
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>

#include "nvml_sim.h"

#define MAX_MARKS 16

static struct {
    pthread_mutex_t lock;
    bool read; /* the environment was read */
    double at[MAX_MARKS]; /* ascending */
    size_t n, next;
    FILE *out;
} marks = {.lock = PTHREAD_MUTEX_INITIALIZER};

static int ascending(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The marks and the file from the environment; none when either is unset. */
static void read_marks(void)
{
    marks.read = true;
    const char *list = getenv("GPUDOCTOR_SIM_CPU_MARKS"), *path = getenv("GPUDOCTOR_SIM_CPU_FILE");
    if (!list || !*list || !path || !*path)
        return;
    for (char *p = (char *)list, *end; *p && marks.n < MAX_MARKS; p = *end ? end + 1 : end) {
        double v = strtod(p, &end);
        if (end == p)
            break; /* not a number: the marks so far */
        marks.at[marks.n++] = v;
    }
    qsort(marks.at, marks.n, sizeof marks.at[0], ascending);
    marks.out = marks.n ? fopen(path, "a") : NULL;
}

static double cpu_s(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 + (double)ru.ru_stime.tv_sec +
           (double)ru.ru_stime.tv_usec / 1e6;
}

void gdsim_cpu_marks_at(double scenario_s)
{
    pthread_mutex_lock(&marks.lock);
    if (!marks.read)
        read_marks();
    while (marks.out && marks.next < marks.n && scenario_s >= marks.at[marks.next]) {
        fprintf(marks.out, "%.3f %.6f\n", marks.at[marks.next++], cpu_s());
        fflush(marks.out);
    }
    pthread_mutex_unlock(&marks.lock);
}
