#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# A single-node Slurm cluster from Debian's packages (munge, slurmctld,
# slurmd), on loopback, in a temporary directory: slurmd runs
# gpudoctor-healthcheck as its HealthCheckProgram every 2 s; a critical
# simulated node is drained with the finding id in the reason, an admin's
# drain is left alone, a clean check resumes our own drain; then the srun
# fan-out writes one report per node and `gpudoctor fleet` reads them, and
# `srun -n4 gpudoctor bench nccl --nodes` runs across four simulated nodes. A
# driver that hangs, with the wrapper's shipped defaults, drains the node
# within slurmd's 60 s limit for its health check.
# Needs root (slurmd and munged run as root here). Missing components skip
# (77), and fail under CI=true.
# Usage: test_slurm.sh GPUDOCTOR SOURCE_DIR
set -eu
bin=$1
src=$2
examples=$src/examples
wrapper=$src/scripts/slurm/gpudoctor-healthcheck

skip() {
    local fix="make test installs it: sudo bash scripts/install-deps.sh test"
    case "$*" in "not root"*) fix="run it as root: sudo make test" ;; esac
    if [ "${CI:-}" = true ]; then
        echo "FAIL: $* ($fix; CI runs as root)" >&2
        exit 1
    fi
    echo "SKIP: $* ($fix)" >&2
    exit 77
}
for c in munged slurmctld slurmd sinfo scontrol srun python3; do
    command -v "$c" >/dev/null 2>&1 || skip "$c is missing"
done
[ "$(id -u)" = 0 ] || skip "not root: slurmd and munged run as root in this test"

fail() {
    echo "FAIL: $*" >&2
    for f in slurmctld.log slurmd.log munged.log hc.log; do
        [ -f "$tmp/$f" ] && { echo "--- $f" >&2; tail -n 15 "$tmp/$f" >&2; }
    done
    exit 1
}

tmp=$(mktemp -d)
chmod 755 "$tmp" # munged wants its socket's folder searchable by all
cleanup() {
    for d in slurmd slurmctld munged; do
        [ -f "$tmp/$d.pid" ] && kill "$(cat "$tmp/$d.pid")" 2>/dev/null
    done
    for _ in $(seq 50); do # bounded: gone within 5 s
        alive=0
        for d in slurmd slurmctld munged; do
            [ -f "$tmp/$d.pid" ] && kill -0 "$(cat "$tmp/$d.pid")" 2>/dev/null && alive=1
        done
        [ $alive = 0 ] && break
        sleep 0.1
    done
    for d in slurmd slurmctld munged; do
        [ -f "$tmp/$d.pid" ] && kill -9 "$(cat "$tmp/$d.pid")" 2>/dev/null
    done
    # A slurmd child that runs a health check is not in the pid files: it
    # ends when the check does (the wrapper's own limit). Waited for,
    # bounded, so that it does not outlive the test (the suite's guard).
    for _ in $(seq 300); do
        pgrep -f -- "slurmd -f $tmp/slurm.conf" >/dev/null 2>&1 || break
        sleep 0.1
    done
    rm -rf "$tmp"
}
trap cleanup EXIT INT TERM

# Every wait below is bounded in wall-clock seconds, and every Slurm client
# call in time: on a loaded machine an unanswered sinfo takes its whole
# MessageTimeout, so counting tries is no bound. The whole test gives up,
# with the daemons' logs, well before ctest's own timeout would kill it
# without them.
started=$(date +%s)
budget=480
now() { date +%s; }
over_budget() { [ $(($(now) - started)) -ge $budget ]; }

