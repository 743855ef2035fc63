#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# scripts/install-deps.sh against stand-ins of apt-get, apt-cache,
# dpkg-query, deb-systemd-helper and update-rc.d (a copy of the script in a
# scratch tree, so nothing is installed and nothing lands in this checkout):
#   - `run` installs what building and running need, none of the tests'
#     components (Slurm, munge, Prometheus, Chromium, torch, clang ...);
#   - while apt installs, a policy-rc.d refuses every service start; it is
#     gone afterwards, and a site's own one is left as it was;
#   - the services of the packages it installed (and only those) are
#     disabled, SysV scripts too;
#   - NVIDIA's headers come through a private sources list naming the
#     archive apt is configured with (apt-get indextargets), never the
#     system's sources; libnccl2 is left out where this libc is too old;
#   - not root: the apt-get line, nothing installed.
# Usage: test_install_deps.sh scripts/install-deps.sh
set -u
script=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() {
    echo "FAIL: $*" >&2
    exit 1
}
fake=$tmp/fake
mkdir -p "$fake/bin" "$fake/files" "$tmp/tree/scripts"
cp "$script" "$tmp/tree/scripts/install-deps.sh"
export FAKE=$fake LOG=$fake/log STATE=$fake/installed
export GD_POLICY_RC_D=$fake/policy-rc.d

# Installed: `ii NAME` lines; files of a package: files/NAME.
cat >"$fake/bin/dpkg-query" <<'EOF'
#!/bin/sh
case "$*" in
*'db:Status-Abbrev'*) sed 's/^/ii  /' "$STATE" ;;
*'${Status}'*) for p; do :; done; grep -qx "$p" "$STATE" && printf 'install ok installed' || exit 1 ;;
*'${Version}'*) echo 2.36-9+deb12u9 ;;
-L*) cat "$FAKE/files/$2" 2>/dev/null ;;
*) exit 1 ;;
esac
EOF
# apt-get: logs each call; install asks policy-rc.d as invoke-rc.d would,
# and installs the packages and their dependencies (deps/NAME).
cat >"$fake/bin/apt-get" <<'EOF'
#!/bin/bash
echo "apt-get $*" >>"$LOG"
list=""
for a; do case $a in Dir::Etc::SourceList=*) list=${a#*=} ;; esac; done
case " $* " in
*" indextargets "*) [ -n "${FAKE_MIRROR:-}" ] && echo "$FAKE_MIRROR" ;;
*" update "*) [ -n "$list" ] && sed 's/^/sources: /' "$list" >>"$LOG" ;;
*" install "*)
    if [ -x "$GD_POLICY_RC_D" ]; then "$GD_POLICY_RC_D" munge start; echo "policy-rc.d says $?" >>"$LOG"
    else echo "policy-rc.d absent" >>"$LOG"; fi
    for a; do
        case $a in -* | install) continue ;; esac
        echo "$a" >>"$STATE"
        [ -f "$FAKE/deps/$a" ] && cat "$FAKE/deps/$a" >>"$STATE"
    done
    sort -u -o "$STATE" "$STATE" ;;
*" download "*)
    for a; do
        case $a in -* | download | *=*) continue ;; esac
        d=$(mktemp -d)
        case $a in
        libnccl-dev) mkdir -p "$d/usr/include"; echo nccl >"$d/usr/include/nccl.h" ;;
        libnccl2) mkdir -p "$d/usr/lib"; echo lib >"$d/usr/lib/libnccl.so.2.99.1" ;;
        libnvidia-ml-dev) mkdir -p "$d/usr/include"; echo nvml >"$d/usr/include/nvml.h" ;;
        esac
        mkdir -p "$d/DEBIAN"
        printf 'Package: %s\nVersion: 1\nArchitecture: all\nMaintainer: t <t@t>\nDescription: t\n' "$a" >"$d/DEBIAN/control"
        dpkg-deb -b "$d" "${a}_1_all.deb" >/dev/null || exit 1
        rm -rf "$d"
    done ;;
