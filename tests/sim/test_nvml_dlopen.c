/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The built libnvidia-ml.so.1, loaded with dlopen as gpudoctor loads it and
 * called through dlsym, against a scenario in a mkdtemp directory.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gpudoctor/abi/nvml_api.h"
#include "sim_test_util.h"

#ifndef SIM_NVML_PATH
#error "SIM_NVML_PATH must name the built libnvidia-ml.so.1"
#endif

#define J(...) #__VA_ARGS__

/*
 * GPU 0 is steady until t=100000; GPU 1 is lost from t=50; GPU 2 reports
 * almost nothing, for the NOT_SUPPORTED answers.
 */
static const char *scenario = J({
    "driver_version" : "550.54.15",
    "cuda_driver_version" : 12040,
    "gpus" : [
        {
            "name" : "NVIDIA H100 80GB HBM3",
            "uuid" : "GPU-0000",
            "pci_bus_id" : "00000000:1B:00.0",
            "serial" : "1654922000123",
            "compute_capability" : [ 9, 0 ],
            "memory_total_mib" : 81559,
            "power_limit_w" : 700,
            "power_limit_requested_w" : 800,
            "power_limit_default_w" : 700,
            "power_limit_min_w" : 200,
            "power_limit_max_w" : 700,
            "clocks_max_mhz" : {"sm" : 1980, "mem" : 2619},
            "clocks_app_mhz" : {"sm" : 1755, "mem" : 2619},
            "temperature_thresholds_c" : {"shutdown" : 92, "slowdown" : 89, "gpu_max" : 87, "mem_max" : 95},
            "pcie_max" : {"gen" : 5, "width" : 16},
            "persistence_mode" : true,
            "compute_mode" : "prohibited",
            "mig_mode" : false,
            "ecc" : {
                "enabled" : true,
                "volatile_uncorrected" : 1,
                "aggregate_uncorrected" : 7,
                "retired_pages" : 2,
                "remapped_rows_pending" : true,
                "remap_failure" : false
            },
            "nvlink" : [ {
                "link" : 0,
                "active" : true,
                "remote_pci_bus_id" : "00000000:29:00.0",
                "error_counters" : {"crc_flit" : 5},
                "version" : 6,
                "data_tx_kibps" : 100
            } ],
            "events" : [ {"t" : 30, "nvlink" : {"link" : 0, "crc_flit" : 7, "replay" : 2}} ],
            "fabric" : {"state" : "completed", "status" : 27},
            "nvlink_speed_mbps" : 26562,
            "p2p" : {"status" : "disabled_by_regkey"},
            "processes" : [ {"pid" : 4242, "name" : "python", "used_mib" : 61000}, {"pid" : 77} ],
            "timeline" : [
                {
                    "t" : 0,
                    "temp_c" : 48,
                    "sm_clock_mhz" : 1410,
                    "mem_clock_mhz" : 2619,
                    "power_w" : 520.4,
                    "util_gpu_pct" : 99,
                    "util_mem_pct" : 40,
                    "mem_used_mib" : 61500,
                    "pcie_gen" : 4,
                    "pcie_width" : 16,
                    "pcie_tx_kbps" : 1000,
                    "pcie_rx_kbps" : 2000,
                    "pcie_replays" : 3,
                    "fan_pct" : null,
                    "event_reasons" : ["sw_power_cap"]
                },
                {"t" : 100000, "temp_c" : 90}
            ]
        },
        {
            "name" : "lost one",
            "processes" :
                [ {"pid" : 4242, "name" : "second"}, {"pid" : 77, "name" : "named here"}, {"pid" : 5, "name" : "x"} ],
            "timeline" : [
                {"t" : 0, "temp_c" : 50},
                {"t" : 50, "errors" : {"nvmlDeviceGetTemperature" : "NVML_ERROR_GPU_IS_LOST"}}
            ]
        },
        {"name" : "sparse", "timeline" : [ {"t" : 0, "temp_c" : 50} ]}
    ]
});

static void *lib;
static char *dir;

static void *sym(const char *name)
{
    void *p = dlsym(lib, name);
    if (!p)
        fail_msg("%s is not exported: %s", name, dlerror());
    return p;
}

#define CALL(type, name) ((type)sym(name))

static nvmlReturn_t init(void)
{
    return CALL(nvml_Init_fn, "nvmlInit_v2")();
}

static void shutdown_ok(void)
{
    assert_int_equal(CALL(nvml_Shutdown_fn, "nvmlShutdown")(), NVML_SUCCESS);
}

static nvmlDevice_t handle(unsigned i)
{
    nvmlDevice_t d = NULL;
    assert_int_equal(CALL(nvml_DeviceGetHandleByIndex_fn, "nvmlDeviceGetHandleByIndex_v2")(i, &d), NVML_SUCCESS);
    return d;
}

static int group_setup(void **state)
{
    (void)state;
    dir = simt_mkdtemp();
    char *path = dir ? simt_write(dir, "scenario.json", scenario) : NULL;
    lib = dlopen(SIM_NVML_PATH, RTLD_NOW | RTLD_LOCAL);
    if (!path || !lib) {
        print_error("setup: %s\n", lib ? "cannot write the scenario" : dlerror());
        free(path);
        return -1;
    }
    setenv("GPUDOCTOR_SIM_SCENARIO", path, 1);
    setenv("GPUDOCTOR_SIM_TIMESCALE", "100", 1); /* one real second is 100 scenario seconds */
    free(path);
    return 0;
}

