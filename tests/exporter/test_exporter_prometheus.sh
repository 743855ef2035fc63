#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# gpudoctor export scraped by the real Prometheus (Debian's), on loopback: a
# PromQL query through Prometheus' HTTP API returns the temperature series
# with dcgm-exporter's labels and the finding series of a throttling GPU;
# `promtool check metrics` parses a scrape and flags only the names that
# must match dcgm-exporter's; the example alerting rules pass `promtool
# check rules`. Usage: test_exporter_prometheus.sh GPUDOCTOR EXAMPLES_DIR DOCS_DIR
set -eu
. "$(dirname "$0")/lib.sh"
need prometheus
need promtool
need python3
bin=$1
examples=$2
docs=$3

start_exporter "$bin" "$examples/h100x8-thermal-throttling.json"

# A scrape, linted. Parse errors exit 1; lint findings exit 3 and may only be
# dcgm-exporter's own naming (camelCase labels, counters without _total).
fetch "http://127.0.0.1:$port/metrics" >"$tmp/scrape.txt"
grep -q '^DCGM_FI_DEV_GPU_TEMP{gpu="0",UUID=' "$tmp/scrape.txt" || fail "no GPU temperature in the scrape"
rc=0
promtool check metrics <"$tmp/scrape.txt" >"$tmp/lint.txt" 2>&1 || rc=$?
[ "$rc" -eq 0 ] || [ "$rc" -eq 3 ] || fail "promtool check metrics exit $rc: $(head -5 "$tmp/lint.txt")"
if grep -q '^gpudoctor_' "$tmp/lint.txt"; then
    fail "promtool flags gpudoctor's own metrics: $(grep '^gpudoctor_' "$tmp/lint.txt" | head -3)"
fi
if grep -v -e "^DCGM_FI_[A-Z_]* label names should be written in 'snake_case' not 'camelCase'$" \
    -e '^DCGM_FI_[A-Z_]* counter metrics should have "_total" suffix$' \
    -e "^DCGM_FI_DEV_PCIE_REPLAY_COUNTER metric name should not include type 'counter'$" "$tmp/lint.txt" |
    grep -q .; then
    fail "unexpected promtool findings: $(head -5 "$tmp/lint.txt")"
fi

# The example alerting rules.
promtool check rules "$docs/exporter-rules.yml" >"$tmp/rules.txt" 2>&1 || fail "promtool check rules: $(cat "$tmp/rules.txt")"

start_prometheus
until_series 60 'up{job="gpudoctor"}' '=1$'
until_series 30 'DCGM_FI_DEV_GPU_TEMP' 'gpu=7'
query 'DCGM_FI_DEV_GPU_TEMP' >"$tmp/temp.txt"
[ "$(wc -l <"$tmp/temp.txt")" -eq 8 ] || fail "8 temperature series expected: $(cat "$tmp/temp.txt")"
for label in UUID=GPU-5e1d1f3a-0000-4000-8000-000000000002 pci_bus_id=00000000:3A:00.0 device=nvidia2 \
    "modelName=NVIDIA H100 80GB HBM3" DCGM_FI_DRIVER_VERSION=550.54.15; do
    grep -q "$label" "$tmp/temp.txt" || fail "label $label missing: $(head -3 "$tmp/temp.txt")"
done
# GPU 2 throttles from scenario second 4 (87 C): its finding, with its labels.
until_series 60 'gpudoctor_finding{id="thermal.throttling"}' 'gpu=2,id=thermal.throttling,.*severity=critical=1$'
query 'gpudoctor_finding{id="thermal.throttling"}' >"$tmp/finding.txt"
[ "$(wc -l <"$tmp/finding.txt")" -eq 1 ] || fail "only GPU 2 throttles: $(cat "$tmp/finding.txt")"
# The scenario's last state (from second 9): GPU 2 at 84 C, the hottest; GPU 0 at 62 C.
until_series 30 'topk(1, DCGM_FI_DEV_GPU_TEMP)' 'gpu=2,.*=84$'
until_series 30 'DCGM_FI_DEV_GPU_TEMP{gpu="0"}' '=62$'
until_series 30 'gpudoctor_clock_event_seconds_total{gpu="2",reason="sw_thermal_slowdown"} > 0' 'gpu=2'
# The violation counters are nanoseconds, as DCGM's: GPU 2's thermal
# violation time matches its seconds with a thermal reason set (not 1000x
# less, as microseconds would read).
ratio='DCGM_FI_DEV_THERMAL_VIOLATION{gpu="2"} / 1e9 / on(gpu) max by (gpu) (gpudoctor_clock_event_seconds_total{gpu="2",reason=~"sw_thermal_slowdown|hw_thermal_slowdown"})'
until_series 30 "$ratio > 0.5 and $ratio < 2" 'gpu=2'
grep -q '^# HELP DCGM_FI_DEV_THERMAL_VIOLATION .*(in ns)' "$tmp/scrape.txt" || fail "violation counters not said in ns"
echo "ok: Prometheus scraped $(wc -l <"$tmp/scrape.txt") lines; the throttling finding and the temperature series are there"
