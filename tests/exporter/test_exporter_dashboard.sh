#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# gpudoctor export under --sim against NVIDIA's own Grafana dashboard for
# dcgm-exporter (grafana.com 12239, dcgm-exporter's
# grafana/dcgm-exporter-dashboard.json): every panel's query and both
# template variables return data from a real Prometheus. On the Xid scenario
# the exporter serves the Xid (DCGM_FI_DEV_XID_ERRORS and the finding
# gauge), /health holds the findings as JSON, Hostname comes from NODE_NAME,
# and promtool finds nothing to say of gpudoctor's own families.
# Usage: test_exporter_dashboard.sh GPUDOCTOR EXAMPLES_DIR
set -eu
. "$(dirname "$0")/lib.sh"
need prometheus
need promtool
need python3
bin=$1
examples=$2

NODE_NAME=node-a7
export NODE_NAME
start_exporter "$bin" "$examples/h100x8-xid.json"
start_prometheus

# The dashboard's variables ($instance, $gpu: label_values of the
# temperature) and its eight panels, with every value of both selected.
sel='instance=~".*", gpu=~".*"'
until_series 60 'up{job="gpudoctor"}' '=1$'
until_series 30 'count by (instance) (DCGM_FI_DEV_GPU_TEMP)' 'instance=127.0.0.1'
until_series 30 'count by (gpu) (DCGM_FI_DEV_GPU_TEMP)' 'gpu=7'
for expr in "DCGM_FI_DEV_GPU_TEMP{$sel}" "avg(DCGM_FI_DEV_GPU_TEMP{$sel})" "DCGM_FI_DEV_POWER_USAGE{$sel}" \
    "sum(DCGM_FI_DEV_POWER_USAGE{$sel})" "DCGM_FI_DEV_SM_CLOCK{$sel} * 1000000" "DCGM_FI_DEV_GPU_UTIL{$sel}" \
    "DCGM_FI_DEV_FB_USED{$sel}" "DCGM_FI_PROF_PIPE_TENSOR_ACTIVE{$sel}"; do
    until_series 30 "$expr" '=[0-9]'
done
# The tensor panel's ratio: a share of the busy GPUs' time, 0..1.
until_series 30 "DCGM_FI_PROF_PIPE_TENSOR_ACTIVE{gpu=\"0\"} > 0 and DCGM_FI_PROF_PIPE_TENSOR_ACTIVE{gpu=\"0\"} <= 1" 'gpu=0'
# dcgm-exporter's Hostname: the node's name, not the machine's.
until_series 30 'DCGM_FI_DEV_GPU_TEMP{gpu="0"}' 'Hostname=node-a7,'

# The Xids of the scenario (GPU 3 at 5 s, GPU 4 at 8 s), through NVML's events.
until_series 60 'DCGM_FI_DEV_XID_ERRORS{gpu="3"}' '=79$'
until_series 30 'DCGM_FI_DEV_XID_ERRORS{gpu="4"}' '=119$'
until_series 30 'DCGM_FI_DEV_XID_ERRORS{gpu="0"}' '=0$'
until_series 30 'gpudoctor_finding{id="health.xid",severity="critical"}' 'gpu=3,'
until_series 30 'gpudoctor_finding{id="health.xid",severity="critical"}' 'gpu=4,'

# The scrape itself: reserved memory is apart from free memory; promtool has
# nothing to say of gpudoctor's own families.
fetch "http://127.0.0.1:$port/metrics" >"$tmp/scrape.txt"
grep -q '^DCGM_FI_DEV_FB_RESERVED{gpu="0",' "$tmp/scrape.txt" || fail "no DCGM_FI_DEV_FB_RESERVED"
promtool check metrics <"$tmp/scrape.txt" >"$tmp/lint.txt" 2>&1 || true
if grep -q '^gpudoctor_' "$tmp/lint.txt"; then
    fail "promtool flags gpudoctor's own metrics: $(grep '^gpudoctor_' "$tmp/lint.txt" | head -3)"
fi

# /health: the same findings as JSON.
fetch "http://127.0.0.1:$port/health" >"$tmp/health.json"
python3 - "$tmp/health.json" <<'PY' || fail "/health: $(head -c 300 "$tmp/health.json")"
import json, sys
h = json.load(open(sys.argv[1]))
assert h["healthy"] is False and h["status"] == "critical", h["status"]
xids = [f for f in h["findings"] if f["id"] == "health.xid" and f["severity"] == "critical"]
assert sorted(f["gpu"] for f in xids) == [3, 4], xids
assert any(e["kind"] == "xid" and e["gpu"] == 3 and e["value"] == 79 for e in h["events"]), h["events"]
PY
echo "ok: the dashboard's 8 panels and 2 variables have data; Xid 79 and 119 exported; /health critical"
