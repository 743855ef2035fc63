#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Installs the Debian 12 packages gpudoctor needs, for one purpose at a time.
# Idempotent: run it as often as you like.
#
#   sudo bash scripts/install-deps.sh run      # build and run (make, make run)
#   sudo bash scripts/install-deps.sh test     # also what the tests use (make test)
#   sudo bash scripts/install-deps.sh deploy   # also the package and image tools (make deb, make test-all)
#
# `run` is what a production GPU node gets: compilers and the libraries
# gpudoctor links, nothing else. The test components (a real Slurm, munge,
# Prometheus, Chromium, torch ...) come only with `test`, and no system
# service of theirs is started or enabled: the tests start their own daemons
# from the binaries. While apt installs, a policy-rc.d (exit 101) stops
# every package from starting its service, and afterwards the services of
# the packages this run installed are disabled (deb-systemd-helper, which
# also keeps them disabled across upgrades; update-rc.d for SysV scripts).
#
# `test` also fetches NVIDIA's headers for the ABI tests, never installed:
# nvml.h from Debian 12's non-free libnvidia-ml-dev into build/deps/nvml/,
# nccl.h from libnccl-dev (Debian 13's contrib: Debian 12 has none) into
# build/deps/nccl/, with libnccl2's libnccl.so.2 beside it only where this
# system's C library is as new as that package needs. Installing them would
# pull in real driver libraries that change how this machine behaves. They
# come from the Debian archive this machine's apt is configured with (its
# mirror, proxy and keys; `apt-get indextargets`), through a private
# sources list and state folder: apt checks the signatures, and the
# system's apt sources and lists are never touched. Without them the ABI
# comparisons are skipped, each with its reason.
set -euo pipefail

# What building and running need (make, make run).
RUN_PACKAGES=(
    build-essential
    cmake
    ninja-build
    pkg-config
    libjansson-dev
    libexpat1-dev     # nvidia-smi -q -x captures (--from): Expat, opened with dlopen
    libinih-dev       # the config file (src/cli/cli_config.c)
    libncurses-dev    # the live view of gpudoctor watch
    libisal-dev       # gpudoctor trace: isa-l's igzip inflates .json.gz traces (zlib is the fallback)
    zlib1g-dev        # gpudoctor trace: the gzip fallback where isa-l is missing
    libmicrohttpd-dev # gpudoctor export: the HTTP server of /metrics
    libnghttp2-dev    # gpudoctor export: HTTP/2 (gRPC) to the kubelet's pod-resources socket (opened with dlopen)
    libpci-dev        # GPU names from the PCI id database for lspci captures (libpci, opened with dlopen)
    pci.ids           # ... the database itself (/usr/share/misc/pci.ids)
)

# What the tests add (make test, make fuzz).
TEST_PACKAGES=(
    libcmocka-dev     # the unit tests
    libxml2-dev       # e2e.import_each_gpu reads the XML captures again with libxml2's XPath: a second opinion
    tmux              # the tests drive the live view in a detached tmux session
    clang
    libclang-rt-dev   # libFuzzer and the sanitizer runtimes for clang (only recommended by clang)
    python3-grpcio    # the exporter's pod-label test: a fake kubelet, a real gRPC server
    python3-protobuf  # ... its messages
    protobuf-compiler # ... compiled by protoc from tests/exporter/k8s/podresources.proto
    prometheus        # the exporter tests: the real Prometheus scrapes it (and promtool lints it)
    wrk               # the exporter's load test
    python3           # the exporter tests query Prometheus' HTTP API
    python3-yaml      # ... and read the Kubernetes example
    yamllint          # the Kubernetes example is valid YAML
    munge             # the Slurm test: a real single-node cluster (tests/slurm)
    slurmctld         # ... its controller
    slurmd            # ... its node daemon, which runs the health check
    slurm-client      # ... sinfo, scontrol, srun
    libyajl-dev       # bench_trace only: yajl's tokenizer, measured against ours (bench/README.md)
    chromium          # the HTML report's tests open it in a real browser, headless (docs/report.md)
    libpng-dev        # ... and decode its screenshots
    python3-torch     # the real DataLoader jobs of tests/e2e/test_e2e_job.c (CPU build; Skipped without it)
    stress-ng         # load beside the suite: it passes on a busy machine (README.md, Tests)
)

