/* The check registry: an explicit table, in report order. */
#include "checks_internal.h"

const gd_check gd_checks[] = {
    {"driver.missing", "driver", "an NVIDIA driver (NVML) can be loaded", gd_check_driver_missing},
    {"gpu.none", "driver", "the driver reports at least one GPU", gd_check_gpu_none},
    {"health.gpu_lost", "health", "every GPU answers for the whole window", gd_check_gpu_lost},
    {"thermal.hot", "thermal", "GPU and memory temperature stay clear of their limits", gd_check_thermal_hot},
};
const size_t gd_checks_count = sizeof gd_checks / sizeof gd_checks[0];

void gd_checks_run_all(const gd_facts *f, gd_findings *out)
{
    for (size_t i = 0; i < gd_checks_count; i++)
        gd_checks[i].run(f, out);
    gd_findings_sort(out);
}
