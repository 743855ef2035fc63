#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# gpudoctor watch's view in a detached tmux session: the rows are there, the
# throttled GPU shows its reason and the finding appears, a resize under 80
# columns redraws without wrapping, q quits with exit 0.
#   test_watch_tmux.sh GPUDOCTOR EXAMPLES_DIR
set -u
bin=$1
examples=$2
if ! command -v tmux >/dev/null 2>&1; then
    echo "tmux is not installed (scripts/install-deps.sh installs it)" >&2
    [ "${CI:-}" = true ] && exit 1
    exit 77
fi
sock=gdwatch-test-$$
dir=$(mktemp -d)
trap 'tmux -L "$sock" kill-server 2>/dev/null; rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*" >&2; echo "--- screen:" >&2; cat "$dir/screen" >&2; exit 1; }

# Waits (up to 1200 polls, two minutes or more: the view runs in its own process) until
# the screen matches the extended regular expression $1.
wait_for() {
    i=0
    while [ $i -lt 1200 ]; do
        tmux -L "$sock" capture-pane -p -t w >"$dir/screen" 2>/dev/null
        grep -Eq "$1" "$dir/screen" && return 0
        i=$((i + 1))
        sleep 0.1
    done
    return 1
}

# GPU 2 of this scenario throttles for heat; 20 scenario seconds per second.
tmux -L "$sock" -f /dev/null new-session -d -s w -x 120 -y 30 \
    "env GPUDOCTOR_SIM_TIMESCALE=20 NO_COLOR=1 TERM=xterm LANG=C.UTF-8 '$bin' watch --sim '$examples/h100x8-thermal-throttling.json' --record '$dir/w.jsonl'; echo EXITED \$?; sleep 60" ||
    fail "tmux cannot start a session"

wait_for '^ +7 ' || fail "no row for GPU 7"
for g in 0 1 2 3 4 5 6 7; do
    grep -Eq "^ +$g H100" "$dir/screen" || fail "no row for GPU $g"
done
grep -q 'SM MHz/MAX' "$dir/screen" || fail "no column header"
grep -Eq '^host  CPU (n/a|[0-9]+%) busy, iowait (n/a|[0-9]+%)' "$dir/screen" || fail "no host line"
wait_for '^ +2 .*sw-thermal' || fail "GPU 2 does not show its thermal slowdown"
wait_for 'critical +thermal.throttling +GPU 2' || fail "the throttling finding does not appear"

# Under 80 columns: the names go, nothing wraps.
tmux -L "$sock" resize-window -t w -x 64 -y 24
wait_for '^GPU TEMP' || fail "no redraw after the resize to 64 columns"
awk 'length($0) > 64 { bad = 1 } END { exit bad }' "$dir/screen" || fail "a line is wider than the terminal"
grep -Eq '^ +2 .*sw-thermal' "$dir/screen" || fail "the reason is gone at 64 columns"

# ? shows help, any key closes it, h/l change the plot, p pauses.
tmux -L "$sock" send-keys -t w '?'
wait_for 'pause / resume' || fail "? shows no help"
tmux -L "$sock" send-keys -t w x
tmux -L "$sock" send-keys -t w l
wait_for 'plot: SM clock' || fail "l does not change the plotted metric"
tmux -L "$sock" send-keys -t w p
wait_for '\[paused\]' || fail "p does not pause"

tmux -L "$sock" send-keys -t w q
wait_for '^EXITED' || fail "q does not quit"
grep -q '^EXITED 0' "$dir/screen" || fail "watch exited with an error"
# The recording it made replays to the finding the view showed.
"$bin" check --json --from "$dir/w.jsonl" >"$dir/replay.json"
[ $? -eq 2 ] || fail "the recording does not replay to a critical finding"
grep -q '"thermal.throttling"' "$dir/replay.json" || fail "the replay misses thermal.throttling"
echo "ok"