# What the package and the image add (make deb, make image, make test-all).
DEPLOY_PACKAGES=(
    debhelper              # make deb: the Debian package (debian/)
    lintian                # ... checked by tests/deploy/test_package.sh
    debootstrap            # make image: a Debian root filesystem from Debian's archive
    umoci                  # ... packed as an OCI image
    runc                   # ... which the package test runs the exporter from
    curl                   # ... and scrapes
    debian-archive-keyring # debootstrap checks Debian's archive with its keys
)

# NVIDIA's packages the headers come from: Debian release and component.
NVML_DEV_PACKAGE=libnvidia-ml-dev # this release's non-free
NCCL_SUITE=trixie                 # bookworm has no NCCL
NCCL_COMPONENT=contrib

repo_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
nvml_dir="$repo_root/build/deps/nvml"
nvml_header="$nvml_dir/usr/include/nvml.h"
nccl_dir="$repo_root/build/deps/nccl"
nccl_header="$nccl_dir/usr/include/nccl.h"
nccl_library="$nccl_dir/lib/libnccl.so.2"
# Says why libnccl.so.2 was left out (this system's C library is too old).
nccl_no_library="$nccl_dir/lib/libnccl.so.2.not-loadable"

# invoke-rc.d and deb-systemd-invoke ask this program before starting a
# service (Debian policy 9.3.3); the tests point it elsewhere.
POLICY_RC_D=${GD_POLICY_RC_D:-/usr/sbin/policy-rc.d}

log() { printf 'install-deps: %s\n' "$*" >&2; }

is_root() { [ "$(id -u)" -eq 0 ]; }

usage() {
    echo "usage: install-deps.sh [run|test|deploy]   (default: run)" >&2
    exit 2
}

installed_packages() {
    dpkg-query -W -f='${db:Status-Abbrev} ${Package}\n' 2>/dev/null | awk '$1 == "ii" {print $2}' | sort -u
}

missing_packages() {
    local p
    for p in "$@"; do
        if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q '^install ok installed$'; then
            printf '%s\n' "$p"
        fi
    done
}

# A policy-rc.d that refuses every start while apt runs; a site's own one is
# left as it is (it already decides).
ours_policy=0
hold_services() {
    [ -e "$POLICY_RC_D" ] && return 0
    printf '#!/bin/sh\n# install-deps.sh: no service starts while it installs packages.\nexit 101\n' >"$POLICY_RC_D"
    chmod 755 "$POLICY_RC_D"
    ours_policy=1
}
release_services() {
    if [ "$ours_policy" = 1 ]; then
        rm -f "$POLICY_RC_D"
        ours_policy=0
    fi
}

# Disables the services that the packages named on stdin ship: systemd
# units through deb-systemd-helper (its state keeps them disabled when the
# package is upgraded), SysV scripts through update-rc.d.
disable_services() {
    local pkg file unit
    while read -r pkg; do
        while read -r file; do
            case $file in
            /lib/systemd/system/*.service | /lib/systemd/system/*.socket | /lib/systemd/system/*.timer | \
                /usr/lib/systemd/system/*.service | /usr/lib/systemd/system/*.socket | /usr/lib/systemd/system/*.timer)
                unit=${file##*/}
                case $unit in *@.*) continue ;; esac # templates are never enabled by a package
                if command -v deb-systemd-helper >/dev/null; then
                    deb-systemd-helper disable "$unit" >/dev/null 2>&1 || true
                    log "$pkg: $unit disabled (the tests start their own)"
                fi
                ;;
            /etc/init.d/*)
                if command -v update-rc.d >/dev/null; then
                    update-rc.d "${file##*/}" disable >/dev/null 2>&1 || true
                fi
                ;;
            esac
        done < <(dpkg-query -L "$pkg" 2>/dev/null)
    done
}

