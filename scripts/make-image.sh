#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The exporter's container image for the Kubernetes DaemonSet
# (examples/kubernetes/gpudoctor-exporter.yaml), from Debian packages alone:
# a Debian 12 root filesystem made by debootstrap (minbase), brought up to
# date from bookworm, bookworm-updates and bookworm-security, gpudoctor's own
# package installed into it with apt, packed as an OCI image by umoci. No
# image registry is needed.
#   make-image.sh [OUT_DIR]            (default build-deb/; make deb first)
#   make-image.sh --dry-run [OUT_DIR]  say the sources and whether the cached
#                                      base is refreshed; build nothing
# Writes OUT_DIR/oci (an OCI image layout, tag VERSION),
# OUT_DIR/gpudoctor-image-VERSION.tar (the same as one OCI archive, for
# `ctr images import`, `podman load` or `skopeo copy oci-archive:...`) and
# OUT_DIR/gpudoctor-image-VERSION.packages (each package of the image and
# its version, also printed).
#
# The archive is the one this machine's apt is configured with (`apt-get
# indextargets`: a site's mirror or proxy then works): the URI of its Debian
# archive (Label Debian) and of its security archive (Label
# Debian-Security), whatever release the machine runs; apt's proxy setting
# is passed on. GD_DEBIAN_MIRROR and GD_DEBIAN_SECURITY_MIRROR override them.
# The debootstrap root is kept in OUT_DIR/debian-bookworm-minbase.tar and
# made again when older than GD_IMAGE_BASE_MAX_DAYS (7); each image is
# upgraded from the three suites whatever the base's age.
# Needs root, debootstrap and umoci.
set -euo pipefail
dry_run=0
if [ "${1:-}" = --dry-run ]; then
    dry_run=1
    shift
fi
src=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
out=$(mkdir -p "${1:-$src/build-deb}" && cd "${1:-$src/build-deb}" && pwd)
release=bookworm
max_days=${GD_IMAGE_BASE_MAX_DAYS:-7}
version=$(dpkg-parsechangelog -l "$src/debian/changelog" -S Version)
deb=$out/gpudoctor_${version}_$(dpkg --print-architecture).deb
die() { echo "make-image: $*" >&2; exit 1; }
case $max_days in '' | *[!0-9]*) die "GD_IMAGE_BASE_MAX_DAYS wants whole days, not '$max_days'" ;; esac

# The configured URI of the Debian archive whose Release file has this Label
# (the one serving $release's own suite first); empty when none is.
# (Labels may hold spaces: "Debian Backports" is not "Debian".)
configured_uri() {
    # shellcheck disable=SC2016 # apt's own $(FIELD) names
    apt-get indextargets --format '$(TARGET_OF)|$(ORIGIN)|$(LABEL)|$(RELEASE)|$(REPO_URI)' 2>/dev/null |
        awk -F '|' -v label="$1" -v want="$2" '
            $1 == "deb" && $2 == "Debian" && $3 == label { if ($4 == want) { print $5; exit } if (!any) any = $5 }
            END { if (any) print any }' | head -n 1
}
archive=${GD_DEBIAN_MIRROR:-$(configured_uri Debian "$release")}
security=${GD_DEBIAN_SECURITY_MIRROR:-$(configured_uri Debian-Security "$release-security")}
[ -n "$archive" ] || die "apt's configured sources name no Debian archive (apt-get indextargets; run apt-get update first), or set GD_DEBIAN_MIRROR"
[ -n "$security" ] || die "apt's configured sources name no Debian security archive (Label Debian-Security; run apt-get update first), or set GD_DEBIAN_SECURITY_MIRROR"
archive=${archive%/} security=${security%/}
sources() { # the image's apt sources (deb822)
    printf 'Types: deb\nURIs: %s\nSuites: %s %s-updates\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n\n' \
        "$archive" "$release" "$release"
    printf 'Types: deb\nURIs: %s\nSuites: %s-security\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' \
        "$security" "$release"
}
# apt's own proxy settings, for debootstrap and the image's apt.
proxy='' https_proxy_apt=''
eval "$(apt-config shell proxy Acquire::http::Proxy https_proxy_apt Acquire::https::Proxy)"

base=$out/debian-$release-minbase.tar
refresh=1
if [ -f "$base" ]; then
    age_days=$((($(date +%s) - $(stat -c %Y "$base")) / 86400))
    [ "$age_days" -ge "$max_days" ] || refresh=0
    base_note="$age_days days old"
