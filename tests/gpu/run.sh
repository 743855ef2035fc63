#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
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
# The GPU benchmarks: figures against the datasheet and the peers, results
# checked; a short stress with the thermal diagnosis on its window. Short
# runs, so the whole script fits a few minutes of GPU time. --force: a
# shared test machine may run a monitoring process on the GPUs.
step "$bin" bench gemm --seconds 3 --force
step "$bin" bench gemm --dtype fp16 --seconds 2 --no-concurrent --force
# fp8 needs Hopper or newer: an older GPU answers "no algorithm" (exit 3), not a failure.
echo; echo "== $bin bench gemm --dtype fp8"
"$bin" bench gemm --dtype fp8 --seconds 2 --no-concurrent --force; echo "(exit $?)"
step "$bin" bench membw --force
step "$bin" bench membw --json --force
step "$bin" bench stress --seconds 60 --force
# GPU-to-GPU copies (and NCCL where its library is found): with one GPU they
# say so and exit 3, which is the answer there, not a failure.
gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ' || true)
for kind in p2p nccl; do
  "$bin" bench "$kind" --help >/dev/null 2>&1 || continue
  if [ "${gpus:-0}" -ge 2 ]; then
    step "$bin" bench "$kind" --force
    step "$bin" bench "$kind" --json --force
  else
    echo; echo "== $bin bench $kind (one GPU: expects exit 3 and the reason)"
    "$bin" bench "$kind" --force; echo "(exit $?)"
  fi
done
# The run across nodes on this node alone: the same code path (ncclGetUniqueId,
# the ranks' meeting, ncclCommInitRank per GPU) with the real libnccl, one rank.
if [ "${gpus:-0}" -ge 1 ]; then
  echo; echo "== $bin bench nccl --nodes (one rank: RANK=0 WORLD_SIZE=1)"
  RANK=0 WORLD_SIZE=1 MASTER_ADDR=127.0.0.1 MASTER_PORT=29517 "$bin" bench nccl --nodes --force --timeout 30
  echo "(exit $?)"
fi
# The declarations and the kernel against the toolkit, where it is installed.
for t in test_cublaslt_abi test_cuda_abi test_nccl_abi test_nccl_real; do
  [ -x build/tests/$t ] && step build/tests/$t
done
step bash tests/abi/ptx_assembles.sh data/kernels/membw.ptx
if command -v nvidia-smi >/dev/null; then
  echo; echo "== nvidia-smi, for comparison"
  nvidia-smi -q | head -120
  nvidia-smi topo -m
  nvidia-smi topo -p2p r
  nvidia-smi -q -d PCIE
fi
# NVIDIA's own bandwidth figures next to bench pcie's and membw's, where installed.
if command -v nvbandwidth >/dev/null; then
  echo; echo "== nvbandwidth, for comparison with bench pcie and membw (counts bytes once)"
  nvbandwidth -t host_to_device_memcpy_ce -t device_to_host_memcpy_ce -t device_local_copy \
    -t device_to_device_memcpy_read_ce -t device_to_device_bidirectional_memcpy_read_ce
fi
exit $status
