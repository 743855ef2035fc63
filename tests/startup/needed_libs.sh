#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Start-up cost: the libraries the dynamic loader binds before main. Expat,
# libmicrohttpd (and GnuTLS's dozen under it) and
# libnghttp2 are only for the nvidia-smi XML importer, `export` and its pod
# labels: they are opened with dlopen there (src/loaders/expat_loader.c,
# src/loaders/mhd_loader.c, src/loaders/nghttp2_loader.c), never linked. Then the XML import and the exporter still work through them.
# Usage: needed_libs.sh GPUDOCTOR
set -euo pipefail
bin=$1
command -v readelf >/dev/null || { echo "readelf missing: skipped (binutils has it: sudo bash scripts/install-deps.sh run installs it with build-essential)"; exit 77; }
needed=$(readelf -d "$bin" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
echo "NEEDED: $(echo $needed)"
fail=0
for lib in libxml2 libexpat libmicrohttpd libgnutls libicuuc libnghttp2; do
    if grep -q "^$lib" <<<"$needed"; then
        echo "FAIL: $bin links $lib at start-up"
        fail=1
    fi
done
count=$(wc -w <<<"$needed")
# Everything the loader binds, the libraries' own dependencies included.
total=$(ldd "$bin" | grep -c '=>' || true)
echo "libraries bound at start-up: $total"
if [ "$total" -gt 12 ]; then
    echo "FAIL: $total libraries bound at start-up (was 26 with libxml2 and libmicrohttpd linked; now about 9)"
    fail=1
fi
# The lazily opened library still serves its command (export has its own tests).
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf '%s\n' '<?xml version="1.0" ?>' '<nvidia_smi_log>' '<driver_version>550.54.15</driver_version>' \
    '<attached_gpus>1</attached_gpus>' '<gpu id="00000000:18:00.0">' \
    '<product_name>NVIDIA H100 80GB HBM3</product_name>' '<temperature><gpu_temp>40 C</gpu_temp></temperature>' \
    '</gpu>' '</nvidia_smi_log>' >"$tmp/q.xml"
if ! out=$("$bin" info --details --from "$tmp/q.xml" 2>&1) || ! grep -q "GPU 40 C" <<<"$out"; then
    echo "FAIL: info --from an nvidia-smi XML: $out"
    fail=1
fi
echo "direct NEEDED entries: $count"
exit $fail
