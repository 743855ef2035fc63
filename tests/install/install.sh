#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# make install with DESTDIR and a PREFIX: every file in place, the installed
# binary finds its simulated libraries in PREFIX/libexec/gpudoctor, the man
# page has every command and option, and the completions offer them.
#   install.sh SOURCE_DIR BUILD_DIR
set -euo pipefail
src=$1 build=$2
stage=$(mktemp -d) && trap 'rm -rf "$stage"' EXIT
DESTDIR=$stage cmake --install "$build" --prefix /opt/gd >/dev/null
root=$stage/opt/gd
fail() { echo "install: $*" >&2; exit 1; }
for f in bin/gpudoctor libexec/gpudoctor/libnvidia-ml.so.1 libexec/gpudoctor/libcuda.so.1 libexec/gpudoctor/profile-hook/sitecustomize.py \
         share/man/man1/gpudoctor.1 share/bash-completion/completions/gpudoctor share/zsh/site-functions/_gpudoctor \
         sbin/gpudoctor-healthcheck share/gpudoctor/nhc/gpudoctor.nhc share/gpudoctor/nhc/nhc.conf \
         share/gpudoctor/node-problem-detector/gpudoctor-monitor.json share/man/man8/gpudoctor-healthcheck.8; do
    [ -f "$root/$f" ] || fail "$f not installed"
done
[ -e "$root/bin/libnvidia-ml.so.1" ] && fail "the simulated NVML is in bin/"
# NHC's line and node-problem-detector's config run this prefix's binary, not /usr/bin's.
grep -qx '\* || export GPUDOCTOR=/opt/gd/bin/gpudoctor' "$root/share/gpudoctor/nhc/nhc.conf" ||
    fail "nhc.conf does not name /opt/gd/bin/gpudoctor: $(grep GPUDOCTOR= "$root/share/gpudoctor/nhc/nhc.conf")"
paths=$(grep -o '"path": *"[^"]*"' "$root/share/gpudoctor/node-problem-detector/gpudoctor-monitor.json" |
    sed 's/.*: *"//; s/"$//' | sort -u | tr '\n' ' ')
paths=${paths% }
[ "$paths" = /opt/gd/bin/gpudoctor ] || fail "node-problem-detector's rules run '$paths', not /opt/gd/bin/gpudoctor"
grep -rq /usr/bin/gpudoctor "$root/share/gpudoctor/nhc" "$root/share/gpudoctor/node-problem-detector" &&
    fail "an installed NHC or node-problem-detector file names /usr/bin/gpudoctor"
grep -q "share/gpudoctor/nhc/nhc.conf" "$build/install_manifest.txt" 2>/dev/null ||
    fail "nhc.conf is not in install_manifest.txt"
bin=$root/bin/gpudoctor
# The staged binary runs a simulated machine with no environment to help it.
rc=0
(cd / && env -i PATH=/usr/bin:/bin "$bin" check --sim "$src/examples/demo.json" --duration 1 >/dev/null) || rc=$?
[ $rc = 2 ] || fail "installed 'check --sim demo.json' exited $rc, not 2"
# run --profile finds its start-up hook in libexec: a Python job runs it.
if command -v python3 >/dev/null; then
    out=$(cd / && env -i PATH=/usr/bin:/bin "$bin" run --json --profile -- python3 -c pass) ||
        fail "installed 'run --profile' failed"
    printf '%s' "$out" | grep -q 'never imported torch' || fail "installed 'run --profile': the hook did not run: $out"
fi
# The man page: every command and every option of each.
man=$root/share/man/man1/gpudoctor.1
for cmd in $("$bin" help --commands); do
    grep -q "^\.SS gpudoctor $cmd\$" "$man" || fail "the man page has no section for $cmd"
    for opt in $("$bin" help --options "$cmd" | sed 's/=$//'); do
        [ "$opt" = --help ] && continue
        grep -q -- "$(printf '%s' "$opt" | sed 's/-/\\\\-/g')" "$man" || fail "the man page lacks $cmd $opt"
    done
done
if command -v groff >/dev/null; then
    warnings=$(groff -man -Tutf8 -ww "$man" 2>&1 >/dev/null) || true
    [ -z "$warnings" ] || fail "groff: $warnings"
fi
# bash completion: commands, then a command's options from its parser's table.
complete_words() {
    bash -c 'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _gpudoctor; printf "%s\n" "${COMPREPLY[@]}"' \
        _ "$root/share/bash-completion/completions/gpudoctor" "$@"
}
complete_words "$bin" ch | grep -qx check || fail "bash completion does not offer check"
complete_words "$bin" check --ig | grep -qx -- --ignore || fail "bash completion does not offer check --ignore"
complete_words "$bin" vram --flash | grep -qx -- --flash-attention || fail "bash completion does not offer vram --flash-attention"
complete_words "$bin" check --fail-on c | grep -qx critical || fail "bash completion does not offer --fail-on critical"
complete_words "$bin" check --exit-codes npd | grep -qx npd-healthy || fail "bash completion does not offer --exit-codes npd-healthy"
# (grep reads all: -q would leave the writer a SIGPIPE, which pipefail counts)
# After an option that takes a value: its values, never option names.
[ -z "$(complete_words "$bin" check --duration '')" ] || fail "bash completion offers words after --duration"
[ -z "$(complete_words "$bin" check --interval -)" ] || fail "bash completion offers options as --interval's value"
complete_words "$bin" check --ignore thermal. | grep -x thermal.throttling >/dev/null ||
    fail "bash completion does not offer finding ids after --ignore"
complete_words "$bin" watch --format j | grep -x jsonl >/dev/null || fail "bash completion does not offer --format jsonl"
complete_words "$bin" vram --gpu h1 | grep -x h100 >/dev/null || fail "bash completion does not offer --gpu h100"
complete_words "$bin" help f | grep -x findings >/dev/null || fail "bash completion does not offer help findings"
"$bin" help findings | grep '^  thermal.throttling ' >/dev/null || fail "help findings does not list thermal.throttling"
if command -v zsh >/dev/null; then
    zsh -n "$root/share/zsh/site-functions/_gpudoctor" || fail "zsh completion does not parse"
fi
echo "install: ok"
