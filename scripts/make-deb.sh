#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Builds gpudoctor's Debian packages with debhelper (debian/) from a copy of
# the source tree, so that nothing is written beside the repository: the
# binary package and the source package (native: .dsc and .tar.xz), for
# lintian and for a Debian maintainer to review:
#   make-deb.sh [OUT_DIR]     (default build-deb/) -> OUT_DIR/gpudoctor_VERSION_ARCH.deb
#                                                     (its last line), gpudoctor_VERSION.dsc
# Needs the Build-Depends of debian/control (scripts/install-deps.sh installs them).
set -euo pipefail
src=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
out=$(mkdir -p "${1:-$src/build-deb}" && cd "${1:-$src/build-deb}" && pwd)
version=$(dpkg-parsechangelog -l "$src/debian/changelog" -S Version)
project=$(sed -n 's/^project(gpudoctor VERSION \([0-9.]*\).*/\1/p' "$src/CMakeLists.txt")
if [ "$version" != "$project" ]; then
    echo "make-deb: debian/changelog says $version, CMakeLists.txt $project: make them agree" >&2
    exit 1
fi
tree=$out/gpudoctor-$version
rm -rf "$tree" && mkdir -p "$tree"
# The source without build trees or version control: in a git checkout, its
# files (tracked, or new and not ignored), so that no test's leftovers go
# into the source package.
if git -C "$src" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    git -C "$src" ls-files -z --cached --others --exclude-standard |
        tar -C "$src" --null -T - --ignore-failed-read -cf - 2>/dev/null | tar -C "$tree" -xf -
else
    tar -C "$src" --exclude=./.git --exclude=./build --exclude='./build-*' --exclude=./bench/out -cf - . | tar -C "$tree" -xf -
fi
(cd "$tree" && dpkg-buildpackage -us -uc --no-sign >"$out/build.log" 2>&1) || {
    tail -n 40 "$out/build.log" >&2
    echo "make-deb: dpkg-buildpackage failed; the log is $out/build.log" >&2
    exit 1
}
rm -rf "$tree"
ls "$out"/gpudoctor_"$version"_*.deb
