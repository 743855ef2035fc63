#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# gpudoctor watch's view in a detached tmux session: the rows are there, the
# throttled GPU shows its reason and the finding appears; every GPU's history
# is on one scale up to the limit; the processes are listed, a GPU can be
# selected; at 100 and 80 columns the history is still drawn and the
# findings wrap; a resize under 80 columns redraws without wrapping a row;
# ? shows help on a cleared screen; q quits with exit 0; without a driver it
# says why and exits 3.
#   test_watch_tmux.sh GPUDOCTOR EXAMPLES_DIR
set -u
bin=$1
examples=$2
if ! command -v tmux >/dev/null 2>&1; then
    echo "tmux is not installed: make test installs it (sudo bash scripts/install-deps.sh test)" >&2
    [ "${CI:-}" = true ] && exit 1
    exit 77
fi
sock=gdwatch-test-$$
dir=$(mktemp -d)
trap 'tmux -L "$sock" kill-server 2>/dev/null; rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*" >&2; echo "--- screen:" >&2; cat "$dir/screen" >&2; exit 1; }

# Whether every line of the screen fits in $1 columns (a block of the
# history is one column and three bytes).
fits() {
    sed -E 's/(▁|▂|▃|▄|▅|▆|▇|█)/x/g' "$dir/screen" | awk -v w="$1" 'length($0) > w { bad = 1 } END { exit bad }'
}

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

