/*
 * Every threshold the checks use, in one place, with where it comes from.
 * (What counts as "under load" is GD_LOADED_UTIL_PCT in analysis/window.h.)
 */
#ifndef GD_THRESHOLDS_H
#define GD_THRESHOLDS_H

/* thermal.hot: contract section 6 (>= 80 C, or within 5 C of the slowdown
 * threshold; for memory, of the memory max operating temperature). */
#define GD_HOT_ABS_C 80.0
#define GD_HOT_MARGIN_C 5.0
/* ...in at least this share of the valid samples, so one spike is not a finding. */
#define GD_HOT_MIN_SHARE 0.10

/* Slowdown episodes. DCGM fails a diagnostic on any HW_SLOWDOWN, SW_THERMAL,
 * HW_THERMAL or HW_POWER_BRAKE sample under load (DcgmRecorder::CheckForClocksEvent);
 * SW_POWER_CAP is not a failure there. */
#define GD_THROTTLE_CRITICAL_SHARE 0.25   /* throttled share of loaded time */
#define GD_THROTTLE_CRITICAL_IMPACT 10.0  /* percent of throughput */
/* A cumulative violation counter catches slowdowns between polls. */
#define GD_COUNTER_MIN_SHARE 0.05
/* nvml.h: HW_SLOWDOWN "may be also reported during PState or clock change",
 * so one sample alone is not enough. */
#define GD_HW_SLOWDOWN_MIN_SAMPLES 2

/* power.limit_lowered: enforced limit below the default by more than this. */
#define GD_POWER_LIMIT_TOLERANCE_W 1.0
#define GD_POWER_LIMIT_CRITICAL_IMPACT 15.0
/* power.capped (info): at the power cap this share of the loaded time, with
 * the SM clock under this fraction of its maximum. */
#define GD_POWER_CAPPED_SHARE 0.50
#define GD_POWER_CAPPED_CLOCK_FRACTION 0.90

/* clocks.low: loaded, no event reason, SM clock under this fraction of max,
 * in at least this share of the loaded samples. */
#define GD_CLOCK_LOW_FRACTION 0.80
#define GD_CLOCK_LOW_MIN_SHARE 0.20
/* clocks.locked: application-clock limit with the clock under this fraction. */
#define GD_CLOCK_LOCKED_FRACTION 0.95

/* Peers: gpu-fryer flags a GPU 10 % below the best one of its node. */
#define GD_PEER_CLOCK_GAP 0.10
#define GD_PEER_TEMP_GAP_C 10.0

#endif