static int group_teardown(void **state)
{
    (void)state;
    simt_rmtree(dir);
    return 0;
}

/* Runs first: the scenario clock starts at this process's first nvmlInit. */
static void test_gpu_lost_from_t50(void **state)
{
    (void)state;
    unsigned temp = 0;
    char name[64];
    nvml_DeviceGetTemperature_fn get_temp = CALL(nvml_DeviceGetTemperature_fn, "nvmlDeviceGetTemperature");
    nvml_DeviceGetString_fn get_name = CALL(nvml_DeviceGetString_fn, "nvmlDeviceGetName");
    assert_int_equal(init(), NVML_SUCCESS);
    nvmlDevice_t lost = handle(1);
    assert_int_equal(get_temp(lost, NVML_TEMPERATURE_GPU, &temp), NVML_SUCCESS);
    assert_int_equal(temp, 50);
    assert_int_equal(get_name(lost, name, sizeof name), NVML_SUCCESS);

    nanosleep(&(struct timespec){0, 600 * 1000 * 1000}, NULL); /* past t=50 */
    assert_int_equal(get_temp(lost, NVML_TEMPERATURE_GPU, &temp), NVML_ERROR_GPU_IS_LOST);
    /* A lost GPU is lost for every call, not only the injected one. */
    assert_int_equal(get_name(lost, name, sizeof name), NVML_ERROR_GPU_IS_LOST);
    nvmlDevice_t d;
    assert_int_equal(CALL(nvml_DeviceGetHandleByIndex_fn, "nvmlDeviceGetHandleByIndex")(1, &d), NVML_ERROR_GPU_IS_LOST);
    /* The other GPU is fine. */
    assert_int_equal(get_temp(handle(0), NVML_TEMPERATURE_GPU, &temp), NVML_SUCCESS);
    assert_int_equal(temp, 48);
    shutdown_ok();
}

static void test_init_and_errors(void **state)
{
    (void)state;
    unsigned n;
    const char *(*last_error)(void) = sym("gdsim_last_error");
    assert_int_equal(CALL(nvml_DeviceGetCount_fn, "nvmlDeviceGetCount_v2")(&n), NVML_ERROR_UNINITIALIZED);
    assert_int_equal(CALL(nvml_Shutdown_fn, "nvmlShutdown")(), NVML_ERROR_UNINITIALIZED);
    assert_string_equal(CALL(nvml_ErrorString_fn, "nvmlErrorString")(NVML_ERROR_GPU_IS_LOST), "GPU is lost");
    assert_string_equal(CALL(nvml_ErrorString_fn, "nvmlErrorString")(NVML_ERROR_NOT_SUPPORTED), "Not Supported");

    char *saved = strdup(getenv("GPUDOCTOR_SIM_SCENARIO"));
    unsetenv("GPUDOCTOR_SIM_SCENARIO");
    assert_int_equal(init(), NVML_ERROR_DRIVER_NOT_LOADED);
    assert_non_null(strstr(last_error(), "GPUDOCTOR_SIM_SCENARIO"));

    char *bad = simt_write(dir, "bad.json", J({"gpus" : [ {"timeline" : [ {"t" : "x"} ]} ]}));
    setenv("GPUDOCTOR_SIM_SCENARIO", bad, 1);
    assert_int_equal(init(), NVML_ERROR_UNKNOWN);
    assert_non_null(strstr(last_error(), "bad.json: gpus[0].timeline[0].t: expected a number"));
    free(bad);

    setenv("GPUDOCTOR_SIM_SCENARIO", saved, 1);
    setenv("GPUDOCTOR_SIM_TIMESCALE", "fast", 1);
    assert_int_equal(init(), NVML_ERROR_UNKNOWN);
    assert_string_equal(last_error(), "GPUDOCTOR_SIM_TIMESCALE: \"fast\" is not a positive number");
    setenv("GPUDOCTOR_SIM_TIMESCALE", "100", 1);
    free(saved);

    /* Init is counted; the state goes with the last shutdown. */
    assert_int_equal(init(), NVML_SUCCESS);
    assert_int_equal(init(), NVML_SUCCESS);
    assert_string_equal(last_error(), "");
    shutdown_ok();
    assert_int_equal(CALL(nvml_DeviceGetCount_fn, "nvmlDeviceGetCount")(&n), NVML_SUCCESS);
    assert_int_equal(n, 3);
    assert_int_equal(CALL(nvml_DeviceGetCount_fn, "nvmlDeviceGetCount")(NULL), NVML_ERROR_INVALID_ARGUMENT);
    nvmlDevice_t d;
    assert_int_equal(CALL(nvml_DeviceGetHandleByIndex_fn, "nvmlDeviceGetHandleByIndex_v2")(3, &d),
                     NVML_ERROR_INVALID_ARGUMENT);
    shutdown_ok();
    assert_int_equal(CALL(nvml_DeviceGetCount_fn, "nvmlDeviceGetCount")(&n), NVML_ERROR_UNINITIALIZED);
}

