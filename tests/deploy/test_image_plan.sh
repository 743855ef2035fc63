#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# make-image.sh --dry-run against made-up apt configurations (APT_CONFIG:
# sources, Release files and empty indexes in a scratch folder, no network):
# the image's sources are the configured Debian archive and security archive
# (a site's mirror), with bookworm, bookworm-updates and bookworm-security,
# whatever release the machine runs; a third-party repository or Debian
# Backports (Label "Debian Backports") is never taken; apt's proxy is passed
# on; a machine with no Debian source is refused with the reason;
# GD_DEBIAN_MIRROR overrides; the cached base is made again once older than
# GD_IMAGE_BASE_MAX_DAYS (7 by default) and reused before.
#   test_image_plan.sh SOURCE_DIR
set -uo pipefail
src=$1
fail() { echo "FAIL: $*" >&2; exit 1; }
for c in apt-get apt-config dpkg-parsechangelog; do
    command -v "$c" >/dev/null || { echo "SKIP: $c is missing (a Debian machine with dpkg-dev)" >&2; exit 77; }
done
tmp=$(mktemp -d) && trap 'rm -rf "$tmp"' EXIT
arch=$(dpkg --print-architecture)

# apt_root NAME [URI SUITE ORIGIN LABEL]...: an apt configuration with those
# deb sources, as if `apt-get update` had fetched their Release files.
apt_root() {
    local d=$tmp/$1
    shift
    mkdir -p "$d/etc/sources.list.d" "$d/etc/apt.conf.d" "$d/etc/preferences.d" "$d/lists/partial" "$d/cache"
    : >"$d/etc/sources.list"
    printf 'Dir::Etc "%s/etc";\nDir::State::lists "%s/lists";\nDir::Cache "%s/cache";\n' "$d" "$d" "$d" >"$d/apt.conf"
    while [ $# -ge 4 ]; do
        local uri=$1 suite=$2 origin=$3 label=$4
        shift 4
        printf 'Types: deb\nURIs: %s\nSuites: %s\nComponents: main\nTrusted: yes\n\n' "$uri" "$suite" >>"$d/etc/sources.list.d/test.sources"
        local base
        base=$(printf '%s' "${uri#http://}" | tr / _)_dists_$suite
        printf 'Origin: %s\nLabel: %s\nSuite: %s\nCodename: %s\nArchitectures: %s\nComponents: main\n' \
            "$origin" "$label" "$suite" "$suite" "$arch" >"$d/lists/${base}_Release"
        : >"$d/lists/${base}_main_binary-${arch}_Packages"
    done
    echo "$d/apt.conf"
}
plan() { # plan APT_CONF OUT [VAR=VALUE]...: the dry run's output, its status in $rc
    local conf=$1 o=$2
    shift 2
    rc=0
    env APT_CONFIG="$conf" "$@" bash "$src/scripts/make-image.sh" --dry-run "$o" >"$tmp/plan" 2>&1 || rc=$?
}
mkdir -p "$tmp/out"

# A site's mirror, with Backports and a third-party repository listed first.
conf=$(apt_root site http://mirror.site.test/debian bookworm-backports Debian "Debian Backports" \
    http://repo.vendor.test/apt stable Vendor Vendor \
    http://mirror.site.test/debian bookworm Debian Debian \
    http://mirror.site.test/debian bookworm-updates Debian Debian \
    http://mirror.site.test/debian-security bookworm-security Debian Debian-Security)
plan "$conf" "$tmp/out"
[ $rc = 0 ] || fail "dry run on a site mirror: exit $rc: $(cat "$tmp/plan")"
grep -A1 -x '  URIs: http://mirror.site.test/debian' "$tmp/plan" | grep -qx '  Suites: bookworm bookworm-updates' ||
    fail "the archive is not the site's with bookworm and bookworm-updates: $(cat "$tmp/plan")"
grep -A1 -x '  URIs: http://mirror.site.test/debian-security' "$tmp/plan" | grep -qx '  Suites: bookworm-security' ||
    fail "the security suite is not the site's security archive: $(cat "$tmp/plan")"
grep -q 'vendor.test\|backports' "$tmp/plan" && fail "a third-party or backports source was taken: $(cat "$tmp/plan")"
[ "$(grep -c '^  URIs: ' "$tmp/plan")" = 2 ] || fail "not two sources: $(cat "$tmp/plan")"

# A Debian 13 machine: the same archives serve bookworm.
conf=$(apt_root trixie http://mirror.site.test/debian trixie Debian Debian \
    http://sec.site.test/ds trixie-security Debian Debian-Security)
plan "$conf" "$tmp/out"
[ $rc = 0 ] && grep -A1 -x '  URIs: http://sec.site.test/ds' "$tmp/plan" | grep -qx '  Suites: bookworm-security' ||
    fail "a trixie machine's archives: exit $rc: $(cat "$tmp/plan")"

# apt's proxy is passed on.
printf 'Acquire::http::Proxy "http://proxy.site.test:3142";\n' >>"$conf"
plan "$conf" "$tmp/out"
grep -qx 'proxy: http://proxy.site.test:3142' "$tmp/plan" || fail "apt's proxy is not passed on: $(cat "$tmp/plan")"

# No Debian archive configured (or lists never fetched): refused, with why.
conf=$(apt_root none http://repo.vendor.test/apt stable Vendor Vendor)
plan "$conf" "$tmp/out"
[ $rc = 1 ] && grep -q 'indextargets' "$tmp/plan" && grep -q GD_DEBIAN_MIRROR "$tmp/plan" ||
    fail "no Debian source: exit $rc: $(cat "$tmp/plan")"
# ... unless both are given.
plan "$conf" "$tmp/out" GD_DEBIAN_MIRROR=http://given.test/debian GD_DEBIAN_SECURITY_MIRROR=http://given.test/security
[ $rc = 0 ] && grep -qx '  URIs: http://given.test/debian' "$tmp/plan" || fail "GD_DEBIAN_MIRROR: exit $rc: $(cat "$tmp/plan")"

# The cached base: made again once older than the limit, reused before.
conf=$tmp/site/apt.conf
plan "$conf" "$tmp/out"
grep -q '^base: debootstrap again (none yet' "$tmp/plan" || fail "no base yet: $(cat "$tmp/plan")"
: >"$tmp/out/debian-bookworm-minbase.tar"
plan "$conf" "$tmp/out"
grep -q '^base: reuse .*(0 days old, kept at most 7 days)' "$tmp/plan" || fail "a fresh base is not reused: $(cat "$tmp/plan")"
touch -d '8 days ago' "$tmp/out/debian-bookworm-minbase.tar"
plan "$conf" "$tmp/out"
grep -q '^base: debootstrap again (8 days old' "$tmp/plan" || fail "an 8-day-old base is reused: $(cat "$tmp/plan")"
plan "$conf" "$tmp/out" GD_IMAGE_BASE_MAX_DAYS=30
grep -q '^base: reuse ' "$tmp/plan" || fail "GD_IMAGE_BASE_MAX_DAYS=30: $(cat "$tmp/plan")"
plan "$conf" "$tmp/out" GD_IMAGE_BASE_MAX_DAYS=soon
[ $rc = 1 ] || fail "GD_IMAGE_BASE_MAX_DAYS=soon accepted"
echo "ok: the image's sources from apt's configuration, the base's age"