# Two distinct free ports, outside the ephemeral range (the script says why).
ports=$(python3 "$src/tests/common/free_ports.py" 2)
ctld_port=${ports% *}
slurmd_port=${ports#* }

# munge, with a key of our own on a socket of our own.
dd if=/dev/urandom of="$tmp/munge.key" bs=1024 count=1 2>/dev/null
chmod 400 "$tmp/munge.key"
timeout 30 munged --socket="$tmp/munge.sock" --key-file="$tmp/munge.key" --pid-file="$tmp/munged.pid" \
    --log-file="$tmp/munged.log" --seed-file="$tmp/munge.seed" || fail "munged did not start"

node=$(hostname -s 2>/dev/null || uname -n | cut -d. -f1)
mkdir -p "$tmp/state" "$tmp/spool" "$tmp/reports"
cat >"$tmp/slurm.conf" <<CONF
ClusterName=gpudoctortest
SlurmctldHost=$node(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
MessageTimeout=5
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$tmp/munge.sock
CredType=cred/munge
StateSaveLocation=$tmp/state
SlurmdSpoolDir=$tmp/spool
SlurmctldPidFile=$tmp/slurmctld.pid
SlurmdPidFile=$tmp/slurmd.pid
SlurmctldLogFile=$tmp/slurmctld.log
SlurmdLogFile=$tmp/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
MpiDefault=none
ReturnToService=2
HealthCheckProgram=$tmp/healthcheck
HealthCheckInterval=2
HealthCheckNodeState=ANY
NodeName=$node NodeAddr=127.0.0.1 CPUs=$(nproc) RealMemory=1000 State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF="$tmp/slurm.conf"

# slurmd gives its HealthCheckProgram an empty environment: the wrapper
# reads its settings from a file, as it would from /etc/default.
# Each run adds a line to hc.started, and once finished to hc.done, which
# the waits below count.
cat >"$tmp/healthcheck" <<HC
#!/bin/sh
echo start >>$tmp/hc.started
SLURM_CONF=$tmp/slurm.conf GPUDOCTOR_HEALTHCHECK_CONF=$tmp/healthcheck.conf sh $wrapper >>$tmp/hc.log 2>&1
rc=\$?
echo "\$rc" >>$tmp/hc.done
exit \$rc
HC
chmod +x "$tmp/healthcheck"
# The simulated node's GPUs have device nodes: the wrapper leaves a node
# without any alone (tests/deploy/test_slurm_wrapper.sh).
mkdir -p "$tmp/dev" && : >"$tmp/dev/nvidia0"
scenario() { # the node the health check sees
    printf 'GPUDOCTOR=%s\nGPUDOCTOR_DEV_ROOT=%s\nGPUDOCTOR_CHECK_ARGS="--sim %s --duration 5"\n' \
        "$bin" "$tmp/dev" "$examples/$1" >"$tmp/healthcheck.conf"
}
scenario h100x8-training.json

timeout 30 slurmctld -f "$tmp/slurm.conf" || fail "slurmctld did not start"
timeout 30 slurmd -f "$tmp/slurm.conf" || fail "slurmd did not start"

state() { timeout -k 2 10 sinfo -h -N -n "$node" -o '%T|%E' 2>/dev/null | head -n 1; }
# wait_for PATTERN SECONDS: until the node's "state|reason" matches.
wait_for() {
    until=$(($(now) + $2))
    while [ "$(now)" -lt "$until" ] && ! over_budget; do
        # shellcheck disable=SC2254 # the pattern is a glob on purpose
        case $(state) in $1) return 0 ;; esac
        sleep 0.2
    done
    fail "node $node: '$(state)' is not '$1' after $2 s ($(($(now) - started)) s into the test)"
}
wait_for 'idle|*' 30
checks_done() { [ -f "$tmp/hc.done" ] && wc -l <"$tmp/hc.done" || echo 0; }
# after_checks N SECONDS: returns once N more health checks have finished
# (the first of them may have begun before the caller's change; the last
# ran after it), on a loaded machine too; fails after SECONDS.
after_checks() {
    target=$(($(checks_done) + $1))
    until=$(($(now) + $2))
    while [ "$(now)" -lt "$until" ] && ! over_budget; do
        [ "$(checks_done)" -ge "$target" ] && return 0
        sleep 0.2
    done
    fail "$1 health checks did not finish within $2 s ($(checks_done) in all)"
}

# A critical node (Xid 79 in its kernel log): slurmd's health check drains it.
scenario h100x8-xid.json
wait_for 'drain*|gpudoctor: health.xid GPU 3,4' 30
echo "drained by the health check: $(state)"
# Having drained it, the wrapper exits 0: slurmd logs no failed health check.
! grep -q "health_check failed" "$tmp/slurmd.log" || fail "the health check exited non-zero after draining"

# Clean again: our own drain is lifted.
scenario h100x8-training.json
wait_for 'idle*|none' 30
echo "resumed by the health check: $(state)"

# An admin's drain is never lifted, nor rewritten, by the health check.
timeout -k 2 20 scontrol update NodeName="$node" State=DRAIN Reason="admin: fan 3" || fail "scontrol drain: exit $?"
scenario h100x8-xid.json
after_checks 2 60
case $(state) in 'drain'*'|admin: fan 3') ;; *) fail "an admin's drain changed: $(state)" ;; esac
scenario h100x8-training.json
after_checks 2 60
case $(state) in 'drain'*'|admin: fan 3') ;; *) fail "an admin's drain was lifted: $(state)" ;; esac
timeout -k 2 20 scontrol update NodeName="$node" State=RESUME || fail "scontrol resume: exit $?"
wait_for 'idle*' 30

# "Could not check" (a scenario that is not there) does not drain by default.
cat >"$tmp/healthcheck.conf" <<CONF
GPUDOCTOR=$bin
GPUDOCTOR_DEV_ROOT=$tmp/dev
GPUDOCTOR_CHECK_ARGS="--sim $tmp/no-such-scenario.json --duration 5"
CONF
after_checks 2 60
case $(state) in 'idle'*) ;; *) fail "exit 3 drained the node: $(state)" ;; esac
grep -q "could not check (exit 3" "$tmp/hc.log" || fail "the wrapper did not say why it could not check"
scenario h100x8-training.json