static void test_system_and_strings(void **state)
{
    (void)state;
    char buf[96];
    int cuda;
    assert_int_equal(init(), NVML_SUCCESS);
    assert_int_equal(CALL(nvml_SystemGetDriverVersion_fn, "nvmlSystemGetDriverVersion")(buf, sizeof buf), 0);
    assert_string_equal(buf, "550.54.15");
    assert_int_equal(CALL(nvml_SystemGetDriverVersion_fn, "nvmlSystemGetDriverVersion")(buf, 9),
                     NVML_ERROR_INSUFFICIENT_SIZE);
    assert_int_equal(CALL(nvml_SystemGetNVMLVersion_fn, "nvmlSystemGetNVMLVersion")(buf, sizeof buf), 0);
    assert_string_equal(buf, "12.550.54.15");
    assert_int_equal(CALL(nvml_SystemGetCudaDriverVersion_fn, "nvmlSystemGetCudaDriverVersion_v2")(&cuda), 0);
    assert_int_equal(cuda, 12040);

    nvmlDevice_t g0 = handle(0), g1 = handle(2);
    nvml_DeviceGetString_fn uuid = CALL(nvml_DeviceGetString_fn, "nvmlDeviceGetUUID");
    assert_int_equal(uuid(g0, buf, sizeof buf), NVML_SUCCESS);
    assert_string_equal(buf, "GPU-0000");
    assert_int_equal(uuid(g0, buf, 8), NVML_ERROR_INSUFFICIENT_SIZE); /* 8 chars + NUL needed */
    assert_int_equal(uuid(g0, NULL, 80), NVML_ERROR_INVALID_ARGUMENT);
    assert_int_equal(uuid(g1, buf, sizeof buf), NVML_ERROR_NOT_SUPPORTED);
    assert_int_equal(CALL(nvml_DeviceGetString_fn, "nvmlDeviceGetVbiosVersion")(g0, buf, sizeof buf),
                     NVML_ERROR_NOT_SUPPORTED);
    assert_int_equal(uuid((nvmlDevice_t)buf, buf, sizeof buf), NVML_ERROR_INVALID_ARGUMENT);

    nvmlPciInfo_t pci;
    assert_int_equal(CALL(nvml_DeviceGetPciInfo_fn, "nvmlDeviceGetPciInfo_v3")(g0, &pci), NVML_SUCCESS);
    assert_string_equal(pci.busId, "00000000:1B:00.0");
    assert_string_equal(pci.busIdLegacy, "0000:1B:00.0");
    assert_int_equal(pci.bus, 0x1b);
    assert_int_equal(pci.pciDeviceId & 0xffff, 0x10de);
    assert_int_equal(CALL(nvml_DeviceGetNvLinkRemotePciInfo_fn, "nvmlDeviceGetNvLinkRemotePciInfo_v2")(g0, 0, &pci),
                     NVML_SUCCESS);
    assert_int_equal(pci.bus, 0x29);
    nvmlEnableState_t on;
    nvml_DeviceGetNvLinkState_fn link = CALL(nvml_DeviceGetNvLinkState_fn, "nvmlDeviceGetNvLinkState");
    assert_int_equal(link(g0, 0, &on), NVML_SUCCESS);
    assert_int_equal(on, NVML_FEATURE_ENABLED);
    assert_int_equal(link(g0, 1, &on), NVML_ERROR_INVALID_ARGUMENT);
    assert_int_equal(link(g1, 0, &on), NVML_ERROR_NOT_SUPPORTED);
    shutdown_ok();
}