esac
exit 0
EOF
cat >"$fake/bin/apt-cache" <<'EOF'
#!/bin/sh
echo "apt-cache $*" >>"$LOG"
case " $* " in *" show libnccl2 "*) printf 'Package: libnccl2\nDepends: libc6 (>= %s), libgcc-s1\n' "${FAKE_NCCL_LIBC:-2.38}" ;; esac
EOF
printf '#!/bin/sh\necho "deb-systemd-helper $*" >>"$LOG"\n' >"$fake/bin/deb-systemd-helper"
printf '#!/bin/sh\necho "update-rc.d $*" >>"$LOG"\n' >"$fake/bin/update-rc.d"
printf '#!/bin/sh\n[ "$1" = -u ] && { echo "${FAKE_UID:-0}"; exit 0; }\nexec /usr/bin/id "$@"\n' >"$fake/bin/id"
chmod +x "$fake/bin/"*
mkdir -p "$fake/deps"
echo libmunge2 >"$fake/deps/munge"
echo prometheus-node-exporter >"$fake/deps/prometheus" # stands in for a daemon pulled by a dependency
printf '/lib/systemd/system/munge.service\n/etc/init.d/munge\n' >"$fake/files/munge"
printf '/usr/lib/systemd/system/slurmd.service\n/usr/lib/systemd/system/slurmd@.service\n' >"$fake/files/slurmd"
printf '/lib/systemd/system/prometheus.service\n' >"$fake/files/prometheus"
printf '/lib/systemd/system/prometheus-node-exporter.service\n/lib/systemd/system/prometheus-node-exporter-apt.timer\n' \
    >"$fake/files/prometheus-node-exporter"
printf '/lib/systemd/system/cron.service\n' >"$fake/files/cron"
export PATH="$fake/bin:$PATH"

run() { # MODE: runs the copy, its output in $fake/out
    bash "$tmp/tree/scripts/install-deps.sh" "$@" >"$fake/out" 2>&1
}
reset() {
    echo cron >"$STATE" # already installed, with a service of the site's
    : >"$LOG"
    rm -f "$GD_POLICY_RC_D"
    rm -rf "$tmp/tree/build"
}
installed_line() { grep '^apt-get .*install ' "$LOG"; }

# run: the build's and the binary's packages only.
reset
run run || fail "run mode failed: $(cat "$fake/out")"
line=$(installed_line) || fail "run mode installed nothing"
for p in build-essential cmake ninja-build libjansson-dev libmicrohttpd-dev libpci-dev; do
    echo " $line " | grep -q " $p " || fail "run mode does not install $p: $line"
done
for p in slurmd slurmctld munge prometheus chromium python3-torch clang lintian debootstrap umoci runc libcmocka-dev; do
    echo " $line " | grep -q " $p " && fail "run mode installs the test component $p: $line"
done
grep -q 'policy-rc.d says 101' "$LOG" || fail "no policy-rc.d refused starts during the install: $(cat "$LOG")"
[ ! -e "$GD_POLICY_RC_D" ] || fail "policy-rc.d left behind after the install"
grep -q 'indextargets\|download' "$LOG" && fail "run mode fetched NVIDIA's headers: $(cat "$LOG")"
[ ! -d "$tmp/tree/build" ] || fail "run mode wrote build/deps"

# test: the components too, no service of theirs left enabled; the site's own untouched.
reset
export FAKE_MIRROR=http://mirror.example/debian/
run test || fail "test mode failed: $(cat "$fake/out")"
line=$(installed_line)
for p in slurmd slurmctld munge prometheus chromium python3-torch libcmocka-dev; do
    echo " $line " | grep -q " $p " || fail "test mode does not install $p: $line"
done
for p in lintian debootstrap umoci runc; do
    echo " $line " | grep -q " $p " && fail "test mode installs the package tool $p: $line"
