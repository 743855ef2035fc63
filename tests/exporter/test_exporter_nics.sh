#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The RDMA NICs' series beside the GPU series (docs/exporter.md), scraped by
# the real Prometheus from simulated nodes with NICs: eight ports Active at
# 400 Gb/s, mlx5_2's symbol errors growing at 40 a second of scenario time
# (read every 10 s: a rate above 0), promtool clean on them; a port Down
# reads 1; an Ethernet-only node exports none.
# Usage: test_exporter_nics.sh GPUDOCTOR EXAMPLES_DIR
set -eu
. "$(dirname "$0")/lib.sh"
need prometheus
need promtool
need python3
bin=$1
examples=$2

start_exporter "$bin" "$examples/net-ib-symbol-errors.json"
fetch "http://127.0.0.1:$port/metrics" >"$tmp/scrape.txt"
[ "$(grep -c '^gpudoctor_nic_port_state{' "$tmp/scrape.txt")" -eq 8 ] ||
    fail "8 port state series expected: $(grep '^gpudoctor_nic_port_state' "$tmp/scrape.txt")"
grep -q '^gpudoctor_nic_port_state{device="mlx5_2",port="1",link_layer="InfiniBand"} 4$' "$tmp/scrape.txt" ||
    fail "mlx5_2 port 1 not Active: $(grep 'mlx5_2' "$tmp/scrape.txt" | head -3)"
grep -q '^gpudoctor_nic_port_rate_gbps{device="mlx5_7",port="1",link_layer="InfiniBand"} 400$' "$tmp/scrape.txt" ||
    fail "no rate series: $(grep '^gpudoctor_nic_port_rate' "$tmp/scrape.txt" | head -3)"
rc=0
promtool check metrics <"$tmp/scrape.txt" >"$tmp/lint.txt" 2>&1 || rc=$?
[ "$rc" -eq 0 ] || [ "$rc" -eq 3 ] || fail "promtool check metrics exit $rc: $(head -5 "$tmp/lint.txt")"
if grep -q '^gpudoctor_nic' "$tmp/lint.txt"; then
    fail "promtool flags the NIC series: $(grep '^gpudoctor_nic' "$tmp/lint.txt" | head -3)"
fi

start_prometheus
until_series 60 'up{job="gpudoctor"}' '=1$'
until_series 30 'count(gpudoctor_nic_port_state == 4)' '=8$'
until_series 60 'rate(gpudoctor_nic_port_errors_total{counter="symbol_error"}[5s]) > 0' 'device=mlx5_2,'
query 'rate(gpudoctor_nic_port_errors_total{counter="symbol_error"}[5s]) > 0' >"$tmp/growing.txt"
[ "$(wc -l <"$tmp/growing.txt")" -eq 1 ] || fail "only mlx5_2's symbol errors grow: $(cat "$tmp/growing.txt")"

# A port Down, and a node without RDMA NICs: scraped directly.
start_exporter "$bin" "$examples/net-ib-port-down.json"
fetch "http://127.0.0.1:$port/metrics" >"$tmp/down.txt"
grep -q '^gpudoctor_nic_port_state{device="mlx5_3",port="1",link_layer="InfiniBand"} 1$' "$tmp/down.txt" ||
    fail "mlx5_3 not Down: $(grep 'mlx5_3' "$tmp/down.txt" | head -3)"
grep -q '^gpudoctor_nic_port_phys_state{device="mlx5_3",port="1",link_layer="InfiniBand"} 2$' "$tmp/down.txt" ||
    fail "mlx5_3 not Polling"
start_exporter "$bin" "$examples/net-eth-cloud-vm.json"
fetch "http://127.0.0.1:$port/metrics" >"$tmp/eth.txt"
grep -q '^DCGM_FI_DEV_GPU_TEMP{' "$tmp/eth.txt" || fail "no GPU series on the Ethernet node"
! grep -q 'gpudoctor_nic_port' "$tmp/eth.txt" || fail "NIC series on a node without RDMA NICs"
echo "ok: NIC port state, rate and growing error counters scraped by Prometheus; Down read; none on Ethernet"
