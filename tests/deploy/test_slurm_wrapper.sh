#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The Slurm wrapper (scripts/slurm/gpudoctor-healthcheck) against stand-in
# sinfo and scontrol and fixture /dev and /sys trees: a node without an NVIDIA
# GPU is left alone, a node whose NVIDIA GPU exists but whose driver does not
# answer (no library, or a hang) is drained, a node without a writable
# temporary folder is judged all the same, the reason names the GPUs within
# GPUDOCTOR_REASON_MAX, the wrapper ends within its bound, and the job mode
# (Prolog/Epilog) judges only the job's GPUs in one snapshot, takes only a
# list of GPU ids from SLURM_JOB_GPUS, and resumes nothing. tests/slurm/test_slurm.sh runs it under a real slurmd.
# Usage: test_slurm_wrapper.sh GPUDOCTOR SOURCE_DIR
set -u
bin=$1 src=$2
wrapper=$src/scripts/slurm/gpudoctor-healthcheck ex=$src/examples
tmp=$(mktemp -d) && trap 'rm -rf "$tmp"' EXIT
fail() {
    echo "FAIL: $*" >&2
    [ -f "$tmp/out" ] && sed 's/^/  | /' "$tmp/out" >&2
    exit 1
}

# Stand-ins: sinfo prints the node's reason, scontrol records what it is told.
mkdir -p "$tmp/bin"
cat >"$tmp/bin/sinfo" <<EOS
#!/bin/sh
cat "$tmp/reason" 2>/dev/null
EOS
cat >"$tmp/bin/scontrol" <<EOS
#!/bin/sh
echo "\$*" >>"$tmp/scontrol.log"
case "\$*" in
*State=DRAIN*) printf '%s\n' "\$*" | sed 's/.*Reason=//' >"$tmp/reason" ;;
*State=RESUME*) rm -f "$tmp/reason" ;;
esac
EOS
# A binary that records its arguments, then runs the real one.
cat >"$tmp/bin/gpudoctor-logged" <<EOS
#!/bin/sh
echo "\$*" >"$tmp/args"
exec "$bin" "\$@"
EOS
# A driver that hangs, deaf to SIGTERM like a task stuck in the kernel.
cat >"$tmp/bin/gpudoctor-hangs" <<'EOS'
#!/bin/sh
trap '' TERM
sleep 600
EOS
chmod +x "$tmp/bin/"*
logger_free_path=$tmp/bin:/usr/bin:/bin

# Fixture trees: no GPU (a NIC and an NVSwitch-like NVIDIA bridge), an
# NVIDIA 3D controller without a driver, and a device node.
mkdir -p "$tmp/nodev" "$tmp/dev" "$tmp/sys-none/bus/pci/devices/0000:01:00.0" \
    "$tmp/sys-none/bus/pci/devices/0000:02:00.0" "$tmp/sys-gpu/bus/pci/devices/0000:1b:00.0"
echo 0x15b3 >"$tmp/sys-none/bus/pci/devices/0000:01:00.0/vendor"
echo 0x020700 >"$tmp/sys-none/bus/pci/devices/0000:01:00.0/class"
echo 0x10de >"$tmp/sys-none/bus/pci/devices/0000:02:00.0/vendor"
echo 0x068000 >"$tmp/sys-none/bus/pci/devices/0000:02:00.0/class"
echo 0x10de >"$tmp/sys-gpu/bus/pci/devices/0000:1b:00.0/vendor"
echo 0x030200 >"$tmp/sys-gpu/bus/pci/devices/0000:1b:00.0/class"
: >"$tmp/dev/nvidia0"
: >"$tmp/nodev/nvidiactl" # the driver installed on a machine without a GPU

