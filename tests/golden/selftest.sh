#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# golden.sh must fail on a changed byte or exit code and print a diff, and
# must not fail because the repository lies somewhere else.
set -u
bin=${1:?usage: selftest.sh BINARY}
here=$(cd "$(dirname "$0")" && pwd -P)
tmp=$(mktemp -d) && trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/repo/tests/golden"
cp "$here"/* "$tmp/repo/tests/golden/"
cp -r "$here/../../examples" "$tmp/repo/examples"
g="$tmp/repo/tests/golden"
fail() { echo "selftest: $*"; exit 1; }

bash "$g/golden.sh" "$bin" check demo.check.txt >"$tmp/log" 2>&1 ||
    { cat "$tmp/log"; fail "an unchanged copy of the repository elsewhere does not pass"; }

sed -i 's/^Verdict: CRITICAL/Verdict: CRITICAI/' "$g/demo.check.txt"
bash "$g/golden.sh" "$bin" check demo.check.txt >"$tmp/log" 2>&1 && fail "a changed byte passes"
grep -q '^-Verdict: CRITICAI' "$tmp/log" && grep -q '^+Verdict: CRITICAL' "$tmp/log" ||
    { cat "$tmp/log"; fail "no diff names the changed line"; }
cp "$here/demo.check.txt" "$g/demo.check.txt"

sed -i 's/^demo.check.txt .*/demo.check.txt 0/' "$g/exit-codes.txt"
bash "$g/golden.sh" "$bin" check demo.check.txt >"$tmp/log" 2>&1 && fail "a changed exit code passes"
grep -q 'exit code 2, pinned 0' "$tmp/log" || { cat "$tmp/log"; fail "no message names the exit codes"; }
echo "selftest: golden.sh passes a moved repository, fails a changed byte or exit code"