static void test_sensors(void **state)
{
    (void)state;
    unsigned u, lo, hi;
    assert_int_equal(init(), NVML_SUCCESS);
    nvmlDevice_t g0 = handle(0), g1 = handle(2);
    nvml_DeviceGetUInt_fn power = CALL(nvml_DeviceGetUInt_fn, "nvmlDeviceGetPowerUsage");
    assert_int_equal(power(g0, &u), NVML_SUCCESS);
    assert_int_equal(u, 520400);
    assert_int_equal(power(g1, &u), NVML_ERROR_NOT_SUPPORTED);
    assert_int_equal(CALL(nvml_DeviceGetUInt_fn, "nvmlDeviceGetEnforcedPowerLimit")(g0, &u), NVML_SUCCESS);
    assert_int_equal(u, 700000);
    /* The limit asked for, above the enforced one: a platform cap. */
    assert_int_equal(CALL(nvml_DeviceGetUInt_fn, "nvmlDeviceGetPowerManagementLimit")(g0, &u), NVML_SUCCESS);
    assert_int_equal(u, 800000);
    assert_int_equal(CALL(nvml_DeviceGetPowerManagementLimitConstraints_fn,
                          "nvmlDeviceGetPowerManagementLimitConstraints")(g0, &lo, &hi),
                     NVML_SUCCESS);
    assert_int_equal(lo, 200000);
    assert_int_equal(CALL(nvml_DeviceGetUInt_fn, "nvmlDeviceGetFanSpeed")(g0, &u), NVML_ERROR_NOT_SUPPORTED);

    nvml_DeviceGetClock_fn clock = CALL(nvml_DeviceGetClock_fn, "nvmlDeviceGetClock");
    assert_int_equal(clock(g0, NVML_CLOCK_SM, NVML_CLOCK_ID_CURRENT, &u), NVML_SUCCESS);
    assert_int_equal(u, 1410);
    assert_int_equal(clock(g0, NVML_CLOCK_MEM, NVML_CLOCK_ID_APP_CLOCK_TARGET, &u), NVML_SUCCESS);
    assert_int_equal(u, 2619);
    assert_int_equal(clock(g0, NVML_CLOCK_SM, NVML_CLOCK_ID_APP_CLOCK_DEFAULT, &u), NVML_ERROR_NOT_SUPPORTED);
    assert_int_equal(CALL(nvml_DeviceGetClockInfo_fn, "nvmlDeviceGetMaxClockInfo")(g0, NVML_CLOCK_GRAPHICS, &u), 0);
    assert_int_equal(u, 1980);
    nvml_DeviceGetTemperatureThreshold_fn th =
        CALL(nvml_DeviceGetTemperatureThreshold_fn, "nvmlDeviceGetTemperatureThreshold");
    assert_int_equal(th(g0, NVML_TEMPERATURE_THRESHOLD_GPU_MAX, &u), NVML_SUCCESS);
    assert_int_equal(u, 87);
    assert_int_equal(th(g1, NVML_TEMPERATURE_THRESHOLD_GPU_MAX, &u), NVML_ERROR_NOT_SUPPORTED);

    assert_int_equal(CALL(nvml_DeviceGetUInt_fn, "nvmlDeviceGetCurrPcieLinkGeneration")(g0, &u), 0);
    assert_int_equal(u, 4);
    assert_int_equal(CALL(nvml_DeviceGetUInt_fn, "nvmlDeviceGetGpuMaxPcieLinkGeneration")(g0, &u), 0);
    assert_int_equal(u, 5);
    assert_int_equal(
        CALL(nvml_DeviceGetPcieThroughput_fn, "nvmlDeviceGetPcieThroughput")(g0, NVML_PCIE_UTIL_RX_BYTES, &u),
        NVML_SUCCESS);
    assert_int_equal(u, 2000);

    nvmlUtilization_t util;
    assert_int_equal(CALL(nvml_DeviceGetUtilizationRates_fn, "nvmlDeviceGetUtilizationRates")(g0, &util), 0);
    assert_int_equal(util.memory, 40);
    nvmlPstates_t ps;
    assert_int_equal(CALL(nvml_DeviceGetPerformanceState_fn, "nvmlDeviceGetPerformanceState")(g0, &ps), 0);
    assert_int_equal(ps, NVML_PSTATE_0);

    nvmlMemory_v2_t mem = {.version = 2}; /* the classic mistake: not nvmlMemory_v2 */
    nvml_DeviceGetMemoryInfo_v2_fn mem2 = CALL(nvml_DeviceGetMemoryInfo_v2_fn, "nvmlDeviceGetMemoryInfo_v2");
    assert_int_equal(mem2(g0, &mem), NVML_ERROR_ARGUMENT_VERSION_MISMATCH);
    mem.version = nvmlMemory_v2;
    assert_int_equal(mem2(g0, &mem), NVML_SUCCESS);
    assert_int_equal(mem.total, 81559ULL << 20);
    assert_int_equal(mem.free, (81559ULL - 61500ULL) << 20);
    nvmlMemory_t mem1;
    assert_int_equal(CALL(nvml_DeviceGetMemoryInfo_fn, "nvmlDeviceGetMemoryInfo")(g1, &mem1), NVML_ERROR_NOT_SUPPORTED);
    shutdown_ok();
}

