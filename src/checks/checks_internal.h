/* Declarations shared by the check families and the registry. */
#ifndef GD_CHECKS_INTERNAL_H
#define GD_CHECKS_INTERNAL_H

#include "check_util.h"
#include "core/json_util.h"
#include "gpudoctor/checks.h"
#include "gpudoctor/nvml_api.h"
#include "thresholds.h"

#include <math.h>
#include <stdio.h>

/* driver.c */
void gd_check_driver_missing(const gd_facts *f, gd_findings *out);
void gd_check_gpu_none(const gd_facts *f, gd_findings *out);
/* health.c */
void gd_check_gpu_lost(const gd_facts *f, gd_findings *out);
/* thermal.c */
void gd_check_thermal_hot(const gd_facts *f, gd_findings *out);
double gd_hot_threshold_c(gd_value limit);

#endif
