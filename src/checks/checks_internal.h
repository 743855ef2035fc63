/* Declarations shared by the check families and the registry. */
#ifndef GD_CHECKS_INTERNAL_H
#define GD_CHECKS_INTERNAL_H

#include "analysis/episodes.h"
#include "analysis/peers.h"
#include "analysis/window.h"
#include "core/json_util.h"
#include "gpudoctor/checks.h"
#include "gpudoctor/nvml_api.h"
#include "thresholds.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* driver.c */
void gd_check_driver_missing(const gd_facts *f, gd_findings *out);
void gd_check_gpu_none(const gd_facts *f, gd_findings *out);
/* health.c */
void gd_check_gpu_lost(const gd_facts *f, gd_findings *out);
/* thermal.c */
void gd_check_thermal_throttling(const gd_facts *f, gd_findings *out);
void gd_check_thermal_hot(const gd_facts *f, gd_findings *out);
void gd_check_thermal_outlier(const gd_facts *f, gd_findings *out);
double gd_hot_threshold_c(gd_value limit);
bool gd_thermal_throttled_under_load(const gd_facts *f, size_t g);
/* The clock a GPU would run at without the episode: its own unthrottled
 * loaded median, its peers' median if higher, else its maximum clock. */
double gd_reference_clock_mhz(const gd_facts *f, size_t g, const gd_episode *e);
/* power.c */
void gd_check_power_limit_lowered(const gd_facts *f, gd_findings *out);
void gd_check_power_brake(const gd_facts *f, gd_findings *out);
void gd_check_power_hw_slowdown(const gd_facts *f, gd_findings *out);
void gd_check_power_capped(const gd_facts *f, gd_findings *out);
/* clocks.c */
void gd_check_clocks_low(const gd_facts *f, gd_findings *out);
void gd_check_clocks_locked(const gd_facts *f, gd_findings *out);
void gd_check_clocks_outlier(const gd_facts *f, gd_findings *out);

#endif