static void test_health_and_counters(void **state)
{
    (void)state;
    unsigned long long a, b;
    assert_int_equal(init(), NVML_SUCCESS);
    nvmlDevice_t g0 = handle(0), g1 = handle(2);
    nvml_DeviceGetULongLong_fn reasons = CALL(nvml_DeviceGetULongLong_fn, "nvmlDeviceGetCurrentClocksEventReasons");
    assert_int_equal(reasons(g0, &a), NVML_SUCCESS);
    assert_int_equal(a, nvmlClocksThrottleReasonSwPowerCap);
    assert_int_equal(reasons(g1, &a), NVML_ERROR_NOT_SUPPORTED);

    /* Counters grow with scenario time. */
    nvml_DeviceGetULongLong_fn energy = CALL(nvml_DeviceGetULongLong_fn, "nvmlDeviceGetTotalEnergyConsumption");
    nvmlViolationTime_t v1, v2;
    nvml_DeviceGetViolationStatus_fn viol = CALL(nvml_DeviceGetViolationStatus_fn, "nvmlDeviceGetViolationStatus");
    assert_int_equal(energy(g0, &a), NVML_SUCCESS);
    assert_int_equal(viol(g0, NVML_PERF_POLICY_POWER, &v1), NVML_SUCCESS);
    nanosleep(&(struct timespec){0, 20 * 1000 * 1000}, NULL);
    assert_int_equal(energy(g0, &b), NVML_SUCCESS);
    assert_int_equal(viol(g0, NVML_PERF_POLICY_POWER, &v2), NVML_SUCCESS);
    assert_true(b > a);
    assert_true(v2.violationTime > v1.violationTime);
    assert_true(v1.referenceTime > 0);
    assert_int_equal(viol(g0, NVML_PERF_POLICY_THERMAL, &v1), NVML_SUCCESS);
    assert_int_equal(v1.violationTime, 0);
    assert_int_equal(viol(g0, NVML_PERF_POLICY_SYNC_BOOST, &v1), NVML_SUCCESS); /* sync_boost never set */
    assert_int_equal(v1.violationTime, 0);
    assert_int_equal(viol(g0, NVML_PERF_POLICY_BOARD_LIMIT, &v1), NVML_ERROR_NOT_SUPPORTED);
    assert_int_equal(energy(g1, &a), NVML_ERROR_NOT_SUPPORTED);

    nvmlFieldValue_t fv[4] = {{.fieldId = NVML_FI_DEV_PCIE_REPLAY_COUNTER},
                              {.fieldId = NVML_FI_DEV_MEMORY_TEMP},
                              {.fieldId = NVML_FI_DEV_TOTAL_ENERGY_CONSUMPTION},
                              {.fieldId = 9999}};
    assert_int_equal(CALL(nvml_DeviceGetFieldValues_fn, "nvmlDeviceGetFieldValues")(g0, 4, fv), NVML_SUCCESS);
    assert_int_equal(fv[0].nvmlReturn, NVML_SUCCESS);
    assert_int_equal(fv[0].value.ullVal, 3);
    assert_int_equal(fv[1].nvmlReturn, NVML_ERROR_NOT_SUPPORTED);
    assert_int_equal(fv[2].nvmlReturn, NVML_SUCCESS);
    assert_true(fv[2].value.ullVal >= b);
    assert_int_equal(fv[3].nvmlReturn, NVML_ERROR_NOT_SUPPORTED);

    nvml_DeviceGetTotalEccErrors_fn ecc = CALL(nvml_DeviceGetTotalEccErrors_fn, "nvmlDeviceGetTotalEccErrors");
    assert_int_equal(ecc(g0, NVML_MEMORY_ERROR_TYPE_UNCORRECTED, NVML_AGGREGATE_ECC, &a), NVML_SUCCESS);
    assert_int_equal(a, 7);
    assert_int_equal(ecc(g1, NVML_MEMORY_ERROR_TYPE_UNCORRECTED, NVML_AGGREGATE_ECC, &a), NVML_ERROR_NOT_SUPPORTED);
    unsigned count = 0, corr, unc, pending, failed;
    unsigned long long addr[4];
    nvml_DeviceGetRetiredPages_fn retired = CALL(nvml_DeviceGetRetiredPages_fn, "nvmlDeviceGetRetiredPages");
    assert_int_equal(retired(g0, NVML_PAGE_RETIREMENT_CAUSE_DOUBLE_BIT_ECC_ERROR, &count, NULL),
                     NVML_ERROR_INSUFFICIENT_SIZE);
    assert_int_equal(count, 2);
    assert_int_equal(retired(g0, NVML_PAGE_RETIREMENT_CAUSE_DOUBLE_BIT_ECC_ERROR, &count, addr), NVML_SUCCESS);
    count = 4;
    assert_int_equal(retired(g0, NVML_PAGE_RETIREMENT_CAUSE_MULTIPLE_SINGLE_BIT_ECC_ERRORS, &count, addr), 0);
    assert_int_equal(count, 0);
    assert_int_equal(
        CALL(nvml_DeviceGetRemappedRows_fn, "nvmlDeviceGetRemappedRows")(g0, &corr, &unc, &pending, &failed),
        NVML_SUCCESS);
    assert_int_equal(unc, 1);
    assert_int_equal(pending, 1);
    assert_int_equal(failed, 0);
    nvmlComputeMode_t mode;
    assert_int_equal(CALL(nvml_DeviceGetComputeMode_fn, "nvmlDeviceGetComputeMode")(g0, &mode), 0);
    assert_int_equal(mode, NVML_COMPUTEMODE_PROHIBITED);
    unsigned cur, pend;
    assert_int_equal(CALL(nvml_DeviceGetMigMode_fn, "nvmlDeviceGetMigMode")(g0, &cur, &pend), 0);
    assert_int_equal(cur, 0);
    assert_int_equal(CALL(nvml_DeviceGetMigMode_fn, "nvmlDeviceGetMigMode")(g1, &cur, &pend), NVML_ERROR_NOT_SUPPORTED);
    shutdown_ok();
}

static void test_processes(void **state)
{
    (void)state;
    assert_int_equal(init(), NVML_SUCCESS);
    nvmlDevice_t g0 = handle(0), g1 = handle(2);
    nvml_DeviceGetComputeRunningProcesses_fn v3 =
        CALL(nvml_DeviceGetComputeRunningProcesses_fn, "nvmlDeviceGetComputeRunningProcesses_v3");
    nvmlProcessInfo_t infos[4];
    unsigned n = 1;
    assert_int_equal(v3(g0, &n, infos), NVML_ERROR_INSUFFICIENT_SIZE);
    assert_int_equal(n, 2);
    n = 4;
    assert_int_equal(v3(g0, &n, infos), NVML_SUCCESS);
    assert_int_equal(n, 2);
    assert_int_equal(infos[0].pid, 4242);
    assert_int_equal(infos[0].usedGpuMemory, 61000ULL << 20);
    assert_int_equal(infos[0].gpuInstanceId, 0xFFFFFFFFu);
    assert_int_equal(infos[1].usedGpuMemory, (unsigned long long)NVML_VALUE_NOT_AVAILABLE);
    nvmlProcessInfo_v1_t old[2];
    n = 2;
    assert_int_equal(
        CALL(nvml_DeviceGetComputeRunningProcesses_v1_fn, "nvmlDeviceGetComputeRunningProcesses")(g0, &n, old),
        NVML_SUCCESS);
    assert_int_equal(old[1].pid, 77);
    assert_int_equal(v3(g1, &n, infos), NVML_ERROR_NOT_SUPPORTED);
    /* Names: the first GPU that names a pid; unknown and unnamed pids are not found. */
    nvml_SystemGetProcessName_fn name_of = CALL(nvml_SystemGetProcessName_fn, "nvmlSystemGetProcessName");
    char name[64];
    assert_int_equal(name_of(4242, name, sizeof name), NVML_SUCCESS);
    assert_string_equal(name, "python");
    assert_int_equal(name_of(77, name, sizeof name), NVML_SUCCESS);
    assert_string_equal(name, "named here");
    assert_int_equal(name_of(5, name, sizeof name), NVML_SUCCESS);
    assert_string_equal(name, "x");
    assert_int_equal(name_of(6, name, sizeof name), NVML_ERROR_NOT_FOUND);
    assert_int_equal(name_of(4, name, sizeof name), NVML_ERROR_NOT_FOUND);
    assert_int_equal(name_of(0, name, sizeof name), NVML_ERROR_NOT_FOUND);
    assert_int_equal(name_of(4242, name, 3), NVML_ERROR_INSUFFICIENT_SIZE);
    shutdown_ok();
}

