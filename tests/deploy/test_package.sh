#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The Debian package and the container image, end to end:
#  1. make-deb.sh builds the binary and source packages (debhelper);
#     lintian finds no error in either; the control fields a Debian
#     maintainer asks for (contrib/utils, the dlopened libraries as
#     Recommends, NVIDIA's NVML as Suggests, the maintainer);
#  2. in a scratch Debian 12 root (debootstrap, kept by make-image.sh) with
#     systemd and man-db: apt installs the package without its Recommends;
#     the installed binary runs `check --sim demo` (the installed examples)
#     as root and as nobody; export without libmicrohttpd says so (exit 3);
#     man finds the pages; systemd-analyze verify passes on the unit, which
#     is not enabled and is not restarted after exit 3; the exporter's unit
#     starts from its /etc/default file (its ExecStart as systemd expands
#     it); purge leaves the root as it was (file list);
#  3. make-image.sh builds the OCI image: its package list is written and
#     is the image's; nothing in it is older than bookworm-security and
#     bookworm-updates (apt, in the image's root, has nothing to upgrade);
#     no libxml2, ICU or translations; runc runs the exporter from it
#     (read-only root, as nobody), which serves a simulated node's metrics.
# Every process it starts ends with it (unshare --kill-child, runc delete).
# Needs root, network access to the Debian archive apt is configured with
# and the tools of scripts/install-deps.sh; skips (77) without them, fails
# under CI=true.
# Usage: test_package.sh SOURCE_DIR OUT_DIR
set -uo pipefail
src=$1 out=$2
skip() {
    local fix="make test-all installs it: sudo bash scripts/install-deps.sh deploy"
    case "$*" in "not root"*) fix="run it as root: sudo make test-all" ;; esac
    if [ "${CI:-}" = true ]; then
        echo "FAIL: $* ($fix; CI runs as root)" >&2
        exit 1
    fi
    echo "SKIP: $* ($fix)" >&2
    exit 77
}
fail() { echo "FAIL: $*" >&2; exit 1; }
[ "$(id -u)" = 0 ] || skip "not root: debootstrap and chroot need it"
for c in dpkg-buildpackage dh lintian debootstrap umoci runc unshare curl python3; do
    command -v "$c" >/dev/null || skip "$c is missing"
done
mkdir -p "$out"
t0=$(date +%s)
stage() { echo "[$(($(date +%s) - t0)) s] $*"; }

stage "make-deb.sh"
# GD_REUSE_DEB=1 takes the package already in OUT_DIR (when working on this test).
if [ "${GD_REUSE_DEB:-0}" = 1 ]; then
    deb=$(ls "$out"/gpudoctor_*_"$(dpkg --print-architecture)".deb | tail -n 1)
else
    deb=$(bash "$src/scripts/make-deb.sh" "$out" | tail -n 1) || fail "make-deb.sh failed"
fi
[ -f "$deb" ] || fail "no package: $deb"
dsc=${deb%_*}.dsc
[ -f "$dsc" ] || fail "no source package: $dsc"
stage "lintian $(basename "$deb") $(basename "$dsc")"
lintian --fail-on error "$deb" "$dsc" || fail "lintian found errors"
dpkg-deb -f "$deb" Depends | grep -q python3 && fail "the package depends on python3"
# What a Debian maintainer reviews: NVIDIA's non-free libraries make it
# contrib; the libraries that only some commands dlopen are Recommends.
field() { dpkg-deb -f "$deb" "$1" | tr -d '\n'; }
[ "$(field Section)" = contrib/utils ] || fail "Section is '$(field Section)', not contrib/utils"
for lib in libmicrohttpd12 libnghttp2-14 libexpat1; do
    field Depends | grep -q "$lib" && fail "$lib (dlopened by some commands only) is in Depends"
    field Recommends | grep -q "$lib" || fail "$lib is not in Recommends"
done
field Suggests | grep -q 'libnvidia-ml1' || fail "NVIDIA's NVML library (libnvidia-ml1) is not in Suggests"
field Maintainer | grep -q 'example\.\(org\|com\|net\)' && fail "the maintainer is a placeholder: $(field Maintainer)"
dpkg-deb --fsys-tarfile "$deb" | tar -xOf - ./usr/share/doc/gpudoctor/copyright | grep -qx "License: Apache-2.0" ||
    fail "debian/copyright does not name Apache-2.0"

