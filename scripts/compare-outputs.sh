#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Runs two builds of gpudoctor over every example scenario and real capture
# (check, info, topo, bench, trace, fleet, vram; text and JSON) and shows where their
# outputs differ: stdout, stderr and exit code. For a change that must not
# change behaviour (a refactor): every output byte-identical.
# Usage: scripts/compare-outputs.sh OLD_BUILD_DIR NEW_BUILD_DIR [OUT_DIR]
set -uo pipefail
old=$1 new=$2 out=${3:-$(mktemp -d)}
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
real=${GD_REALDATA_DIR:-$root/../shared/realdata}
mkdir -p "$out/old" "$out/new"
cases=()
for s in "$root"/examples/*.json; do
  n=$(basename "$s" .json)
  cases+=("$n.check|check --sim $s" "$n.check.json|check --sim $s --json" "$n.info|info --sim $s"
          "$n.topo|topo --sim $s" "$n.info.json|info --sim $s --json")
  case $n in bench-*|pcie-*|rtx*) cases+=("$n.bench|bench all --sim $s" "$n.bench.json|bench all --sim $s --json") ;; esac
done
for m in "$root"/examples/models/*.json; do
  n=$(basename "$m" .json)
  cases+=("$n.vram|vram --config $m" "$n.vram.json|vram --config $m --json")
done
for p in 7 7B 7e9 1.5T 70b 0.5B 350M x -1; do
  cases+=("params-$p.vram|vram --params $p" "params-$p.vram-80|vram --params $p --gpu-memory 80GB")
done
if [ -d "$real" ]; then
  while IFS= read -r f; do
    n=$(echo "${f#$real/}" | tr '/' '_')
    case $f in
      *traces*) cases+=("$n.trace|trace $f" "$n.trace.json|trace $f --json") ;;
      *) cases+=("$n.from|check --from $f" "$n.from.json|check --from $f --json") ;;
    esac
  done < <(find "$real" -type f ! -name '*.md' | sort)
fi
for t in "$root"/tests/fixtures/trace-tf/*; do cases+=("fixture.$(basename "$t").trace|trace $t"); done
for t in "$root"/tests/fixtures/kernel-log/*; do cases+=("fixture.$(basename "$t").from|check --from $t"); done
cases+=("fixture.fleet|fleet $root/tests/fixtures/fleet" "fixture.fleet.json|fleet $root/tests/fixtures/fleet --json")
diffs=0
for c in "${cases[@]}"; do
  name=${c%%|*} cmd=${c#*|}
  for side in old new; do
    dir=$old; [ $side = new ] && dir=$new
    # shellcheck disable=SC2086
    (cd "$out/$side" && timeout 120 "$dir/gpudoctor" $cmd >"$name.out" 2>"$name.err"; echo $? >"$name.rc")
    # The wall-clock times of a run (its start and end, the time of day an
    # event was first seen) are the only bytes that differ run to run.
    sed -i -e "s|$dir|BUILD|g" -e 's/"\(started_at\|ended_at\)": "[^"]*"/"\1": "T"/' \
      -e 's/\b[0-2][0-9]:[0-5][0-9]:[0-5][0-9]\b/HH:MM:SS/g' "$out/$side/$name.out" "$out/$side/$name.err"
  done
  for ext in out err rc; do
    if ! cmp -s "$out/old/$name.$ext" "$out/new/$name.$ext"; then
      echo "DIFFERS: $name.$ext ($cmd)"; diffs=$((diffs + 1))
    fi
  done
done
echo "${#cases[@]} cases, $diffs differing outputs (in $out)"
[ $diffs = 0 ]