/* Runs last: it sets the session clock (gdsim_clock_set), which then holds. */
static void test_nvlink_counters(void **state)
{
    (void)state;
    assert_int_equal(init(), NVML_SUCCESS);
    void (*clock_set)(double) = (void (*)(double))sym("gdsim_clock_set");
    nvmlDevice_t g0 = handle(0), sparse = handle(2);
    nvml_DeviceGetNvLinkErrorCounter_fn errs =
        CALL(nvml_DeviceGetNvLinkErrorCounter_fn, "nvmlDeviceGetNvLinkErrorCounter");
    unsigned long long n = 99;
    clock_set(10);
    assert_int_equal(errs(g0, 0, NVML_NVLINK_ERROR_DL_CRC_FLIT, &n), NVML_SUCCESS);
    assert_int_equal(n, 5);
    assert_int_equal(errs(g0, 0, NVML_NVLINK_ERROR_DL_REPLAY, &n), NVML_SUCCESS); /* an event raises it later */
    assert_int_equal(n, 0);
    assert_int_equal(errs(g0, 0, NVML_NVLINK_ERROR_DL_RECOVERY, &n), NVML_ERROR_NOT_SUPPORTED);
    assert_int_equal(errs(g0, 0, NVML_NVLINK_ERROR_COUNT, &n), NVML_ERROR_INVALID_ARGUMENT);
    assert_int_equal(errs(g0, 1, NVML_NVLINK_ERROR_DL_CRC_FLIT, &n), NVML_ERROR_INVALID_ARGUMENT);
    assert_int_equal(errs(g0, 0, NVML_NVLINK_ERROR_DL_CRC_FLIT, NULL), NVML_ERROR_INVALID_ARGUMENT);
    assert_int_equal(errs(sparse, 0, NVML_NVLINK_ERROR_DL_CRC_FLIT, &n), NVML_ERROR_NOT_SUPPORTED);
    clock_set(40);
    assert_int_equal(errs(g0, 0, NVML_NVLINK_ERROR_DL_CRC_FLIT, &n), NVML_SUCCESS);
    assert_int_equal(n, 12);
    assert_int_equal(errs(g0, 0, NVML_NVLINK_ERROR_DL_REPLAY, &n), NVML_SUCCESS);
    assert_int_equal(n, 2);

    /* Fabric registration: the scenario's "fabric", NOT_SUPPORTED without it. */
    nvml_DeviceGetGpuFabricInfo_fn fabric = CALL(nvml_DeviceGetGpuFabricInfo_fn, "nvmlDeviceGetGpuFabricInfo");
    nvmlGpuFabricInfo_t fi;
    memset(&fi, 0xff, sizeof fi);
    assert_int_equal(fabric(g0, &fi), NVML_SUCCESS);
    assert_int_equal(fi.state, NVML_GPU_FABRIC_STATE_COMPLETED);
    assert_int_equal(fi.status, NVML_ERROR_NOT_READY);
    assert_int_equal(fabric(sparse, &fi), NVML_ERROR_NOT_SUPPORTED);
    assert_int_equal(fabric(g0, NULL), NVML_ERROR_INVALID_ARGUMENT);

    /* The link's version as the scenario gives it; NOT_SUPPORTED without one. */
    nvml_DeviceGetNvLinkVersion_fn version = CALL(nvml_DeviceGetNvLinkVersion_fn, "nvmlDeviceGetNvLinkVersion");
    unsigned int v = 0;
    assert_int_equal(version(g0, 0, &v), NVML_SUCCESS);
    assert_int_equal(v, 6);
    assert_int_equal(version(g0, 1, &v), NVML_ERROR_INVALID_ARGUMENT);
    assert_int_equal(version(sparse, 0, &v), NVML_ERROR_NOT_SUPPORTED);

    /* Throughput: KiB since the start, all links (UINT_MAX) or one. */
    nvmlFieldValue_t fv[4];
    memset(fv, 0, sizeof fv);
    fv[0].fieldId = NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_TX;
    fv[0].scopeId = 0xFFFFFFFFu;
    fv[1].fieldId = NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_TX;
    fv[1].scopeId = 0;
    fv[2].fieldId = NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_RX; /* no rate given */
    fv[2].scopeId = 0xFFFFFFFFu;
    fv[3].fieldId = NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_TX;
    fv[3].scopeId = 3; /* not a link of this GPU */
    nvml_DeviceGetFieldValues_fn fields = CALL(nvml_DeviceGetFieldValues_fn, "nvmlDeviceGetFieldValues");
    assert_int_equal(fields(g0, 4, fv), NVML_SUCCESS);
    assert_int_equal(fv[0].nvmlReturn, NVML_SUCCESS);
    assert_int_equal(fv[0].valueType, NVML_VALUE_TYPE_UNSIGNED_LONG_LONG);
    assert_int_equal(fv[0].value.ullVal, 4000);
    assert_int_equal(fv[1].nvmlReturn, NVML_SUCCESS);
    assert_int_equal(fv[1].value.ullVal, 4000);
    assert_int_equal(fv[2].nvmlReturn, NVML_ERROR_NOT_SUPPORTED);
    assert_int_equal(fv[3].nvmlReturn, NVML_ERROR_INVALID_ARGUMENT);
    assert_int_equal(fields(sparse, 1, fv), NVML_SUCCESS);
    assert_int_equal(fv[0].nvmlReturn, NVML_ERROR_NOT_SUPPORTED);

    /* The active links' common speed, as the scenario gives it; NOT_SUPPORTED without one. */
    memset(fv, 0, sizeof fv);
    fv[0].fieldId = NVML_FI_DEV_NVLINK_SPEED_MBPS_COMMON;
    assert_int_equal(fields(g0, 1, fv), NVML_SUCCESS);
    assert_int_equal(fv[0].nvmlReturn, NVML_SUCCESS);
    assert_int_equal(fv[0].valueType, NVML_VALUE_TYPE_UNSIGNED_INT);
    assert_int_equal(fv[0].value.uiVal, 26562);
    assert_int_equal(fields(sparse, 1, fv), NVML_SUCCESS);
    assert_int_equal(fv[0].nvmlReturn, NVML_ERROR_NOT_SUPPORTED);

    /* P2P status: a GPU's "p2p" speaks for every pair it is in, either way round; other pairs
     * are ok; the NVLink capability of a pair without NVLinks is not supported. */
    nvml_DeviceGetP2PStatus_fn p2p = CALL(nvml_DeviceGetP2PStatus_fn, "nvmlDeviceGetP2PStatus");
    nvmlDevice_t lost = handle(1);
    nvmlGpuP2PStatus_t st = NVML_P2P_STATUS_UNKNOWN;
    assert_int_equal(p2p(g0, sparse, NVML_P2P_CAPS_INDEX_READ, &st), NVML_SUCCESS);
    assert_int_equal(st, NVML_P2P_STATUS_DISABLED_BY_REGKEY);
    assert_int_equal(p2p(sparse, g0, NVML_P2P_CAPS_INDEX_WRITE, &st), NVML_SUCCESS);
    assert_int_equal(st, NVML_P2P_STATUS_DISABLED_BY_REGKEY);
    assert_int_equal(p2p(sparse, lost, NVML_P2P_CAPS_INDEX_READ, &st), NVML_SUCCESS);
    assert_int_equal(st, NVML_P2P_STATUS_OK);
    assert_int_equal(p2p(sparse, lost, NVML_P2P_CAPS_INDEX_NVLINK, &st), NVML_SUCCESS);
    assert_int_equal(st, NVML_P2P_STATUS_NOT_SUPPORTED);
    assert_int_equal(p2p(g0, sparse, NVML_P2P_CAPS_INDEX_UNKNOWN, &st), NVML_ERROR_INVALID_ARGUMENT);
    assert_int_equal(p2p(g0, sparse, NVML_P2P_CAPS_INDEX_READ, NULL), NVML_ERROR_INVALID_ARGUMENT);
    assert_int_equal(p2p(g0, NULL, NVML_P2P_CAPS_INDEX_READ, &st), NVML_ERROR_INVALID_ARGUMENT);
    shutdown_ok();
}

