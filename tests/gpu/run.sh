#!/usr/bin/env bash
# Real-GPU checks, in one run: build, then every command that reads a real GPU,
# with the figures printed. Meant for a machine with NVIDIA GPUs; exits 77
# (skipped) without one. Also prints what NVIDIA's own tools say, to compare.
set -uo pipefail
cd "$(dirname "$0")/../.."
if ! { [ -e /proc/driver/nvidia/version ] || ldconfig -p 2>/dev/null | grep -q libnvidia-ml.so.1; }; then
  echo "tests/gpu/run.sh: no NVIDIA driver here: skipped"
  exit 77
fi
make build >/dev/null || { echo "build failed"; exit 1; }
bin=build/gpudoctor
status=0
step() { echo; echo "== $*"; "$@"; local rc=$?; echo "(exit $rc)"; [ $rc -le 2 ] || status=1; }
step "$bin" info
step "$bin" info --json
step "$bin" check --duration 10
step "$bin" check --duration 5 --json
for cmd in topo "topo --json" "bench pcie" "bench pcie --json"; do
  if "$bin" $cmd --help >/dev/null 2>&1; then step "$bin" $cmd; fi
done
# Benchmarks a version does not have yet say so (exit 3): not a failure here.
for b in gemm membw; do
  out=$("$bin" bench $b 2>&1); rc=$?
  if [ $rc -eq 3 ] && echo "$out" | grep -q "not available"; then
    echo; echo "== bench $b: not in this version"
  else
    echo; echo "== $bin bench $b"; echo "$out"; echo "(exit $rc)"; [ $rc -le 2 ] || status=1
  fi
done
if command -v nvidia-smi >/dev/null; then
  echo; echo "== nvidia-smi, for comparison"
  nvidia-smi -q | head -120
  nvidia-smi topo -m
  nvidia-smi -q -d PCIE
fi
# NVIDIA's own bandwidth figures next to bench pcie's, where installed.
if command -v nvbandwidth >/dev/null; then
  echo; echo "== nvbandwidth, for comparison with bench pcie"
  nvbandwidth -t host_to_device_memcpy_ce -t device_to_host_memcpy_ce
fi
exit $status
