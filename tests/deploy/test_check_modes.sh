#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# check --summary, --gpus and --exit-codes on simulated nodes: the one line
# names the ids and GPUs, --gpus judges only the listed GPUs (indices or
# UUID prefixes, as SLURM_JOB_GPUS and CUDA_VISIBLE_DEVICES give them), and
# each exit-code map gives the documented codes.
# Usage: test_check_modes.sh GPUDOCTOR EXAMPLES_DIR
set -u
bin=$1 ex=$2
fail() { echo "FAIL: $*" >&2; exit 1; }
# expect CODE OUTPUT ARGS...: check's exit code and its stdout (one line).
expect() {
    want_rc=$1 want_out=$2
    shift 2
    out=$("$bin" check "$@" 2>/dev/null)
    rc=$?
    [ "$rc" = "$want_rc" ] || fail "check $*: exit $rc, not $want_rc"
    [ "$out" = "$want_out" ] || fail "check $*: '$out', not '$want_out'"
}
xid=$ex/h100x8-xid.json ok=$ex/h100x8-training.json mem=$ex/h100x8-memory-errors.json demo=$ex/demo.json nvl=$ex/pcie-h100x8-nvlink-down.json
expect 2 "health.xid GPU 3,4" --sim "$xid" --duration 0 --summary
expect 2 "health.ecc_uncorrectable GPU 4; health.row_remap GPU 5,6,7" --sim "$mem" --duration 0 --summary
expect 0 "no problem found" --sim "$ok" --duration 0 --summary
# Warnings count under the default --fail-on warning, not under critical.
expect 2 "power.limit_lowered GPU 2; thermal.hot GPU 5" --sim "$demo" --duration 5 --summary
expect 2 "power.limit_lowered GPU 2" --sim "$demo" --duration 5 --summary --fail-on critical
expect 1 "nvlink.down GPU 2" --sim "$nvl" --duration 5 --summary
expect 0 "no problem found" --sim "$nvl" --duration 5 --summary --fail-on critical
# --gpus: only the listed GPUs are judged.
expect 2 "health.xid GPU 4" --sim "$xid" --duration 0 --summary --gpus 4,5
expect 0 "no problem found" --sim "$xid" --duration 0 --summary --gpus 0,1,2
expect 2 "health.xid GPU 3" --sim "$xid" --duration 0 --summary --gpus GPU-5e1d1f3a-0000-4000-8000-000000000003
expect 2 "health.row_remap GPU 6,7" --sim "$mem" --duration 0 --summary --gpus 6,7
expect 3 "" --sim "$xid" --duration 0 --summary --gpus 9
expect 3 "" --sim "$xid" --duration 0 --summary --gpus GPU-5e1d # a prefix of every GPU's UUID
# The JSON report under --gpus has only those GPUs' findings.
"$bin" check --sim "$xid" --duration 0 --json --gpus 3 | python3 -c '
import json, sys
r = json.load(sys.stdin)
assert [f["gpu"] for f in r["findings"]] == [3], r["findings"]' || fail "--gpus 3 --json"
# node-problem-detector: 0 OK, 1 problem, 2 unknown; npd-healthy turns OK and problem round.
expect 1 "health.xid GPU 3,4" --sim "$xid" --duration 0 --summary --exit-codes npd
expect 1 "nvlink.down GPU 2" --sim "$nvl" --duration 5 --summary --exit-codes npd
expect 0 "no problem found" --sim "$ok" --duration 0 --summary --exit-codes npd
expect 2 "" --sim /nonexistent.json --duration 0 --summary --exit-codes npd
expect 2 "" --sim "$ok" --duration 0 --summary --exit-codes npd --no-such-option
expect 0 "health.xid GPU 3,4" --sim "$xid" --duration 0 --summary --exit-codes npd-healthy
expect 1 "no problem found" --sim "$ok" --duration 0 --summary --exit-codes npd-healthy
expect 2 "" --sim /nonexistent.json --duration 0 --summary --exit-codes npd-healthy
expect 2 "health.xid GPU 3,4" --sim "$xid" --duration 0 --summary --exit-codes nagios
expect 3 "" --sim "$ok" --exit-codes nrpe
# --json asked and the options refused: the JSON error object, exit 3.
out=$("$bin" check --sim "$ok" --summary --json 2>/dev/null) && fail "--summary --json did not exit 3"
printf '%s' "$out" | python3 -c '
import json, sys
r = json.load(sys.stdin)
assert r["exit_code"] == 3 and "--summary" in r["error"], r' || fail "--summary --json: no JSON error object: $out"
echo "ok: --summary, --gpus and --exit-codes"
