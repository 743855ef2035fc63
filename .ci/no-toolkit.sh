#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The README's first command as on a fresh machine: the build and the
# suite's unit, ABI, simulator, golden and end-to-end tests with no CUDA
# toolkit in sight. As root, in a private mount namespace, an empty folder
# covers every /usr/local/cuda*; the build is configured with
# -DGD_CUDA_TOOLKIT=OFF besides (all a user without root gets), and PATH,
# CUDA_HOME and CUDA_PATH name no toolkit. NVIDIA's nccl.h and nvml.h that
# install-deps.sh fetched stay: nccl.h then meets the stand-ins of
# tests/abi/nccl_cuda_stub/ as it does on such a machine.
# Usage: .ci/no-toolkit.sh [BUILD_DIR]   (default build-notoolkit)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
build=${1:-build-notoolkit}

if [ "${GD_NO_TOOLKIT_NS:-}" != 1 ] && [ "$(id -u)" = 0 ] && unshare --mount true 2>/dev/null; then
    exec env GD_NO_TOOLKIT_NS=1 unshare --mount --propagation private bash "$0" "$@"
fi
if [ "${GD_NO_TOOLKIT_NS:-}" = 1 ]; then
    empty=$(mktemp -d)
    for d in /usr/local/cuda*; do
        [ -e "$d" ] && mount --bind "$empty" "$d"
    done
    echo "no-toolkit: /usr/local/cuda* covered by an empty folder in this mount namespace"
else
    echo "no-toolkit: not root (or no unshare): the toolkit is left out by -DGD_CUDA_TOOLKIT=OFF only"
fi
PATH=$(printf '%s' "$PATH" | tr ':' '\n' | grep -vi cuda | paste -sd: -)
export PATH
unset CUDA_HOME CUDA_PATH
# (A wrapper on PATH that runs a covered toolkit does not count: it fails.)
if nvcc --version >/dev/null 2>&1 || ptxas --version >/dev/null 2>&1 || [ -e /usr/local/cuda/include/cuda.h ]; then
    echo "no-toolkit: a CUDA toolkit is still in sight ($(command -v nvcc ptxas | tr '\n' ' '))" >&2
    [ "${GD_NO_TOOLKIT_NS:-}" = 1 ] && exit 1
fi

mkdir -p "$build"
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGD_CUDA_TOOLKIT=OFF | tee "$build/configure.log" |
    grep 'tests/abi' || true
ninja -C "$build"
# The stand-ins were compiled against nccl.h where install-deps.sh fetched it.
if grep -q 'comparing nccl_api.h with' "$build/configure.log"; then
    [ -f "$build/tests/abi/CMakeFiles/nccl_abi_with_stub.dir/nccl_abi_with_stub.c.o" ] ||
        { echo "no-toolkit: nccl.h was not compiled with the stand-ins" >&2; exit 1; }
fi
# The suites that build and run without a GPU (the component and deploy
# labels, minutes each, run in make test-all beside this).
python3 tests/suite/suite_guard.py "$PWD" -- \
    ctest --test-dir "$build" --output-on-failure -j2 -L 'unit|abi|sim|golden|e2e' -LE 'component|deploy' \
    --output-junit "$PWD/$build/Testing/junit.xml"
python3 tests/skip_reasons.py "$build/Testing/junit.xml"
