#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The exporter's Kubernetes labels against a real gRPC server: a fake kubelet
# (k8s/fake_kubelet.py: grpcio, messages compiled by protoc from
# k8s/podresources.proto, Kubernetes' own field numbers) on a unix socket in
# a temporary directory. pod, namespace and container are on exactly the
# GPUs a pod holds (by UUID, a shared GPU's "UUID::N", then by device name
# after a refresh, a MIG device by its MIG UUID) and absent elsewhere; hostile servers (a cut or lying
# protobuf, a 20 MiB answer, a gRPC error, a call never answered, HTTP/1.1,
# silence) and a missing socket give no labels, no crash, a line on stderr,
# and /metrics keeps answering at once.
# Usage: test_exporter_k8s.sh GPUDOCTOR EXAMPLES_DIR
set -eu
. "$(dirname "$0")/lib.sh"
bin=$1
examples=$2
here=$(cd "$(dirname "$0")" && pwd)
need python3
need protoc
need pgrep
# A python3 with grpcio and protobuf (python3-grpcio, python3-protobuf):
# the first python3 on PATH, else Debian's own.
py=""
for p in python3 /usr/bin/python3; do
    if "$p" -c 'import grpc, google.protobuf' 2>/dev/null; then
        py=$p
        break
    fi
done
[ -n "$py" ] || need python3-grpcio-and-python3-protobuf
protoc --python_out="$tmp" -I "$here/k8s" podresources.proto || fail "protoc cannot compile podresources.proto"
"$py" -c "import sys; sys.path.insert(0, '$tmp'); import podresources_pb2" 2>"$tmp/pb.err" ||
    need "python3-protobuf-matching-protoc ($(head -c 200 "$tmp/pb.err"))"

scenario=$examples/h100x8-training.json
uuid() { sed -n 's/.*"uuid": *"\([^"]*\)".*/\1/p' "$scenario" | sed -n "$(($1 + 1))p"; }
cat >"$tmp/first.json" <<JSON
[{"name": "trainer-0", "namespace": "ml", "containers": [
   {"name": "sidecar", "devices": [{"resource": "example.com/nic", "ids": ["$(uuid 0)"]}]},
   {"name": "pytorch", "devices": [{"resource": "nvidia.com/gpu", "ids": ["$(uuid 2)", "$(uuid 5)"]}]}]},
 {"name": "notebook-7", "namespace": "team-a", "containers": [
   {"name": "jupyter", "devices": [{"resource": "nvidia.com/gpu", "ids": ["$(uuid 7)::1"]}]}]}]
JSON
cat >"$tmp/later.json" <<JSON
[{"name": "infer-1", "namespace": "serving", "containers": [
   {"name": "triton", "devices": [{"resource": "nvidia.com/gpu", "ids": ["nvidia1", "nvidia3"]}]}]}]
JSON

# kubelet MODE [ANSWERS...]: the fake kubelet on $sock (a new one each time).
n=0
kubelet() {
    n=$((n + 1))
    sock=$tmp/k$n/kubelet.sock
    mkdir -p "$tmp/k$n"
    mode=$1
    shift
    "$py" "$here/k8s/fake_kubelet.py" "$tmp" "$sock" "$mode" "$@" >"$tmp/k$n/log" 2>&1 &
    pids="$pids $!"
    for _ in $(seq 300); do
        grep -q listening "$tmp/k$n/log" && [ -S "$sock" ] && return 0
        sleep 0.1
    done
    fail "the fake kubelet ($mode) did not start: $(cat "$tmp/k$n/log")"
}

# labels GPU: the pod labels of the GPU's temperature line ("" for none).
labels() {
    sed -n "s/^DCGM_FI_DEV_GPU_TEMP{gpu=\"$1\",.*\(,pod=.*\)} .*/\1/p" "$tmp/m.txt"
}

# until_labels SECONDS GPU WANT: scrapes until GPU is measured with pod labels WANT.
until_labels() {
    end=$(($(date +%s) + $1))
    while [ "$(date +%s)" -le "$end" ]; do
        kill -0 "$exporter" 2>/dev/null || fail "the exporter exited: $(cat "$tmp/export.err")"
        fetch "http://127.0.0.1:$port/metrics" >"$tmp/m.txt" 2>"$tmp/fetch.err" || true
        grep -q "^DCGM_FI_DEV_GPU_TEMP{gpu=\"$2\"," "$tmp/m.txt" && [ "$(labels "$2")" = "$3" ] && return 0
        sleep 0.2
    done
    cat "$tmp/fetch.err" >&2
    fail "GPU $2 has '$(labels "$2")', not '$3': $(cat "$tmp/export.err")"
}

# stop_exporter WHAT: SIGTERM ends it cleanly (exit 0; the sanitized build
# finds no error or leak), a question in flight or not.
stop_exporter() {
    # The exporter itself, not the timeout(1) around it (which would signal
    # its whole group again, racing the exporter's own handler).
    child=$(pgrep -P "$exporter" || true)
    kill "${child:-$exporter}"
    rc=0
    wait "$exporter" 2>/dev/null || rc=$?
    [ "$rc" -eq 0 ] || fail "$1: the exporter exited $rc on SIGTERM: $(tail -5 "$tmp/export.err")"
    grep -q 'Sanitizer' "$tmp/export.err" && fail "$1: $(grep -A5 Sanitizer "$tmp/export.err")"
    return 0
}

