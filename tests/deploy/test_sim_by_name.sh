#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# --sim NAME finds an installed example by name: make install (DESTDIR)
# puts the scenarios and the trees they name in PREFIX/share/gpudoctor/examples,
# and the installed binary, from any folder and with no environment, runs
# `check --sim demo` as the source tree's `--sim examples/demo.json`; a
# path or a file in the current folder still wins; an unknown name is the
# same "cannot open" as before. The build tree's binary finds examples/ too.
#   test_sim_by_name.sh SOURCE_DIR BUILD_DIR
set -uo pipefail
src=$1 build=$2
fail() { echo "FAIL: $*" >&2; exit 1; }
tmp=$(mktemp -d) && trap 'rm -rf "$tmp"' EXIT
DESTDIR=$tmp/stage cmake --install "$build" --prefix /usr >/dev/null || fail "cmake --install"
ex=$tmp/stage/usr/share/gpudoctor/examples
bin=$tmp/stage/usr/bin/gpudoctor
[ -f "$ex/demo.json" ] || fail "demo.json is not installed in share/gpudoctor/examples"
[ -e "$ex/kubernetes" ] && fail "the Kubernetes manifests are installed as scenarios"
# Every scenario and tree of the source's examples, symbolic links (sysfs) as links.
(cd "$src/examples" && find . -path ./kubernetes -prune -o \( -type f -o -type l \) -print | sort) >"$tmp/want"
(cd "$ex" && find . \( -type f -o -type l \) -print | sort) >"$tmp/got"
diff "$tmp/want" "$tmp/got" >/dev/null || fail "installed examples differ: $(diff "$tmp/want" "$tmp/got" | head -5)"
[ "$(cd "$ex" && find . -type l | wc -l)" = "$(cd "$src/examples" && find . -path ./kubernetes -prune -o -type l -print | wc -l)" ] ||
    fail "the sysfs trees' symbolic links were not installed as links"

ids() { python3 -c 'import json,sys; print(" ".join(sorted(f["id"] + "@" + str(f.get("gpu")) for f in json.load(sys.stdin)["findings"])))'; }
want=$("$build/gpudoctor" check --json --sim "$src/examples/demo.json" --duration 1 | ids)
[ -n "$want" ] || fail "the source tree's demo has no findings"
for name in demo demo.json; do
    rc=0
    out=$(cd / && env -i PATH=/usr/bin:/bin "$bin" check --json --sim "$name" --duration 1) || rc=$?
    [ $rc = 2 ] || fail "installed 'check --sim $name' exited $rc, not 2"
    [ "$(printf '%s' "$out" | ids)" = "$want" ] || fail "installed 'check --sim $name' found other findings"
done
# A scenario that names a sysfs tree, by name: the tree is found beside it.
rc=0
(cd / && env -i PATH=/usr/bin:/bin "$bin" topo --json --sim pcie-a100x4-x8 >"$tmp/topo.json") || rc=$?
[ $rc = 0 ] || fail "installed 'topo --sim pcie-a100x4-x8' exited $rc"
grep -q "\"source\": \"sysfs:$ex/sysfs/" "$tmp/topo.json" || fail "topo --sim pcie-a100x4-x8 did not read the installed sysfs tree"
# A file of that name in the current folder wins over the example.
mkdir "$tmp/here" && cp "$src/examples/h100x8-idle.json" "$tmp/here/demo"
rc=0
(cd "$tmp/here" && "$bin" check --sim demo --duration 1 >/dev/null) || rc=$?
[ $rc = 0 ] || fail "a file 'demo' in the current folder: exit $rc, not the idle machine's 0"
# An unknown name: the message as for any missing file.
rc=0
(cd / && "$bin" check --sim no-such-scenario --duration 1 >/dev/null 2>"$tmp/err") || rc=$?
[ $rc = 3 ] && grep -q 'no-such-scenario: cannot open' "$tmp/err" || fail "unknown name: exit $rc, $(cat "$tmp/err")"
# The build tree: examples/ beside the binary.
rc=0
(cd / && "$build/gpudoctor" check --sim demo --duration 1 >/dev/null) || rc=$?
[ $rc = 2 ] || fail "build tree 'check --sim demo' exited $rc, not 2"
echo "ok: --sim by name from the installed examples and the build tree"
