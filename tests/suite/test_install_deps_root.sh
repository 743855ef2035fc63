#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# scripts/install-deps.sh for real, in a scratch Debian 12 root (debootstrap
# minbase, with systemd's tools as on a server; the archive is the one this
# machine's apt is configured with):
#   - the README's first command, as a new user types it with make installed
#     and no CUDA toolkit: `make run` installs, builds and runs the demo,
#     and installs none of the test components (Slurm, munge, Prometheus,
#     Chromium, torch, clang, cmocka) and no apt source;
#   - munge, a daemon of the test packages, installed the script's way
#     (install_packages): munged is not running after the install, and
#     `systemctl is-enabled munge` is not "enabled";
#   - the baseline: the same package by a plain apt-get install is enabled
#     (so the check above can tell; whether munged starts in a root with no
#     init is up to its script, and the policy-rc.d that stops it is held by
#     the install_deps test);
#   - nvml.h fetched through the script's private sources list: the root's
#     /etc/apt and /var/lib/apt/lists are as they were.
# Needs root, debootstrap, unshare and the network (the deploy label).
# Usage: test_install_deps_root.sh SOURCE_DIR WORK_DIR
set -u
src=$1
out=$2
skip() {
    if [ "${CI:-}" = true ]; then
        echo "FAIL: $* (CI runs as root with the deploy packages: sudo bash scripts/install-deps.sh deploy)" >&2
        exit 1
    fi
    echo "SKIP: $*" >&2
    exit 77
}
fail() {
    echo "FAIL: $*" >&2
    exit 1
}
[ "$(id -u)" = 0 ] || skip "not root: debootstrap and chroot need it: sudo make test-all"
for c in debootstrap unshare chroot; do
    command -v "$c" >/dev/null || skip "$c is missing: sudo bash scripts/install-deps.sh deploy installs it"
done
mkdir -p "$out"
t0=$(date +%s)
stage() { echo "[$(($(date +%s) - t0)) s] $*"; }

# The Debian 12 base, shared with make-image.sh (the same file, made the
# same way) where it was made already.
base=$out/debian-bookworm-minbase.tar
if [ ! -f "$base" ]; then
    # shellcheck disable=SC2016 # $(REPO_URI) is apt's field, not the shell's
    mirror=$(apt-get indextargets --format '$(REPO_URI)' 'Identifier: Packages' 'Origin: Debian' \
        'Codename: bookworm' 'Component: main' 2>/dev/null | head -n 1)
    [ -n "$mirror" ] || skip "apt knows no Debian 12 archive here (apt-get indextargets) to debootstrap from"
    stage "debootstrap --variant=minbase bookworm from $mirror"
    work=$(mktemp -d "$out/base.XXXXXX")
    debootstrap --variant=minbase bookworm "$work/root" "$mirror" >"$work/log" 2>&1 ||
        { tail -n 20 "$work/log"; rm -rf "$work"; fail "debootstrap failed"; }
    tar -C "$work/root" -cf "$base.part" . && mv "$base.part" "$base"
    rm -rf "$work"
fi

