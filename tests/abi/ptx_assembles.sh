#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The membw kernel's PTX assembles for every GPU generation that CUDA 12 and
# 13 drivers run (sm_75 Turing to sm_100 Blackwell), with the toolkit's
# ptxas: what the driver's JIT does with it at cuModuleLoadData.
# Usage: ptx_assembles.sh FILE.ptx [TOOLKIT]. TOOLKIT OFF: the build was
# configured as on a machine without a CUDA toolkit (-DGD_CUDA_TOOLKIT=OFF),
# none is looked for. Exit 77 (skipped) without ptxas, with the reason, even
# where CI=true: ptxas comes only with a CUDA toolkit, which no Debian
# package of the build brings.
set -euo pipefail
ptx=$1
if [ "${2:-ON}" = OFF ]; then
  echo "ptxas not looked for: this build was configured with -DGD_CUDA_TOOLKIT=OFF, as on a machine without a" \
    "CUDA toolkit; cmake -S . -B build -DGD_CUDA_TOOLKIT=ON" >&2
  exit 77
fi
ptxas=$(command -v ptxas || true)
for d in "${CUDA_HOME:-}" /usr/local/cuda; do
  [ -z "$ptxas" ] && [ -n "$d" ] && [ -x "$d/bin/ptxas" ] && ptxas=$d/bin/ptxas
done
if [ -z "$ptxas" ]; then
  echo "ptxas not found on PATH, in \$CUDA_HOME/bin or /usr/local/cuda/bin: it comes only with a CUDA toolkit," \
    "which no Debian package of the build brings; with one elsewhere: CUDA_HOME=DIR ctest --test-dir build -R ptx_membw" >&2
  exit 77
fi
out=$(mktemp)
trap 'rm -f "$out"' EXIT
for arch in 75 80 86 89 90 100; do
  "$ptxas" -arch=sm_$arch "$ptx" -o "$out"
  echo "sm_$arch: assembled"
done
