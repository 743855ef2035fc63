#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The exporter's probes: /healthz (liveness) answers 200 as long as the
# exporter works, whatever the GPUs' state, /readyz (readiness) once there
# are metrics to serve, and whether the driver answers is /health/driver
# and the metric gpudoctor_driver_answering. On a GPU node without a driver
# /healthz stays 200 past the stale limit (it once turned 503 after 5 s, and
# the DaemonSet's liveness probe restarted the pod in a loop).
# Usage: test_exporter_probes.sh GPUDOCTOR EXAMPLES_DIR
set -eu
. "$(dirname "$0")/lib.sh"
need python3
bin=$1
examples=$2

# get URL: "STATUS BODY" on one line.
get() {
    python3 - "$1" <<'PY'
import sys, urllib.error, urllib.request
try:
    r = urllib.request.urlopen(sys.argv[1], timeout=10)
    print(r.status, r.read().decode().strip())
except urllib.error.HTTPError as e:
    print(e.code, e.read().decode().strip())
PY
}

# expect WHAT PATH PATTERN...: each route's "STATUS BODY" matches its glob
# (PATH PATTERN pairs); then the scrape has each metric line given after --.
expect() {
    what=$1
    shift
    while [ $# -ge 2 ] && [ "$1" != -- ]; do
        got=$(get "$base$1")
        # shellcheck disable=SC2254 # the pattern is a glob on purpose
        case $got in $2) ;; *) fail "$what, $1: $got" ;; esac
        shift 2
    done
    [ "${1:-}" = -- ] && shift
    fetch "$base/metrics" >"$tmp/scrape.txt"
    for line in "$@"; do
        grep -qx "$line" "$tmp/scrape.txt" || fail "$what: no '$line' in the scrape"
    done
}

# A live simulated node: all 200, the driver answers.
start_exporter "$bin" "$examples/h100x8-training.json"
base="http://127.0.0.1:$port"
for _ in $(seq 100); do
    case $(get "$base/readyz") in 200*) break ;; esac
    sleep 0.1
done
expect "a live node" /healthz "200 ok: serving; ok: the last sample is *" /readyz "200 *" /health/driver "200 ok: *" \
    -- 'gpudoctor_driver_answering 1' 'gpudoctor_last_sample_age_seconds [0-9.]*'
kill "$exporter"
wait "$exporter" 2>/dev/null || true

# A GPU node (an NVIDIA 3D controller in sysfs) whose driver library is not
# there: past the stale limit (5 s at the default interval) the exporter is
# still alive and ready; the driver is not answering, and the findings say why.
: >"$tmp/export.err"
GPUDOCTOR_NVML_LIBRARY=/nonexistent/libnvidia-ml.so.1 GPUDOCTOR_SYS_ROOT="$examples/sysfs/hgx-h100x8" \
    timeout 120 "$bin" export --listen 127.0.0.1:0 2>"$tmp/export.err" &
exporter=$!
pids="$pids $exporter"
port=""
for _ in $(seq 100); do
    port=$(sed -n 's|.*serving http://127.0.0.1:\([0-9]*\)/metrics.*|\1|p' "$tmp/export.err")
    [ -n "$port" ] && break
    sleep 0.1
done
[ -n "$port" ] || fail "the exporter without a driver did not start: $(cat "$tmp/export.err")"
base="http://127.0.0.1:$port"
sleep 7
kill -0 "$exporter" || fail "the exporter without a driver exited: $(cat "$tmp/export.err")"
expect "no driver" /healthz "200 ok: serving; no sample: no driver*" /readyz "200 *" \
    /health/driver "503 no sample: no driver*" -- 'gpudoctor_driver_answering 0' \
    'gpudoctor_finding{id="driver.missing",.*} 1'
echo "ok: /healthz 200 with and without a driver, /readyz once served, the driver's state on /health/driver and a metric"
