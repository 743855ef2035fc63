/* SPDX-License-Identifier: Apache-2.0 */
/* Name tables: timeline fields, clock event reasons, NVML return codes. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "gpudoctor/abi/nvml_api.h"
#include "scenario_internal.h"

static const struct {
    const char *name;
    double max;
} fields[GD_SCENARIO_FIELD_COUNT] = {
    [GD_SCENARIO_TEMP_C] = {"temp_c", 1000},
    [GD_SCENARIO_MEM_TEMP_C] = {"mem_temp_c", 1000},
    [GD_SCENARIO_SM_CLOCK_MHZ] = {"sm_clock_mhz", UINT32_MAX},
    [GD_SCENARIO_MEM_CLOCK_MHZ] = {"mem_clock_mhz", UINT32_MAX},
    /* NVML reports milliwatts in an unsigned int. */
    [GD_SCENARIO_POWER_W] = {"power_w", UINT32_MAX / 1000.0},
    [GD_SCENARIO_UTIL_GPU_PCT] = {"util_gpu_pct", 100},
    [GD_SCENARIO_UTIL_MEM_PCT] = {"util_mem_pct", 100},
    [GD_SCENARIO_MEM_USED_MIB] = {"mem_used_mib", UINT32_MAX},
    [GD_SCENARIO_PCIE_GEN] = {"pcie_gen", 64},
    [GD_SCENARIO_PCIE_WIDTH] = {"pcie_width", 64},
    [GD_SCENARIO_PCIE_TX_KBPS] = {"pcie_tx_kbps", UINT32_MAX},
    [GD_SCENARIO_PCIE_RX_KBPS] = {"pcie_rx_kbps", UINT32_MAX},
    [GD_SCENARIO_PCIE_REPLAYS] = {"pcie_replays", UINT32_MAX},
    [GD_SCENARIO_FAN_PCT] = {"fan_pct", 100},
};

const char *gd_scenario_field_name(gd_scenario_field field)
{
    return (unsigned)field < GD_SCENARIO_FIELD_COUNT ? fields[field].name : "?";
}

double gd_scenario_field_max(gd_scenario_field field)
{
    return fields[field].max;
}

static const struct {
    const char *name;
    unsigned long long bit;
} reasons[] = {
    {"gpu_idle", nvmlClocksThrottleReasonGpuIdle},
    {"applications_clocks_setting", nvmlClocksThrottleReasonApplicationsClocksSetting},
    {"sw_power_cap", nvmlClocksThrottleReasonSwPowerCap},
    {"hw_slowdown", nvmlClocksThrottleReasonHwSlowdown},
    {"sync_boost", nvmlClocksThrottleReasonSyncBoost},
    {"sw_thermal_slowdown", nvmlClocksThrottleReasonSwThermalSlowdown},
    {"hw_thermal_slowdown", nvmlClocksThrottleReasonHwThermalSlowdown},
    {"hw_power_brake_slowdown", nvmlClocksThrottleReasonHwPowerBrakeSlowdown},
    {"display_clock_setting", nvmlClocksThrottleReasonDisplayClockSetting},
};

unsigned long long gd_scenario_reason_bit(const char *name)
{
    for (size_t i = 0; i < sizeof reasons / sizeof reasons[0]; i++)
        if (strcmp(reasons[i].name, name) == 0)
            return reasons[i].bit;
    return 0;
}

void gd_scenario_reason_names(char *out, size_t n)
{
    size_t used = 0;
    out[0] = '\0';
    for (size_t i = 0; i < sizeof reasons / sizeof reasons[0] && used < n; i++) {
        int w = snprintf(out + used, n - used, "%s%s", i ? ", " : "", reasons[i].name);
        if (w < 0)
            break;
        used += (size_t)w;
    }
}

#define CODE(c)                                                                                                        \
    {                                                                                                                  \
#c, c                                                                                                          \
    }
static const struct {
    const char *name;
    int code;
} codes[] = {
    CODE(NVML_SUCCESS),
    CODE(NVML_ERROR_UNINITIALIZED),
    CODE(NVML_ERROR_INVALID_ARGUMENT),
    CODE(NVML_ERROR_NOT_SUPPORTED),
    CODE(NVML_ERROR_NO_PERMISSION),
    CODE(NVML_ERROR_ALREADY_INITIALIZED),
    CODE(NVML_ERROR_NOT_FOUND),
    CODE(NVML_ERROR_INSUFFICIENT_SIZE),
    CODE(NVML_ERROR_INSUFFICIENT_POWER),
    CODE(NVML_ERROR_DRIVER_NOT_LOADED),
    CODE(NVML_ERROR_TIMEOUT),
    CODE(NVML_ERROR_IRQ_ISSUE),
    CODE(NVML_ERROR_LIBRARY_NOT_FOUND),
    CODE(NVML_ERROR_FUNCTION_NOT_FOUND),
    CODE(NVML_ERROR_CORRUPTED_INFOROM),
    CODE(NVML_ERROR_GPU_IS_LOST),
    CODE(NVML_ERROR_RESET_REQUIRED),
    CODE(NVML_ERROR_OPERATING_SYSTEM),
    CODE(NVML_ERROR_LIB_RM_VERSION_MISMATCH),
    CODE(NVML_ERROR_IN_USE),
    CODE(NVML_ERROR_MEMORY),
    CODE(NVML_ERROR_NO_DATA),
    CODE(NVML_ERROR_VGPU_ECC_NOT_SUPPORTED),
    CODE(NVML_ERROR_INSUFFICIENT_RESOURCES),
    CODE(NVML_ERROR_FREQ_NOT_SUPPORTED),
    CODE(NVML_ERROR_ARGUMENT_VERSION_MISMATCH),
    CODE(NVML_ERROR_DEPRECATED),
    CODE(NVML_ERROR_NOT_READY),
    CODE(NVML_ERROR_GPU_NOT_FOUND),
    CODE(NVML_ERROR_INVALID_STATE),
    CODE(NVML_ERROR_UNKNOWN),
};
#undef CODE

bool gd_scenario_return_code(const char *name, int *code)
{
    for (size_t i = 0; i < sizeof codes / sizeof codes[0]; i++) {
        if (strcmp(codes[i].name, name) == 0) {
            *code = codes[i].code;
            return true;
        }
    }
    return false;
}