/* A field value that carries a getter's counter answers as the getter
 * does: the same reading at the same scenario time, the same injected
 * refusal; the average power only where nvmlDeviceGetPowerUsage averages
 * (Ampere but GA100, and newer). GPU 0 an H100, GPU 1 an A100 (GA100),
 * GPU 2 an H100 whose getters are refused. */
static const char *counters = J({
    "driver_version" : "550.54.15",
    "gpus" : [
        {
            "name" : "NVIDIA H100 80GB HBM3",
            "compute_capability" : [ 9, 0 ],
            "timeline" : [
                {"t" : 0, "power_w" : 500, "pcie_replays" : 3, "event_reasons" : []},
                {"t" : 10, "power_w" : 600, "pcie_replays" : 5, "event_reasons" : ["sync_boost"]}
            ]
        },
        {
            "name" : "NVIDIA A100 80GB PCIe",
            "compute_capability" : [ 8, 0 ],
            "timeline" : [ {"t" : 0, "power_w" : 250} ]
        },
        {
            "name" : "NVIDIA H100 80GB HBM3",
            "compute_capability" : [ 9, 0 ],
            "errors" : {
                "nvmlDeviceGetPcieReplayCounter" : "NVML_ERROR_UNKNOWN",
                "nvmlDeviceGetTotalEnergyConsumption" : "NVML_ERROR_NO_PERMISSION",
                "nvmlDeviceGetPowerUsage" : "NVML_ERROR_UNKNOWN"
            },
            "timeline" : [ {"t" : 0, "power_w" : 500, "pcie_replays" : 3} ]
        }
    ]
});

enum { AVG, REPLAYS, ENERGY, SYNC_BOOST, BOARD_LIMIT, NFIELDS };

static void read_counters(nvmlDevice_t d, nvmlFieldValue_t *fv)
{
    static const unsigned ids[NFIELDS] = {NVML_FI_DEV_POWER_AVERAGE, NVML_FI_DEV_PCIE_REPLAY_COUNTER,
                                          NVML_FI_DEV_TOTAL_ENERGY_CONSUMPTION, NVML_FI_DEV_PERF_POLICY_SYNC_BOOST,
                                          NVML_FI_DEV_PERF_POLICY_BOARD_LIMIT};
    memset(fv, 0, NFIELDS * sizeof *fv);
    for (int k = 0; k < NFIELDS; k++)
        fv[k].fieldId = ids[k];
    assert_int_equal(CALL(nvml_DeviceGetFieldValues_fn, "nvmlDeviceGetFieldValues")(d, NFIELDS, fv), NVML_SUCCESS);
}

