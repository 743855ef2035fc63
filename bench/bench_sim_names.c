/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The simulated NVML's process names: a scenario of N processes over 8
 * GPUs, every pid looked up with nvmlSystemGetProcessName (and as many
 * unknown pids), against loading the same scenario (nvmlInit_v2), which
 * reads every process once. The ratio stays flat as N grows when a lookup
 * is O(log n); it grew with N when each lookup walked every list.
 * Usage: bench_sim_names
 */
#include "gpudoctor/abi/nvml_api.h"

#include <dlfcn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static bool write_scenario(const char *path, unsigned n)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return false;
    fprintf(f, "{\"driver_version\": \"550.54.15\", \"gpus\": [");
    for (unsigned g = 0; g < 8; g++) {
        fprintf(f, "%s{\"name\": \"NVIDIA H100 80GB HBM3\", \"processes\": [", g ? ", " : "");
        for (unsigned i = g; i < n; i += 8) /* pids interleaved across the GPUs */
            fprintf(f, "%s{\"pid\": %u, \"name\": \"worker-%u\", \"used_mib\": 1}", i == g ? "" : ", ", 2 * i + 100, i);
        fprintf(f, "]}");
    }
    fprintf(f, "]}\n");
    return fclose(f) == 0;
}

int main(void)
{
    void *lib = dlopen(GD_SIM_NVML, RTLD_NOW | RTLD_LOCAL);
    nvml_Init_fn init = lib ? (nvml_Init_fn)dlsym(lib, "nvmlInit_v2") : NULL;
    nvml_Shutdown_fn shutdown = lib ? (nvml_Shutdown_fn)dlsym(lib, "nvmlShutdown") : NULL;
    nvml_SystemGetProcessName_fn name_of =
        lib ? (nvml_SystemGetProcessName_fn)dlsym(lib, "nvmlSystemGetProcessName") : NULL;
    char dir[] = "/tmp/gd-bench-names-XXXXXX", path[64];
    if (!init || !shutdown || !name_of || !mkdtemp(dir)) {
        fprintf(stderr, "bench_sim_names: cannot load %s\n", GD_SIM_NVML);
        return 1;
    }
    snprintf(path, sizeof path, "%s/scenario.json", dir);
    setenv("GPUDOCTOR_SIM_SCENARIO", path, 1);
    static const unsigned sizes[] = {20000, 200000};
    int rc = 0;
    for (size_t s = 0; s < 2 && rc == 0; s++) {
        unsigned n = sizes[s];
        bool written = write_scenario(path, n);
        double t0 = now();
        if (!written || init() != NVML_SUCCESS) {
            fprintf(stderr, "bench_sim_names: the scenario of %u processes did not load\n", n);
            rc = 1;
            break;
        }
        double t1 = now();
        unsigned found = 0;
        char name[64];
        for (unsigned i = 0; i < n; i++) {
            found += name_of(2 * i + 100, name, sizeof name) == NVML_SUCCESS;
            found += name_of(2 * i + 101, name, sizeof name) == NVML_SUCCESS; /* unknown */
        }
        double t2 = now();
        shutdown();
        if (found != n) {
            fprintf(stderr, "bench_sim_names: %u of %u names found\n", found, n);
            rc = 1;
            break;
        }
        printf("%6u processes: reference, loading the scenario %8.1f ms; %u lookups %8.1f ms = %.3fx the reference\n",
               n, (t1 - t0) * 1e3, 2 * n, (t2 - t1) * 1e3, (t2 - t1) / (t1 - t0));
    }
    unlink(path);
    rmdir(dir);
    return rc;
}
