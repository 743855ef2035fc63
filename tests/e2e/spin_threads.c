/* SPDX-License-Identifier: Apache-2.0 */
/* N threads that each spin on the CPU for S seconds and take no lock: the
 * contrast to Python threads on the GIL in test_e2e_job_tree.
 * usage: spin_threads N SECONDS */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double seconds;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void *spin(void *arg)
{
    (void)arg;
    double end = now_s() + seconds;
    volatile unsigned long x = 0;
    while (now_s() < end)
        for (int k = 0; k < 100000; k++)
            x++;
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: spin_threads N SECONDS\n");
        return 2;
    }
    int n = atoi(argv[1]);
    seconds = atof(argv[2]);
    pthread_t t[64];
    n = n < 1 ? 1 : n > 64 ? 64 : n;
    for (int i = 0; i < n; i++)
        pthread_create(&t[i], NULL, spin, NULL);
    for (int i = 0; i < n; i++)
        pthread_join(t[i], NULL);
    return 0;
}
