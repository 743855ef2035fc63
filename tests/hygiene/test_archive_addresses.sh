#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# No package archive address is written in the repository: the scripts take
# the archive from apt's configuration (`apt-get indextargets`), so that a
# site's mirror or proxy is used. An address is a host under debian.org,
# debian.net or ubuntu.com other than the project sites that serve no
# packages (www, wiki, bugs, lists, salsa, tracker, packages, manpages,
# sources). The scan is first shown to find one, in a scratch file.
# Usage: test_archive_addresses.sh SOURCE_DIR
set -euo pipefail
src=$1
# Host names, written so that this file holds none.
hosts='([a-z0-9-]+\.)+(debian\.(org|net)|ubuntu\.com)'
not_archives='^(www|wiki|bugs|lists|salsa|tracker|packages|manpages|sources)\.debian\.org$'
scan() { # scan DIR: file:line:host for each address in DIR's files
    (cd "$1" && files | xargs -0 grep -HnoIE "$hosts" 2>/dev/null || true) |
        awk -F: -v ok="$not_archives" '$3 !~ ok'
}
files() {
    if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
        git ls-files -z --cached --others --exclude-standard
    else
        find . -path ./build\* -prune -o -type f -print0
    fi
}
tmp=$(mktemp -d) && trap 'rm -rf "$tmp"' EXIT
planted_host=$(printf '%s.%s' deb debian.org)
printf 'see https://www.debian.org/doc/\nURIs: http://%s/debian\n' "$planted_host" >"$tmp/planted"
[ "$(scan "$tmp")" = "./planted:2:$planted_host" ] || { echo "FAIL: the scan misses a planted address: $(scan "$tmp")" >&2; exit 1; }
found=$(scan "$src")
if [ -n "$found" ]; then
    echo "FAIL: archive addresses written in the repository (use apt's configured sources: apt-get indextargets):" >&2
    echo "$found" >&2
    exit 1
fi
echo "ok: no archive address in the repository"
