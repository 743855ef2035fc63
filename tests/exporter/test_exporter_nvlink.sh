#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# NVLink counters as dcgm-exporter exports them, on the HGX scenario whose GPU
# 5 link 7 takes CRC errors and replays at scenario seconds 20 and 40: the
# error counters (summed over the links) grow between scrapes on GPU 5 and
# stay 0 on the others, the bandwidth is every link's data rate, promtool
# flags nothing beyond dcgm-exporter's own naming; a GPU in MIG mode and a
# PCIe board without NVLink have no NVLink series at all (never a made-up 0).
# Usage: test_exporter_nvlink.sh GPUDOCTOR EXAMPLES_DIR
set -eu
. "$(dirname "$0")/lib.sh"
need promtool
need python3
bin=$1
examples=$2

# value METRIC GPU FILE: the sample of METRIC for GPU in a scrape, or "".
value() {
    sed -n "s/^$1{gpu=\"$2\",[^}]*} //p" "$3"
}

# Scenario seconds run at twice the wall clock: the errors arrive 10 s and 20 s in.
GPUDOCTOR_SIM_TIMESCALE=2 start_exporter "$bin" "$examples/h100x8-nvlink-errors.json" --interval 500
fetch "http://127.0.0.1:$port/metrics" >"$tmp/first.txt"
first=$(value DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_TOTAL 5 "$tmp/first.txt")
[ -n "$first" ] || fail "no CRC flit counter for GPU 5: $(grep NVLINK "$tmp/first.txt" | head -3)"
[ "$first" != 550 ] || fail "the first scrape came after the last error (scenario second 40): too late to see growth"
# Counters only rise; wait for the second event's totals (150 + 400 flit, 12 + 40 replays).
seen="$first"
prev="$first"
for _ in $(seq 300); do
    fetch "http://127.0.0.1:$port/metrics" >"$tmp/scrape.txt"
    now=$(value DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_TOTAL 5 "$tmp/scrape.txt")
    [ "$now" -ge "$prev" ] || fail "the CRC flit counter went back: $prev then $now"
    [ "$now" = "$prev" ] || seen="$seen $now"
    prev=$now
    [ "$now" = 550 ] && break
    sleep 0.2
done
[ "$prev" = 550 ] || fail "GPU 5's CRC flit errors did not reach 550: seen $seen"
[ "$seen" != 550 ] || fail "no growth seen: $seen"
for m in CRC_DATA_ERROR_COUNT_TOTAL:30 REPLAY_ERROR_COUNT_TOTAL:52 RECOVERY_ERROR_COUNT_TOTAL:1; do
    got=$(value "DCGM_FI_DEV_NVLINK_${m%%:*}" 5 "$tmp/scrape.txt")
    [ "$got" = "${m#*:}" ] || fail "DCGM_FI_DEV_NVLINK_${m%%:*} of GPU 5: $got, want ${m#*:}"
done
for g in 0 1 2 3 4 6 7; do
    got=$(value DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_TOTAL "$g" "$tmp/scrape.txt")
    [ "$got" = 0 ] || fail "GPU $g has no NVLink errors, yet its counter reads '$got'"
done
# Bandwidth as DCGM computes it: 18 links x (3.9e6 + 3.9e6) KiB/s, / 1000.
bw=$(value DCGM_FI_DEV_NVLINK_BANDWIDTH_TOTAL 0 "$tmp/scrape.txt")
[ "$bw" = 140400 ] || fail "DCGM_FI_DEV_NVLINK_BANDWIDTH_TOTAL of GPU 0: '$bw', want 140400"
grep -q '^# TYPE DCGM_FI_DEV_NVLINK_BANDWIDTH_TOTAL counter$' "$tmp/scrape.txt" || fail "bandwidth type is not dcgm-exporter's"
grep -q '^DCGM_FI_DEV_NVLINK_REPLAY_ERROR_COUNT_TOTAL{gpu="5",UUID="GPU-5e1d1f3a-0000-4000-8000-000000000005",pci_bus_id="00000000:AB:00.0",device="nvidia5",modelName="NVIDIA H100 80GB HBM3",Hostname="[^"]*",DCGM_FI_DRIVER_VERSION="550.54.15"} 52$' \
    "$tmp/scrape.txt" || fail "the replay counter lacks dcgm-exporter's labels: $(grep REPLAY_ERROR "$tmp/scrape.txt" | head -2)"
rc=0
promtool check metrics <"$tmp/scrape.txt" >"$tmp/lint.txt" 2>&1 || rc=$?
[ "$rc" -eq 0 ] || [ "$rc" -eq 3 ] || fail "promtool check metrics exit $rc: $(head -5 "$tmp/lint.txt")"
if grep -v -e "^DCGM_FI_[A-Z_]* label names should be written in 'snake_case' not 'camelCase'$" \
    -e '^DCGM_FI_[A-Z_]* counter metrics should have "_total" suffix$' \
    -e "^DCGM_FI_DEV_PCIE_REPLAY_COUNTER metric name should not include type 'counter'$" "$tmp/lint.txt" |
    grep -q .; then
    fail "unexpected promtool findings: $(head -5 "$tmp/lint.txt")"
fi
kill "$exporter"
wait "$exporter" 2>/dev/null || true

# The same node with GPU 5 in MIG mode: no NVLink series for GPU 5 (NVML
# reports its links down and DCGM no counters), the others unchanged.
python3 - "$examples/h100x8-nvlink-errors.json" "$tmp/mig.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["gpus"][5]["mig_mode"] = True
json.dump(d, open(sys.argv[2], "w"))
PY
start_exporter "$bin" "$tmp/mig.json"
for _ in $(seq 100); do
    fetch "http://127.0.0.1:$port/metrics" >"$tmp/mig.txt"
    [ -n "$(value DCGM_FI_DEV_NVLINK_BANDWIDTH_TOTAL 0 "$tmp/mig.txt")" ] && break
    sleep 0.2
done
[ -n "$(value DCGM_FI_DEV_NVLINK_BANDWIDTH_TOTAL 0 "$tmp/mig.txt")" ] || fail "no bandwidth for GPU 0 beside a MIG GPU"
[ "$(value DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_TOTAL 0 "$tmp/mig.txt")" = 0 ] || fail "GPU 0 lost its NVLink counters"
if grep -q '^DCGM_FI_DEV_NVLINK_[A-Z_]*{gpu="5",' "$tmp/mig.txt"; then
    fail "GPU 5 in MIG mode has NVLink series: $(grep '^DCGM_FI_DEV_NVLINK_[A-Z_]*{gpu="5",' "$tmp/mig.txt" | head -2)"
fi
kill "$exporter"
wait "$exporter" 2>/dev/null || true

# PCIe boards without NVLink: the families' headers, no series.
start_exporter "$bin" "$examples/a100x4-pcie-no-fan-no-memtemp.json"
sleep 1
fetch "http://127.0.0.1:$port/metrics" >"$tmp/pcie.txt"
grep -q '^DCGM_FI_DEV_GPU_UTIL{' "$tmp/pcie.txt" || fail "no samples from the PCIe scenario"
if grep -q '^DCGM_FI_DEV_NVLINK_' "$tmp/pcie.txt"; then
    fail "NVLink series on PCIe boards: $(grep '^DCGM_FI_DEV_NVLINK_' "$tmp/pcie.txt" | head -2)"
fi
echo "nvlink: GPU 5's CRC flit errors seen $seen; bandwidth $bw; MIG and PCIe boards without NVLink series"