stage "make-image.sh (debootstrap once, then the image)"
bash "$src/scripts/make-image.sh" "$out" >/dev/null || fail "make-image.sh failed"

tmp=$(mktemp -d "$out/test.XXXXXX")
# Stops a background in_root by its pid: unshare ignores SIGTERM while it
# waits, and its child, having changed user (--userspec), keeps no
# parent-death signal: the child (the exporter, pid 1 of its namespace,
# which handles SIGTERM) is stopped, then unshare is waited for.
stop_in_root() {
    local kids
    kids=$(cat /proc/"$1"/task/*/children 2>/dev/null)
    # shellcheck disable=SC2086 # one pid a word
    [ -z "$kids" ] || kill $kids 2>/dev/null
    for _ in $(seq 50); do kill -0 "$1" 2>/dev/null || break; sleep 0.1; done
    # shellcheck disable=SC2086
    [ -z "$kids" ] || kill -KILL $kids 2>/dev/null
    wait "$1" 2>/dev/null
    for k in $kids; do kill -0 "$k" 2>/dev/null && fail "process $k outlived its stop"; done
    return 0
}
exporter=
cleanup() {
    [ -z "$exporter" ] || stop_in_root "$exporter"
    runc delete --force gpudoctor-test-$$ >/dev/null 2>&1
    rm -rf "$tmp"
}
trap cleanup EXIT
in_root() { # in_root [chroot options] COMMAND...: /proc mounted, a clean environment
    unshare --mount --pid --kill-child --mount-proc="$tmp/root/proc" chroot "$@"
}
root=$tmp/root
mkdir -p "$root" && tar -C "$root" -xf "$out/debian-bookworm-minbase.tar"
run() { in_root "$root" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin DEBIAN_FRONTEND=noninteractive HOME=/root "$@"; }
stage "scratch root: systemd and man-db (the baseline)"
{ run apt-get -q update && run apt-get install -y -q --no-install-recommends systemd man-db; } >"$tmp/apt.log" 2>&1 ||
    { tail -n 20 "$tmp/apt.log"; fail "apt-get in the scratch root"; }
files() { # the root's files, without apt's and dpkg's own state and caches
    (cd "$root" && find . -xdev \( -path ./proc -o -path ./tmp -o -path ./run -o -path ./var/lib/dpkg -o -path ./var/lib/apt \
        -o -path ./var/cache -o -path ./var/log \) -prune -o -print | sort)
}
files >"$tmp/before"
cp "$deb" "$root/tmp/gpudoctor.deb"
stage "apt-get install --no-install-recommends ./$(basename "$deb")"
run apt-get install -y -q --no-install-recommends /tmp/gpudoctor.deb >"$tmp/apt.log" 2>&1 ||
    { tail -n 20 "$tmp/apt.log"; fail "the package does not install"; }
for f in /usr/bin/gpudoctor /usr/lib/gpudoctor/libnvidia-ml.so.1 /usr/lib/gpudoctor/libcuda.so.1 \
    /usr/sbin/gpudoctor-healthcheck /usr/sbin/gpudoctor-job-map /etc/default/gpudoctor-healthcheck /etc/default/gpudoctor-exporter \
    /lib/systemd/system/gpudoctor-exporter.service /usr/share/bash-completion/completions/gpudoctor \
    /usr/share/zsh/site-functions/_gpudoctor /usr/share/gpudoctor/nhc/gpudoctor.nhc \
    /usr/share/gpudoctor/node-problem-detector/gpudoctor-monitor.json /usr/share/gpudoctor/examples/demo.json; do
    [ -e "$root$f" ] || fail "$f is not installed"
done
[ "$(run man -w gpudoctor)" = /usr/share/man/man1/gpudoctor.1.gz ] || fail "man gpudoctor"
[ "$(run man -w gpudoctor-healthcheck)" = /usr/share/man/man8/gpudoctor-healthcheck.8.gz ] || fail "man gpudoctor-healthcheck"
[ "$(run man -w gpudoctor-job-map)" = /usr/share/man/man8/gpudoctor-job-map.8.gz ] || fail "man gpudoctor-job-map"
# The installed examples, by name, as `make run` runs the demo from the source.
rc=0
run gpudoctor check --sim demo --duration 1 >/dev/null || rc=$?
[ $rc = 2 ] || fail "the installed gpudoctor check --sim demo exited $rc, not 2"
rc=0
in_root --userspec=65534:65534 "$root" env -i PATH=/usr/bin:/bin HOME=/nonexistent \
    gpudoctor check --sim demo --duration 1 >/dev/null || rc=$?
[ $rc = 2 ] || fail "as nobody, check --sim demo exited $rc, not 2"
# Without its Recommends, export names what it lacks (exit 3); then they come.
rc=0
run gpudoctor export --sim demo --duration 1 >/dev/null 2>"$tmp/export.err" || rc=$?
[ $rc = 3 ] && grep -q libmicrohttpd "$tmp/export.err" || fail "export without libmicrohttpd: exit $rc, $(cat "$tmp/export.err")"
{ run apt-get install -y -q --no-install-recommends libmicrohttpd12 libnghttp2-14 &&
    run apt-mark auto libmicrohttpd12 libnghttp2-14; } >"$tmp/apt.log" 2>&1 ||
    { tail -n 20 "$tmp/apt.log"; fail "the Recommends do not install"; }
stage "systemd-analyze verify gpudoctor-exporter.service"
run systemd-analyze verify gpudoctor-exporter.service || fail "systemd-analyze verify"
# The unit's promises: an unprivileged user, read-only, restarts on failure,
# settings from /etc/default (systemd-analyze verify has read its syntax).
unit=$root/lib/systemd/system/gpudoctor-exporter.service
for p in DynamicUser=yes ProtectSystem=strict ProtectHome=yes Restart=on-failure RestartPreventExitStatus=3 \
    NoNewPrivileges=yes CapabilityBoundingSet= EnvironmentFile=-/etc/default/gpudoctor-exporter; do
    grep -qx -- "$p" "$unit" || fail "the unit lacks $p"
done
grep -q '^User=\|^PrivateDevices=yes' "$unit" && fail "the unit names a user or hides the GPUs' devices"
# Not enabled on install: 9400 is dcgm-exporter's port (docs/exporter.md).
[ -e "$root/etc/systemd/system/multi-user.target.wants/gpudoctor-exporter.service" ] &&
    fail "the unit is enabled on install"
[ "$(run systemctl is-enabled gpudoctor-exporter.service 2>/dev/null)" = disabled ] ||
    fail "systemctl is-enabled says '$(run systemctl is-enabled gpudoctor-exporter.service 2>&1)', not disabled"
# ExecStart as systemd expands it (${ADDRESS}:${PORT} one word, $OPTIONS split)
# from the /etc/default file, run as nobody: the exporter answers.
port=$(python3 "$src/tests/common/free_ports.py")
sed -i "s/^PORT=.*/PORT=$port/; s|^OPTIONS=.*|OPTIONS=\"--sim demo --interval 500\"|" "$root/etc/default/gpudoctor-exporter"
argv=$(python3 "$src/tests/deploy/unit_execstart.py" "$unit" "$root/etc/default/gpudoctor-exporter" | tr '\n' ' ')
case $argv in "/usr/bin/gpudoctor export --listen 127.0.0.1:$port --sim demo --interval 500 ") ;;
*) fail "ExecStart expands to '$argv'" ;; esac
# exec: $! is unshare's own pid (stop_in_root), not a subshell's.
# shellcheck disable=SC2086 # the words as systemd splits them
(exec unshare --mount --pid --kill-child --mount-proc="$tmp/root/proc" chroot --userspec=65534:65534 "$root" \
    env -i PATH=/usr/bin:/bin $argv) >"$tmp/exporter.log" 2>&1 &