install_packages() {
    local missing
    mapfile -t missing < <(missing_packages "$@")
    if [ "${#missing[@]}" -eq 0 ]; then
        log "all $# packages are installed"
        return 0
    fi
    if ! is_root; then
        log "missing packages: ${missing[*]}"
        echo "sudo apt-get install -y --no-install-recommends ${missing[*]}"
        exit 1
    fi
    log "installing: ${missing[*]}"
    local before after
    before=$(mktemp)
    after=$(mktemp)
    installed_packages >"$before"
    trap 'release_services; rm -f "$before" "$after"' EXIT
    trap 'exit 130' INT TERM HUP # through the EXIT trap: policy-rc.d goes
    hold_services
    export DEBIAN_FRONTEND=noninteractive
    apt-get update
    apt-get install -y --no-install-recommends "${missing[@]}"
    release_services
    installed_packages >"$after"
    comm -13 "$before" "$after" | disable_services
    rm -f "$before" "$after"
    trap - EXIT INT TERM HUP
}

# The Debian archive this machine's apt fetches Debian 12 from: its URI as
# configured (a site's mirror), from apt's own index targets.
debian_archive_uri() {
    local codename
    # shellcheck disable=SC1091 # the system's release file
    codename=$(. /etc/os-release && printf '%s' "${VERSION_CODENAME:-}")
    # shellcheck disable=SC2016 # $(REPO_URI) is apt's field, not the shell's
    apt-get indextargets --format '$(REPO_URI)' 'Identifier: Packages' 'Origin: Debian' "Codename: $codename" \
        'Component: main' 2>/dev/null | head -n 1
}

# private_apt DIR SUITE COMPONENT: apt options for a sources list with only
# DIR's entry, and lists and caches in DIR; the system's configuration
# (proxy, keys) otherwise applies.
private_apt_opts=()
private_apt() {
    local dir=$1 suite=$2 component=$3 uri
    uri=$(debian_archive_uri)
    if [ -z "$uri" ]; then
        log "apt knows no Debian archive for this release (apt-get indextargets); cannot fetch $suite $component"
        return 1
    fi
    mkdir -p "$dir/lists/partial" "$dir/cache/archives/partial" "$dir/parts"
    printf 'deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] %s %s %s\n' "$uri" "$suite" "$component" \
        >"$dir/sources.list"
    # As root, apt hands downloads to its _apt user, which cannot write a
    # mktemp folder: APT::Sandbox::User=root keeps them as root.
    private_apt_opts=(-o "Dir::Etc::SourceList=$dir/sources.list" -o "Dir::Etc::SourceParts=$dir/parts"
        -o "Dir::State::Lists=$dir/lists" -o "Dir::Cache=$dir/cache" -o APT::Sandbox::User=root)
    apt-get "${private_apt_opts[@]}" -qq update >&2 || {
        log "apt-get update of $uri $suite $component failed"
        return 1
    }
}

# fetch_debs DIR PACKAGE...: downloads with the private sources of DIR and
# unpacks into DIR/x.
fetch_debs() {
    local dir=$1 deb
    shift
    (cd "$dir" && apt-get "${private_apt_opts[@]}" -qq download "$@" >&2) || {
        log "apt-get download $* failed"
        return 1
    }
    mkdir -p "$dir/x"
    for deb in "$dir"/*.deb; do
        dpkg-deb -x "$deb" "$dir/x" || return 1
        rm -f "$deb"
    done
}

# Downloads libnvidia-ml-dev and unpacks only its header. Never fails the
# script: prints why and returns non-zero instead.
fetch_nvml_header() {
    if [ -f "$nvml_header" ]; then
        log "nvml.h already at $nvml_header"
        return 0
    fi
    local tmp codename rc=1
    # shellcheck disable=SC1091 # the system's release file
    codename=$(. /etc/os-release && printf '%s' "${VERSION_CODENAME:-}")
    tmp=$(mktemp -d)
    if private_apt "$tmp" "$codename" non-free && fetch_debs "$tmp" "$NVML_DEV_PACKAGE" &&
        [ -f "$tmp/x/usr/include/nvml.h" ]; then
        mkdir -p "$(dirname "$nvml_header")"
        cp "$tmp/x/usr/include/nvml.h" "$nvml_header"
        log "nvml.h unpacked to $nvml_header"
        rc=0
    fi
    rm -rf "$tmp"
    return $rc
}

# The libc6 version a package needs ("" where it names none).
needed_libc() {
    apt-cache "${private_apt_opts[@]}" show "$1" 2>/dev/null |
        sed -n 's/^Depends:.*libc6 (>= \([^)]*\)).*/\1/p' | head -n 1
}

