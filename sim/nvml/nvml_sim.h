/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Internals of the simulated libnvidia-ml.so.1: the state set up by nvmlInit
 * and the helpers every exported function starts with.
 */
#ifndef GPUDOCTOR_SIM_NVML_SIM_H
#define GPUDOCTOR_SIM_NVML_SIM_H

#include "exports.h"
#include "scenario.h"

/* Counts a call of the exported NVML function fn (sim_count.c); slot is
 * the function's own static index into the table. Every exported NVML
 * function starts with GDSIM_COUNTED(). */
void gdsim_count(unsigned *slot, const char *fn);
#define GDSIM_COUNTED()                                                                                                \
    do {                                                                                                               \
        static unsigned gdsim_slot_;                                                                                   \
        gdsim_count(&gdsim_slot_, __func__);                                                                           \
    } while (0)
/* Writes the counts to $GPUDOCTOR_SIM_NVML_COUNT, if set ("CALLS NAME" a
 * line, most called first): the last nvmlShutdown calls it. */
void gdsim_count_write(void);

/* Notes the process's CPU time at the scenario times of
 * $GPUDOCTOR_SIM_CPU_MARKS into $GPUDOCTOR_SIM_CPU_FILE (sim_cpu_marks.c):
 * called with the caller's clock at every sample. */
void gdsim_cpu_marks_at(double scenario_s);

/* A device handle points into a fixed table, so handles stay valid across re-inits. */
struct nvmlDevice_st {
    unsigned index;
    int mig; /* a MIG device's handle: its index in the GPU's mig_devices; -1 for the GPU */
};

/* What a device call works on: its GPU (the parent of a MIG device), the
 * MIG device when the handle is one, and the scenario time of the call. */
typedef struct gdsim_call {
    const gd_scenario_gpu *gpu;
    const gd_scenario_mig *mig;
    double t;
} gdsim_call;

/* The handle of MIG device m of GPU index (sim_init.c's table). */
nvmlDevice_t gdsim_mig_handle(unsigned index, unsigned m);

/*
 * Starts a device-level call of function `fn`: checks init and the handle,
 * then applies error injection (including "a lost GPU answers GPU_IS_LOST
 * everywhere"). A MIG device's handle is accepted only by the calls NVML
 * answers for one (name, UUID, memory, instance ids): the others answer
 * NOT_SUPPORTED. Returns NVML_SUCCESS and fills *call, or the code to return.
 */
nvmlReturn_t gdsim_enter(nvmlDevice_t device, const char *fn, gdsim_call *call);

/* Starts a GPU-indexed call that has no handle yet (nvmlDeviceGetHandleByIndex). */
nvmlReturn_t gdsim_enter_index(unsigned index, const char *fn, gdsim_call *call, nvmlDevice_t *device);

/* Starts a system-level call: checks init and the scenario's top-level errors. */
nvmlReturn_t gdsim_enter_system(const char *fn, const gd_scenario **sc);

/* Copies s into buf of `length` bytes: NOT_SUPPORTED when s is NULL, INSUFFICIENT_SIZE when it won't fit. */
nvmlReturn_t gdsim_copy_string(const char *s, char *buf, unsigned length);

/* A timeline field at the call's time, rounded to an unsigned int; NOT_SUPPORTED when absent or null. */
nvmlReturn_t gdsim_field_uint(const gdsim_call *call, gd_scenario_field field, unsigned *out);

/* An optional static integer as unsigned int; NOT_SUPPORTED when absent. */
nvmlReturn_t gdsim_int_uint(gd_scenario_int v, unsigned *out);

/* Fills an nvmlPciInfo_t from a bus id ("00000000:1B:00.0"); NOT_SUPPORTED when NULL. */
nvmlReturn_t gdsim_fill_pci(const char *bus_id, const char *gpu_name, nvmlPciInfo_t *pci);

/* A non-negative double as unsigned long long, saturating instead of overflowing. */
unsigned long long gdsim_to_ull(double v);

/* Wall-clock microseconds, as NVML timestamps are. */
unsigned long long gdsim_realtime_us(void);

/* Violation time in ns for POWER and THERMAL; NOT_SUPPORTED for other policies or without event_reasons. */
nvmlReturn_t gdsim_violation_ns(const gdsim_call *call, nvmlPerfPolicyType_t policy, unsigned long long *ns);
/* Cumulative ns the GPU spent with any clock event reason of `mask` (the
 * scenario's timeline); NOT_SUPPORTED where the GPU has no reasons. */
nvmlReturn_t gdsim_reason_ns(const gdsim_call *call, unsigned long long mask, unsigned long long *ns);

/* Total energy in mJ; NOT_SUPPORTED when power_w is absent. */
nvmlReturn_t gdsim_energy_mj(const gdsim_call *call, unsigned long long *mj);
/* The played story's speed-up. Cumulative counters (energy, violation time)
 * are divided by it so that their rates per wall-clock second match the
 * story's: 700 W stays 700 W, 60 % throttled stays 60 %. */
double gdsim_timescale(void);

/* power_w at the call's time in mW, or (average) its mean over the last
 * second; NOT_SUPPORTED when absent. */
nvmlReturn_t gdsim_power_mw(const gdsim_call *call, bool average, unsigned *mw);

/* Whether the GPU's power reading is a 1 s average (Ampere but GA100, and
 * newer: compute capability above 8.0); older boards give the instant draw. */
bool gdsim_power_averaged(const gd_scenario_gpu *g);

/* The major number of the scenario's driver_version (0 when absent). */
int gdsim_driver_major(void);

/* A call that takes `scenario_s` of the scenario's time (NVML's
 * nvmlDeviceGetPcieThroughput samples for 20 ms): under the caller's clock
 * it is added to what gdsim_clock_spent reports (and to the time of later
 * calls); on the simulator's own clock it sleeps that long. */
void gdsim_block(double scenario_s);

/* NVML_ERROR_DEPRECATED where the scenario's driver has retired fn
 * (sim_deprecated.c), else NVML_SUCCESS. */
nvmlReturn_t gdsim_deprecated(const gd_scenario *sc, const char *fn);

#endif