# run [VAR=value...]: the wrapper as slurmd runs it (nearly empty environment);
# $flag is its argument.
flag=
run() {
    rm -f "$tmp/scontrol.log" "$tmp/args"
    env -i PATH="$logger_free_path" GPUDOCTOR_HEALTHCHECK_CONF=/nonexistent GPUDOCTOR_NODE=gpu017 \
        GPUDOCTOR_DEV_ROOT="$tmp/dev" GPUDOCTOR_SYS_ROOT="$tmp/sys-none" GPUDOCTOR="$tmp/bin/gpudoctor-logged" \
        "$@" sh "$wrapper" $flag >"$tmp/out" 2>&1
}
reason() { cat "$tmp/reason" 2>/dev/null; }
sim() { echo "GPUDOCTOR_CHECK_ARGS=--sim $ex/$1 --duration 5"; }
jsim() { echo "GPUDOCTOR_JOB_CHECK_ARGS=--sim $ex/$1"; }

# 1. No NVIDIA GPU (a CPU or login node): left alone, even where the check would drain.
run GPUDOCTOR_DEV_ROOT="$tmp/nodev" || fail "no GPU: exit $?"
[ ! -f "$tmp/scontrol.log" ] && [ ! -f "$tmp/args" ] || fail "a node without a GPU was checked or touched"
grep -q "no NVIDIA GPU.*left alone" "$tmp/out" || fail "no GPU: the log does not say so"

# 2. An NVIDIA 3D controller on PCI, no device node, no driver library: drained.
run GPUDOCTOR_DEV_ROOT="$tmp/nodev" GPUDOCTOR_SYS_ROOT="$tmp/sys-gpu" GPUDOCTOR_NVML_LIBRARY=/nonexistent/libnvidia-ml.so.1 ||
    fail "driver silent: exit $?"
[ "$(reason)" = "gpudoctor: driver.missing" ] || fail "driver silent: reason '$(reason)'"
rm -f "$tmp/reason"

# 3. A driver that hangs: killed at the limit, the node drained, the wrapper bounded.
start=$(date +%s)
run GPUDOCTOR="$tmp/bin/gpudoctor-hangs" GPUDOCTOR_TIMEOUT=2 || fail "hang: exit $?"
took=$(($(date +%s) - start))
[ "$(reason)" = "gpudoctor: no answer from the NVIDIA driver in 2s" ] || fail "hang: reason '$(reason)'"
[ "$took" -le 20 ] || fail "hang: the wrapper took ${took}s (bound: 2 s + 5 s to kill)"
echo "a hung driver: drained after ${took}s (limit 2 s, SIGKILL 5 s later)"
# ... and with the shipped default, well inside slurmd's 60 s kill of a HealthCheckProgram.
rm -f "$tmp/reason"
start=$(date +%s)
run GPUDOCTOR="$tmp/bin/gpudoctor-hangs" || fail "hang, defaults: exit $?"
took=$(($(date +%s) - start))
[ "$(reason)" = "gpudoctor: no answer from the NVIDIA driver in 25s" ] || fail "hang, defaults: reason '$(reason)'"
[ "$took" -le 40 ] || fail "hang, defaults: the wrapper took ${took}s (slurmd kills it at 60 s)"
echo "a hung driver, shipped defaults: drained after ${took}s"

# 3b. No writable temporary folder (a bad TMPDIR; a read-only root is the
# same to the wrapper, which writes no file): a sick node is still drained.
run "$(sim h100x8-xid.json)" TMPDIR=/nonexistent/tmp || fail "bad TMPDIR: exit $?"
[ "$(reason)" = "gpudoctor: health.xid GPU 3,4" ] || fail "bad TMPDIR: reason '$(reason)'"
rm -f "$tmp/reason"
if command -v unshare >/dev/null && [ "$(id -u)" = 0 ] &&
    unshare -m sh -c 'mount -o bind,ro /tmp /tmp' 2>/dev/null; then
    # /tmp read-only as well, in a mount namespace of its own; the stand-ins
    # there write nothing (their words go to the log, opened outside).
    mkdir -p "$tmp/bin-ro"
    printf '#!/bin/sh\n' >"$tmp/bin-ro/sinfo"
    printf '#!/bin/sh\necho "scontrol $*" >&2\n' >"$tmp/bin-ro/scontrol"
    chmod +x "$tmp/bin-ro/"*
    unshare -m sh -c 'mount -o bind,ro /tmp /tmp && exec "$@"' _ \
        env -i PATH="$tmp/bin-ro:/usr/bin:/bin" GPUDOCTOR_HEALTHCHECK_CONF=/nonexistent GPUDOCTOR_NODE=gpu017 \
        GPUDOCTOR_DEV_ROOT="$tmp/dev" GPUDOCTOR="$bin" "$(sim h100x8-xid.json)" sh "$wrapper" >"$tmp/out" 2>&1 ||
        fail "read-only /tmp: exit $?"
    grep -q "^scontrol update NodeName=gpu017 State=DRAIN Reason=gpudoctor: health.xid GPU 3,4\$" "$tmp/out" ||
        fail "read-only /tmp: not drained"
    echo "a read-only /tmp: drained all the same"
