#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Under AddressSanitizer, a test binary whose test failed ends without a
# LeakSanitizer report of that test's own buffers (leak_check_exit.c), one
# whose tests pass is still leak-checked, and a skipped one's last line is
# the reason for the skip.
# Usage: test_leak_check_exit.sh SELFTEST_BINARY SANITIZED(0|1)
set -u
bin=$1
if [ "$2" != 1 ]; then
    echo "SKIP: this build has no AddressSanitizer (the build-asan suite of make test runs this test)"
    exit 77
fi
out=$(ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=1" "$bin" 2>&1)
rc=$?
[ "$rc" -ne 0 ] || { echo "FAIL: the failing test exited 0"; exit 1; }
case $out in *"LeakSanitizer: detected"*)
    echo "FAIL: a failed test's own buffer was reported as a leak:"
    echo "$out"
    exit 1
    ;;
esac
out=$(ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=1" "$bin" pass 2>&1)
case $out in *"LeakSanitizer: detected memory leaks"*) ;; *)
    echo "FAIL: a passing binary's real leak was not reported:"
    echo "$out"
    exit 1
    ;;
esac
# A skipped binary's last line is its reason, not words about failed tests.
out=$(ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=1" "$bin" skip 2>&1)
skip_rc=$?
[ "$skip_rc" = 77 ] || { echo "FAIL: the skipped binary exited $skip_rc"; exit 1; }
[ "$(printf '%s\n' "$out" | tail -n 1)" = "selftest: skipped: the reason for the skip" ] || {
    echo "FAIL: a skipped binary's last words are not its reason:"
    echo "$out"
    exit 1
}
echo "ok: a failed test exits $rc without a leak report; a passing one's leak is reported; a skip ends with its reason"
