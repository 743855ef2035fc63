#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Installs what gpudoctor needs to build and test on Debian 12, and fetches
# NVIDIA's nvml.h for the ABI test. Idempotent: run it as often as you like.
#
#   sudo bash scripts/install-deps.sh
#
# nvml.h comes from Debian's non-free package libnvidia-ml-dev, which is
# downloaded and unpacked into build/deps/nvml/ but never installed:
# installing it would pull in libnvidia-ml1, a real driver library that would
# change how this machine behaves. Without the header, the NVML ABI
# comparison is skipped; nothing else depends on it.
#
# nccl.h and libnccl.so.2 come the same way from Debian's contrib packages
# libnccl-dev and libnccl2 (trixie: bookworm has none), unpacked into
# build/deps/nccl/ and never installed: the ABI test compares nccl_api.h with
# the header, and the loader's test opens the real library where this
# system's glibc can load it. Each .deb is checked against the archive's
# signed index (InRelease, verified with debian-archive-keyring, then the
# Packages file's SHA256) before it is unpacked.
set -euo pipefail

# Debian packages needed to build and test. Add to this list as needed.
PACKAGES=(
    build-essential
    cmake
    ninja-build
    pkg-config
    libjansson-dev
    libcmocka-dev
    libxml2-dev
    libinih-dev # the config file (src/cli/cli_config.c)
    libncurses-dev  # the live view of gpudoctor watch
    tmux            # the tests drive that view in a detached tmux session
    clang
    libclang-rt-dev # libFuzzer and the sanitizer runtimes for clang (only recommended by clang)
    libisal-dev     # gpudoctor trace: isa-l's igzip inflates .json.gz traces (zlib is the fallback)
    zlib1g-dev      # gpudoctor trace: the gzip fallback where isa-l is missing
    libmicrohttpd-dev # gpudoctor export: the HTTP server of /metrics
    libnghttp2-dev  # gpudoctor export: HTTP/2 (gRPC) to the kubelet's pod-resources socket (opened with dlopen)
    libpci-dev      # GPU names from the PCI id database for lspci captures (libpci, opened with dlopen)
    pci.ids         # ... the database itself (/usr/share/misc/pci.ids)
    python3-grpcio  # the exporter's pod-label test: a fake kubelet, a real gRPC server
    python3-protobuf # ... its messages
    protobuf-compiler # ... compiled by protoc from tests/exporter/k8s/podresources.proto
    prometheus      # the exporter tests: the real Prometheus scrapes it (and promtool lints it)
    wrk             # the exporter's load test
    python3         # the exporter tests query Prometheus' HTTP API
    python3-yaml    # ... and read the Kubernetes example
    yamllint        # the Kubernetes example is valid YAML
    munge           # the Slurm test: a real single-node cluster (tests/slurm)
    slurmctld       # ... its controller
    slurmd          # ... its node daemon, which runs the health check
    slurm-client    # ... sinfo, scontrol, srun
    libyajl-dev     # bench_trace only: yajl's tokenizer, measured against ours (bench/README.md)
    chromium        # the HTML report's tests open it in a real browser, headless (docs/report.md)
    libpng-dev      # ... and decode its screenshots
    python3-torch   # the real DataLoader jobs of tests/e2e/test_e2e_job.c (CPU build; Skipped without it)
    stress-ng       # load beside the suite: it passes on a busy machine (README.md, Tests)
    debhelper       # make deb: the Debian package (debian/)
    lintian         # ... checked by tests/deploy/test_package.sh
    debootstrap     # make image: a Debian root filesystem from Debian's archive
    umoci           # ... packed as an OCI image
    runc            # ... which the package test runs the exporter from
    curl            # ... and scrapes; NCCL's .debs are fetched with it (fetch_nccl below)
    gpgv            # ... and checked against Debian's signed index
    debian-archive-keyring # ... with its keys
)

# The non-free package whose nvml.h the ABI test compares against.
NVML_DEV_PACKAGE=libnvidia-ml-dev

repo_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
nvml_dir="$repo_root/build/deps/nvml"
nvml_header="$nvml_dir/usr/include/nvml.h"