# As wait_for, with the screen's lines joined (a wrapped text is one line).
wait_joined() {
    i=0
    while [ $i -lt 1200 ]; do
        tmux -L "$sock" capture-pane -p -t w >"$dir/screen" 2>/dev/null
        tr -s ' \n' '  ' <"$dir/screen" | grep -Eq "$1" && return 0
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
# Memory in MiB and the reasons by NVML's names, as every other output says them.
grep -q 'MEM MiB' "$dir/screen" || fail "memory is not in MiB"
# The rows are drawn from the snapshot before the first sample: wait for its values.
wait_for '^ +0 .* 61000/81559 ' || fail "GPU 0's memory is not 61000/81559 MiB"
grep -Eq '^host  CPU (n/a|[0-9]+%) busy, iowait (n/a|[0-9]+%)' "$dir/screen" || fail "no host line"
wait_for '^ +2 .*sw_thermal_slowdown' || fail "GPU 2 does not show its thermal slowdown"
wait_for 'critical +thermal.throttling +GPU 2' || fail "the throttling finding does not appear"

# One scale for every GPU, up to the slowdown limit: the hot GPU's history is
# drawn high, the cool ones' low (each row on its own scale drew the same
# middle block for every steady GPU).
grep -Eq 'plot \(h/l\): temperature [0-9]+-89 C, top = slowdown' "$dir/screen" || fail "the plot's scale is not in the top line"
grep -Eq '^ +2 H100.*(▆|▇|█)+ *$' "$dir/screen" || fail "the hot GPU's history is not drawn high"
grep -Eq '^ +0 H100.*(▁|▂)+ *$' "$dir/screen" || fail "a cool GPU's history is not drawn low"

# The process pane: every GPU's processes; a digit or Down selects a GPU, Esc all.
grep -Eq '^Processes \(8, ' "$dir/screen" || fail "no process pane"
grep -Eq '^ +0 +41000 +- +60500 MiB +python' "$dir/screen" || fail "no process row"
tmux -L "$sock" send-keys -t w 2
wait_for '^GPU 2 selected' || fail "2 does not select GPU 2"
grep -Eq '00000000:3A:00.0' "$dir/screen" || fail "the selected GPU's details are not shown"
grep -Eq '^ +2 +41002 ' "$dir/screen" || fail "the selected GPU's process is not shown"
grep -Eq '41000' "$dir/screen" && fail "another GPU's process is shown beside the selected one's"
tmux -L "$sock" send-keys -t w Down
wait_for '^GPU 3 selected' || fail "Down does not select the next GPU"
tmux -L "$sock" send-keys -t w Escape
wait_for '^Processes \(8, ' || fail "Esc does not show every GPU again"

# At 100 and 80 columns the history is still drawn and nothing is cut: the
# findings wrap to the width.
for w in 100 80; do
    tmux -L "$sock" resize-window -t w -x $w -y 30
    wait_for "^GPU TEMP MEMT SM MHz/MAX.*HISTORY|^GPU TEMP SM MHz/MAX.*HISTORY" || fail "no history column at $w columns"
    fits $w || fail "a line is wider than $w columns"
    grep -Eq '^ +2 .*(▆|▇|█)+ *$' "$dir/screen" || fail "no history drawn at $w columns"
    wait_joined 'thermally throttled for [0-9]+% of the loaded time' || fail "the finding's title is cut at $w columns"
done

# Under 80 columns: the names go, nothing wraps.
tmux -L "$sock" resize-window -t w -x 64 -y 24
wait_for '^GPU TEMP' || fail "no redraw after the resize to 64 columns"
fits 64 || fail "a line is wider than the terminal"
wait_for '^ +2 .*sw_thermal_slowdown' || fail "the reason is gone at 64 columns"
# Every row is repainted whole: tmux reflows the old 80-column lines into the
# new width, and cells curses believed unchanged kept the old history's blocks
# in front of a row's index (a bug CI caught).
rows_whole() {
    i=0
    while [ $i -lt 600 ]; do
        tmux -L "$sock" capture-pane -p -t w >"$dir/screen" 2>/dev/null
        [ "$(grep -Ec '^ +[0-7] +[0-9]+C ' "$dir/screen")" -eq 8 ] && return 0
        i=$((i + 1))
        sleep 0.1
    done
    return 1
}
rows_whole || fail "a row keeps what was on the screen before the resize"

# ? shows help on a cleared screen (it was drawn over the table), listing
# every key; any key closes it, h/l change the plot, p pauses.
tmux -L "$sock" send-keys -t w '?'
wait_for 'pause / resume' || fail "? shows no help"
grep -Eq '^ +2 .*sw_thermal_slowdown|^GPU TEMP' "$dir/screen" && fail "the help is drawn over the table"
for k in 'Up, k' 'Down, j' '0-9' 'Esc' 'Left' 'Right'; do
    grep -q -- "$k" "$dir/screen" || fail "the help does not list $k"
done
tmux -L "$sock" send-keys -t w x
tmux -L "$sock" send-keys -t w l
wait_for 'plot \(h/l\): SM clock' || fail "l does not change the plotted metric"
tmux -L "$sock" send-keys -t w p
wait_for '\[paused\]' || fail "p does not pause"

tmux -L "$sock" send-keys -t w q
wait_for '^EXITED' || fail "q does not quit"
grep -q '^EXITED 0' "$dir/screen" || fail "watch exited with an error"
# The recording it made replays to the finding the view showed.
"$bin" check --json --from "$dir/w.jsonl" >"$dir/replay.json"
[ $? -eq 2 ] || fail "the recording does not replay to a critical finding"
grep -q '"thermal.throttling"' "$dir/replay.json" || fail "the replay misses thermal.throttling"

# Without a driver: a message and exit 3, not a cleared screen and exit 0.
# A server of its own: the old one may still be exiting after kill-server,
# and a new session on its socket then fails ("server exited unexpectedly").
tmux -L "$sock" kill-server 2>/dev/null
sock=$sock-nodriver
tmux -L "$sock" -f /dev/null new-session -d -s w -x 100 -y 20 \
    "env GPUDOCTOR_NVML_LIBRARY=/nonexistent/libnvidia-ml.so.1 TERM=xterm '$bin' watch; echo EXITED \$?; sleep 60" ||
    fail "tmux cannot start a session"
wait_for '^EXITED' || fail "watch without a driver does not end"
grep -q '^EXITED 3' "$dir/screen" || fail "watch without a driver does not exit 3"
grep -q 'no NVIDIA driver' "$dir/screen" || fail "watch without a driver does not say why"
echo "ok"
