#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Golden outputs (tests/golden/README.md).
#   golden.sh BINARY check NAME   run case NAME of cases.txt and compare it with
#                                 the file NAME and its line in exit-codes.txt:
#                                 exit 0 same, 1 different (a diff says how),
#                                 77 skipped (no real captures; CI=true: 1)
#   golden.sh BINARY update       rewrite every golden file from the tool
#   golden.sh BINARY list         the case names
# GD_REALDATA_DIR: the real captures (default ../shared/realdata beside the
# repository).
set -u
here=$(cd "$(dirname "$0")" && pwd -P)
src=$(cd "$here/../.." && pwd -P)
bin=${1:?usage: golden.sh BINARY check NAME | update | list}
[[ $bin == /* ]] || bin=$PWD/$bin
mode=${2:?usage: golden.sh BINARY check NAME | update | list}
realdata=${GD_REALDATA_DIR:-$src/../shared/realdata}
[ -d "$realdata" ] && realdata=$(cd "$realdata" && pwd -P)
version=$("$bin" --version | sed -n 's/^gpudoctor //p')
[ -n "$version" ] || { echo "golden: '$bin --version' names no version" >&2; exit 1; }

# A literal string as a sed pattern.
literal() { printf '%s' "$1" | sed 's/[][\/.*^$]/\\&/g'; }

# What legitimately varies: the tool's version, where the repository and
# the real captures lie (the paths given on the command line come back), and
# the wall clock of a window.
normalise() {
    sed -e "s/^gpudoctor $(literal "$version") /gpudoctor @VERSION@ /" \
        -e "/^  \"tool\": {/,/^  }/s/\"version\": \"$(literal "$version")\"/\"version\": \"@VERSION@\"/" \
        -e "s/$(literal "$realdata")/@REALDATA@/g" \
        -e "s/$(literal "$src")/@SRC@/g" \
        -E -e 's/"(started_at|ended_at)": "[0-9T:.Z-]+"/"\1": "@UTC@"/'
}

# run NAME OUTFILE: runs the case in a bare environment from the repository; prints its
# exit code. Returns 77 when it needs the real captures and they are missing.
run() {
    local line args
    line=$(grep -E "^$(literal "$1")[[:space:]]" "$here/cases.txt") || { echo "golden: no case $1" >&2; return 2; }
    args=$(printf '%s\n' "$line" | sed -E 's/^[^[:space:]]+[[:space:]]+//')
    if [[ $args == *@REALDATA@* && ! -r $realdata/SOURCES.md ]]; then
        return 77
    fi
    # Scenarios by a path relative to the repository, which the case runs
    # in: the text wraps the same wherever the repository lies.
    args=${args//@EXAMPLES@/examples}
    args=${args//@REALDATA@/$realdata}
    local -a argv envs=()
    read -r -a argv <<<"$args"
    # Leading NAME=value words are the case's environment (COLUMNS=120);
    # SCREEN=N is not: it keeps the output's first N lines (the first
    # screen of a terminal, where the answer must be).
    local screen=
    while [[ ${#argv[@]} -gt 0 && ${argv[0]} =~ ^[A-Z_]+= ]]; do
        if [[ ${argv[0]} == SCREEN=* ]]; then
            screen=${argv[0]#SCREEN=}
        else
            envs+=("${argv[0]}")
        fi
        argv=("${argv[@]:1}")
    done
    (cd "$src" && env -i PATH=/usr/bin:/bin "${envs[@]}" "$bin" "${argv[@]}" >"$2.raw" 2>/dev/null)
    local rc=$?
    if [ -n "$screen" ]; then
        normalise <"$2.raw" | head -n "$screen" >"$2"
    else
        normalise <"$2.raw" >"$2"
    fi
    rm -f "$2.raw"
    echo "$rc"
}

names() { sed -E -e '/^(#|[[:space:]]*$)/d' -e 's/[[:space:]].*//' "$here/cases.txt"; }

case $mode in
list) names ;;
check)
    name=${3:?usage: golden.sh BINARY check NAME}
    tmp=$(mktemp -d) && trap 'rm -rf "$tmp"' EXIT
    rc=$(run "$name" "$tmp/out")
    status=$?
    if [ $status = 77 ]; then
        if [ "${CI:-}" = true ]; then
            echo "golden $name: no real captures at $realdata (SOURCES.md), and CI=true: they are required" >&2
            exit 1
        fi
        echo "golden $name: skipped, no real captures (a folder with SOURCES.md) at $realdata: they are kept" \
            "outside this repository (CI has them beside the checkout); with a copy, cmake -S . -B build" \
            "-DGD_REALDATA_DIR=DIR names it"
        exit 77
    fi
    [ $status = 0 ] || exit 1
    want_rc=$(sed -n "s/^$(literal "$name") //p" "$here/exit-codes.txt")
    ok=true
    if ! diff -u --label "tests/golden/$name (pinned)" --label "$name (gpudoctor now)" "$here/$name" "$tmp/out"; then
        ok=false
    fi
    if [ "$rc" != "$want_rc" ]; then
        echo "golden $name: exit code $rc, pinned ${want_rc:-nothing} (tests/golden/exit-codes.txt)"
        ok=false
    fi
    if ! $ok; then
        echo "golden $name: the output changed. If that is on purpose: make golden, and review the diff."
        exit 1
    fi
    echo "golden $name: same as pinned"
    ;;
update)
    codes=$(mktemp)
    for name in $(names); do
        rc=$(run "$name" "$here/$name.new")
        status=$?
        if [ $status = 77 ]; then
            echo "golden: $name kept: no real captures at $realdata" >&2
            sed -n "/^$(literal "$name") /p" "$here/exit-codes.txt" >>"$codes"
            rm -f "$here/$name.new"
            continue
        fi
        if [ $status != 0 ] || [ "$rc" -gt 3 ]; then
            echo "golden: $name: gpudoctor exited $rc" >&2
            rm -f "$codes" "$here/$name.new"
            exit 1
        fi
        mv "$here/$name.new" "$here/$name"
        echo "$name $rc" >>"$codes"
    done
    mv "$codes" "$here/exit-codes.txt"
    chmod 644 "$here/exit-codes.txt"
    echo "golden: tests/golden rewritten; review 'git diff tests/golden' before committing"
    ;;
*) echo "golden.sh: unknown mode $mode (check, update, list)" >&2; exit 2 ;;
esac
