#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The layers (docs/architecture.md) hold: no source includes a layer above
# its own, no layer library uses a symbol of a layer it may not, and sim/
# includes nothing of src/. Usage: check_layers.sh SOURCE_DIR BUILD_SRC_DIR
set -euo pipefail
src=$1/src
lib=$2
status=0

# What each layer may use besides itself (and include/gpudoctor).
declare -A may=(
  [core]=""
  [analysis]="core"
  [checks]="core analysis"
  [report]="core analysis checks"
  [backends]="core analysis"
  [probes]="core backends"
  [cli]="core analysis checks report backends probes"
)
layers="core analysis checks report backends probes cli"

allowed() { # layer used-layer
  [ "$1" = "$2" ] && return 0
  for x in ${may[$1]}; do [ "$x" = "$2" ] && return 0; done
  return 1
}

for layer in $layers; do
  while IFS= read -r line; do
    file=${line%%:*}
    inc=$(sed -n 's/.*#include "\([a-z]*\)\/.*/\1/p' <<<"${line#*:}")
    case " $layers " in *" $inc "*) ;; *) continue ;; esac
    if ! allowed "$layer" "$inc"; then
      echo "layer violation: ${file#$1/} (${layer}) includes ${inc}/" >&2
      status=1
    fi
  done < <(grep -rn '#include "[a-z]*/' "$src/$layer" --include='*.[ch]' | sed 's/:[0-9]*:/:/' || true)
done

if grep -rn '#include "\(core\|analysis\|checks\|report\|backends\|probes\|cli\)/' "$1/sim" "$1/include" --include='*.[ch]'; then
  echo "layer violation: sim/ or include/ includes a src/ header" >&2
  status=1
fi

# Symbols: what each layer library leaves undefined must not be defined by a
# layer it may not use (a static link would not catch it: the binary links
# every layer).
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
libs="core analysis checks report backends probes"
for layer in $libs; do
  a="$lib/libgd_$layer.a"
  [ -f "$a" ] || { echo "missing $a" >&2; exit 1; }
  nm -g --defined-only "$a" 2>/dev/null | awk 'NF == 3 && $2 ~ /[TDBR]/ {print $3}' | sort -u >"$tmp/def_$layer"
  nm -u "$a" 2>/dev/null | awk '{print $2}' | sort -u >"$tmp/und_$layer"
done
for layer in $libs; do
  for other in $libs; do
    allowed "$layer" "$other" && continue
    used=$(comm -12 "$tmp/und_$layer" "$tmp/def_$other")
    if [ -n "$used" ]; then
      echo "layer violation: $layer uses $other: $(echo $used | head -c 200)" >&2
      status=1
    fi
  done
done

# The pure layers keep no state between calls: the ranks of a trace directory
# are analysed on several threads at once, so a file-scope variable there is a
# data race (a sort comparator's global once read another thread's array).
for layer in core analysis checks; do
  state=$(nm -A "$lib/libgd_$layer.a" 2>/dev/null | awk '$2 ~ /^[bB]$/ && $3 !~ /^__(odr_)?asan/ {split($1, p, ":"); print p[2] ":" $3}' || true)
  if [ -n "$state" ]; then
    echo "layer violation: $layer holds file-scope mutable state: $(echo $state | head -c 300)" >&2
    status=1
  fi
done
exit $status
