#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# gpudoctor-exporter.service where its port is taken (dcgm-exporter's 9400):
# the command the unit runs, from the shipped /etc/default file with the
# port busy, says once that it cannot listen and exits with a status that
# the unit's RestartPreventExitStatus= lists, so systemd does not start it
# again every RestartSec for ever; a crash (signal) still restarts
# (Restart=on-failure). The package test runs systemd-analyze verify on it.
#   test_exporter_unit.sh GPUDOCTOR SOURCE_DIR
set -uo pipefail
bin=$1 src=$2
unit=$src/scripts/systemd/gpudoctor-exporter.service
fail() { echo "FAIL: $*" >&2; exit 1; }
tmp=$(mktemp -d)
holder=
cleanup() {
    [ -n "$holder" ] && kill "$holder" 2>/dev/null && wait "$holder" 2>/dev/null
    rm -rf "$tmp"
}
trap cleanup EXIT
grep -qx 'Restart=on-failure' "$unit" || fail "the unit does not restart on failure"
prevent=$(sed -n 's/^RestartPreventExitStatus=//p' "$unit")
[ -n "$prevent" ] || fail "the unit has no RestartPreventExitStatus="
# The shipped defaults, with the port another program holds.
port=$(python3 "$src/tests/common/free_ports.py")
python3 -c '
import socket, sys, time
s = socket.socket(); s.bind(("127.0.0.1", int(sys.argv[1]))); s.listen(1)
print("listening", flush=True); time.sleep(120)' "$port" >"$tmp/holder.out" &
holder=$!
for _ in $(seq 50); do grep -q listening "$tmp/holder.out" && break; sleep 0.1; done
grep -q listening "$tmp/holder.out" || fail "could not hold port $port"
sed "s/^PORT=.*/PORT=$port/" "$src/scripts/default/gpudoctor-exporter" >"$tmp/default"
mapfile -t argv < <(python3 "$src/tests/deploy/unit_execstart.py" "$unit" "$tmp/default")
[ "${argv[0]}" = /usr/bin/gpudoctor ] || fail "ExecStart runs ${argv[0]}"
[ "${argv[*]:1}" = "export --listen 127.0.0.1:$port" ] || fail "ExecStart expands to '${argv[*]}'"
# Under --sim so that the test needs no GPU; the port is what fails.
rc=0
timeout 20 "$bin" "${argv[@]:1}" --sim "$src/examples/demo.json" >"$tmp/out" 2>"$tmp/err" || rc=$?
[ $rc != 124 ] || fail "the exporter kept running on a port in use"
case " $prevent " in *" $rc "*) ;; *) fail "exit $rc on a port in use is not in RestartPreventExitStatus=$prevent: systemd restarts it for ever" ;; esac
[ "$(grep -c 'cannot listen' "$tmp/err")" = 1 ] || fail "the port in use is not said once: $(cat "$tmp/err")"
grep -q "127.0.0.1:$port" "$tmp/err" || fail "the message does not name the address: $(cat "$tmp/err")"
# Success and a crash are not in the list: those restart as before.
case " $prevent " in *" 0 "* | *SIG*) fail "RestartPreventExitStatus=$prevent also stops restarts after a crash" ;; esac
echo "ok: a port in use: said once, exit $rc, which the unit does not restart"
