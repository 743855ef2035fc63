/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libFuzzer target for the scenario parser: any bytes must give a scenario
 * or a message, never a crash, a leak or undefined behaviour. A parsed
 * scenario is also queried, so the lookups see odd timelines too.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "scenario.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void query(const gd_scenario *sc)
{
    static const double times[] = {-1, 0, 0.5, 10, 1e6, 1e300};
    for (size_t g = 0; g < sc->gpu_count; g++) {
        const gd_scenario_gpu *gpu = &sc->gpus[g];
        for (size_t i = 0; i < sizeof times / sizeof times[0]; i++) {
            double t = times[i], v;
            unsigned long long bits;
            for (int f = 0; f < GD_SCENARIO_FIELD_COUNT; f++)
                (void)gd_scenario_value_at(gpu, (gd_scenario_field)f, t);
            (void)gd_scenario_reasons_at(gpu, t, &bits);
            (void)gd_scenario_energy_mj(gpu, t, &v);
            (void)gd_scenario_reason_time_ns(gpu, ~0ULL, t, &v);
            (void)gd_scenario_error_at(&gpu->errors, "nvmlDeviceGetTemperature_v2", t);
            (void)gd_scenario_code_active(&gpu->errors, 15, t);
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char err[512];
    err[0] = '\0';
    gd_scenario *sc = gd_scenario_load_buffer((const char *)data, size, "fuzz/x.json", err, sizeof err);
    if (sc)
        query(sc);
    else if (err[0] == '\0' || strlen(err) >= sizeof err)
        __builtin_trap(); /* every failure must explain itself */
    gd_scenario_free(sc);
    return 0;
}
