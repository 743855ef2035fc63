#!/bin/sh
# gpudoctor export under load: wrk (Debian's) scrapes /metrics from 8
# connections for 30 s on loopback while the exporter samples a simulated
# node in real time. No request may fail, and the exporter's resident memory
# after the load stays within 10 % (plus 1 MiB) of what it was once warm.
# Usage: test_exporter_load.sh GPUDOCTOR EXAMPLES_DIR
set -eu
. "$(dirname "$0")/lib.sh"
need wrk
need python3
bin=$1
examples=$2
seconds=${GD_LOAD_SECONDS:-30}

GPUDOCTOR_SIM_TIMESCALE=1 start_exporter "$bin" "$examples/h100x8-thermal-throttling.json"
pid=$(pgrep -P "$exporter" gpudoctor || true)
[ -n "$pid" ] || fail "cannot find the exporter's process"
rss() { sed -n 's/^VmRSS:[[:space:]]*\([0-9]*\) kB/\1/p' "/proc/$pid/status"; }
fetch "http://127.0.0.1:$port/metrics" >/dev/null
# Warm: a few seconds of samples and scrapes before the first reading.
wrk -t1 -c8 -d3s "http://127.0.0.1:$port/metrics" >/dev/null 2>&1 || true
before=$(rss)
wrk -t1 -c8 -d"${seconds}s" --timeout 5s "http://127.0.0.1:$port/metrics" >"$tmp/wrk.txt" 2>&1 || fail "wrk: $(cat "$tmp/wrk.txt")"
after=$(rss)
requests=$(sed -n 's/^ *\([0-9]*\) requests in.*/\1/p' "$tmp/wrk.txt")
[ -n "$requests" ] && [ "$requests" -gt 1000 ] || fail "too few requests: $(cat "$tmp/wrk.txt")"
if grep -q -e 'Non-2xx' -e 'Socket errors' "$tmp/wrk.txt"; then
    fail "errors under load: $(grep -e 'Non-2xx' -e 'Socket errors' "$tmp/wrk.txt")"
fi
limit=$((before + before / 10 + 1024))
[ "$after" -le "$limit" ] || fail "RSS grew from $before to $after KiB under load"
kill -0 "$exporter" || fail "the exporter died under load"
echo "ok: $requests scrapes in ${seconds} s ($(sed -n 's/^Requests\/sec: *//p' "$tmp/wrk.txt")/s), RSS $before -> $after KiB"
