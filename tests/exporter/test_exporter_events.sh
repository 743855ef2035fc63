#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# A critical event is never forgotten (docs/exporter.md: a health event keeps
# its finding for the session): GPU 0's Xid 79, through NVML's events, then
# 5000 Xid 13 lines of GPU 1 appended to the followed kernel log, far more
# than the 1024 events the exporter keeps for detail. The real Prometheus
# still has GPU 0's critical health.xid series afterwards, and the scrape
# still says Xid 79 was GPU 0's last Xid.
# Usage: test_exporter_events.sh GPUDOCTOR EXAMPLES_DIR
set -eu
. "$(dirname "$0")/lib.sh"
need prometheus
need python3
bin=$1
examples=$2

# The training scenario with an Xid 79 on GPU 0 at scenario second 2 and a
# kernel log of its own, followed from the exporter's start.
: >"$tmp/dmesg.txt"
python3 - "$examples/h100x8-training.json" "$tmp/xid79.json" <<'PY'
import json, sys
sc = json.load(open(sys.argv[1]))
sc.setdefault("host", {})["kernel_log"] = "dmesg.txt"
sc["gpus"][0]["events"] = [{"t": 2, "xid": 79}]
json.dump(sc, open(sys.argv[2], "w"))
PY
start_exporter "$bin" "$tmp/xid79.json"
start_prometheus
critical='gpudoctor_finding{id="health.xid",severity="critical",gpu="0"}'
until_series 60 'up{job="gpudoctor"}' '=1$'
until_series 60 "$critical" 'gpu=0,.*=1$'

# 5000 Xid 13 of GPU 1 (00000000:2A:00.0) in the kernel log, at once: 5000
# faults, each of its own process (lines of one process within 2 s are one
# fault's, one event).
python3 - "$tmp/dmesg.txt" <<'PY'
import sys
with open(sys.argv[1], "a") as log:
    for k in range(5000):
        log.write(f"[ {9100 + k * 0.001:.6f}] NVRM: Xid (PCI:0000:2a:00): 13, pid={4242 + k}, name=python, "
                  "Graphics Exception: ESR 0x50da30=0x1000e 0x50da34=0x0 0x50da28=0x0 0x50da2c=0x0\n")
PY
# The exporter has taken them all: the ring of 1024 let GPU 0's Xid go.
dropped=0
for _ in $(seq 600); do # a deadline of a minute or more, for a busy machine
    dropped=$(fetch "http://127.0.0.1:$port/health" | python3 -c 'import json, sys; print(json.load(sys.stdin)["events_dropped"])')
    [ "$dropped" -ge 3977 ] && break
    sleep 0.1
done
[ "$dropped" -ge 3977 ] || fail "the exporter took $dropped of the log's Xids beyond its ring, not 3977"
until_series 60 'gpudoctor_finding{id="health.xid",gpu="1"}' 'gpu=1,'
# Scraped after the storm: GPU 0's critical series is still there.
last=$(date +%s)
until_series 60 "timestamp($critical) > $last" 'gpu=0,'
query "$critical" >"$tmp/after.txt"
grep -q 'gpu=0,.*=1$' "$tmp/after.txt" || fail "GPU 0's critical health.xid is gone after the storm: $(cat "$tmp/after.txt")"
fetch "http://127.0.0.1:$port/metrics" >"$tmp/scrape.txt"
grep -q '^DCGM_FI_DEV_XID_ERRORS{gpu="0",.*} 79$' "$tmp/scrape.txt" || fail "GPU 0's last Xid is not 79 any more"
grep -q '^DCGM_FI_DEV_XID_ERRORS{gpu="1",.*} 13$' "$tmp/scrape.txt" || fail "GPU 1's last Xid is not 13"
echo "ok: GPU 0's Xid 79 stays critical after 5000 later Xids ($dropped beyond the ring)"