# 1. By UUID (and a shared GPU's replica), then by device name after a refresh.
kubelet ok "$tmp/first.json" "$tmp/later.json"
start_exporter "$bin" "$scenario" --kubernetes-socket "$sock" --kubernetes-refresh 1
until_labels 60 2 ',pod="trainer-0",namespace="ml",container="pytorch"'
for g in 0 1 2 3 4 5 6 7; do
    case $g in
    2 | 5) want=',pod="trainer-0",namespace="ml",container="pytorch"' ;;
    7) want=',pod="notebook-7",namespace="team-a",container="jupyter"' ;;
    *) want="" ;;
    esac
    [ "$(labels $g)" = "$want" ] || fail "GPU $g: '$(labels $g)', not '$want'"
done
# Every DCGM series of a held GPU has them, no other series does.
held=$(grep -c '^DCGM_FI_[A-Z_]*{gpu="2",.*,pod="trainer-0",namespace="ml",container="pytorch"} ' "$tmp/m.txt")
all=$(grep -c '^DCGM_FI_[A-Z_]*{gpu="2",' "$tmp/m.txt")
[ "$held" -eq "$all" ] && [ "$all" -gt 10 ] || fail "GPU 2: $held of $all DCGM series have its pod"
[ "$(grep -c 'pod=' "$tmp/m.txt")" -eq $((all * 3)) ] || fail "pod labels on other series: $(grep -c 'pod=' "$tmp/m.txt")"
grep -q '^gpudoctor_.*pod=' "$tmp/m.txt" && fail "gpudoctor's own series took pod labels"
touch "$sock.later" # the pods change: the next question sees it
until_labels 60 3 ',pod="infer-1",namespace="serving",container="triton"'
[ "$(labels 1)" = ',pod="infer-1",namespace="serving",container="triton"' ] || fail "GPU 1 (nvidia1): '$(labels 1)'"
for g in 0 2 4 5 6 7; do
    [ -z "$(labels $g)" ] || fail "GPU $g keeps '$(labels $g)' after its pod left"
done
calls=$(grep -c '^call' "$tmp/k$n/log")
[ "$calls" -ge 2 ] || fail "the kubelet was asked $calls times"
grep -q 'pod labels from' "$tmp/export.err" || fail "no word of the pod labels: $(cat "$tmp/export.err")"
stop_exporter "first answers"

# 2. Hostile servers and a missing socket: no labels, no crash, said once,
# and /metrics answers within its deadline while the kubelet does not.
for mode in truncated huge-length huge-answer grpc-error hang http1 silent missing; do
    if [ "$mode" = missing ]; then
        sock=$tmp/nowhere/kubelet.sock
    else
        kubelet "$mode" "$tmp/first.json"
    fi
    start_exporter "$bin" "$scenario" --kubernetes-socket "$sock" --kubernetes-refresh 1
    for _ in $(seq 300); do
        grep -q 'no pod labels' "$tmp/export.err" && break
        sleep 0.1
    done
    grep -q 'no pod labels' "$tmp/export.err" || fail "$mode: no word of the failure: $(cat "$tmp/export.err")"
    # Scrapes over the next questions (each in flight up to 2 s with the
    # hanging ones): every one answered at once, none with pod labels.
    # (the request is timed, not python's start on a loaded machine).
    python3 - "http://127.0.0.1:$port/metrics" "$tmp/m" >"$tmp/scrapes.txt" <<'PY' || fail "$mode: $(cat "$tmp/scrapes.txt")"
import sys, time, urllib.request
for i in range(6):
    t = time.monotonic()
    body = urllib.request.urlopen(sys.argv[1], timeout=10).read().decode()
    took = time.monotonic() - t
    print(f"scrape {i}: {took:.3f} s")
    open(f"{sys.argv[2]}{i}.txt", "w").write(body)
    if took > 5:
        sys.exit(f"scrape {i} took {took:.1f} s")
    time.sleep(0.5)
PY
    for i in 0 1 2 3 4 5; do
        grep -q '^DCGM_FI_DEV_GPU_TEMP{gpu="2",' "$tmp/m$i.txt" || fail "$mode: scrape $i has no GPU 2"
        grep -q 'pod=' "$tmp/m$i.txt" && fail "$mode: pod labels from a hostile server"
    done
    # A second question failed too (a refresh of 1 s): still said once.
    asked=0
    for _ in $(seq 150); do
        [ "$mode" = missing ] && break
        asked=$(grep -c '^call' "$tmp/k$n/log" || true)
        [ "$asked" -ge 2 ] && break
        sleep 0.1
    done
    [ "$mode" = missing ] || [ "$asked" -ge 2 ] || fail "$mode: asked $asked times at a refresh of 1 s"
    [ "$(grep -c 'no pod labels' "$tmp/export.err")" -eq 1 ] || fail "$mode: said more than once: $(cat "$tmp/export.err")"
    kill -0 "$exporter" || fail "$mode: the exporter died"
    echo "$mode: $(grep "no pod labels" "$tmp/export.err"); slowest scrape $(sort -k3 -n "$tmp/scrapes.txt" | tail -1 | cut -d' ' -f3) s"
    stop_exporter "$mode"
