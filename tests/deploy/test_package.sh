#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The Debian package and the container image, end to end:
#  1. make-deb.sh builds the package (debhelper); lintian finds no error;
#  2. in a scratch Debian 12 root (debootstrap, kept by make-image.sh) with
#     systemd and man-db: apt installs the package; the installed binary
#     runs `check --sim` from its installed paths, as root and as nobody;
#     man finds both pages; systemd-analyze verify passes on the unit; the
#     exporter's unit starts from its /etc/default file (its ExecStart run as
#     systemd would expand it); purge leaves the root as it was (file list);
#  3. make-image.sh builds the OCI image, and runc runs the exporter from it
#     (read-only root, as nobody), which serves a simulated node's metrics.
# Needs root, network access to Debian's archive and the tools of
# scripts/install-deps.sh; skips (77) without them, fails under CI=true.
# Usage: test_package.sh SOURCE_DIR OUT_DIR
set -uo pipefail
src=$1 out=$2
skip() {
    if [ "${CI:-}" = true ]; then
        echo "FAIL: $* (scripts/install-deps.sh installs it; CI runs as root)" >&2
        exit 1
    fi
    echo "SKIP: $*" >&2
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
stage "lintian $(basename "$deb")"
lintian --fail-on error "$deb" || fail "lintian found errors"
dpkg-deb -f "$deb" Depends | grep -q python3 && fail "the package depends on python3"
dpkg-deb --fsys-tarfile "$deb" | tar -xOf - ./usr/share/doc/gpudoctor/copyright | grep -qx "License: Apache-2.0" ||
    fail "debian/copyright does not name Apache-2.0"

stage "make-image.sh (debootstrap once, then the image)"
bash "$src/scripts/make-image.sh" "$out" >/dev/null || fail "make-image.sh failed"

tmp=$(mktemp -d "$out/test.XXXXXX")
cleanup() {
    runc delete --force gpudoctor-test-$$ >/dev/null 2>&1
    rm -rf "$tmp"
}
trap cleanup EXIT
in_root() { # in_root [chroot options] COMMAND...: /proc mounted, a clean environment
    unshare --mount --pid --fork --mount-proc="$tmp/root/proc" chroot "$@"
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
cp "$src/examples/demo.json" "$root/tmp/demo.json"
stage "apt-get install ./$(basename "$deb")"
run apt-get install -y -q --no-install-recommends /tmp/gpudoctor.deb >"$tmp/apt.log" 2>&1 ||
    { tail -n 20 "$tmp/apt.log"; fail "the package does not install"; }
for f in /usr/bin/gpudoctor /usr/lib/gpudoctor/libnvidia-ml.so.1 /usr/lib/gpudoctor/libcuda.so.1 \
    /usr/sbin/gpudoctor-healthcheck /usr/sbin/gpudoctor-job-map /etc/default/gpudoctor-healthcheck /etc/default/gpudoctor-exporter \
    /lib/systemd/system/gpudoctor-exporter.service /usr/share/bash-completion/completions/gpudoctor \
    /usr/share/zsh/site-functions/_gpudoctor /usr/share/gpudoctor/nhc/gpudoctor.nhc \
    /usr/share/gpudoctor/node-problem-detector/gpudoctor-monitor.json; do
    [ -e "$root$f" ] || fail "$f is not installed"
done
[ "$(run man -w gpudoctor)" = /usr/share/man/man1/gpudoctor.1.gz ] || fail "man gpudoctor"
[ "$(run man -w gpudoctor-healthcheck)" = /usr/share/man/man8/gpudoctor-healthcheck.8.gz ] || fail "man gpudoctor-healthcheck"
[ "$(run man -w gpudoctor-job-map)" = /usr/share/man/man8/gpudoctor-job-map.8.gz ] || fail "man gpudoctor-job-map"
rc=0
run gpudoctor check --sim /tmp/demo.json --duration 1 >/dev/null || rc=$?
[ $rc = 2 ] || fail "the installed gpudoctor check --sim exited $rc, not 2"
rc=0
in_root --userspec=65534:65534 "$root" env -i PATH=/usr/bin:/bin HOME=/nonexistent \
    gpudoctor check --sim /tmp/demo.json --duration 1 >/dev/null || rc=$?
[ $rc = 2 ] || fail "as nobody, check --sim exited $rc, not 2"
stage "systemd-analyze verify gpudoctor-exporter.service"
run systemd-analyze verify gpudoctor-exporter.service || fail "systemd-analyze verify"
# The unit's promises: an unprivileged user, read-only, restarts on failure,
# settings from /etc/default (systemd-analyze verify has read its syntax).
unit=$root/lib/systemd/system/gpudoctor-exporter.service
for p in DynamicUser=yes ProtectSystem=strict ProtectHome=yes Restart=on-failure NoNewPrivileges=yes \
    CapabilityBoundingSet= EnvironmentFile=-/etc/default/gpudoctor-exporter; do
    grep -qx -- "$p" "$unit" || fail "the unit lacks $p"
done
grep -q '^User=\|^PrivateDevices=yes' "$unit" && fail "the unit names a user or hides the GPUs' devices"
[ -L "$root/etc/systemd/system/multi-user.target.wants/gpudoctor-exporter.service" ] || fail "the unit is not enabled"
# ExecStart as systemd expands it (${ADDRESS}:${PORT} one word, $OPTIONS split)
# from the /etc/default file, run as nobody: the exporter answers.
port=$(python3 "$src/tests/common/free_ports.py")
sed -i "s/^PORT=.*/PORT=$port/; s|^OPTIONS=.*|OPTIONS=\"--sim /tmp/demo.json --interval 500\"|" "$root/etc/default/gpudoctor-exporter"
cmd=$(sed -n 's/^ExecStart=//p' "$root/lib/systemd/system/gpudoctor-exporter.service")
argv=$(set -a && . "$root/etc/default/gpudoctor-exporter" && python3 - "$cmd" <<'PY'
import os, re, sys
words = []
for w in sys.argv[1].split():
    m = re.fullmatch(r"\$([A-Za-z_]+)", w)
    if m:
        words += os.environ.get(m.group(1), "").split()
    else:
        words.append(re.sub(r"\$\{([A-Za-z_]+)\}", lambda g: os.environ.get(g.group(1), ""), w))
print(" ".join(words))
PY
)
case $argv in "/usr/bin/gpudoctor export --listen 127.0.0.1:$port --sim /tmp/demo.json --interval 500") ;;
*) fail "ExecStart expands to '$argv'" ;; esac
# shellcheck disable=SC2086 # the words as systemd splits them
in_root --userspec=65534:65534 "$root" env -i PATH=/usr/bin:/bin $argv >"$tmp/exporter.log" 2>&1 &
exporter=$!
ok=0
for _ in $(seq 100); do
    curl -sf "http://127.0.0.1:$port/metrics" >"$tmp/metrics" 2>/dev/null && grep -q DCGM_FI_DEV_GPU_TEMP "$tmp/metrics" && ok=1 && break
    sleep 0.2
done
kill "$exporter" 2>/dev/null
wait "$exporter" 2>/dev/null
[ $ok = 1 ] || { cat "$tmp/exporter.log"; fail "the service's command served no metrics"; }

stage "dpkg --purge gpudoctor"
{ run dpkg --purge gpudoctor && run apt-get autoremove --purge -y -q; } >"$tmp/apt.log" 2>&1 ||
    { tail -n 20 "$tmp/apt.log"; fail "purge failed"; }
rm -f "$root/tmp/gpudoctor.deb" "$root/tmp/demo.json"
files >"$tmp/after"
diff "$tmp/before" "$tmp/after" >"$tmp/diff" || { cat "$tmp/diff"; fail "purge left the root changed"; }

stage "runc runs the exporter from the image"
bundle=$tmp/bundle
umoci unpack --image "$out/oci:$(dpkg-deb -f "$deb" Version)" "$bundle" >/dev/null || fail "umoci unpack"
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
stage "ok: package (lintian, install, man, unit, purge) and image (runc, metrics)"