log() { printf 'install-deps: %s\n' "$*" >&2; }

is_root() { [ "$(id -u)" -eq 0 ]; }

missing_packages() {
    local p
    for p in "${PACKAGES[@]}"; do
        if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q '^install ok installed$'; then
            printf '%s\n' "$p"
        fi
    done
}

install_packages() {
    local missing
    mapfile -t missing < <(missing_packages)
    if [ "${#missing[@]}" -eq 0 ]; then
        log "all ${#PACKAGES[@]} packages are installed"
        return 0
    fi
    if ! is_root; then
        log "missing packages: ${missing[*]}"
        echo "sudo apt-get install -y --no-install-recommends ${missing[*]}"
        exit 1
    fi
    log "installing: ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update
    apt-get install -y --no-install-recommends "${missing[@]}"
}

# Whether apt knows a candidate version of the package.
has_candidate() {
    local candidate
    candidate=$(apt-cache policy "$1" 2>/dev/null | awk '/Candidate:/ {print $2}')
    [ -n "$candidate" ] && [ "$candidate" != "(none)" ]
}

# Adds Debian's non-free and contrib components for this release.
enable_nonfree() {
    local codename list=/etc/apt/sources.list.d/gpudoctor-nonfree.sources
    # shellcheck disable=SC1091 # the system's release file
    codename=$(. /etc/os-release && printf '%s' "${VERSION_CODENAME:-}")
    if [ -z "$codename" ]; then
        log "cannot tell the Debian release from /etc/os-release"
        return 1
    fi
    log "enabling Debian non-free for $codename in $list"
    cat >"$list" <<EOF
Types: deb
URIs: http://deb.debian.org/debian
Suites: $codename
Components: non-free contrib
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
    apt-get update
}

# Downloads libnvidia-ml-dev and unpacks only its header. Never fails the
# script: prints why and returns non-zero instead.
fetch_nvml_header() {
    if [ -f "$nvml_header" ]; then
        log "nvml.h already at $nvml_header"
        return 0
    fi
    if ! command -v apt-get >/dev/null || ! command -v dpkg-deb >/dev/null; then
        log "no apt-get/dpkg-deb here; cannot fetch nvml.h"
        return 1
    fi
    if ! has_candidate "$NVML_DEV_PACKAGE"; then
        if ! is_root; then
            log "$NVML_DEV_PACKAGE is not available (Debian non-free not enabled); run as root to enable it"
            return 1
        fi
        enable_nonfree || return 1
        has_candidate "$NVML_DEV_PACKAGE" || {
            log "$NVML_DEV_PACKAGE still has no candidate"
            return 1
        }
    fi
    local tmp deb
    tmp=$(mktemp -d)
    # As root, apt would hand the download to its _apt user, which cannot
    # write a mktemp directory; APT::Sandbox::User=root keeps it as root.
    (cd "$tmp" && apt-get download -o APT::Sandbox::User=root "$NVML_DEV_PACKAGE" >&2) || {
        log "apt-get download $NVML_DEV_PACKAGE failed"
        rm -rf "$tmp"
        return 1
    }
    deb=$(find "$tmp" -maxdepth 1 -name '*.deb' -print -quit)
    mkdir -p "$tmp/x"
    if [ -z "$deb" ] || ! dpkg-deb -x "$deb" "$tmp/x" || [ ! -f "$tmp/x/usr/include/nvml.h" ]; then
        log "could not unpack nvml.h from $NVML_DEV_PACKAGE"
        rm -rf "$tmp"
        return 1
    fi
    mkdir -p "$(dirname "$nvml_header")"
    cp "$tmp/x/usr/include/nvml.h" "$nvml_header"
    rm -rf "$tmp"
    log "nvml.h unpacked to $nvml_header"
}

# NCCL's Debian release and packages (contrib).
NCCL_SUITE=trixie
NCCL_PACKAGES=(libnccl-dev libnccl2)
NCCL_ARCHIVE=http://deb.debian.org/debian
nccl_dir="$repo_root/build/deps/nccl"
nccl_header="$nccl_dir/usr/include/nccl.h"
nccl_library="$nccl_dir/lib/libnccl.so.2"