/* Last: it sets the caller's clock, which holds for the process. */
static void test_fields_carry_their_getters_counters(void **state)
{
    (void)state;
    char *saved = strdup(getenv("GPUDOCTOR_SIM_SCENARIO"));
    char *path = simt_write(dir, "counters.json", counters);
    setenv("GPUDOCTOR_SIM_SCENARIO", path, 1);
    assert_int_equal(init(), NVML_SUCCESS);
    CALL(void (*)(double), "gdsim_clock_set")(20);
    nvml_DeviceGetUInt_fn power = CALL(nvml_DeviceGetUInt_fn, "nvmlDeviceGetPowerUsage");
    nvml_DeviceGetUInt_fn replays = CALL(nvml_DeviceGetUInt_fn, "nvmlDeviceGetPcieReplayCounter");
    nvml_DeviceGetULongLong_fn energy = CALL(nvml_DeviceGetULongLong_fn, "nvmlDeviceGetTotalEnergyConsumption");
    nvml_DeviceGetViolationStatus_fn viol = CALL(nvml_DeviceGetViolationStatus_fn, "nvmlDeviceGetViolationStatus");
    nvmlFieldValue_t fv[NFIELDS];
    unsigned u;
    unsigned long long mj;
    nvmlViolationTime_t vt;

    read_counters(handle(0), fv);
    assert_int_equal(power(handle(0), &u), NVML_SUCCESS);
    assert_int_equal(fv[AVG].nvmlReturn, NVML_SUCCESS);
    assert_int_equal(fv[AVG].value.uiVal, u);
    assert_int_equal(replays(handle(0), &u), NVML_SUCCESS);
    assert_int_equal(fv[REPLAYS].value.ullVal, u);
    assert_int_equal(energy(handle(0), &mj), NVML_SUCCESS);
    assert_int_equal(fv[ENERGY].value.ullVal, mj);
    assert_int_equal(viol(handle(0), NVML_PERF_POLICY_SYNC_BOOST, &vt), NVML_SUCCESS);
    assert_int_equal(fv[SYNC_BOOST].nvmlReturn, NVML_SUCCESS);
    assert_int_equal(fv[SYNC_BOOST].value.ullVal, vt.violationTime);
    assert_true(vt.violationTime > 0); /* 10 s of sync boost */
    assert_int_equal(viol(handle(0), NVML_PERF_POLICY_BOARD_LIMIT, &vt), NVML_ERROR_NOT_SUPPORTED);
    assert_int_equal(fv[BOARD_LIMIT].nvmlReturn, NVML_ERROR_NOT_SUPPORTED);

    read_counters(handle(1), fv);
    assert_int_equal(fv[AVG].nvmlReturn, NVML_ERROR_NOT_SUPPORTED); /* GA100: the call gives the instant draw */
    assert_int_equal(power(handle(1), &u), NVML_SUCCESS);
    assert_int_equal(u, 250000);

    read_counters(handle(2), fv);
    assert_int_equal(fv[AVG].nvmlReturn, NVML_ERROR_UNKNOWN);
    assert_int_equal(fv[REPLAYS].nvmlReturn, NVML_ERROR_UNKNOWN);
    assert_int_equal(fv[ENERGY].nvmlReturn, NVML_ERROR_NO_PERMISSION);
    shutdown_ok();
    setenv("GPUDOCTOR_SIM_SCENARIO", saved, 1);
    free(saved);
    free(path);
}

/* Every NVML function counts its calls (gdsim_nvml_calls); a wrapper such
 * as nvmlInit counts once, not as nvmlInit_v2 too. */
static void test_calls_are_counted(void **state)
{
    (void)state;
    const char *(*calls)(size_t, unsigned long long *) = sym("gdsim_nvml_calls");
    unsigned long long before[2] = {0, 0}, after[2] = {0, 0}, n;
    static const char *const names[] = {"nvmlInit", "nvmlInit_v2"};
    const char *name;
    for (size_t i = 0; (name = calls(i, &n)) != NULL; i++)
        for (int k = 0; k < 2; k++)
            if (strcmp(name, names[k]) == 0)
                before[k] = n;
    assert_int_equal(CALL(nvml_Init_fn, "nvmlInit")(), NVML_SUCCESS);
    shutdown_ok();
    for (size_t i = 0; (name = calls(i, &n)) != NULL; i++)
        for (int k = 0; k < 2; k++)
            if (strcmp(name, names[k]) == 0)
                after[k] = n;
    assert_int_equal(after[0], before[0] + 1);
    assert_int_equal(after[1], before[1]);
    assert_true(before[1] > 0); /* init() calls nvmlInit_v2 */
    assert_null(calls(1000, &n));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gpu_lost_from_t50),
        cmocka_unit_test(test_init_and_errors),
        cmocka_unit_test(test_system_and_strings),
        cmocka_unit_test(test_sensors),
        cmocka_unit_test(test_health_and_counters),
        cmocka_unit_test(test_processes),
        cmocka_unit_test(test_nvlink_counters),
        cmocka_unit_test(test_calls_are_counted),
        cmocka_unit_test(test_fields_carry_their_getters_counters),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
