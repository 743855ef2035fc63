#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Runs the benchmarks against a build directory (default: build).
set -euo pipefail
build=${1:-build}
"$build/bench_cost" "${BENCH_SECONDS:-60}"
"$build/bench_nvml_calls" "${BENCH_SECONDS:-60}"
"$build/bench_watch" "${BENCH_SECONDS:-30}"
"$build/bench_scan"
"$build/bench_sim_names"
"$build/bench_retention"
"$build/bench_retention" 100
"$build/bench_retention" export "${BENCH_EXPORT_SECONDS:-86400}"
"$build/bench_retention" replay "${BENCH_REPLAY_MB:-200}"
"$build/bench_proc_cost"
"$build/bench_fleet"
"$build/bench_tick_cost" "${BENCH_DAY_SECONDS:-86400}"
"$build/bench_trace" --big "${BENCH_TRACE_MB:-512}"