tmp=$(mktemp -d "$out/deps.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
root=$tmp/root
mkdir -p "$root" && tar -C "$root" -xf "$base"
# The working tree as git knows it (tracked and untracked, not ignored).
mkdir -p "$root/src"
(cd "$src" && git ls-files -co --exclude-standard -z | tar -cf - --null --no-recursion -T -) | tar -C "$root/src" -xf - ||
    fail "cannot copy the source tree"
# Each call: its own pid namespace (what it started ends with it), /proc of
# that namespace, /dev of the host, a clean environment.
run() {
    unshare --mount --pid --fork --mount-proc="$root/proc" \
        sh -c 'mount --bind /dev "$0/dev" && exec chroot "$0" "$@"' "$root" \
        env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin DEBIAN_FRONTEND=noninteractive HOME=/root "$@"
}
# Prints RUNNING when a munged process runs in the namespace.
running='for c in /proc/[0-9]*/comm; do cat "$c" 2>/dev/null; done | grep -qx munged && echo RUNNING || echo STOPPED'

stage "scratch root: systemd's tools"
{ run apt-get -q update && run apt-get install -y -q --no-install-recommends systemd; } >"$tmp/apt.log" 2>&1 ||
    { tail -n 20 "$tmp/apt.log"; fail "apt-get in the scratch root"; }

stage "make run, as a new user types it"
apt_sources() { (cd "$root" && find etc/apt -name '*.list' -o -name '*.sources' | sort | xargs sha256sum); }
apt_sources >"$tmp/sources.before"
run apt-get install -y -q --no-install-recommends make >"$tmp/make.log" 2>&1 || { tail -n 20 "$tmp/make.log"; fail "apt-get install make"; }
run sh -c 'cd /src && make run' >"$tmp/run.log" 2>&1 || { tail -n 40 "$tmp/run.log"; fail "make run failed in a fresh Debian 12 root"; }
grep -q 'running the bundled demo scenario' "$tmp/run.log" || { tail -n 20 "$tmp/run.log"; fail "make run did not run the demo"; }
grep -q 'Verdict' "$tmp/run.log" || { tail -n 20 "$tmp/run.log"; fail "make run printed no verdict"; }
for p in slurmd slurmctld munge prometheus chromium python3-torch clang libcmocka-dev lintian runc; do
    run dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' && fail "make run installed $p"
done
apt_sources >"$tmp/sources.after"
diff "$tmp/sources.before" "$tmp/sources.after" >&2 || fail "make run changed the apt sources"
grep -E '^(Need to get|After this operation)|Verdict' "$tmp/run.log"
echo "make run: $(run dpkg-query -W -f='${db:Status-Abbrev}\n' | grep -c '^ii') packages in the root, none of the tests'"
rm -rf "$root/src/build"

stage "munge through install-deps.sh"
state=$(run bash -c ". /src/scripts/install-deps.sh && install_packages munge >/var/tmp/install.log 2>&1 && $running") ||
    { tail -n 20 "$root/var/tmp/install.log"; fail "install_packages munge failed"; }
[ "$state" = STOPPED ] || fail "munged runs after install-deps.sh installed munge: $(tail -n 5 "$root/var/tmp/install.log")"
enabled=$(run systemctl is-enabled munge.service 2>&1)
[ "$enabled" != enabled ] || fail "install-deps.sh left munge.service enabled"
[ ! -e "$root/usr/sbin/policy-rc.d" ] || fail "install-deps.sh left its policy-rc.d in place"
ls "$root"/etc/rc[2-5].d/S*munge >/dev/null 2>&1 && fail "munge's SysV script still starts at boot"
echo "install-deps.sh: munged not started, munge.service $enabled"

stage "the baseline: munge by a plain apt-get install"
run apt-get purge -y -q munge >"$tmp/purge.log" 2>&1 || { tail -n 20 "$tmp/purge.log"; fail "apt-get purge munge"; }
state=$(run bash -c "apt-get install -y -q --no-install-recommends munge >/var/tmp/plain.log 2>&1 && $running") ||
    { tail -n 20 "$root/var/tmp/plain.log"; fail "apt-get install munge failed"; }
base_enabled=$(run systemctl is-enabled munge.service 2>&1)
echo "plain apt-get: munged $state, munge.service $base_enabled"
[ "$base_enabled" = enabled ] ||
    fail "a plain apt-get install does not enable munge ($base_enabled): the check above proves nothing"

stage "nvml.h through the private sources list"
snapshot() { (cd "$root" && find etc/apt var/lib/apt/lists -type f -exec sha256sum {} + | sort -k 2); }
snapshot >"$tmp/before"
run bash -c ". /src/scripts/install-deps.sh && fetch_nvml_header" >"$tmp/nvml.log" 2>&1 ||
    { cat "$tmp/nvml.log"; fail "fetch_nvml_header failed in the scratch root"; }
[ -f "$root/src/build/deps/nvml/usr/include/nvml.h" ] || fail "no nvml.h: $(cat "$tmp/nvml.log")"
snapshot >"$tmp/after"
diff "$tmp/before" "$tmp/after" >&2 || fail "fetching nvml.h changed the root's apt sources or lists"
stage "every case holds"
