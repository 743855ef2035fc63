#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# gpudoctor export over HTTP without Prometheus: the routes (/metrics, /,
# /healthz, 404, read-only 405), a GPU lost mid-run (the exporter stays up
# and says so), and what cannot listen (a bad address, a port in use: exit 3).
# Usage: test_exporter_http.sh GPUDOCTOR EXAMPLES_DIR
set -eu
. "$(dirname "$0")/lib.sh"
need python3
bin=$1
examples=$2

# status METHOD URL: the HTTP status code.
status() {
    python3 - "$1" "$2" <<'PY'
import sys, urllib.error, urllib.request
try:
    print(urllib.request.urlopen(urllib.request.Request(sys.argv[2], method=sys.argv[1], data=b"x" if sys.argv[1] == "POST" else None), timeout=10).status)
except urllib.error.HTTPError as e:
    print(e.code)
PY
}

# GPU 5 of this scenario is lost at scenario second 1.5.
start_exporter "$bin" "$examples/h100x8-gpu-lost.json"
base="http://127.0.0.1:$port"
[ "$(status GET "$base/metrics")" = 200 ] || fail "/metrics is not 200"
[ "$(status GET "$base/")" = 200 ] || fail "/ is not 200"
fetch "$base/" | grep -q '/metrics' || fail "/ does not link /metrics"
[ "$(status GET "$base/healthz")" = 200 ] || fail "/healthz is not 200 while sampling"
[ "$(status GET "$base/nothing")" = 404 ] || fail "an unknown route is not 404"
[ "$(status POST "$base/metrics")" = 405 ] || fail "POST is not refused with 405"
lost=""
for _ in $(seq 600); do # a deadline of a minute or more, for a busy machine
    fetch "$base/metrics" >"$tmp/m.txt"
    lost=$(sed -n 's/^gpudoctor_gpu_lost{gpu="\([0-9]*\)",.*} 1$/\1/p' "$tmp/m.txt")
    [ -n "$lost" ] && break
    sleep 0.1
done
[ -n "$lost" ] || fail "no GPU reported lost"
grep -q "^gpudoctor_finding{id=\"health.gpu_lost\",severity=\"critical\",gpu=\"$lost\"} 1$" "$tmp/m.txt" ||
    fail "no health.gpu_lost finding for GPU $lost"
grep -q "^DCGM_FI_DEV_GPU_TEMP{gpu=\"$lost\"," "$tmp/m.txt" && fail "the lost GPU $lost still has a temperature"
grep -q '^DCGM_FI_DEV_GPU_TEMP{gpu="0",' "$tmp/m.txt" || fail "the other GPUs are no longer measured"
sleep 0.5
kill -0 "$exporter" || fail "the exporter died after the GPU was lost"
[ "$(status GET "$base/healthz")" = 200 ] || fail "/healthz is not 200 after the GPU was lost"

# What cannot listen: a clear message and exit 3.
rc=0
"$bin" export --listen nowhere --sim "$examples/h100x8-training.json" --duration 1 2>"$tmp/bad.err" || rc=$?
[ "$rc" -eq 3 ] && grep -q 'ADDRESS:PORT' "$tmp/bad.err" || fail "a bad --listen: exit $rc, $(cat "$tmp/bad.err")"
rc=0
"$bin" export --listen "127.0.0.1:$port" --sim "$examples/h100x8-training.json" --duration 1 2>"$tmp/busy.err" || rc=$?
[ "$rc" -eq 3 ] && grep -q 'cannot listen' "$tmp/busy.err" || fail "a port in use: exit $rc, $(cat "$tmp/busy.err")"
echo "ok: routes, a lost GPU (GPU $lost) reported with the exporter up, refused addresses"