done

# 3. Not asked and under --sim: the default socket is not looked for, nothing said.
start_exporter "$bin" "$scenario"
until_labels 60 2 ""
grep -q 'pod=' "$tmp/m.txt" && fail "pod labels without a kubelet"
grep -q 'pod' "$tmp/export.err" && fail "a word of pods without being asked: $(cat "$tmp/export.err")"
stop_exporter "not asked"

# 4. --kubernetes asks the kubelet's own socket even under --sim: where this
# machine has none, that is said once.
default_sock=/var/lib/kubelet/pod-resources/kubelet.sock
if [ ! -e "$default_sock" ]; then
    start_exporter "$bin" "$scenario" --kubernetes --kubernetes-refresh 1
    for _ in $(seq 300); do
        grep -q 'no pod labels' "$tmp/export.err" && break
        sleep 0.1
    done
    grep -q "no pod labels: the kubelet's pod-resources at $default_sock: .*No such file" "$tmp/export.err" ||
        fail "--kubernetes: $(cat "$tmp/export.err")"
    sleep 2
    [ "$(grep -c 'no pod labels' "$tmp/export.err")" -eq 1 ] || fail "--kubernetes: said more than once"
    stop_exporter --kubernetes
fi
# 5. MIG: a pod holds one MIG device (resource nvidia.com/mig-*, its MIG
# UUID): that GPU instance's series (GPU_I_ID 5) have the pod, its other
# instances' and the other GPUs' do not.
mig=$examples/h100x8-misconfigured.json
cat >"$tmp/mig.json" <<JSON
[{"name": "mig-job", "namespace": "ml", "containers": [
   {"name": "small", "devices": [{"resource": "nvidia.com/mig-2g.20gb",
                                  "ids": ["MIG-5e1d1f3a-0005-4000-8000-000000000005"]}]}]}]
JSON
kubelet ok "$tmp/mig.json"
start_exporter "$bin" "$mig" --kubernetes-socket "$sock" --kubernetes-refresh 1
for _ in $(seq 300); do
    fetch "http://127.0.0.1:$port/metrics" >"$tmp/m.txt" 2>/dev/null || true
    grep -q 'pod="mig-job"' "$tmp/m.txt" && break
    sleep 0.2
done
on=$(grep -c '^DCGM_FI_DEV_GPU_TEMP{gpu="0",.*GPU_I_ID="5",.*,pod="mig-job",namespace="ml",container="small"} ' "$tmp/m.txt")
[ "$on" -eq 1 ] || fail "MIG: GPU 0 instance 5 has no pod labels: $(grep '^DCGM_FI_DEV_GPU_TEMP{gpu="0"' "$tmp/m.txt")"
[ "$(grep '^DCGM_FI_DEV_GPU_TEMP{' "$tmp/m.txt" | grep -c 'pod=')" -eq 1 ] ||
    fail "MIG: pod labels beyond the instance: $(grep '^DCGM_FI_DEV_GPU_TEMP{' "$tmp/m.txt" | grep 'pod=')"
stop_exporter "MIG"
# 6. More GPU devices than the cap (GD_K8S_MAX_DEVICES, 4096): the first
# keep their pods' labels and the cap is said, once (such an answer once
# dropped every label as "does not decode").
scenario=$examples/h100x8-training.json # start_exporter set it to section 5's
"$py" - "$(uuid 2)" >"$tmp/many.json" <<'PY'
import json, sys
ids = [sys.argv[1]] + [f"GPU-filler-{i}" for i in range(4999)]
print(json.dumps([{"name": "big", "namespace": "ml", "containers": [
    {"name": "c", "devices": [{"resource": "nvidia.com/gpu", "ids": ids}]}]}]))
PY
kubelet ok "$tmp/many.json"
start_exporter "$bin" "$scenario" --kubernetes-socket "$sock" --kubernetes-refresh 1
until_labels 60 2 ',pod="big",namespace="ml",container="c"'
grep -q 'no pod labels' "$tmp/export.err" && fail "past the cap: $(cat "$tmp/export.err")"
grep -q '904 GPU devices past .*cap of 4096' "$tmp/export.err" || fail "the cap is not said: $(cat "$tmp/export.err")"
sleep 2 # another answer, as capped: not said again
[ "$(grep -c 'past gpudoctor' "$tmp/export.err")" -eq 1 ] || fail "the cap said more than once: $(cat "$tmp/export.err")"
stop_exporter "past the cap"
echo "ok: pod labels on exactly the held GPUs (UUID, shared, device name, refreshed) and MIG devices; hostile kubelets give none; an answer past the cap keeps its first devices"