# Downloads libnccl-dev and libnccl2 from Debian's archive, each checked
# against the signed index, and unpacks nccl.h and libnccl.so.2. Never fails
# the script: prints why and returns non-zero instead.
fetch_nccl() {
    if [ -f "$nccl_header" ] && [ -f "$nccl_library" ]; then
        log "nccl.h and libnccl.so.2 already in $nccl_dir"
        return 0
    fi
    local tool
    for tool in curl gpgv dpkg-deb sha256sum gzip; do
        command -v "$tool" >/dev/null || { log "no $tool here; cannot fetch NCCL"; return 1; }
    done
    local keyring=/usr/share/keyrings/debian-archive-keyring.gpg arch tmp
    [ -f "$keyring" ] || { log "no $keyring (debian-archive-keyring); cannot check NCCL's packages"; return 1; }
    arch=$(dpkg --print-architecture)
    tmp=$(mktemp -d)
    # The suite's signed index names the Packages file's hash...
    if ! curl -fsS -o "$tmp/InRelease" "$NCCL_ARCHIVE/dists/$NCCL_SUITE/InRelease" ||
        ! gpgv --keyring "$keyring" --output "$tmp/Release" "$tmp/InRelease" 2>/dev/null; then
        log "cannot fetch or verify $NCCL_SUITE's InRelease"
        rm -rf "$tmp"
        return 1
    fi
    local index="contrib/binary-$arch/Packages.gz" want got
    want=$(awk -v f="$index" '/^SHA256:/ {s = 1; next} /^[^ ]/ {s = 0} s && $3 == f {print $1}' "$tmp/Release")
    if ! curl -fsS -o "$tmp/Packages.gz" "$NCCL_ARCHIVE/dists/$NCCL_SUITE/$index"; then
        log "cannot fetch $index"
        rm -rf "$tmp"
        return 1
    fi
    got=$(sha256sum "$tmp/Packages.gz" | cut -d' ' -f1)
    if [ -z "$want" ] || [ "$want" != "$got" ]; then
        log "$index does not match the signed index"
        rm -rf "$tmp"
        return 1
    fi
    # ... and the Packages file each .deb's path and hash.
    gzip -dc "$tmp/Packages.gz" >"$tmp/Packages"
    local pkg filename sum
    mkdir -p "$tmp/x"
    for pkg in "${NCCL_PACKAGES[@]}"; do
        read -r filename sum < <(awk -v p="$pkg" '
            /^Package: / {hit = ($2 == p); next}
            hit && /^Filename: / {f = $2} hit && /^SHA256: / {s = $2}
            /^$/ && hit && f {print f, s; exit}' "$tmp/Packages")
        if [ -z "${filename:-}" ] || ! curl -fsS -o "$tmp/$pkg.deb" "$NCCL_ARCHIVE/$filename" ||
            [ "$(sha256sum "$tmp/$pkg.deb" | cut -d' ' -f1)" != "$sum" ] || ! dpkg-deb -x "$tmp/$pkg.deb" "$tmp/x"; then
            log "cannot fetch, check or unpack $pkg from $NCCL_SUITE"
            rm -rf "$tmp"
            return 1
        fi
        rm -f "$tmp/$pkg.deb"
    done
    local lib
    lib=$(find "$tmp/x" -name 'libnccl.so.2.*' -type f -print -quit)
    if [ ! -f "$tmp/x/usr/include/nccl.h" ] || [ -z "$lib" ]; then
        log "the packages hold no nccl.h or libnccl.so.2"
        rm -rf "$tmp"
        return 1
    fi
    mkdir -p "$(dirname "$nccl_header")" "$(dirname "$nccl_library")"
    cp "$tmp/x/usr/include/nccl.h" "$nccl_header"
    cp "$lib" "$nccl_library"
    rm -rf "$tmp"
    log "nccl.h and libnccl.so.2 unpacked to $nccl_dir"
}

install_packages
if ! fetch_nccl; then
    log "continuing without NCCL: its ABI comparison and the real-library test will be skipped"
fi
if ! fetch_nvml_header; then
    log "continuing without nvml.h: the NVML ABI comparison will be skipped"
fi
exit 0