done
grep -q 'policy-rc.d says 101' "$LOG" || fail "no policy-rc.d refused starts during the test install"
[ ! -e "$GD_POLICY_RC_D" ] || fail "policy-rc.d left behind after the test install"
for u in munge.service slurmd.service prometheus.service prometheus-node-exporter.service \
    prometheus-node-exporter-apt.timer; do
    grep -qx "deb-systemd-helper disable $u" "$LOG" || fail "$u was not disabled: $(grep systemd "$LOG")"
done
grep -qx "update-rc.d munge disable" "$LOG" || fail "munge's SysV script was not disabled"
grep -q 'disable cron' "$LOG" && fail "the site's own cron.service was disabled"
grep -q 'disable slurmd@' "$LOG" && fail "a template unit was disabled"
# NVIDIA's headers: through a private list naming the configured mirror.
grep 'apt-get .* \(update\|download\)' "$LOG" | grep -v ' install ' | grep -v 'Dir::Etc::SourceList=/etc' |
    grep -q 'Dir::Etc::SourceList=' || fail "no private sources list for NVIDIA's packages: $(cat "$LOG")"
grep -q 'Dir::Etc::SourceList=/etc\|SourceList=/etc' "$LOG" && fail "the system's sources list was named"
grep -q '^sources: deb .*http://mirror.example/debian/ trixie contrib$' "$LOG" ||
    fail "NCCL not from the configured mirror's trixie contrib: $(grep sources "$LOG")"
grep -q '^sources: deb .*http://mirror.example/debian/ bookworm non-free$' "$LOG" ||
    fail "nvml.h not from the configured mirror's non-free: $(grep sources "$LOG")"
[ -f "$tmp/tree/build/deps/nccl/usr/include/nccl.h" ] || fail "nccl.h not unpacked: $(cat "$fake/out")"
[ -f "$tmp/tree/build/deps/nvml/usr/include/nvml.h" ] || fail "nvml.h not unpacked: $(cat "$fake/out")"
[ ! -e "$tmp/tree/build/deps/nccl/lib/libnccl.so.2" ] || fail "libnccl.so.2 fetched for a libc too old for it"
grep -q 'download .*libnccl2' "$LOG" && fail "libnccl2 downloaded for a libc too old for it"
grep -q 'needs libc6 >= 2.38' "$tmp/tree/build/deps/nccl/lib/libnccl.so.2.not-loadable" ||
    fail "no word of why libnccl.so.2 is missing"
# Where this libc is new enough, the library too.
reset
FAKE_NCCL_LIBC=2.30 run test || fail "test mode failed: $(cat "$fake/out")"
[ -f "$tmp/tree/build/deps/nccl/lib/libnccl.so.2" ] || fail "libnccl.so.2 not unpacked: $(cat "$fake/out")"
# No configured Debian archive: the headers are skipped with the reason, the install still passes.
reset
FAKE_MIRROR="" run test || fail "test mode failed without a Debian archive: $(cat "$fake/out")"
grep -q 'apt knows no Debian archive' "$fake/out" || fail "no reason given: $(cat "$fake/out")"

# A site's own policy-rc.d is theirs: left in place, unchanged.
reset
printf '#!/bin/sh\nexit 0 # the site allows\n' >"$GD_POLICY_RC_D"
chmod +x "$GD_POLICY_RC_D"
run run || fail "run mode failed with a site policy-rc.d"
grep -q 'the site allows' "$GD_POLICY_RC_D" || fail "the site's policy-rc.d was replaced or removed"

# deploy: the package tools too.
reset
run deploy || fail "deploy mode failed: $(cat "$fake/out")"
for p in lintian debootstrap umoci runc debhelper; do
    echo " $(installed_line) " | grep -q " $p " || fail "deploy mode does not install $p"
done

# Not root: the line to run, nothing installed.
reset
FAKE_UID=1000 run run && fail "not root, and missing packages: exit 0"
grep -q '^sudo apt-get install -y --no-install-recommends build-essential' "$fake/out" ||
    fail "no apt-get line for the user: $(cat "$fake/out")"
grep -q ' install ' "$LOG" && fail "installed without root"

# A mode it does not know.
run bogus
[ $? = 2 ] || fail "an unknown mode did not exit 2"
echo "install_deps: every case holds"
