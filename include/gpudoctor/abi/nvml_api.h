/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The subset of NVIDIA's NVML API that gpudoctor uses, declared exactly as
 * NVIDIA's nvml.h declares it (names, values, layouts), so that the project
 * builds without NVIDIA's header and loads libnvidia-ml.so.1 with dlopen.
 *
 * tests/abi/ compiles these declarations next to NVIDIA's own header, where
 * it is installed, and checks every constant and struct size below.
 * Declarations newer than the header Debian ships (NVML API 11) are marked
 * "newer": their values follow the CUDA 13 toolkit's nvml.h, against which
 * the test abi_nvml_cuda13 compares them (tests/abi/nvml_abi_list_cuda13.h).
 */
#ifndef GPUDOCTOR_NVML_API_H
#define GPUDOCTOR_NVML_API_H

#ifdef __cplusplus
extern "C" {
#endif

typedef struct nvmlDevice_st *nvmlDevice_t;

typedef enum nvmlReturn_enum {
    NVML_SUCCESS = 0,
    NVML_ERROR_UNINITIALIZED = 1,
    NVML_ERROR_INVALID_ARGUMENT = 2,
    NVML_ERROR_NOT_SUPPORTED = 3,
    NVML_ERROR_NO_PERMISSION = 4,
    NVML_ERROR_ALREADY_INITIALIZED = 5,
    NVML_ERROR_NOT_FOUND = 6,
    NVML_ERROR_INSUFFICIENT_SIZE = 7,
    NVML_ERROR_INSUFFICIENT_POWER = 8,
    NVML_ERROR_DRIVER_NOT_LOADED = 9,
    NVML_ERROR_TIMEOUT = 10,
    NVML_ERROR_IRQ_ISSUE = 11,
    NVML_ERROR_LIBRARY_NOT_FOUND = 12,
    NVML_ERROR_FUNCTION_NOT_FOUND = 13,
    NVML_ERROR_CORRUPTED_INFOROM = 14,
    NVML_ERROR_GPU_IS_LOST = 15,
    NVML_ERROR_RESET_REQUIRED = 16,
    NVML_ERROR_OPERATING_SYSTEM = 17,
    NVML_ERROR_LIB_RM_VERSION_MISMATCH = 18,
    NVML_ERROR_IN_USE = 19,
    NVML_ERROR_MEMORY = 20,
    NVML_ERROR_NO_DATA = 21,
    NVML_ERROR_VGPU_ECC_NOT_SUPPORTED = 22,
    NVML_ERROR_INSUFFICIENT_RESOURCES = 23,
    NVML_ERROR_FREQ_NOT_SUPPORTED = 24,
    NVML_ERROR_ARGUMENT_VERSION_MISMATCH = 25,
    NVML_ERROR_DEPRECATED = 26, /* newer */
    NVML_ERROR_NOT_READY = 27, /* newer */
    NVML_ERROR_GPU_NOT_FOUND = 28, /* newer */
    NVML_ERROR_INVALID_STATE = 29, /* newer */
    NVML_ERROR_UNKNOWN = 999
} nvmlReturn_t;

typedef enum nvmlEnableState_enum { NVML_FEATURE_DISABLED = 0, NVML_FEATURE_ENABLED = 1 } nvmlEnableState_t;

typedef enum nvmlTemperatureSensors_enum { NVML_TEMPERATURE_GPU = 0, NVML_TEMPERATURE_COUNT } nvmlTemperatureSensors_t;

typedef enum nvmlTemperatureThresholds_enum {
    NVML_TEMPERATURE_THRESHOLD_SHUTDOWN = 0,
    NVML_TEMPERATURE_THRESHOLD_SLOWDOWN = 1,
    NVML_TEMPERATURE_THRESHOLD_MEM_MAX = 2,
    NVML_TEMPERATURE_THRESHOLD_GPU_MAX = 3,
    NVML_TEMPERATURE_THRESHOLD_ACOUSTIC_MIN = 4,
    NVML_TEMPERATURE_THRESHOLD_ACOUSTIC_CURR = 5,
    NVML_TEMPERATURE_THRESHOLD_ACOUSTIC_MAX = 6,
    NVML_TEMPERATURE_THRESHOLD_COUNT
} nvmlTemperatureThresholds_t;

typedef enum nvmlClockType_enum {
    NVML_CLOCK_GRAPHICS = 0,
    NVML_CLOCK_SM = 1,
    NVML_CLOCK_MEM = 2,
    NVML_CLOCK_VIDEO = 3,
    NVML_CLOCK_COUNT
} nvmlClockType_t;

typedef enum nvmlClockId_enum {
    NVML_CLOCK_ID_CURRENT = 0,
    NVML_CLOCK_ID_APP_CLOCK_TARGET = 1,
    NVML_CLOCK_ID_APP_CLOCK_DEFAULT = 2,
    NVML_CLOCK_ID_CUSTOMER_BOOST_MAX = 3,
    NVML_CLOCK_ID_COUNT
} nvmlClockId_t;

typedef enum nvmlPcieUtilCounter_enum {
    NVML_PCIE_UTIL_TX_BYTES = 0,
    NVML_PCIE_UTIL_RX_BYTES = 1,
    NVML_PCIE_UTIL_COUNT
} nvmlPcieUtilCounter_t;

typedef enum nvmlPerfPolicyType_enum {
    NVML_PERF_POLICY_POWER = 0,
    NVML_PERF_POLICY_THERMAL = 1,
    NVML_PERF_POLICY_SYNC_BOOST = 2,
    NVML_PERF_POLICY_BOARD_LIMIT = 3,
    NVML_PERF_POLICY_LOW_UTILIZATION = 4,
    NVML_PERF_POLICY_RELIABILITY = 5,
    NVML_PERF_POLICY_TOTAL_APP_CLOCKS = 10,
    NVML_PERF_POLICY_TOTAL_BASE_CLOCKS = 11,
    NVML_PERF_POLICY_COUNT
} nvmlPerfPolicyType_t;

typedef enum nvmlComputeMode_enum {
    NVML_COMPUTEMODE_DEFAULT = 0,
    NVML_COMPUTEMODE_EXCLUSIVE_THREAD = 1,
    NVML_COMPUTEMODE_PROHIBITED = 2,
    NVML_COMPUTEMODE_EXCLUSIVE_PROCESS = 3,
    NVML_COMPUTEMODE_COUNT
} nvmlComputeMode_t;

typedef enum nvmlMemoryErrorType_enum {
    NVML_MEMORY_ERROR_TYPE_CORRECTED = 0,
    NVML_MEMORY_ERROR_TYPE_UNCORRECTED = 1,
    NVML_MEMORY_ERROR_TYPE_COUNT
} nvmlMemoryErrorType_t;

typedef enum nvmlEccCounterType_enum {
    NVML_VOLATILE_ECC = 0,
    NVML_AGGREGATE_ECC = 1,
    NVML_ECC_COUNTER_TYPE_COUNT
} nvmlEccCounterType_t;

typedef enum nvmlPageRetirementCause_enum {
    NVML_PAGE_RETIREMENT_CAUSE_MULTIPLE_SINGLE_BIT_ECC_ERRORS = 0,
    NVML_PAGE_RETIREMENT_CAUSE_DOUBLE_BIT_ECC_ERROR = 1,
    NVML_PAGE_RETIREMENT_CAUSE_COUNT
} nvmlPageRetirementCause_t;

typedef enum nvmlGpuLevel_enum {
    NVML_TOPOLOGY_INTERNAL = 0,
    NVML_TOPOLOGY_SINGLE = 10,
    NVML_TOPOLOGY_MULTIPLE = 20,
    NVML_TOPOLOGY_HOSTBRIDGE = 30,
    NVML_TOPOLOGY_NODE = 40,
    NVML_TOPOLOGY_SYSTEM = 50
} nvmlGpuTopologyLevel_t;

typedef enum nvmlValueType_enum {
    NVML_VALUE_TYPE_DOUBLE = 0,
    NVML_VALUE_TYPE_UNSIGNED_INT = 1,
    NVML_VALUE_TYPE_UNSIGNED_LONG = 2,
    NVML_VALUE_TYPE_UNSIGNED_LONG_LONG = 3,
    NVML_VALUE_TYPE_SIGNED_LONG_LONG = 4,
    NVML_VALUE_TYPE_COUNT
} nvmlValueType_t;

typedef enum nvmlNvLinkErrorCounter_enum {
    NVML_NVLINK_ERROR_DL_REPLAY = 0, /* data link transmit replays */
    NVML_NVLINK_ERROR_DL_RECOVERY = 1, /* data link transmit recoveries */
    NVML_NVLINK_ERROR_DL_CRC_FLIT = 2, /* data link receive flow-control digit CRC errors */
    NVML_NVLINK_ERROR_DL_CRC_DATA = 3, /* data link receive data CRC errors */
    NVML_NVLINK_ERROR_DL_ECC_DATA = 4, /* data link receive data ECC errors */
    NVML_NVLINK_ERROR_COUNT
} nvmlNvLinkErrorCounter_t;

/* nvmlDeviceGetP2PStatus: whether two GPUs can reach each other's memory directly. */
typedef enum nvmlGpuP2PStatus_enum {
    NVML_P2P_STATUS_OK = 0,
    NVML_P2P_STATUS_CHIPSET_NOT_SUPPORED, /* sic, as nvml.h spells it */
    NVML_P2P_STATUS_GPU_NOT_SUPPORTED,
    NVML_P2P_STATUS_IOH_TOPOLOGY_NOT_SUPPORTED,
    NVML_P2P_STATUS_DISABLED_BY_REGKEY,
    NVML_P2P_STATUS_NOT_SUPPORTED,
    NVML_P2P_STATUS_UNKNOWN
} nvmlGpuP2PStatus_t;

typedef enum nvmlGpuP2PCapsIndex_enum {
    NVML_P2P_CAPS_INDEX_READ = 0,
    NVML_P2P_CAPS_INDEX_WRITE,
    NVML_P2P_CAPS_INDEX_NVLINK,
    NVML_P2P_CAPS_INDEX_ATOMICS,
    NVML_P2P_CAPS_INDEX_PROP,
    NVML_P2P_CAPS_INDEX_UNKNOWN
} nvmlGpuP2PCapsIndex_t;

typedef enum nvmlPStates_enum {
    NVML_PSTATE_0 = 0,
    NVML_PSTATE_1 = 1,
    NVML_PSTATE_2 = 2,
    NVML_PSTATE_3 = 3,
    NVML_PSTATE_4 = 4,
    NVML_PSTATE_5 = 5,
    NVML_PSTATE_6 = 6,
    NVML_PSTATE_7 = 7,
    NVML_PSTATE_8 = 8,
    NVML_PSTATE_9 = 9,
    NVML_PSTATE_10 = 10,
    NVML_PSTATE_11 = 11,
    NVML_PSTATE_12 = 12,
    NVML_PSTATE_13 = 13,
    NVML_PSTATE_14 = 14,
    NVML_PSTATE_15 = 15,
    NVML_PSTATE_UNKNOWN = 32
} nvmlPstates_t;

/* Buffer sizes (nvmlConstants). */
#define NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE 32
#define NVML_DEVICE_PCI_BUS_ID_BUFFER_V2_SIZE 16
#define NVML_DEVICE_UUID_BUFFER_SIZE 80
#define NVML_DEVICE_UUID_V2_BUFFER_SIZE 96
#define NVML_DEVICE_PART_NUMBER_BUFFER_SIZE 80
#define NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE 80
#define NVML_SYSTEM_NVML_VERSION_BUFFER_SIZE 80
#define NVML_DEVICE_NAME_BUFFER_SIZE 64
#define NVML_DEVICE_NAME_V2_BUFFER_SIZE 96
#define NVML_DEVICE_SERIAL_BUFFER_SIZE 30
#define NVML_DEVICE_VBIOS_VERSION_BUFFER_SIZE 32
#define NVML_NVLINK_MAX_LINKS 36 /* newer: 18 in the NVML API 11 header, 36 since CUDA 12.x/13 */
#define NVML_VALUE_NOT_AVAILABLE (-1)

#define NVML_CUDA_DRIVER_VERSION_MAJOR(v) ((v) / 1000)
#define NVML_CUDA_DRIVER_VERSION_MINOR(v) (((v) % 1000) / 10)

#define NVML_STRUCT_VERSION(data, ver) (unsigned int)(sizeof(nvml##data##_v##ver##_t) | (ver << 24U))

typedef struct nvmlPciInfo_st {
    char busIdLegacy[NVML_DEVICE_PCI_BUS_ID_BUFFER_V2_SIZE];
    unsigned int domain;
    unsigned int bus;
    unsigned int device;
    unsigned int pciDeviceId;
    unsigned int pciSubSystemId;
    char busId[NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE];
} nvmlPciInfo_t;

typedef struct nvmlUtilization_st {
    unsigned int gpu;
    unsigned int memory;
} nvmlUtilization_t;

typedef struct nvmlMemory_st {
    unsigned long long total;
    unsigned long long free;
    unsigned long long used;
} nvmlMemory_t;

typedef struct nvmlMemory_v2_st {
    unsigned int version;
    unsigned long long total;
    unsigned long long reserved;
    unsigned long long free;
    unsigned long long used;
} nvmlMemory_v2_t;

#define nvmlMemory_v2 NVML_STRUCT_VERSION(Memory, 2)

typedef struct nvmlProcessInfo_v1_st {
    unsigned int pid;
    unsigned long long usedGpuMemory;
} nvmlProcessInfo_v1_t;

typedef struct nvmlProcessInfo_v2_st {
    unsigned int pid;
    unsigned long long usedGpuMemory;
    unsigned int gpuInstanceId;
    unsigned int computeInstanceId;
} nvmlProcessInfo_v2_t;

typedef struct nvmlProcessInfo_st {
    unsigned int pid;
    unsigned long long usedGpuMemory;
    unsigned int gpuInstanceId;
    unsigned int computeInstanceId;
} nvmlProcessInfo_t;

typedef struct nvmlViolationTime_st {
    unsigned long long referenceTime; /* CPU timestamp, microseconds */
    unsigned long long violationTime; /* nanoseconds */
} nvmlViolationTime_t;

typedef union nvmlValue_st {
    double dVal;
    unsigned int uiVal;
    unsigned long ulVal;
    unsigned long long ullVal;
    signed long long sllVal;
} nvmlValue_t;

typedef struct nvmlFieldValue_st {
    unsigned int fieldId;
    unsigned int scopeId;
    long long timestamp;
    long long latencyUsec;
    nvmlValueType_t valueType;
    nvmlReturn_t nvmlReturn;
    nvmlValue_t value;
} nvmlFieldValue_t;

/* nvmlDeviceGetTemperatureV, the successor of nvmlDeviceGetTemperature (newer). */
typedef struct nvmlTemperature_v1_st { /* newer */
    unsigned int version;
    nvmlTemperatureSensors_t sensorType;
    int temperature;
} nvmlTemperature_v1_t; /* newer */
typedef nvmlTemperature_v1_t nvmlTemperature_t; /* newer */
#define nvmlTemperature_v1 NVML_STRUCT_VERSION(Temperature, 1) /* newer */

/* nvmlDeviceGetMarginTemperature: degrees C left to the maximum operating
 * temperature (nvidia-smi's "GPU T.Limit Temp"); newer. */
typedef struct nvmlMarginTemperature_v1_st { /* newer */
    unsigned int version;
    int marginTemperature;
} nvmlMarginTemperature_v1_t; /* newer */
typedef nvmlMarginTemperature_v1_t nvmlMarginTemperature_t; /* newer */
#define nvmlMarginTemperature_v1 NVML_STRUCT_VERSION(MarginTemperature, 1) /* newer */

/* nvmlDeviceGetGpuFabricInfo: a GPU's registration with the NVLink fabric
 * (Fabric Manager on NVSwitch systems); newer. `status` is to be read only
 * when `state` is NVML_GPU_FABRIC_STATE_COMPLETED (nvml.h). */
#define NVML_GPU_FABRIC_UUID_LEN 16 /* newer */
#define NVML_GPU_FABRIC_STATE_NOT_SUPPORTED 0 /* newer */
#define NVML_GPU_FABRIC_STATE_NOT_STARTED 1 /* newer */
#define NVML_GPU_FABRIC_STATE_IN_PROGRESS 2 /* newer */
#define NVML_GPU_FABRIC_STATE_COMPLETED 3 /* newer */
typedef unsigned char nvmlGpuFabricState_t; /* newer */
typedef struct { /* newer */
    unsigned char clusterUuid[NVML_GPU_FABRIC_UUID_LEN];
    nvmlReturn_t status;
    unsigned int cliqueId;
    nvmlGpuFabricState_t state;
} nvmlGpuFabricInfo_t; /* newer */

/* Field ids for nvmlDeviceGetFieldValues. */
#define NVML_FI_DEV_PERF_POLICY_POWER 74
#define NVML_FI_DEV_PERF_POLICY_THERMAL 75
#define NVML_FI_DEV_PERF_POLICY_SYNC_BOOST 76
#define NVML_FI_DEV_PERF_POLICY_BOARD_LIMIT 77
#define NVML_FI_DEV_PERF_POLICY_LOW_UTILIZATION 78
#define NVML_FI_DEV_PERF_POLICY_RELIABILITY 79
#define NVML_FI_DEV_MEMORY_TEMP 82
#define NVML_FI_DEV_TOTAL_ENERGY_CONSUMPTION 83
#define NVML_FI_DEV_NVLINK_SPEED_MBPS_COMMON 90 /* the active links' common speed, MB/s per direction */
#define NVML_FI_DEV_PCIE_REPLAY_COUNTER 94
/* NVLink data through all links (scopeId UINT_MAX) or one (scopeId: the link), cumulative KiB. */
#define NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_TX 138
#define NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_RX 139
#define NVML_FI_DEV_POWER_AVERAGE 185 /* newer: 1 s average, Ampere (except GA100) and later */
#define NVML_FI_DEV_POWER_INSTANT 186 /* newer */
#define NVML_FI_DEV_TEMPERATURE_SHUTDOWN_TLIMIT 193 /* newer: relative to T.Limit, signed */
#define NVML_FI_DEV_TEMPERATURE_SLOWDOWN_TLIMIT 194 /* newer */
#define NVML_FI_DEV_TEMPERATURE_MEM_MAX_TLIMIT 195 /* newer */
#define NVML_FI_DEV_TEMPERATURE_GPU_MAX_TLIMIT 196 /* newer */
#define NVML_FI_DEV_PCIE_COUNT_TX_BYTES 197 /* newer: cumulative, may wrap */
#define NVML_FI_DEV_PCIE_COUNT_RX_BYTES 198 /* newer */
#define NVML_FI_DEV_CLOCKS_EVENT_REASON_SW_POWER_CAP NVML_FI_DEV_PERF_POLICY_POWER /* newer */
#define NVML_FI_DEV_CLOCKS_EVENT_REASON_SYNC_BOOST NVML_FI_DEV_PERF_POLICY_SYNC_BOOST /* newer */
#define NVML_FI_DEV_CLOCKS_EVENT_REASON_SW_THERM_SLOWDOWN 251 /* newer */
#define NVML_FI_DEV_CLOCKS_EVENT_REASON_HW_THERM_SLOWDOWN 252 /* newer */
#define NVML_FI_DEV_CLOCKS_EVENT_REASON_HW_POWER_BRAKE_SLOWDOWN 253 /* newer */

/* Clock event reasons (nvml.h spells the older ones "ThrottleReason"). */
#define nvmlClocksThrottleReasonGpuIdle 0x0000000000000001LL
#define nvmlClocksThrottleReasonApplicationsClocksSetting 0x0000000000000002LL
#define nvmlClocksThrottleReasonSwPowerCap 0x0000000000000004LL
#define nvmlClocksThrottleReasonHwSlowdown 0x0000000000000008LL
#define nvmlClocksThrottleReasonSyncBoost 0x0000000000000010LL
#define nvmlClocksThrottleReasonSwThermalSlowdown 0x0000000000000020LL
#define nvmlClocksThrottleReasonHwThermalSlowdown 0x0000000000000040LL
#define nvmlClocksThrottleReasonHwPowerBrakeSlowdown 0x0000000000000080LL
#define nvmlClocksThrottleReasonDisplayClockSetting 0x0000000000000100LL
#define nvmlClocksThrottleReasonNone 0x0000000000000000LL

/* Events (nvmlDeviceRegisterEvents, nvmlEventSetWait_v2): no root needed. */
typedef struct nvmlEventSet_st *nvmlEventSet_t;

#define nvmlEventTypeSingleBitEccError 0x0000000000000001LL
#define nvmlEventTypeDoubleBitEccError 0x0000000000000002LL
#define nvmlEventTypePState 0x0000000000000004LL
#define nvmlEventTypeXidCriticalError 0x0000000000000008LL
#define nvmlEventTypeClock 0x0000000000000010LL
#define nvmlEventTypeNone 0x0000000000000000LL

typedef struct nvmlEventData_st {
    nvmlDevice_t device;
    unsigned long long eventType;
    unsigned long long eventData; /* the Xid for nvmlEventTypeXidCriticalError (999: unknown) */
    unsigned int gpuInstanceId; /* MIG: the GPU instance, else 0xFFFFFFFF */
    unsigned int computeInstanceId;
} nvmlEventData_t;

/* GPU performance monitoring (Hopper and newer): two samples, then metrics between them. */
typedef struct nvmlGpmSample_st *nvmlGpmSample_t;

typedef enum nvmlGpmMetricId_enum {
    NVML_GPM_METRIC_GRAPHICS_UTIL = 1,
    NVML_GPM_METRIC_SM_UTIL = 2,
    NVML_GPM_METRIC_ANY_TENSOR_UTIL = 5,
    NVML_GPM_METRIC_DRAM_BW_UTIL = 10,
    NVML_GPM_METRIC_PCIE_TX_PER_SEC = 20, /* MiB/s */
    NVML_GPM_METRIC_PCIE_RX_PER_SEC = 21,
    NVML_GPM_METRIC_MAX = 98
} nvmlGpmMetricId_t;

typedef struct nvmlGpmMetric_st {
    unsigned int metricId;
    nvmlReturn_t nvmlReturn;
    double value;
    struct { char *shortName, *longName, *unit; } metricInfo; /* NULL where not defined */
} nvmlGpmMetric_t;

typedef struct nvmlGpmMetricsGet_st {
    unsigned int version; /* NVML_GPM_METRICS_GET_VERSION */
    unsigned int numMetrics;
    nvmlGpmSample_t sample1, sample2;
    nvmlGpmMetric_t metrics[NVML_GPM_METRIC_MAX];
} nvmlGpmMetricsGet_t;

#define NVML_GPM_METRICS_GET_VERSION 1

typedef struct nvmlGpmSupport_st {
    unsigned int version; /* NVML_GPM_SUPPORT_VERSION */
    unsigned int isSupportedDevice;
} nvmlGpmSupport_t;

#define NVML_GPM_SUPPORT_VERSION 1

/* Function prototypes, as typedefs for the loader's table. */
typedef nvmlReturn_t (*nvml_Init_fn)(void);
typedef nvmlReturn_t (*nvml_Shutdown_fn)(void);
typedef const char *(*nvml_ErrorString_fn)(nvmlReturn_t result);
typedef nvmlReturn_t (*nvml_SystemGetDriverVersion_fn)(char *version, unsigned int length);
typedef nvmlReturn_t (*nvml_SystemGetNVMLVersion_fn)(char *version, unsigned int length);
typedef nvmlReturn_t (*nvml_SystemGetCudaDriverVersion_fn)(int *cudaDriverVersion);
typedef nvmlReturn_t (*nvml_SystemGetProcessName_fn)(unsigned int pid, char *name, unsigned int length);
typedef nvmlReturn_t (*nvml_DeviceGetCount_fn)(unsigned int *deviceCount);
typedef nvmlReturn_t (*nvml_DeviceGetHandleByIndex_fn)(unsigned int index, nvmlDevice_t *device);
typedef nvmlReturn_t (*nvml_DeviceGetString_fn)(nvmlDevice_t device, char *buf, unsigned int length);
typedef nvmlReturn_t (*nvml_DeviceGetPciInfo_fn)(nvmlDevice_t device, nvmlPciInfo_t *pci);
typedef nvmlReturn_t (*nvml_DeviceGetCudaComputeCapability_fn)(nvmlDevice_t device, int *major, int *minor);
typedef nvmlReturn_t (*nvml_DeviceGetMemoryInfo_fn)(nvmlDevice_t device, nvmlMemory_t *memory);
typedef nvmlReturn_t (*nvml_DeviceGetMemoryInfo_v2_fn)(nvmlDevice_t device, nvmlMemory_v2_t *memory);
typedef nvmlReturn_t (*nvml_DeviceGetTemperature_fn)(nvmlDevice_t device, nvmlTemperatureSensors_t sensor,
                                                     unsigned int *temp);
typedef nvmlReturn_t (*nvml_DeviceGetTemperatureV_fn)(nvmlDevice_t device, nvmlTemperature_t *temperature); /* newer */
typedef nvmlReturn_t (*nvml_DeviceGetMarginTemperature_fn)(nvmlDevice_t device, /* newer */
                                                           nvmlMarginTemperature_t *marginTempInfo);
typedef nvmlReturn_t (*nvml_DeviceGetTemperatureThreshold_fn)(nvmlDevice_t device,
                                                              nvmlTemperatureThresholds_t thresholdType,
                                                              unsigned int *temp);
typedef nvmlReturn_t (*nvml_DeviceGetFieldValues_fn)(nvmlDevice_t device, int valuesCount, nvmlFieldValue_t *values);
typedef nvmlReturn_t (*nvml_DeviceGetClockInfo_fn)(nvmlDevice_t device, nvmlClockType_t type, unsigned int *clock);
typedef nvmlReturn_t (*nvml_DeviceGetClock_fn)(nvmlDevice_t device, nvmlClockType_t clockType, nvmlClockId_t clockId,
                                               unsigned int *clockMHz);
typedef nvmlReturn_t (*nvml_DeviceGetUInt_fn)(nvmlDevice_t device, unsigned int *value);
typedef nvmlReturn_t (*nvml_DeviceGetULongLong_fn)(nvmlDevice_t device, unsigned long long *value);
typedef nvmlReturn_t (*nvml_DeviceGetPowerManagementLimitConstraints_fn)(nvmlDevice_t device, unsigned int *minLimit,
                                                                         unsigned int *maxLimit);
typedef nvmlReturn_t (*nvml_DeviceGetUtilizationRates_fn)(nvmlDevice_t device, nvmlUtilization_t *utilization);
typedef nvmlReturn_t (*nvml_DeviceGetPcieThroughput_fn)(nvmlDevice_t device, nvmlPcieUtilCounter_t counter,
                                                        unsigned int *value);
typedef nvmlReturn_t (*nvml_DeviceGetViolationStatus_fn)(nvmlDevice_t device, nvmlPerfPolicyType_t perfPolicyType,
                                                         nvmlViolationTime_t *violTime);
typedef nvmlReturn_t (*nvml_DeviceGetEnableState_fn)(nvmlDevice_t device, nvmlEnableState_t *mode);
typedef nvmlReturn_t (*nvml_DeviceGetComputeMode_fn)(nvmlDevice_t device, nvmlComputeMode_t *mode);
typedef nvmlReturn_t (*nvml_DeviceGetMigMode_fn)(nvmlDevice_t device, unsigned int *currentMode,
                                                 unsigned int *pendingMode);
/* MIG devices (NVML 11.0): a parent's MIG device handles, and the GPU
 * instance id of one (nvmlDeviceGetGpuInstanceId has DeviceGetUInt's shape). */
typedef nvmlReturn_t (*nvml_DeviceGetMigDeviceHandleByIndex_fn)(nvmlDevice_t device, unsigned int index,
                                                                nvmlDevice_t *migDevice);
typedef nvmlReturn_t (*nvml_DeviceGetEccMode_fn)(nvmlDevice_t device, nvmlEnableState_t *current,
                                                 nvmlEnableState_t *pending);
typedef nvmlReturn_t (*nvml_DeviceGetTotalEccErrors_fn)(nvmlDevice_t device, nvmlMemoryErrorType_t errorType,
                                                        nvmlEccCounterType_t counterType,
                                                        unsigned long long *eccCounts);
typedef nvmlReturn_t (*nvml_DeviceGetRetiredPages_fn)(nvmlDevice_t device, nvmlPageRetirementCause_t cause,
                                                      unsigned int *pageCount, unsigned long long *addresses);
typedef nvmlReturn_t (*nvml_DeviceGetRemappedRows_fn)(nvmlDevice_t device, unsigned int *corrRows,
                                                      unsigned int *uncRows, unsigned int *isPending,
                                                      unsigned int *failureOccurred);
typedef nvmlReturn_t (*nvml_DeviceGetNvLinkState_fn)(nvmlDevice_t device, unsigned int link,
                                                     nvmlEnableState_t *isActive);
typedef nvmlReturn_t (*nvml_DeviceGetNvLinkRemotePciInfo_fn)(nvmlDevice_t device, unsigned int link,
                                                             nvmlPciInfo_t *pci);
typedef nvmlReturn_t (*nvml_DeviceGetNvLinkErrorCounter_fn)(nvmlDevice_t device, unsigned int link,
                                                            nvmlNvLinkErrorCounter_t counter,
                                                            unsigned long long *counterValue);
typedef nvmlReturn_t (*nvml_DeviceGetNvLinkVersion_fn)(nvmlDevice_t device, unsigned int link,
                                                       unsigned int *version);
typedef nvmlReturn_t (*nvml_DeviceGetP2PStatus_fn)(nvmlDevice_t device1, nvmlDevice_t device2,
                                                   nvmlGpuP2PCapsIndex_t p2pIndex, nvmlGpuP2PStatus_t *p2pStatus);
typedef nvmlReturn_t (*nvml_DeviceGetGpuFabricInfo_fn)(nvmlDevice_t device,
                                                       nvmlGpuFabricInfo_t *gpuFabricInfo); /* newer */
typedef nvmlReturn_t (*nvml_DeviceGetComputeRunningProcesses_fn)(nvmlDevice_t device, unsigned int *infoCount,
                                                                 nvmlProcessInfo_t *infos);
typedef nvmlReturn_t (*nvml_DeviceGetComputeRunningProcesses_v1_fn)(nvmlDevice_t device, unsigned int *infoCount,
                                                                    nvmlProcessInfo_v1_t *infos);
typedef nvmlReturn_t (*nvml_DeviceGetPerformanceState_fn)(nvmlDevice_t device, nvmlPstates_t *pState);
typedef nvmlReturn_t (*nvml_DeviceGetTopologyCommonAncestor_fn)(nvmlDevice_t device1, nvmlDevice_t device2,
                                                                nvmlGpuTopologyLevel_t *pathInfo);
typedef nvmlReturn_t (*nvml_DeviceGetCpuAffinity_fn)(nvmlDevice_t device, unsigned int cpuSetSize,
                                                     unsigned long *cpuSet);

typedef nvmlReturn_t (*nvml_EventSetCreate_fn)(nvmlEventSet_t *set);
typedef nvmlReturn_t (*nvml_EventSetFree_fn)(nvmlEventSet_t set);
typedef nvmlReturn_t (*nvml_DeviceRegisterEvents_fn)(nvmlDevice_t device, unsigned long long eventTypes,
                                                     nvmlEventSet_t set);
typedef nvmlReturn_t (*nvml_EventSetWait_v2_fn)(nvmlEventSet_t set, nvmlEventData_t *data, unsigned int timeoutms);
typedef nvmlReturn_t (*nvml_GpmQueryDeviceSupport_fn)(nvmlDevice_t device, nvmlGpmSupport_t *gpmSupport);
typedef nvmlReturn_t (*nvml_GpmSampleAlloc_fn)(nvmlGpmSample_t *gpmSample);
typedef nvmlReturn_t (*nvml_GpmSampleFree_fn)(nvmlGpmSample_t gpmSample);
typedef nvmlReturn_t (*nvml_GpmSampleGet_fn)(nvmlDevice_t device, nvmlGpmSample_t gpmSample);
typedef nvmlReturn_t (*nvml_GpmMetricsGet_fn)(nvmlGpmMetricsGet_t *metricsGet);

#ifdef __cplusplus
}
#endif
#endif
