#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Builds the libFuzzer binaries with clang in their own build directory and
# fuzzes each of them for N seconds (default 60).
#   tests/fuzz/run.sh [SECONDS_PER_TARGET] [extra libFuzzer flags...]
# Every seed folder tests/fuzz/corpus/NAME has a target fuzz_NAME (scenario,
# lspci, topo, import_*, vram_config, stack, ...); tests/fuzz/NAME.dict is
# used when there. New inputs go to BUILD/corpus-NAME (the checked-in seeds
# stay untouched); a crash leaves crash-* files in BUILD, to replay with
#   BUILD/tests/fuzz_NAME_replay BUILD/crash-...
# BUILD is build-fuzz/ at the repository root unless GD_FUZZ_BUILD says otherwise.
set -eu

seconds=${1:-60}
[ $# -gt 0 ] && shift
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${GD_FUZZ_BUILD:-$root/build-fuzz}

CC=clang cmake -S "$root" -B "$build" -G Ninja -DGD_FUZZ=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
known=$(ninja -C "$build" -t targets all | sed -n 's/^\(fuzz_[a-z0-9_]*\): .*/\1/p')
targets=""
for dir in "$root"/tests/fuzz/corpus/*/; do
    t=$(basename "$dir")
    if echo "$known" | grep -qx "fuzz_$t"; then
        targets="$targets $t"
    else
        echo "run.sh: no libFuzzer target fuzz_$t for corpus/$t, skipped" >&2
    fi
done
count=$(echo $targets | wc -w)
[ "$count" -gt 0 ] || { echo "run.sh: no fuzz target" >&2; exit 1; }
each=$seconds
[ "$each" -ge 1 ] || each=1
for t in $targets; do
    ninja -C "$build" "fuzz_$t" "fuzz_${t}_replay"
done

cd "$build"
for t in $targets; do
    # Test binaries go to BUILD/tests/ (tests/CMakeLists.txt); the build root is the fallback.
    bin=$build/tests/fuzz_$t
    [ -x "$bin" ] || bin=$build/fuzz_$t
    dict=""
    [ -f "$root/tests/fuzz/$t.dict" ] && dict="-dict=$root/tests/fuzz/$t.dict"
    mkdir -p "$build/corpus-$t"
    echo "fuzz_$t: $each s"
    "$bin" -max_total_time="$each" -timeout=10 -rss_limit_mb=4096 $dict "$@" \
        "corpus-$t" "$root/tests/fuzz/corpus/$t"
done
