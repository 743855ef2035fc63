/*
 * Every threshold the checks use, in one place, with where it comes from.
 */
#ifndef GD_THRESHOLDS_H
#define GD_THRESHOLDS_H

/* A GPU counts as loaded at or above this utilisation (idle GPUs lower their
 * clocks and PCIe speed on purpose, so most rules only judge loaded time). */
#define GD_LOADED_UTIL_PCT 50.0

/* thermal.hot: contract section 6 (>= 80 C, or within 5 C of the slowdown
 * threshold; for memory, of the memory max operating temperature). */
#define GD_HOT_ABS_C 80.0
#define GD_HOT_MARGIN_C 5.0
/* ...in at least this share of the valid samples, so one spike is not a finding. */
#define GD_HOT_MIN_SHARE 0.10

#endif
