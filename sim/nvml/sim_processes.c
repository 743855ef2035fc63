/* SPDX-License-Identifier: Apache-2.0 */
/* Running compute processes, in the three struct layouts NVML has used. */
#include "nvml_sim.h"

#define MIB 1048576ULL

enum layout { LAYOUT_V1, LAYOUT_V2, LAYOUT_V3 };

static nvmlReturn_t processes(nvmlDevice_t device, const char *fn, enum layout layout, unsigned *count, void *infos)
{
    gdsim_call call;
    nvmlReturn_t rc = gdsim_enter(device, fn, &call);
    if (rc)
        return rc;
    if (!count || (*count && !infos))
        return NVML_ERROR_INVALID_ARGUMENT;
    const gd_scenario_gpu *gpu = call.gpu;
    if (!gpu->has_processes)
        return NVML_ERROR_NOT_SUPPORTED;
    if (*count < gpu->process_count) {
        *count = (unsigned)gpu->process_count;
        return NVML_ERROR_INSUFFICIENT_SIZE;
    }
    for (size_t i = 0; i < gpu->process_count; i++) {
        const gd_scenario_process *p = &gpu->processes[i];
        unsigned long long used = p->used_mib.present ? (unsigned long long)p->used_mib.value * MIB
                                                      : (unsigned long long)NVML_VALUE_NOT_AVAILABLE;
        switch (layout) {
        case LAYOUT_V1: ((nvmlProcessInfo_v1_t *)infos)[i] = (nvmlProcessInfo_v1_t){p->pid, used}; break;
        case LAYOUT_V2:
            ((nvmlProcessInfo_v2_t *)infos)[i] = (nvmlProcessInfo_v2_t){p->pid, used, 0xFFFFFFFFu, 0xFFFFFFFFu};
            break;
        case LAYOUT_V3:
            ((nvmlProcessInfo_t *)infos)[i] = (nvmlProcessInfo_t){p->pid, used, 0xFFFFFFFFu, 0xFFFFFFFFu};
            break;
        }
    }
    *count = (unsigned)gpu->process_count;
    return NVML_SUCCESS;
}

GDSIM_EXPORT nvmlReturn_t nvmlDeviceGetComputeRunningProcesses(nvmlDevice_t device, unsigned int *infoCount,
                                                               nvmlProcessInfo_v1_t *infos)
{
    GDSIM_COUNTED();
    return processes(device, __func__, LAYOUT_V1, infoCount, infos);
}

GDSIM_EXPORT nvmlReturn_t nvmlDeviceGetComputeRunningProcesses_v2(nvmlDevice_t device, unsigned int *infoCount,
                                                                  nvmlProcessInfo_v2_t *infos)
{
    GDSIM_COUNTED();
    return processes(device, __func__, LAYOUT_V2, infoCount, infos);
}

GDSIM_EXPORT nvmlReturn_t nvmlDeviceGetComputeRunningProcesses_v3(nvmlDevice_t device, unsigned int *infoCount,
                                                                  nvmlProcessInfo_t *infos)
{
    GDSIM_COUNTED();
    return processes(device, __func__, LAYOUT_V3, infoCount, infos);
}

/* Process names come from the scenario, as the real library reads them from /proc. */
GDSIM_EXPORT nvmlReturn_t nvmlSystemGetProcessName(unsigned int pid, char *name, unsigned int length)
{
    GDSIM_COUNTED();
    const gd_scenario *sc;
    nvmlReturn_t rc = gdsim_enter_system(__func__, &sc);
    if (rc)
        return rc;
    if (!name || length == 0)
        return NVML_ERROR_INVALID_ARGUMENT;
    const char *found = gd_scenario_process_name(sc, pid);
    return found ? gdsim_copy_string(found, name, length) : NVML_ERROR_NOT_FOUND;
}