exporter=$!
ok=0
for _ in $(seq 100); do
    curl -sf "http://127.0.0.1:$port/metrics" >"$tmp/metrics" 2>/dev/null && grep -q DCGM_FI_DEV_GPU_TEMP "$tmp/metrics" && ok=1 && break
    sleep 0.2
done
stop_in_root "$exporter"
exporter=
[ $ok = 1 ] || { cat "$tmp/exporter.log"; fail "the service's command served no metrics"; }

stage "dpkg --purge gpudoctor"
{ run dpkg --purge gpudoctor && run apt-get autoremove --purge -y -q; } >"$tmp/apt.log" 2>&1 ||
    { tail -n 20 "$tmp/apt.log"; fail "purge failed"; }
rm -f "$root/tmp/gpudoctor.deb"
files >"$tmp/after"
diff "$tmp/before" "$tmp/after" >"$tmp/diff" || { cat "$tmp/diff"; fail "purge left the root changed"; }

stage "the image's packages"
version=$(dpkg-deb -f "$deb" Version)
bundle=$tmp/bundle
umoci unpack --image "$out/oci:$version" "$bundle" >/dev/null || fail "umoci unpack"
image=$bundle/rootfs
# shellcheck disable=SC2016 # dpkg-query's own ${Field} names
chroot "$image" dpkg-query -W -f '${Package}\t${Version}\n' >"$tmp/image.packages" || fail "dpkg-query in the image"
cmp -s "$tmp/image.packages" "$out/gpudoctor-image-$version.packages" ||
    fail "make-image.sh's package list is not the image's: $(diff "$tmp/image.packages" "$out/gpudoctor-image-$version.packages" | head -5)"
