#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The exporter's container image for the Kubernetes DaemonSet
# (examples/kubernetes/gpudoctor-exporter.yaml), from Debian packages alone:
# a Debian 12 root filesystem made by debootstrap (minbase) from Debian's
# archive, gpudoctor's own package installed into it with apt, packed as an
# OCI image by umoci. No image registry is needed.
#   make-image.sh [OUT_DIR]    (default build-deb/; make deb first)
# Writes OUT_DIR/oci (an OCI image layout, tag VERSION) and
# OUT_DIR/gpudoctor-image-VERSION.tar (the same as one OCI archive, for
# `ctr images import`, `podman load` or `skopeo copy oci-archive:...`).
# The debootstrap root is kept in OUT_DIR/debian-bookworm-minbase.tar and
# reused. Needs root, debootstrap and umoci. GD_DEBIAN_MIRROR: another mirror.
set -euo pipefail
src=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
out=$(mkdir -p "${1:-$src/build-deb}" && cd "${1:-$src/build-deb}" && pwd)
mirror=${GD_DEBIAN_MIRROR:-http://deb.debian.org/debian}
version=$(dpkg-parsechangelog -l "$src/debian/changelog" -S Version)
deb=$out/gpudoctor_${version}_$(dpkg --print-architecture).deb
die() { echo "make-image: $*" >&2; exit 1; }
[ "$(id -u)" = 0 ] || die "needs root (debootstrap, chroot)"
for c in debootstrap umoci unshare; do command -v "$c" >/dev/null || die "$c is missing (scripts/install-deps.sh)"; done
[ -f "$deb" ] || die "no $deb: run make deb first"

work=$(mktemp -d "$out/image.XXXXXX")
trap 'rm -rf "$work"' EXIT
# chroot with /proc mounted in a mount namespace of its own, gone when it ends.
in_root() {
    local root=$1
    shift
    unshare --mount --pid --fork --mount-proc="$root/proc" chroot "$root" env -i \
        PATH=/usr/sbin:/usr/bin:/sbin:/bin DEBIAN_FRONTEND=noninteractive "$@"
}

base=$out/debian-bookworm-minbase.tar
if [ ! -f "$base" ]; then
    echo "make-image: debootstrap --variant=minbase bookworm from $mirror" >&2
    debootstrap --variant=minbase bookworm "$work/base" "$mirror" >"$work/debootstrap.log" 2>&1 ||
        { tail -n 20 "$work/debootstrap.log" >&2; die "debootstrap failed"; }
    tar -C "$work/base" -cf "$base.part" . && mv "$base.part" "$base"
    rm -rf "$work/base"
fi

root=$work/rootfs
mkdir -p "$root" && tar -C "$root" -xf "$base"
cp "$deb" "$root/tmp/gpudoctor.deb"
in_root "$root" apt-get -q update >"$work/apt.log" 2>&1 &&
    in_root "$root" apt-get install -y -q --no-install-recommends /tmp/gpudoctor.deb >>"$work/apt.log" 2>&1 ||
    { tail -n 20 "$work/apt.log" >&2; die "apt-get install of $deb failed"; }
# What a running exporter never needs: apt's lists and caches, the package.
in_root "$root" apt-get clean
rm -rf "$root"/var/lib/apt/lists/* "$root/tmp/gpudoctor.deb" "$root"/var/log/apt/* "$root"/var/log/dpkg.log

rm -rf "$out/oci"
umoci init --layout "$out/oci"
umoci new --image "$out/oci:$version"
umoci unpack --image "$out/oci:$version" "$work/bundle" >/dev/null
rm -rf "$work/bundle/rootfs" && mv "$root" "$work/bundle/rootfs"
umoci repack --image "$out/oci:$version" "$work/bundle"
# The DaemonSet's defaults; its manifest gives the arguments it runs with.
umoci config --image "$out/oci:$version" --config.entrypoint /usr/bin/gpudoctor \
    --config.cmd export --config.cmd --listen --config.cmd 0.0.0.0:9400 \
    --config.user 65534:65534 --config.exposedports 9400/tcp --config.workingdir / \
    --config.label "org.opencontainers.image.title=gpudoctor" \
    --config.label "org.opencontainers.image.version=$version" \
    --config.label "org.opencontainers.image.licenses=Apache-2.0"
umoci gc --layout "$out/oci"
tar -C "$out/oci" -cf "$out/gpudoctor-image-$version.tar" .
echo "$out/oci:$version"
