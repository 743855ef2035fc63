#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The NHC check (scripts/nhc/gpudoctor.nhc) run as LBNL NHC runs checks:
# every scripts/*.nhc sourced into one bash, then each nhc.conf line
# "HOSTMASK || CHECK" whose mask matches eval'ed, with NHC's die, log and dbg
# (die records the message NHC marks the node offline with), with NHC's
# TIMEOUT where a case sets it. Debian has no nhc package, so this harness
# stands in for it.
# Usage: test_nhc.sh GPUDOCTOR SOURCE_DIR
set -u
bin=$1 src=$2 ex=$2/examples
tmp=$(mktemp -d) && trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# NHC's helpers, as nhc defines them (die: the failure and its message, which
# nhc hands to node-mark-offline; here written to a file).
cat >"$tmp/nhc" <<'NHC'
#!/usr/bin/env bash
# mini-nhc CONF SCRIPTS_DIR: sources the scripts, runs the matching lines.
CONF=$1 SCRIPTS=$2 HOSTNAME=${HOSTNAME_OVERRIDE:-$(hostname)}
function die() { local rc=$1; shift; CHECK_DIED=1; echo "$*" >>"$NHC_FAILED"; return "$rc"; }
function log() { echo "log: $*" >&2; }
function dbg() { echo "dbg: $*" >&2; }
for s in "$SCRIPTS"/*.nhc; do . "$s"; done
while IFS= read -r line; do
    line=${line%%#*}
    [[ $line == *'||'* ]] || continue
    mask=${line%%||*} check=${line#*||}
    mask=${mask//[[:space:]]/}
    # shellcheck disable=SC2053 # a glob, as nhc's hostmasks
    [[ $HOSTNAME == $mask ]] || continue
    CHECK_DIED=0
    eval "$check"
    rc=$?
    if [[ $CHECK_DIED == 1 || $rc != 0 ]]; then exit 1; fi
done <"$CONF"
exit 0
NHC
mkdir -p "$tmp/scripts" "$tmp/nodev" "$tmp/dev" "$tmp/sys/bus/pci/devices" "$tmp/sys-gpu/bus/pci/devices/0000:1b:00.0"
cp "$src/scripts/nhc/gpudoctor.nhc" "$tmp/scripts/"
: >"$tmp/dev/nvidia0"
# The node's GPU as sysfs shows it (gpudoctor tells a GPU node from a CPU node by it).
echo 0x10de >"$tmp/sys-gpu/bus/pci/devices/0000:1b:00.0/vendor"
echo 0x030200 >"$tmp/sys-gpu/bus/pci/devices/0000:1b:00.0/class"

# nhc CHECK-ARGS [VAR=value...]: the shipped nhc.conf with its binary and
# arguments replaced, run on a simulated node.
nhc() {
    local a=$1
    shift
    # shipped: the check's line as shipped (its -t and -a)
    if [ "$a" = shipped ]; then a=$(sed -n 's/^\* || check_gpudoctor //p' "$src/scripts/nhc/nhc.conf"); fi
    sed -e "s|export GPUDOCTOR=.*|export GPUDOCTOR=${use_bin:-$bin}|" -e "s|check_gpudoctor .*|check_gpudoctor $a|" \
        "$src/scripts/nhc/nhc.conf" >"$tmp/nhc.conf"
    grep -q '^\* || check_gpudoctor' "$tmp/nhc.conf" || fail "nhc.conf has no check_gpudoctor line"
    rm -f "$tmp/failed"
    env NHC_FAILED="$tmp/failed" GPUDOCTOR_DEV_ROOT="$tmp/dev" GPUDOCTOR_SYS_ROOT="$tmp/sys" "$@" \
        bash "$tmp/nhc" "$tmp/nhc.conf" "$tmp/scripts" 2>"$tmp/log"
}
failed() { cat "$tmp/failed" 2>/dev/null; }

nhc "-a '--sim $ex/h100x8-training.json --duration 5'" || fail "a healthy node failed: $(failed)"
[ -z "$(failed)" ] || fail "a healthy node: $(failed)"
nhc "-a '--sim $ex/h100x8-xid.json --duration 5'" && fail "an Xid node passed"
[ "$(failed)" = "gpudoctor: health.xid GPU 3,4" ] || fail "Xid: '$(failed)'"
# Warnings pass unless -w.
nhc "-a '--sim $ex/pcie-h100x8-nvlink-down.json --duration 5'" || fail "warnings failed without -w: $(failed)"
nhc "-w -a '--sim $ex/pcie-h100x8-nvlink-down.json --duration 5'" && fail "warnings passed with -w"
[ "$(failed)" = "gpudoctor: nvlink.down GPU 2" ] || fail "-w: '$(failed)'"
# A node without an NVIDIA GPU passes, even where the check would fail.
nhc "-a '--sim $ex/h100x8-xid.json'" GPUDOCTOR_DEV_ROOT="$tmp/nodev" || fail "a node without GPU failed: $(failed)"
# The driver does not answer: no library (driver.missing), or a hang past -t.
nhc "-a '--duration 0'" GPUDOCTOR_NVML_LIBRARY=/nonexistent/libnvidia-ml.so.1 GPUDOCTOR_SYS_ROOT="$tmp/sys-gpu" &&
    fail "no driver passed"
[ "$(failed)" = "gpudoctor: driver.missing" ] || fail "no driver: '$(failed)'"
printf '#!/bin/sh\ntrap "" TERM\nsleep 600\n' >"$tmp/hang" && chmod +x "$tmp/hang"
use_bin=$tmp/hang nhc "-t 1" && fail "a hang passed"
[ "$(failed)" = "gpudoctor: no answer from the NVIDIA driver in 1s" ] || fail "hang: '$(failed)'"
# The shipped line inside NHC's own default TIMEOUT=30 (its watchdog kills
# the whole run then, with its own message): a hang fails the node with our
# message, in time. Under slurmd, NHC itself must end within slurmd's 60 s.
t0=$(date +%s)
TIMEOUT=30 use_bin=$tmp/hang nhc shipped && fail "a hang passed with the shipped line"
took=$(($(date +%s) - t0))
case $(failed) in "gpudoctor: no answer from the NVIDIA driver in "*s) ;; *) fail "shipped hang: '$(failed)'" ;; esac
[ "$took" -lt 28 ] || fail "the shipped line took ${took}s on a hang: NHC's watchdog (TIMEOUT=30) would end it first"
echo "a hang under the shipped line: failed in ${took}s with '$(failed)' (NHC's TIMEOUT: 30 s)"
# A lower NHC TIMEOUT lowers the check's limit; too little left is said as such.
TIMEOUT=12 use_bin=$tmp/hang nhc "-t 20" && fail "a hang passed under TIMEOUT=12"
[ "$(failed)" = "gpudoctor: no answer from the NVIDIA driver in 7s" ] || fail "TIMEOUT=12: '$(failed)'"
TIMEOUT=8 nhc "-a '--sim $ex/h100x8-training.json'" && fail "TIMEOUT=8 passed unchecked"
case $(failed) in "gpudoctor: not checked: 3s left of NHC's TIMEOUT=8s"*) ;; *) fail "TIMEOUT=8: '$(failed)'" ;; esac
TIMEOUT=0 nhc "-t 1 -a '--sim $ex/h100x8-training.json --duration 0'" || fail "TIMEOUT=0 (no watchdog): $(failed)"
nhc "-t 1x" && fail "a bad -t passed"
# No writable temporary folder (a bad TMPDIR): an Xid still fails the node.
nhc "-a '--sim $ex/h100x8-xid.json --duration 5'" TMPDIR=/nonexistent/tmp && fail "an Xid passed with a bad TMPDIR"
[ "$(failed)" = "gpudoctor: health.xid GPU 3,4" ] || fail "bad TMPDIR: '$(failed)'"
# Could not check: logged, passes unless -e.
nhc "-a '--sim $tmp/none.json'" || fail "exit 3 failed without -e: $(failed)"
grep -q "could not check (exit 3)" "$tmp/log" || fail "exit 3 not logged"
nhc "-e -a '--sim $tmp/none.json'" && fail "exit 3 passed with -e"
nhc "-x" && fail "a bad option passed"
echo "ok: check_gpudoctor under an NHC-like runner"
