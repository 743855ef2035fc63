#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Labels of the workload, as dcgm-exporter gives them: a GPU in MIG mode
# gives its series once per MIG device (GPU_I_PROFILE, GPU_I_ID, the
# instance's memory); the Slurm prolog scripts/slurm/gpudoctor-job-map
# writes the job-mapping directory and the exporter labels the job's GPUs
# hpc_job="ID" (a shared GPU once per job), the epilog takes them away;
# a directory that cannot be read gives no label and no failure.
# Usage: test_exporter_workload.sh GPUDOCTOR EXAMPLES_DIR JOB_MAP_SCRIPT
set -eu
. "$(dirname "$0")/lib.sh"
bin=$1
examples=$2
jobmap=$3
need python3
need promtool
map=$tmp/job-map
SLURM_JOB_ID=4242 SLURM_JOB_GPUS=1,2 GPUDOCTOR_JOB_MAP_DIR=$map sh "$jobmap" prolog
SLURM_JOB_ID=4243 SLURM_SCRIPT_CONTEXT=prolog_slurmd CUDA_VISIBLE_DEVICES=2 GPUDOCTOR_JOB_MAP_DIR=$map sh "$jobmap"
printf '77\n' >"$map/0.13" # a MIG instance's own job (a site's prolog that knows it)
start_exporter "$bin" "$examples/h100x8-misconfigured.json" --hpc-job-mapping-dir "$map"

# check WANT: the scrape's workload labels as WANT says ("jobs" or "epilog").
check() {
    fetch "http://127.0.0.1:$port/metrics" >"$tmp/scrape.txt"
    python3 - "$tmp/scrape.txt" "$1" <<'PY'
import re, sys
text, want = open(sys.argv[1]).read(), sys.argv[2]
series = []
for line in text.splitlines():
    m = re.match(r'^(\w+)\{(.*)\} (\S+)$', line)
    if m:
        labels = dict(re.findall(r'(\w+)="((?:[^"\\]|\\.)*)"', m.group(2)))
        series.append((m.group(1), labels, float(m.group(3))))
def of(name, gpu):
    return [(l, v) for n, l, v in series if n == name and l.get("gpu") == gpu]
temp0 = of("DCGM_FI_DEV_GPU_TEMP", "0")
assert sorted((l["GPU_I_ID"], l["GPU_I_PROFILE"]) for l, _ in temp0) == [("1", "3g.40gb"), ("13", "1g.10gb"), ("5", "2g.20gb")], temp0
used0 = {l["GPU_I_ID"]: v for l, v in of("DCGM_FI_DEV_FB_USED", "0")}
free0 = {l["GPU_I_ID"]: v for l, v in of("DCGM_FI_DEV_FB_FREE", "0")}
assert used0 == {"1": 30208, "5": 12288, "13": 0}, used0
assert free0 == {"1": 40192 - 30208, "5": 20096 - 12288, "13": 9856}, free0
assert not of("DCGM_FI_DEV_FB_RESERVED", "0"), "the reserve is the GPU's, not an instance's"
assert all("GPU_I_ID" not in l for g in "1234567" for l, _ in of("DCGM_FI_DEV_GPU_TEMP", g))
jobs = {}
for l, _ in of("DCGM_FI_DEV_GPU_TEMP", "0") + [x for g in "1234567" for x in of("DCGM_FI_DEV_GPU_TEMP", g)]:
    if "hpc_job" in l:
        jobs.setdefault((l["gpu"], l.get("GPU_I_ID")), []).append(l["hpc_job"])
expect = {("0", "13"): ["77"], ("1", None): ["4242"], ("2", None): ["4242", "4243"]}
if want == "epilog":
    expect = {("0", "13"): ["77"], ("2", None): ["4243"]}
got = {k: sorted(v) for k, v in jobs.items()}
if got != expect:
    print("hpc_job labels: %s, want %s" % (got, expect))
    sys.exit(1)
PY
}
check jobs || fail "the workload labels are wrong"
promtool check metrics <"$tmp/scrape.txt" >"$tmp/lint.txt" 2>&1 || true
if grep -q '^gpudoctor_\|error\|duplicate' "$tmp/lint.txt"; then
    fail "promtool: $(head -3 "$tmp/lint.txt")"
fi

# The job ends: its epilog takes its labels away within a re-read.
SLURM_JOB_ID=4242 SLURM_JOB_GPUS=1,2 GPUDOCTOR_JOB_MAP_DIR=$map sh "$jobmap" epilog
[ ! -e "$map/1" ] || fail "the epilog left $map/1"
ok=""
for _ in $(seq 600); do
    if check epilog >/dev/null 2>&1; then
        ok=1
        break
    fi
    sleep 0.1
done
[ -n "$ok" ] || { check epilog; fail "the ended job's labels stayed"; }

# A directory that cannot be read: said once, no label, metrics served.
kill "$exporter"
wait "$exporter" 2>/dev/null || true
start_exporter "$bin" "$examples/h100x8-training.json" --hpc-job-mapping-dir "$tmp/missing"
fetch "http://127.0.0.1:$port/metrics" >"$tmp/scrape.txt"
grep -q '^DCGM_FI_DEV_GPU_TEMP{gpu="7"' "$tmp/scrape.txt" || fail "no metrics beside an unreadable job map"
! grep -q 'hpc_job=' "$tmp/scrape.txt" || fail "an unreadable job map gave labels"
[ "$(grep -c 'job mapping cannot be read' "$tmp/export.err")" = 1 ] ||
    fail "the unreadable job map was not said once: $(cat "$tmp/export.err")"
echo "MIG devices and hpc_job labels as dcgm-exporter gives them; the epilog takes a job's away"