# A driver that hangs, with the shipped defaults (no GPUDOCTOR_TIMEOUT):
# slurmd kills its HealthCheckProgram at 60 s ("health_check poll timeout"),
# so the wrapper must have drained the node well before. The stand-in for
# gpudoctor ignores SIGTERM, as a process stuck in the driver does.
printf '#!/bin/sh\ntrap "" TERM\nsleep 600\n' >"$tmp/gpudoctor-hangs" && chmod +x "$tmp/gpudoctor-hangs"
printf 'GPUDOCTOR=%s\nGPUDOCTOR_DEV_ROOT=%s\n' "$tmp/gpudoctor-hangs" "$tmp/dev" >"$tmp/healthcheck.conf"
hang_start=$(now)
wait_for 'drain*|gpudoctor: no answer from the NVIDIA driver in *s' 120
echo "a hung driver, shipped defaults: drained $(($(now) - hang_start)) s after the change: $(state)"
! grep -q "health_check poll timeout" "$tmp/slurmd.log" || fail "slurmd killed the health check (its 60 s limit)"
# slurmctld asks for a health check every 2 s while one hangs for 30 s, so
# several were started with the hanging driver: each drains the node when
# it ends. All of them end before the clean ones are waited for.
scenario h100x8-training.json
begun=$(wc -l <"$tmp/hc.started")
until=$(($(now) + 90))
while [ "$(checks_done)" -lt "$begun" ] && [ "$(now)" -lt "$until" ]; do sleep 0.2; done
[ "$(checks_done)" -ge "$begun" ] || fail "the health checks with the hanging driver did not all end within 90 s"
wait_for 'idle*|none' 60
! grep -q "health_check poll timeout" "$tmp/slurmd.log" || fail "slurmd killed the health check (its 60 s limit)"
echo "resumed once the driver answers: $(state)"
# While the hung checks ran, slurmctld marked the node not responding now
# and then ("idle*", "drained*"): responding again ("idle") before srun.
wait_for 'idle|none' 60

# The fan-out: one report per node through srun, then fleet over the folder.
timeout -k 5 60 srun -N1 --ntasks-per-node=1 -o "$tmp/reports/%N.json" "$bin" check --sim "$examples/h100x8-training.json" \
    --json --duration 5 || fail "srun: exit $?"
[ -s "$tmp/reports/$node.json" ] || fail "srun wrote no $node.json"
timeout 60 "$bin" fleet "$tmp/reports" --json >"$tmp/fleet.json" || fail "fleet: exit $?"
python3 - "$tmp/fleet.json" "$node" <<'PY' || fail "fleet's report"
import json, sys
r = json.load(open(sys.argv[1]))
names = [n["name"] for n in r["nodes"]]
assert names == [sys.argv[2]], names
assert r["findings"] == [], r["findings"]
assert r["groups"][0]["gpus"] == 8
PY
# bench nccl --nodes through srun: one node, four tasks (Slurm's multiple-slurmd
# mode needs a build with --enable-multiple-slurmd, which Debian's is not), each
# task a simulated node of its own: SLURM_PROCID picks its scenario, node 2's
# mlx5_3 at a quarter rate. Ranks meet at the step's first host, found by
# SLURM_STEP_NODELIST; the port is a free one.
python3 - "$examples/net-ib-h100x8-healthy.json" "$tmp" <<'PY' || fail "the nodes' scenarios"
import json, sys
for r in range(4):
    d = json.load(open(sys.argv[1]))
    d["host"]["hostname"] = "sim%02d" % r
    if r == 2:
        d["nics"][3]["ports"][0]["rate_gbps"] = 100
    json.dump(d, open("%s/node%d.json" % (sys.argv[2], r), "w"))
PY
getent hosts "$node" >/dev/null 2>&1 || export MASTER_ADDR=127.0.0.1 # a node name nothing resolves
rc=0
MASTER_PORT=$(python3 "$src/tests/common/free_ports.py" 1) timeout -k 5 120 \
    srun -N1 -n4 --overcommit -o "$tmp/nodes-%t.out" -e "$tmp/nodes-%t.err" \
    sh -c 'exec "$0" bench nccl --nodes --json --force --timeout 30 --sim "$1/node$SLURM_PROCID.json"' "$bin" "$tmp" ||
    rc=$?
[ $rc = 0 ] || { cat "$tmp"/nodes-*.err >&2; fail "srun bench nccl --nodes: exit $rc"; }
python3 - "$tmp/nodes-0.out" <<'PY' || { cat "$tmp"/nodes-*.err >&2; fail "bench nccl --nodes' report"; }
import json, sys
r = json.load(open(sys.argv[1]))
n = r["nodes"]
assert n["launcher"] == "slurm" and n["world"] == 4, (n["launcher"], n["world"])
assert [x["host"] for x in n["ranks"]] == ["sim00", "sim01", "sim02", "sim03"], n["ranks"]
low = [f for f in r["findings"] if f["id"] == "bench.nccl_nodes_low"]
assert len(low) == 1 and len(r["findings"]) == 1, r["findings"]
b = low[0]["evidence"]["blamed_nodes"]
assert [(x["rank"], x["port"]) for x in b] == [(2, "mlx5_3/1")], b
PY
grep -q "the report is rank 0's" "$tmp/nodes-1.err" || fail "rank 1 did not say where the report is"

echo "ok: drained with the finding id, resumed, admin drains kept, a hang drained in time, the fan-out read by fleet," \
    "bench nccl --nodes through srun named the slow node's port"
