#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# skip_reasons.py: a skipped test's words are shown, cmocka's framing is not,
# and a skipped test that printed nothing fails the run.
# Usage: test_skip_reasons.sh SKIP_REASONS.py
set -u
script=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
cat >"$tmp/said.xml" <<'XML'
<testsuite><testcase name="e2e.real" status="notrun"><skipped message="SKIP_RETURN_CODE=77"/>
<system-out>[ RUN      ] reads_captures
the real captures at /x (SOURCES.md): missing, skipped
[  SKIPPED ] reads_captures
</system-out></testcase>
<testcase name="unit.ok" status="run"><system-out>[  PASSED  ] 1 test(s).</system-out></testcase></testsuite>
XML
out=$(python3 "$script" "$tmp/said.xml") || fail "a skip with its reason failed: $out"
[ "$out" = "Skipped e2e.real: the real captures at /x (SOURCES.md): missing, skipped" ] || fail "got: $out"
cat >"$tmp/silent.xml" <<'XML'
<testsuite><testcase name="mute" status="notrun"><skipped message="SKIP_RETURN_CODE=77"/>
<system-out>[  SKIPPED ] something
</system-out></testcase></testsuite>
XML
if out=$(python3 "$script" "$tmp/silent.xml" 2>&1); then fail "a silent skip passed: $out"; fi
case $out in *"Skipped mute: IT PRINTED NO REASON"*) ;; *) fail "got: $out" ;; esac
echo "ok: reasons shown, a silent skip fails"
