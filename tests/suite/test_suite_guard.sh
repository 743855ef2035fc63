#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# make test's guard (suite_guard.py): a process that a test leaves running,
# however detached, is named, ended and fails the suite; a process ending
# with the suite does not; the suite's own status passes through; bytecode
# written into the source tree fails it.
# Usage: test_suite_guard.sh SUITE_GUARD_PY
set -u
guard=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
mark="gd-suite-guard-$$"

# A clean suite: its own status, 0 or not.
python3 "$guard" "$tmp" -- true || fail "a clean passing suite did not pass"
python3 "$guard" "$tmp" -- sh -c 'exit 3'
[ $? = 3 ] || fail "the suite's own status 3 was not passed through"
# A process that ends on its own just after the suite: not a leftover.
python3 "$guard" "$tmp" -- sh -c 'sleep 0.5 & exit 0' || fail "a process ending with the suite failed it"

# Left running by a plain background start, and by a detached double fork
# in its own session (as a daemon does): both named, both ended.
# (sh -c 'sleep 300; :' NAME: a shell named NAME that waits on its sleep.)
out=$(python3 "$guard" "$tmp" -- sh -c "sh -c 'sleep 300; :' $mark-a & setsid sh -c \"sh -c 'sleep 300; :' $mark-b &\" & exit 0" 2>&1)
rc=$?
[ $rc = 1 ] || fail "a suite that left processes exited $rc: $out"
echo "$out" | grep -q "outlived" || fail "no word of the leftovers: $out"
echo "$out" | grep -q "$mark-a" || fail "the background process is not named: $out"
echo "$out" | grep -q "$mark-b" || fail "the detached process is not named: $out"
sleep 0.2
if grep -qs "$mark" /proc/[0-9]*/cmdline; then fail "a leftover still runs after the guard"; fi

# Bytecode: none under the guard; a test that writes it anyway fails the suite.
mkdir -p "$tmp/src/pkg"
echo 'X = 1' >"$tmp/src/pkg/mod.py"
python3 "$guard" "$tmp/src" -- python3 -c "import sys; sys.path.insert(0, '$tmp/src/pkg'); import mod" ||
    fail "an import under the guard failed the suite"
[ ! -d "$tmp/src/pkg/__pycache__" ] || fail "the guard let Python write bytecode"
out=$(python3 "$guard" "$tmp/src" -- env -u PYTHONDONTWRITEBYTECODE python3 -c "import sys; sys.path.insert(0, '$tmp/src/pkg'); import mod" 2>&1)
[ $? = 1 ] || fail "bytecode in the source tree did not fail the suite: $out"
echo "$out" | grep -q "pkg/__pycache__" || fail "the __pycache__ is not named: $out"
echo "suite_guard: every case holds"