# Downloads libnccl-dev (and libnccl2 where this system can load it) and
# unpacks nccl.h and libnccl.so.2. Never fails the script.
fetch_nccl() {
    if [ -f "$nccl_header" ] && [ -f "$nccl_library" ]; then
        log "nccl.h and libnccl.so.2 already in $nccl_dir"
        return 0
    fi
    if [ -f "$nccl_header" ] && [ -f "$nccl_no_library" ]; then
        log "nccl.h already in $nccl_dir; $(cat "$nccl_no_library")"
        return 0
    fi
    local tmp need have lib why="" packages=(libnccl-dev)
    tmp=$(mktemp -d)
    if ! private_apt "$tmp" "$NCCL_SUITE" "$NCCL_COMPONENT"; then
        rm -rf "$tmp"
        return 1
    fi
    need=$(needed_libc libnccl2)
    have=$(dpkg-query -W -f='${Version}' libc6 2>/dev/null || true)
    if [ -n "$need" ] && [ -n "$have" ] && ! dpkg --compare-versions "$have" ge "$need"; then
        why="libnccl2 of $NCCL_SUITE needs libc6 >= $need, this system has $have: not fetched"
        log "$why"
    else
        packages+=(libnccl2)
    fi
    if ! fetch_debs "$tmp" "${packages[@]}" || [ ! -f "$tmp/x/usr/include/nccl.h" ]; then
        log "cannot fetch or unpack ${packages[*]} from $NCCL_SUITE"
        rm -rf "$tmp"
        return 1
    fi
    mkdir -p "$(dirname "$nccl_header")"
    cp "$tmp/x/usr/include/nccl.h" "$nccl_header"
    lib=$(find "$tmp/x" -name 'libnccl.so.2.*' -type f -print -quit)
    mkdir -p "$(dirname "$nccl_library")"
    if [ -n "$lib" ]; then
        cp "$lib" "$nccl_library"
        rm -f "$nccl_no_library"
    elif [ -n "$why" ]; then
        printf '%s\n' "$why" >"$nccl_no_library"
    fi
    rm -rf "$tmp"
    log "${packages[*]} unpacked to $nccl_dir"
}

main() {
    mode=${1:-run}
    [ $# -le 1 ] || usage
    case $mode in
    run) install_packages "${RUN_PACKAGES[@]}" ;;
    test) install_packages "${RUN_PACKAGES[@]}" "${TEST_PACKAGES[@]}" ;;
    deploy) install_packages "${RUN_PACKAGES[@]}" "${TEST_PACKAGES[@]}" "${DEPLOY_PACKAGES[@]}" ;;
    *) usage ;;
    esac
    [ "$mode" = run ] && return 0
    if ! fetch_nccl; then
        log "continuing without NCCL: its ABI comparison and the real-library test will be skipped"
    fi
    if ! fetch_nvml_header; then
        log "continuing without nvml.h: the NVML ABI comparison will be skipped"
    fi
}

# Sourced by its tests for its functions; run, it installs.
if [ "${BASH_SOURCE[0]}" = "$0" ]; then
    main "$@"
fi
