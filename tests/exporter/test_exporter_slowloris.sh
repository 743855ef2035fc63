#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# gpudoctor export under a slowloris attack: 120 connections from ten
# loopback addresses (127.0.0.2-11) that send a request line and then
# trickle one header byte every half second, reconnecting whenever they are
# cut, for 30 s. Beside them the real Prometheus scrapes every second and
# this script fetches /metrics itself. The exporter must go on answering
# both, and cut every trickling connection at its 5 s request deadline (it
# used to keep 64 of them for ever and refuse everyone else).
# Usage: test_exporter_slowloris.sh GPUDOCTOR EXAMPLES_DIR
set -eu
. "$(dirname "$0")/lib.sh"
need prometheus
need python3
bin=$1
examples=$2

start_exporter "$bin" "$examples/h100x8-training.json"

start_prometheus

# value PROMQL: the first result's value (lib.sh's query), or nothing.
value() {
    query "$1" | head -1 | sed 's/.*=//'
}

# Prometheus scrapes before the attack (event: its first successful scrape).
ok=""
for _ in $(seq 300); do
    [ "$(value 'up{job="gpudoctor"}')" = 1 ] && ok=1 && break
    sleep 0.2
done
[ -n "$ok" ] || fail "Prometheus never scraped the exporter: $(tail -3 "$tmp/prometheus.log")"

# The attack, in the background; it prints what it saw when it ends.
python3 - "$port" 30 >"$tmp/slowloris.txt" 2>&1 <<'PY' &
import socket, sys, time
port, seconds = int(sys.argv[1]), float(sys.argv[2])
ips = ["127.0.0.%d" % i for i in range(2, 12)]
slots = [None] * 120  # (socket, opened) or None
cuts, opened_total, longest = 0, 0, 0.0

def connect(i):
    s = socket.socket()
    try:
        s.bind((ips[i % len(ips)], 0))
        s.settimeout(2)
        s.connect(("127.0.0.1", port))
        s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\n")
        s.setblocking(False)
        return (s, time.monotonic())
    except OSError:
        s.close()
        return None

end = time.monotonic() + seconds
header = b"X-Slow: " + b"a" * 4096
at = 0
while time.monotonic() < end:
    for i in range(len(slots)):
        if slots[i] is None:
            slots[i] = connect(i)
            opened_total += slots[i] is not None
            continue
        s, since = slots[i]
        alive = True
        try:
            if s.recv(65536) == b"":
                alive = False
        except BlockingIOError:
            pass
        except OSError:
            alive = False
        if alive:
            try:
                s.send(header[at % len(header):at % len(header) + 1])
            except BlockingIOError:
                pass
            except OSError:
                alive = False
        if not alive:
            cuts += 1
            longest = max(longest, time.monotonic() - since)
            s.close()
            slots[i] = None
    at += 1
    time.sleep(0.5)
now = time.monotonic()
for slot in slots:
    if slot:
        longest = max(longest, now - slot[1])
print("opened %d cut %d longest %.1f" % (opened_total, cuts, longest))
PY
attacker=$!
pids="$pids $attacker"

# The attack holds its connections from here on; the exporter still answers.
sleep 5
answered=0
for _ in $(seq 15); do
    if python3 -c 'import sys, urllib.request; urllib.request.urlopen(sys.argv[1], timeout=5).read()' \
        "http://127.0.0.1:$port/metrics" 2>/dev/null; then
        answered=$((answered + 1))
    fi
    sleep 1
done
# Prometheus' scrapes of the last 15 s, during the attack.
scrapes=$(value 'count_over_time(up{job="gpudoctor"}[15s])')
up=$(value 'sum_over_time(up{job="gpudoctor"}[15s])')
wait "$attacker" || true
saw=$(cat "$tmp/slowloris.txt")
echo "slowloris: $saw; our fetches answered: $answered of 15; Prometheus: $up of $scrapes scrapes up"

[ "$answered" -ge 14 ] || fail "only $answered of 15 fetches of /metrics were answered during the attack ($saw)"
[ -n "$scrapes" ] && [ -n "$up" ] || fail "no scrape data from Prometheus: $(tail -3 "$tmp/prometheus.log")"
python3 -c 'import sys; up, n = float(sys.argv[1]), float(sys.argv[2]); sys.exit(0 if n >= 5 and up >= 0.8 * n else 1)' \
    "$up" "$scrapes" || fail "Prometheus: only $up of $scrapes scrapes succeeded during the attack ($saw)"
longest=$(echo "$saw" | sed -n 's/.*longest \([0-9.]*\).*/\1/p')
cuts=$(echo "$saw" | sed -n 's/.*cut \([0-9]*\).*/\1/p')
[ -n "$longest" ] || fail "the attacker said nothing: $saw"
python3 -c 'import sys; sys.exit(0 if float(sys.argv[1]) < 15 else 1)' "$longest" ||
    fail "a trickling connection was kept $longest s (the request deadline is 5 s)"
[ "$cuts" -ge 100 ] || fail "only $cuts trickling connections were cut in 30 s ($saw)"
echo "ok"