fi

# 3c. The check's exit code and line come through intact; exit 3 is logged with what it said.
run "GPUDOCTOR_CHECK_ARGS=--sim $tmp/none.json" || fail "exit 3: exit $?"
grep -q "could not check (exit 3: .*none.json" "$tmp/out" || fail "exit 3: the log does not say why"
[ -z "$(reason)" ] || fail "exit 3 drained: '$(reason)'"

# 4. The reason names the GPUs; a clean node check resumes our own drain.
run "$(sim h100x8-xid.json)" || fail "xid: exit $?"
[ "$(reason)" = "gpudoctor: health.xid GPU 3,4" ] || fail "xid: reason '$(reason)'"
run "$(sim h100x8-training.json)" || fail "clean: exit $?"
[ -z "$(reason)" ] || fail "a clean check did not resume: '$(reason)'"
# ... within GPUDOCTOR_REASON_MAX, whole groups only.
run "$(sim h100x8-memory-errors.json)" || fail "memory errors: exit $?"
[ "$(reason)" = "gpudoctor: health.ecc_uncorrectable GPU 4; health.row_remap GPU 5,6" ] ||
    fail "memory errors: reason '$(reason)'"
run "$(sim h100x8-memory-errors.json)" GPUDOCTOR_REASON_MAX=60 || fail "memory errors, 60: exit $?"
[ "$(reason)" = "gpudoctor: health.ecc_uncorrectable GPU 4; +1 more" ] || fail "60 characters: '$(reason)'"
# A dead NIC port: the reason names the port as check's summary line does
# (src/report/summary_line.c, the finding's evidence "summary"). A stand-in
# prints that line until the simulator carries NICs.
cat >"$tmp/bin/gpudoctor-port-down" <<'EOS'
#!/bin/sh
echo "net.port_down mlx5_3 port 1 Down"
exit 2
EOS
chmod +x "$tmp/bin/gpudoctor-port-down"
run GPUDOCTOR="$tmp/bin/gpudoctor-port-down" || fail "port down: exit $?"
[ "$(reason)" = "gpudoctor: net.port_down mlx5_3 port 1 Down" ] || fail "port down: reason '$(reason)'"
rm -f "$tmp/reason"
# An admin's reason is never replaced, nor lifted.
echo "admin: fan 3" >"$tmp/reason"
run "$(sim h100x8-xid.json)" && run "$(sim h100x8-training.json)" || fail "admin: exit $?"
[ "$(reason)" = "admin: fan 3" ] || fail "an admin's drain changed: '$(reason)'"
rm -f "$tmp/reason"

# 5. Job mode (Prolog/Epilog): only the job's GPUs, one snapshot, nothing resumed.
run SLURM_SCRIPT_CONTEXT=prolog_slurmd SLURM_JOB_ID=42 SLURM_JOB_GPUS=0,1 "$(jsim h100x8-xid.json)" ||
    fail "job on GPUs 0,1: exit $?"
[ -z "$(reason)" ] || fail "GPU 3's Xid drained a job check of GPUs 0,1: '$(reason)'"
case " $(cat "$tmp/args") " in *" --duration 0 --gpus 0,1 "*) ;; *) fail "job check arguments: $(cat "$tmp/args")" ;; esac
run SLURM_SCRIPT_CONTEXT=prolog_slurmd SLURM_JOB_ID=42 SLURM_JOB_GPUS=3 "$(jsim h100x8-xid.json)" ||
    fail "job on GPU 3: exit $?"
