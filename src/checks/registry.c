/* The check registry: an explicit table, in report order. Checks that look
 * at other findings (clocks.outlier) come after the ones they defer to. */
#include "checks_internal.h"

const gd_check gd_checks[] = {
    {"driver.missing", "driver", "an NVIDIA driver (NVML) can be loaded", gd_check_driver_missing},
    {"gpu.none", "driver", "the driver reports at least one GPU", gd_check_gpu_none},
    {"health.gpu_lost", "health", "every GPU answers for the whole window", gd_check_gpu_lost},
    {"thermal.throttling", "thermal", "no thermal slowdown under load", gd_check_thermal_throttling},
    {"thermal.hot", "thermal", "GPU and memory temperature stay clear of their limits", gd_check_thermal_hot},
    {"thermal.outlier", "thermal", "no GPU runs much hotter than its peers", gd_check_thermal_outlier},
    {"power.limit_lowered", "power", "the power limit is the board's default", gd_check_power_limit_lowered},
    {"power.brake", "power", "no hardware power brake", gd_check_power_brake},
    {"power.hw_slowdown", "power", "no unexplained hardware slowdown", gd_check_power_hw_slowdown},
    {"power.capped", "power", "time at the power cap, for context", gd_check_power_capped},
    {"clocks.locked", "clocks", "application and locked clocks are at their defaults", gd_check_clocks_locked},
    {"clocks.low", "clocks", "SM clock near its maximum under load", gd_check_clocks_low},
    {"clocks.outlier", "clocks", "no GPU runs much slower than its peers", gd_check_clocks_outlier},
};
const size_t gd_checks_count = sizeof gd_checks / sizeof gd_checks[0];

void gd_checks_run_all(const gd_facts *f, gd_findings *out)
{
    for (size_t i = 0; i < gd_checks_count; i++)
        gd_checks[i].run(f, out);
    gd_findings_sort(out);
}
