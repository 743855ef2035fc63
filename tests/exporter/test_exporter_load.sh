#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# gpudoctor export under load: wrk (Debian's) scrapes /metrics from 8
# connections on loopback while the exporter samples a simulated node in real
# time, until it has answered a fixed number of scrapes (GD_LOAD_REQUESTS,
# 50000): a count, not a time, so a busy machine takes longer instead of
# testing less, and a generous deadline (GD_LOAD_DEADLINE, 150 s) bounds it. No request may fail, and
# the exporter's resident memory after the load stays within 10 % (plus
# 1 MiB) of what it was once warm. Under AddressSanitizer the exporter runs
# without the quarantine of freed memory, which grows the RSS by design.
# Usage: test_exporter_load.sh GPUDOCTOR EXAMPLES_DIR
set -eu
. "$(dirname "$0")/lib.sh"
need wrk
need python3
bin=$1
examples=$2
requests=${GD_LOAD_REQUESTS:-50000}
deadline=${GD_LOAD_DEADLINE:-150}
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=0"
export ASAN_OPTIONS
GPUDOCTOR_SIM_TIMESCALE=1 start_exporter "$bin" "$examples/h100x8-thermal-throttling.json"
pid=$(pgrep -P "$exporter" gpudoctor || true)
[ -n "$pid" ] || fail "cannot find the exporter's process"
rss() { sed -n 's/^VmRSS:[[:space:]]*\([0-9]*\) kB/\1/p' "/proc/$pid/status"; }
fetch "http://127.0.0.1:$port/metrics" >/dev/null
# scrape N: wrk in one-second rounds until N scrapes are answered (wrk
# itself only knows durations) or the deadline passes; every round's
# output is kept in $tmp/wrk.txt, the total in $answered.
scrape() {
    answered=0
    : >"$tmp/wrk.txt"
    t0=$(date +%s)
    while [ "$answered" -lt "$1" ]; do
        [ $(($(date +%s) - t0)) -lt "$deadline" ] ||
            fail "only $answered of $1 scrapes answered within $deadline s: $(tail -n 12 "$tmp/wrk.txt")"
        wrk -t1 -c8 -d1s --timeout 10s "http://127.0.0.1:$port/metrics" >"$tmp/round.txt" 2>&1 ||
            fail "wrk: $(cat "$tmp/round.txt")"
        cat "$tmp/round.txt" >>"$tmp/wrk.txt"
        n=$(sed -n 's/^ *\([0-9]*\) requests in.*/\1/p' "$tmp/round.txt")
        answered=$((answered + ${n:-0}))
    done
    seconds=$(($(date +%s) - t0))
}
# Warm: a tenth of the scrapes before the first reading.
scrape $((requests / 10))
before=$(rss)
scrape "$requests"
after=$(rss)
if grep -q -e 'Non-2xx' -e 'Socket errors' "$tmp/wrk.txt"; then
    fail "errors under load: $(grep -e 'Non-2xx' -e 'Socket errors' "$tmp/wrk.txt")"
fi
limit=$((before + before / 10 + 1024))
[ "$after" -le "$limit" ] || fail "RSS grew from $before to $after KiB under load"
kill -0 "$exporter" || fail "the exporter died under load"
echo "ok: $answered scrapes in about $seconds s, RSS $before -> $after KiB"
