#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The layers (docs/architecture.md) hold, with no way round them:
#  - every quoted include names its file from a layer's root ("formats/..."),
#    the public headers ("gpudoctor/..."), or its own folder; "../" and names
#    found through an include path are refused;
#  - no source includes a header of a layer it may not use, public headers
#    included (each belongs to a layer, below);
#  - no layer library uses a symbol of a layer it may not (nm);
#  - formats reads bytes it is handed: no socket, process or dlopen;
#  - sim/ (sources and build files) uses nothing of src/;
#  - no two source files call each other, directly or round a circle;
#  - core, analysis and checks keep no file-scope mutable state.
# Usage: check_layers.sh SOURCE_DIR BUILD_SRC_DIR
set -euo pipefail
root=$1
src=$root/src
lib=$2
status=0
fail() { echo "layer violation: $*" >&2; status=1; }

# What each layer may use besides itself. "abi" is NVIDIA's ABI as declared
# in include/gpudoctor/abi/ (types and constants, no code: the facts speak
# NVML's clock-event bits, so every layer may); "scenario" the simulated
# machine's format (sim/scenario/), which the sources read for --sim.
declare -A may=(
  [core]="abi"
  [analysis]="core abi"
  [checks]="core analysis abi"
  [report]="core analysis checks abi"
  [loaders]="core abi"
  [formats]="core analysis loaders abi"
  [sources]="core analysis formats loaders abi scenario"
  [probes]="core analysis loaders sources abi"
  [cli]="core analysis checks report loaders formats sources probes abi scenario"
)
layers="core analysis checks report loaders formats sources probes cli"

# The layer each public header belongs to: the one that defines what it declares.
public_layer() {
  case $1 in
    gpudoctor/abi/*) echo abi ;;
    gpudoctor/checks.h) echo checks ;;
    gpudoctor/report.h) echo report ;;
    gpudoctor/session.h) echo sources ;;
    gpudoctor/*.h) echo core ;;
  esac
}

allowed() { # layer used-layer
  [ "$1" = "$2" ] && return 0
  for x in ${may[$1]}; do [ "$x" = "$2" ] && return 0; done
  return 1
}

# Every public header must have a layer (a new one is placed on purpose).
for h in "$root"/include/gpudoctor/*.h "$root"/include/gpudoctor/abi/*.h; do
  rel=${h#$root/include/}
  [ -n "$(public_layer "$rel")" ] || fail "include/$rel belongs to no layer (check_layers.sh: public_layer)"
done

for layer in $layers; do
  while IFS= read -r line; do
    file=${line%%:*}
    inc=$(sed -n 's/.*#include "\([^"]*\)".*/\1/p' <<<"${line#*:}")
    dir=$(dirname "$file")
    case $inc in
      ../* | */../*) fail "${file#$root/} includes $inc: name the header from its layer's root"; continue ;;
      gpudoctor/*)
        [ -f "$root/include/$inc" ] || { fail "${file#$root/} includes $inc, which is not a public header"; continue; }
        used=$(public_layer "$inc") ;;
      */*)
        used=${inc%%/*}
        if [ "$used" = scenario ]; then
          [ -f "$root/sim/$inc" ] || fail "${file#$root/} includes $inc, not in sim/"
        else
          case " $layers " in
            *" $used "*) [ -f "$src/$inc" ] || fail "${file#$root/} includes $inc, which does not exist" ;;
            *) fail "${file#$root/} includes $inc, found only through an include path"; continue ;;
          esac
        fi ;;
      *)
        # A bare name is a header of the includer's own folder.
        [ -f "$dir/$inc" ] || fail "${file#$root/} includes \"$inc\", which is not in its folder"
        continue ;;
    esac
    allowed "$layer" "$used" || fail "${file#$root/} ($layer) includes $inc ($used)"
  done < <(grep -rn '#include "' "$src/$layer" --include='*.[ch]' | sed 's/:[0-9]*:/:/' || true)
done

# Public headers include only their own layer's and those below it.
for h in "$root"/include/gpudoctor/*.h "$root"/include/gpudoctor/abi/*.h; do
  own=$(public_layer "${h#$root/include/}")
  [ -n "$own" ] || continue
  while IFS= read -r inc; do
    case $inc in
      gpudoctor/*) used=$(public_layer "$inc") ;;
      *) fail "${h#$root/} includes $inc: a public header includes only public headers"; continue ;;
    esac
    [ "$own" = abi ] && [ "$used" = abi ] && continue
    allowed "$own" "$used" || fail "${h#$root/} ($own) includes $inc ($used)"
  done < <(sed -n 's/^#include "\([^"]*\)".*/\1/p' "$h")
done

# sim/: its sources include the ABI, public headers without code of src/
# (only static inline functions) and sim's own headers; its build files
# compile and search nothing of src/.
while IFS= read -r line; do
  file=${line%%:*}
  inc=$(sed -n 's/.*#include "\([^"]*\)".*/\1/p' <<<"${line#*:}")
  case $inc in
    gpudoctor/abi/*) ;;
    gpudoctor/*)
      if grep -E '^[a-z_ ]+[ *]gd_[a-z0-9_]+\(' "$root/include/$inc" | grep -qv '^static inline'; then
        fail "${file#$root/} includes $inc, which declares code of src/"
      fi ;;
    */*) fail "${file#$root/} includes $inc (sim uses only include/gpudoctor/)" ;;
    *) [ -n "$(find "$root/sim" -name "$inc" -print -quit)" ] || fail "${file#$root/} includes \"$inc\", not of sim/" ;;
  esac
done < <(grep -rn '#include "' "$root/sim" --include='*.[ch]' | sed 's/:[0-9]*:/:/' || true)
if grep -rn 'src/\|PROJECT_SOURCE_DIR}/include/gpudoctor/[a-z_]*\.h' "$root/sim" --include=CMakeLists.txt; then
  fail "a sim/ build file uses src/"
fi

# Symbols: what each layer library leaves undefined must not be defined by a
# layer it may not use (a static link would not catch it: the binary links
# every layer).
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
libs="core analysis checks report loaders formats sources probes"
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
    [ -z "$used" ] || fail "$layer uses $other: $(echo $used | head -c 200)"
  done
done

# formats turns bytes into facts: it opens no connection, starts no process
# and loads no library itself (Expat comes through a loader).
banned=$(grep -xE '(socket|connect|bind|accept4?|popen|system|fork|vfork|execv[pe]?|execl[pe]?|posix_spawnp?|dlopen|dlmopen)(@.*)?' \
  "$tmp/und_formats" || true)
[ -z "$banned" ] || fail "formats calls $(echo $banned)"

# No two files call each other, directly or round a circle (file_cycles.py).
python3 "$(dirname "${BASH_SOURCE[0]}")/file_cycles.py" "$lib" || fail "files that call each other (above)"

# The pure layers keep no state between calls: the ranks of a trace directory
# are analysed on several threads at once, so a file-scope variable there is a
# data race (a sort comparator's global once read another thread's array).
for layer in core analysis checks; do
  state=$(nm -A "$lib/libgd_$layer.a" 2>/dev/null | awk '$2 ~ /^[bB]$/ && $3 !~ /^__(odr_)?asan/ {split($1, p, ":"); print p[2] ":" $3}' || true)
  [ -z "$state" ] || fail "$layer holds file-scope mutable state: $(echo $state | head -c 300)"
done
exit $status
