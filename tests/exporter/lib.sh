# SPDX-License-Identifier: Apache-2.0
# Shared by the exporter tests: a component that is missing skips the test
# (exit 77) and fails it in CI (CI=true); the exporter runs on a free
# loopback port; everything started is stopped on exit.
need() {
    command -v "$1" >/dev/null 2>&1 && return 0
    if [ "${CI:-}" = true ]; then
        echo "FAIL: $1 is missing (make test installs it: sudo bash scripts/install-deps.sh test)" >&2
        exit 1
    fi
    echo "SKIP: $1 is missing: make test installs it (sudo bash scripts/install-deps.sh test)" >&2
    exit 77
}

fail() {
    echo "FAIL: $*" >&2
    exit 1
}

tmp=$(mktemp -d)
pids=""
cleanup() {
    for p in $pids; do kill "$p" 2>/dev/null || true; done
    for p in $pids; do wait "$p" 2>/dev/null || true; done
    rm -rf "$tmp"
}
trap cleanup EXIT INT TERM

# start_exporter BIN SCENARIO [ARGS...]: sets $port and $exporter.
start_exporter() {
    bin=$1
    scenario=$2
    shift 2
    # The previous exporter's log is emptied first: the new one's redirection
    # opens the file in the child, after this shell may already read it, and
    # an old "serving" line would hand out a port nobody listens on any more.
    # (Emptied, not removed: a read of a missing file fails the test's set -e.)
    : >"$tmp/export.err"
    GPUDOCTOR_SIM_TIMESCALE=${GPUDOCTOR_SIM_TIMESCALE:-10} timeout 300 "$bin" export --listen 127.0.0.1:0 \
        --sim "$scenario" "$@" 2>"$tmp/export.err" &
    exporter=$!
    pids="$pids $exporter"
    port=""
    for _ in $(seq 100); do
        port=$(sed -n 's|.*serving http://127.0.0.1:\([0-9]*\)/metrics.*|\1|p' "$tmp/export.err")
        [ -n "$port" ] && return 0
        kill -0 "$exporter" 2>/dev/null || fail "the exporter exited: $(cat "$tmp/export.err")"
        sleep 0.1
    done
    fail "the exporter did not start: $(cat "$tmp/export.err")"
}

# fetch URL: the body on stdout (python3's urllib: no curl needed).
fetch() {
    python3 -c 'import sys, urllib.request; sys.stdout.write(urllib.request.urlopen(sys.argv[1], timeout=10).read().decode())' "$1"
}

# free_port: a loopback port nobody listens on now, outside the ephemeral
# range (tests/common/free_ports.py says why).
free_port() {
    python3 "$(dirname "$0")/../common/free_ports.py"
}

# start_prometheus: the real Prometheus scraping the exporter ($port) every
# second, on a free loopback port; sets $pport.
start_prometheus() {
    pport=$(free_port)
    cat >"$tmp/prometheus.yml" <<YML
global:
  scrape_interval: 1s
  evaluation_interval: 1s
scrape_configs:
  - job_name: gpudoctor
    static_configs:
      - targets: ["127.0.0.1:$port"]
YML
    timeout 300 prometheus --config.file="$tmp/prometheus.yml" --storage.tsdb.path="$tmp/data" \
        --web.listen-address="127.0.0.1:$pport" --log.level=warn >"$tmp/prometheus.log" 2>&1 &
    pids="$pids $!"
}

# query PROMQL: prints one line per series, "labels=value", sorted.
query() {
    python3 - "http://127.0.0.1:$pport/api/v1/query" "$1" <<'PY'
import json, sys, urllib.parse, urllib.request
url = sys.argv[1] + "?" + urllib.parse.urlencode({"query": sys.argv[2]})
try:
    r = json.load(urllib.request.urlopen(url, timeout=5))
except Exception:
    sys.exit(0)  # not up yet
for s in sorted(r["data"]["result"], key=lambda s: sorted(s["metric"].items())):
    m = s["metric"]
    print(",".join(f"{k}={m[k]}" for k in sorted(m)) + "=" + s["value"][1])
PY
}

# until_series SECONDS PROMQL PATTERN: waits for a result line matching PATTERN.
until_series() {
    for _ in $(seq $(($1 * 5))); do
        query "$2" >"$tmp/q.txt" || true
        grep -q "$3" "$tmp/q.txt" && return 0
        sleep 0.2
    done
    fail "no series '$3' for $2 after $1 s: $(head -3 "$tmp/q.txt"); prometheus: $(tail -3 "$tmp/prometheus.log")"
}