[ "$(reason)" = "gpudoctor: health.xid GPU 3 (prolog of job 42)" ] || fail "prolog: reason '$(reason)'"
run SLURM_SCRIPT_CONTEXT=epilog_slurmd SLURM_JOB_ID=43 SLURM_JOB_GPUS=5 "$(jsim h100x8-training.json)" ||
    fail "epilog: exit $?"
[ "$(reason)" = "gpudoctor: health.xid GPU 3 (prolog of job 42)" ] || fail "a job check resumed the node"
rm -f "$tmp/reason"
run SLURM_SCRIPT_CONTEXT=epilog_slurmd SLURM_JOB_ID=43 SLURM_JOB_GPUS=4 "$(jsim h100x8-xid.json)" ||
    fail "epilog on GPU 4: exit $?"
[ "$(reason)" = "gpudoctor: health.xid GPU 4 (epilog of job 43)" ] || fail "epilog: reason '$(reason)'"
rm -f "$tmp/reason"
# --job and CUDA_VISIBLE_DEVICES with a UUID, as a task prolog sees it.
flag=--job
run CUDA_VISIBLE_DEVICES=GPU-5e1d1f3a-0000-4000-8000-000000000004 SLURM_JOB_ID=44 "$(jsim h100x8-xid.json)" ||
    fail "--job: exit $?"
flag=
[ "$(reason)" = "gpudoctor: health.xid GPU 4 (prolog of job 44)" ] || fail "--job by UUID: reason '$(reason)'"
rm -f "$tmp/reason"
# SLURM_JOB_GPUS is a list of GPU ids, never words handed to check as options.
for bad in "3 --record $tmp/written" "3,--record=$tmp/written" "0;1" '$(id)' "0,,1" "0,1," "../x"; do
    run SLURM_SCRIPT_CONTEXT=prolog_slurmd SLURM_JOB_ID=47 SLURM_JOB_GPUS="$bad" "$(jsim h100x8-xid.json)" ||
        fail "SLURM_JOB_GPUS='$bad': exit $?"
    [ ! -f "$tmp/args" ] && [ ! -e "$tmp/written" ] && [ -z "$(reason)" ] ||
        fail "SLURM_JOB_GPUS='$bad' reached check: $(cat "$tmp/args" 2>/dev/null)"
    grep -q "not a list of GPU ids" "$tmp/out" || fail "SLURM_JOB_GPUS='$bad': the log does not say so"
done
run SLURM_SCRIPT_CONTEXT=prolog_slurmd SLURM_JOB_ID=48 SLURM_JOB_GPUS="$(printf '3\n--record\n%s' "$tmp/written")" \
    "$(jsim h100x8-xid.json)" || fail "a GPU list with newlines: exit $?"
[ ! -f "$tmp/args" ] && [ ! -e "$tmp/written" ] || fail "a GPU list with newlines reached check"
run SLURM_SCRIPT_CONTEXT=prolog_slurmd SLURM_JOB_ID=49 SLURM_JOB_GPUS=2,3 "$(jsim h100x8-xid.json)" ||
    fail "job on GPUs 2,3: exit $?"
[ "$(reason)" = "gpudoctor: health.xid GPU 3 (prolog of job 49)" ] || fail "GPUs 2,3: reason '$(reason)'"
rm -f "$tmp/reason"

# A job without GPUs on this node: nothing to check.
run SLURM_SCRIPT_CONTEXT=prolog_slurmd SLURM_JOB_ID=45 "$(jsim h100x8-xid.json)" || fail "no GPUs: exit $?"
[ ! -f "$tmp/args" ] && [ -z "$(reason)" ] || fail "a job without GPUs was checked"
# GPUDOCTOR_PROLOG_REQUEUE=1: a prolog that drained exits 1 (Slurm requeues the job).
run SLURM_SCRIPT_CONTEXT=prolog_slurmd SLURM_JOB_ID=46 SLURM_JOB_GPUS=3 GPUDOCTOR_PROLOG_REQUEUE=1 \
    "$(jsim h100x8-xid.json)" && fail "PROLOG_REQUEUE=1: exit 0 after a drain"
echo "ok: nodes without GPUs left alone, silent drivers drained, GPUs named, job mode on the job's GPUs"