grep -P '^(libxml2|libicu[0-9]*|locales)\t' "$tmp/image.packages" && fail "the image holds libxml2, ICU or locales"
grep -qP '^libmicrohttpd12\t' "$tmp/image.packages" || fail "the image has no libmicrohttpd (export)"
[ -z "$(find "$image/usr/share/locale" -type f 2>/dev/null | head -n 1)" ] || fail "the image holds translations"
for suite in bookworm-updates bookworm-security; do
    grep -q "^Suites:.* $suite\b\|^Suites: $suite\b" "$image/etc/apt/sources.list.d/debian.sources" ||
        fail "the image's sources lack $suite"
done
stage "image: $(du -sm "$image" | cut -f1) MB unpacked, $(wc -l <"$tmp/image.packages") packages"

stage "runc runs the exporter from the image"
port=$(python3 "$src/tests/common/free_ports.py")
python3 - "$bundle/config.json" "$src/examples" "$port" <<'PY' || fail "the image's config"
import json, sys
path, examples, port = sys.argv[1:]
c = json.load(open(path))
p = c["process"]
# The image runs `gpudoctor export --listen 0.0.0.0:9400` as nobody.
assert p["args"] == ["/usr/bin/gpudoctor", "export", "--listen", "0.0.0.0:9400"], p["args"]
assert p["user"]["uid"] == 65534, p["user"]
# As the DaemonSet runs it: read-only root; here on the host's loopback
# (no network namespace) with a simulated node mounted in.
p["args"] = ["/usr/bin/gpudoctor", "export", "--listen", "127.0.0.1:" + port, "--interval", "500",
             "--sim", "/scenarios/demo.json"]
p["terminal"] = False
c["root"]["readonly"] = True
c["linux"]["namespaces"] = [n for n in c["linux"]["namespaces"] if n["type"] != "network"]
c["mounts"].append({"destination": "/scenarios", "type": "bind", "source": examples, "options": ["rbind", "ro"]})
json.dump(c, open(path, "w"))
PY
runc run --bundle "$bundle" "gpudoctor-test-$$" >"$tmp/runc.log" 2>&1 &
ok=0
for _ in $(seq 150); do
    curl -sf "http://127.0.0.1:$port/metrics" >"$tmp/metrics" 2>/dev/null && grep -q 'gpudoctor_finding{' "$tmp/metrics" && ok=1 && break
    sleep 0.2
done
curl -sf "http://127.0.0.1:$port/healthz" >/dev/null || ok=0
runc kill "gpudoctor-test-$$" KILL >/dev/null 2>&1
wait
[ $ok = 1 ] || { cat "$tmp/runc.log"; fail "the exporter in the image served no metrics"; }

# After runc (whose root was read-only): apt in the image's root, from the
# sources it was built with, finds nothing newer in bookworm-security or
# bookworm-updates than what the image holds.
stage "the image against bookworm-security and bookworm-updates"
cp -L /etc/resolv.conf "$image/etc/resolv.conf"
img() { unshare --mount --pid --kill-child --mount-proc="$image/proc" chroot "$image" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin "$@"; }
img apt-get -q update >"$tmp/apt.log" 2>&1 || { tail -n 20 "$tmp/apt.log"; fail "apt-get update in the image's root"; }
img apt-get -s dist-upgrade >"$tmp/upgrade" 2>&1 || { cat "$tmp/upgrade"; fail "apt-get -s dist-upgrade in the image's root"; }
grep '^Inst ' "$tmp/upgrade" && fail "the image holds packages older than its suites' (above)"
grep -q '^0 upgraded, 0 newly installed' "$tmp/upgrade" || { cat "$tmp/upgrade"; fail "apt plans changes in the image"; }
stage "ok: packages (lintian binary and source, fields, install, man, unit, purge) and image (up to date, runc, metrics)"
