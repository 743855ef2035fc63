#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The membw kernel's PTX assembles for every GPU generation that CUDA 12 and
# 13 drivers run (sm_75 Turing to sm_100 Blackwell), with the toolkit's
# ptxas: what the driver's JIT does with it at cuModuleLoadData.
# Usage: ptx_assembles.sh FILE.ptx. Exit 77 (skipped) without ptxas, a
# failure where CI=true.
set -euo pipefail
ptx=$1
ptxas=$(command -v ptxas || true)
for d in "${CUDA_HOME:-}" /usr/local/cuda; do
  [ -z "$ptxas" ] && [ -n "$d" ] && [ -x "$d/bin/ptxas" ] && ptxas=$d/bin/ptxas
done
if [ -z "$ptxas" ]; then
  echo "ptxas not found (a CUDA toolkit's bin/): not checked" >&2
  [ "${CI:-}" = true ] && exit 1
  exit 77
fi
out=$(mktemp)
trap 'rm -f "$out"' EXIT
for arch in 75 80 86 89 90 100; do
  "$ptxas" -arch=sm_$arch "$ptx" -o "$out"
  echo "sm_$arch: assembled"
done
