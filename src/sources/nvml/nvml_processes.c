/* SPDX-License-Identifier: Apache-2.0 */
/* The compute processes on a GPU (NVML's list), named and owned (NVML's
 * name, else the process's own /proc entries). */
#include "nvml_read.h"
#include "sources/proc/proc_lookup.h"

#include <stdlib.h>

/* A process's name: NVML's answer, else PROC/PID/comm; empty when neither knows. */
static void process_name(gd_nvml_session *s, const char *proc_root, unsigned int pid, char *out, size_t len)
{
    out[0] = '\0';
    if (s->api.SystemGetProcessName && s->api.SystemGetProcessName(pid, out, (unsigned int)len) == NVML_SUCCESS) {
        out[len - 1] = '\0';
        return;
    }
    gd_proc_comm(proc_root, pid, out, len);
}

void gd_nvml_read_processes(gd_nvml_reader *r, nvmlDevice_t d, gd_gpu *g)
{
    gd_nvml_session *s = r->s;
    unsigned int n = 0;
    nvmlReturn_t rc;
    bool v1 = !s->api.DeviceGetComputeRunningProcesses;
    rc = v1 ? NVCALL(s, DeviceGetComputeRunningProcesses_v1, d, &n, NULL)
            : NVCALL(s, DeviceGetComputeRunningProcesses, d, &n, NULL);
    if (rc == NVML_SUCCESS && n == 0) {
        g->processes_status = gd_val(0);
        return;
    }
    if (rc != NVML_ERROR_INSUFFICIENT_SIZE) {
        g->processes_status = gd_nvml_take(r, "nvmlDeviceGetComputeRunningProcesses", rc, 0);
        return;
    }
    n += 8; /* processes may start between the two calls */
    nvmlProcessInfo_t *infos = calloc(n, sizeof *infos);
    nvmlProcessInfo_v1_t *infos1 = calloc(n, sizeof *infos1);
    g->processes = calloc(n, sizeof *g->processes);
    if (!infos || !infos1 || !g->processes) {
        free(infos);
        free(infos1);
        free(g->processes);
        g->processes = NULL;
        g->processes_status = gd_missing(GD_ST_ERROR);
        return;
    }
    rc = v1 ? NVCALL(s, DeviceGetComputeRunningProcesses_v1, d, &n, infos1)
            : NVCALL(s, DeviceGetComputeRunningProcesses, d, &n, infos);
    g->processes_status = gd_nvml_take(r, "nvmlDeviceGetComputeRunningProcesses", rc, n);
    if (rc == NVML_SUCCESS) {
        for (unsigned int i = 0; i < n; i++) {
            gd_process *p = &g->processes[g->process_count++];
            p->pid = v1 ? infos1[i].pid : infos[i].pid;
            unsigned long long used = v1 ? infos1[i].usedGpuMemory : infos[i].usedGpuMemory;
            /* NVML_VALUE_NOT_AVAILABLE (all ones) under WDDM or without permission. */
            p->used_mib = used == (unsigned long long)NVML_VALUE_NOT_AVAILABLE
                              ? gd_missing(GD_ST_NOT_SUPPORTED)
                              : gd_val((double)used / (1024.0 * 1024.0));
            process_name(s, r->proc_root, p->pid, p->name, sizeof p->name);
            gd_proc_owner(r->proc_root, p->pid, p->user, sizeof p->user);
        }
    }
    free(infos);
    free(infos1);
}
