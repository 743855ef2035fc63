#!/bin/sh
# Builds the libFuzzer binary for the scenario parser with clang in its own
# build directory and fuzzes for N seconds (default 60).
#   tests/fuzz/run.sh [SECONDS] [extra libFuzzer flags...]
# New inputs go to BUILD/corpus (the checked-in seeds stay untouched); a crash
# leaves crash-* files in BUILD, to replay with
#   BUILD/tests/fuzz_scenario_replay BUILD/crash-...
# BUILD is build-fuzz/ at the repository root unless GD_FUZZ_BUILD says otherwise.
set -eu

seconds=${1:-60}
[ $# -gt 0 ] && shift
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${GD_FUZZ_BUILD:-$root/build-fuzz}

CC=clang cmake -S "$root" -B "$build" -G Ninja -DGD_FUZZ=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
ninja -C "$build" fuzz_scenario fuzz_scenario_replay

# Test binaries go to BUILD/tests/ (tests/CMakeLists.txt); the build root is the fallback.
bin=$build/tests/fuzz_scenario
[ -x "$bin" ] || bin=$build/fuzz_scenario

mkdir -p "$build/corpus"
cd "$build"
exec "$bin" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=4096 \
    -dict="$root/tests/fuzz/scenario.dict" "$@" corpus "$root/tests/fuzz/corpus/scenario"