else
    base_note="none yet"
fi
if [ $dry_run = 1 ]; then
    echo "sources:"
    sources | sed 's/^/  /'
    [ -n "$proxy" ] && echo "proxy: $proxy"
    if [ $refresh = 1 ]; then
        echo "base: debootstrap again ($base_note, kept at most $max_days days)"
    else
        echo "base: reuse $base ($base_note, kept at most $max_days days)"
    fi
    exit 0
fi

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

if [ $refresh = 1 ]; then
    echo "make-image: debootstrap --variant=minbase $release from $archive (base: $base_note)" >&2
    http_proxy=$proxy https_proxy=$https_proxy_apt debootstrap --variant=minbase "$release" "$work/base" "$archive" \
        >"$work/debootstrap.log" 2>&1 || { tail -n 20 "$work/debootstrap.log" >&2; die "debootstrap failed"; }
    tar -C "$work/base" -cf "$base.part" . && mv "$base.part" "$base"
    rm -rf "$work/base"
fi

root=$work/rootfs
mkdir -p "$root" && tar -C "$root" -xf "$base"
# The three suites, from the same archives; apt's proxy while building only.
rm -f "$root/etc/apt/sources.list"
sources >"$root/etc/apt/sources.list.d/debian.sources"
{
    [ -z "$proxy" ] || printf 'Acquire::http::Proxy "%s";\n' "$proxy"
    [ -z "$https_proxy_apt" ] || printf 'Acquire::https::Proxy "%s";\n' "$https_proxy_apt"
} >"$root/etc/apt/apt.conf.d/00gpudoctor-image-proxy"
# Translations, manuals and documentation (the licences kept) are never read
# in the container: dpkg leaves them out, and those of the base go.
cat >"$root/etc/dpkg/dpkg.cfg.d/gpudoctor-image" <<'EOF'
# gpudoctor's image: no translations, manuals or documentation but the licences.
path-exclude=/usr/share/locale/*
path-exclude=/usr/share/man/*
path-exclude=/usr/share/info/*
path-exclude=/usr/share/doc/*
path-include=/usr/share/doc/*/copyright
EOF
find "$root/usr/share/locale" "$root/usr/share/man" "$root/usr/share/info" -mindepth 1 -delete 2>/dev/null || true
find "$root/usr/share/doc" -type f ! -name copyright -delete
cp "$deb" "$root/tmp/gpudoctor.deb"
cp -L /etc/resolv.conf "$root/etc/resolv.conf" # this machine's, as debootstrap's was
# The exporter's libraries are the package's Recommends (export and its pod
# labels); the XML import's libexpat is left out.
{ in_root "$root" apt-get -q update &&
    in_root "$root" apt-get -y -q --no-install-recommends dist-upgrade &&
    in_root "$root" apt-get install -y -q --no-install-recommends /tmp/gpudoctor.deb libmicrohttpd12 libnghttp2-14 &&
    in_root "$root" apt-get -y -q autoremove --purge; } >"$work/apt.log" 2>&1 ||
    { tail -n 20 "$work/apt.log" >&2; die "apt-get in the image root failed"; }
packages=$out/gpudoctor-image-$version.packages
# shellcheck disable=SC2016 # dpkg-query's own ${Field} names
in_root "$root" dpkg-query -W -f '${Package}\t${Version}\n' >"$packages"
# What a running exporter never needs: apt's lists and caches, the package.
in_root "$root" apt-get clean
rm -rf "$root"/var/lib/apt/lists/* "$root/tmp/gpudoctor.deb" "$root"/var/log/apt/* "$root"/var/log/dpkg.log \
    "$root/etc/apt/apt.conf.d/00gpudoctor-image-proxy"

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
    --config.label "org.opencontainers.image.licenses=Apache-2.0" \
    --config.label "org.opencontainers.image.base.name=debian:$release"
umoci gc --layout "$out/oci"
tar -C "$out/oci" -cf "$out/gpudoctor-image-$version.tar" .
echo "make-image: $(wc -l <"$packages") packages (Debian $release, -updates, -security), their versions:" >&2
awk -F '\t' '{ printf "  %-36s %s\n", $1, $2 }' "$packages" >&2
echo "make-image: the list is $packages" >&2
echo "$out/oci:$version"
