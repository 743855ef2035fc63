#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Writes the training-network example scenarios (examples/net-*.json) and
the job's /proc of the RoCE GID one. Run it again on purpose after changing
a story: python3 scripts/gen-net-examples.py

Each is the 8x H100 training node (examples/h100x8-training.json) with
"nics" and "network" (docs/scenarios.md). Where a scenario names a sysfs
tree (scripts/gen-pcie-examples.py writes them), its NICs' bdfs are the
tree's, so the PCIe topology joins them to the GPUs: hgx-h100x8-8nic has two
NICs on each of the four switches (as a DGX H100), hgx-h100x8-nics-node0
only on node 0's two.

Figures: ConnectX-7 (MT4129) at 400 Gb/s NDR, ConnectX-6 (MT4123) at
200 Gb/s HDR; sysfs writes a rate as "400 Gb/sec (4X NDR)" and a down IB
port as "10 Gb/sec (4X SDR)" (what ibstat prints for a port with no link,
realdata/network). mlx5's RoCE GID table puts the link-local GID at 0 (v1)
and 1 (v2), the IPv4-mapped one at 2 (v1) and 3 (v2).
"""
import copy
import os

from example_files import ROOT, load, save, write

NICS8 = [("0000:19:00.0", 0), ("0000:29:00.0", 0), ("0000:3b:00.0", 0), ("0000:4b:00.0", 0),
         ("0000:9b:00.0", 1), ("0000:aa:00.0", 1), ("0000:bb:00.0", 1), ("0000:ca:00.0", 1)]
# Downstream ports of switch 0 in the 8-NIC tree: above GPU 0, GPU 1, mlx5_0, mlx5_1.
SWITCH0_DSPS = ["0000:17:00.0", "0000:17:02.0", "0000:17:04.0", "0000:17:05.0"]


COUNTERS0 = {"symbol_error": 0, "link_downed": 0, "link_error_recovery": 0, "port_rcv_errors": 0,
             "port_xmit_discards": 0, "local_link_integrity_errors": 0, "excessive_buffer_overrun_errors": 0}


def ib_port(i, rate=400, speed="NDR"):
    return {"port": 1, "state": "active", "phys_state": "linkup", "rate_gbps": rate, "link_layer": "infiniband",
            "netdev": "ib%d" % i, "counters": dict(COUNTERS0),
            "gids": [{"index": 0, "gid": "fe80:0000:0000:0000:a088:c203:0034:5a%02x" % (0x10 + i), "type": "IB"}]}


def roce_port(i, rate=400):
    dev = "ens%dnp0" % (i + 1)
    v4 = "0000:0000:0000:0000:0000:ffff:0a01:%02x01" % (i + 1)
    ll = "fe80:0000:0000:0000:ba3f:d2ff:fe%02x:0001" % i
    return {"port": 1, "state": "active", "phys_state": "linkup", "rate_gbps": rate, "link_layer": "ethernet",
            "netdev": dev, "counters": dict(COUNTERS0, out_of_sequence=0, packet_seq_err=0, local_ack_timeout_err=0),
            "gids": [{"index": 0, "gid": ll, "type": "RoCE v1", "netdev": dev},
                     {"index": 1, "gid": ll, "type": "RoCE v2", "netdev": dev},
                     {"index": 2, "gid": v4, "type": "RoCE v1", "netdev": dev},
                     {"index": 3, "gid": v4, "type": "RoCE v2", "netdev": dev}]}


def nics(port, ca_type="MT4129", firmware="28.39.1002", placement=NICS8, **kw):
    return [{"name": "mlx5_%d" % i, "bdf": bdf, "numa_node": numa, "ca_type": ca_type, "firmware": firmware,
             "ports": [port(i, **kw)]} for i, (bdf, numa) in enumerate(placement)]


def interfaces(extra):
    return ([{"name": "lo", "up": True, "ipv4": "127.0.0.1"},
             {"name": "eth0", "up": True, "ipv4": "10.0.0.1"},
             {"name": "docker0", "up": False, "bridge": True, "ipv4": "172.17.0.1"}] + extra)


def acs_rows(on=()):
    """The switch ports' ACS: every downstream port listed, those in `on` with redirection set."""
    rows = []
    for bus in ("17", "39", "99", "b9"):
        for dev in ("00", "02", "04", "05"):
            bdf = "0000:%s:%s.0" % (bus, dev)
            row = {"bdf": bdf}
            if bdf in on:
                row.update(src_valid=True, req_redir=True, cmplt_redir=True, upstream_fwd=True)
            rows.append(row)
    return rows


base = load("h100x8-training.json")


def ib_node(description):
    sc = copy.deepcopy(base)
    sc["description"] = description
    sc["host"] = {"sysfs": "sysfs/hgx-h100x8-8nic", "numa_nodes": 2}
    sc["nics"] = nics(ib_port)
    sc["network"] = {"interfaces": interfaces([{"name": "ib%d" % i, "up": True} for i in range(8)]),
                     "peermem": "nvidia_peermem", "acs": acs_rows()}
    return sc


def roce_node(description):
    sc = ib_node(description)
    sc["nics"] = nics(roce_port)
    sc["network"]["interfaces"] = interfaces(
        [{"name": "ens%dnp0" % (i + 1), "up": True, "ipv4": "10.1.%d.1" % (i + 1)} for i in range(8)])
    return sc


save("net-ib-h100x8-healthy.json", ib_node(
    "8x H100 SXM with eight ConnectX-7 NDR InfiniBand ports, two on each PCIe switch beside a GPU pair, "
    "nvidia_peermem loaded, ACS off: healthy, nothing to report"))

save("net-roce-h100x8-healthy.json", roce_node(
    "8x H100 SXM with eight 400 GbE RoCE ports (ConnectX-7), RoCE v2 GIDs at index 1 and 3, "
    "nvidia_peermem loaded: healthy, nothing to report"))

sc = copy.deepcopy(base)
sc["description"] = ("8x H100 cloud VM with Ethernet only: no RDMA devices (no /sys/class/infiniband), no "
                     "GPUDirect RDMA module: not a fault, nothing to report")
sc["nics"] = []
sc["network"] = {"interfaces": [{"name": "lo", "up": True, "ipv4": "127.0.0.1"},
                                {"name": "ens4", "up": True, "ipv4": "10.128.0.5"},
                                {"name": "docker0", "up": False, "bridge": True, "ipv4": "172.17.0.1"}],
                 "peermem": "none"}
save("net-eth-cloud-vm.json", sc)

sc = ib_node("8x H100 SXM, InfiniBand: mlx5_3 port 1 is Down (Polling: no peer answers, a cable or switch port) "
             "while the other seven are Active")
p = sc["nics"][3]["ports"][0]
p.update(state="down", phys_state="polling", rate_gbps=10)
sc["network"]["interfaces"][3 + 3]["up"] = False
save("net-ib-port-down.json", sc)

sc = ib_node("8x H100 SXM with eight ConnectX-6 HDR InfiniBand ports: mlx5_5 trained at 100 of 200 Gb/s "
             "(2X HDR: two of its four lanes), the others at 200")
sc["nics"] = nics(ib_port, ca_type="MT4123", firmware="20.39.1002", rate=200)
sc["nics"][5]["ports"][0]["rate_gbps"] = 100
save("net-ib-port-half-rate.json", sc)

sc = ib_node("8x H100 SXM, InfiniBand: mlx5_2's symbol errors grow about 40 a second and its received packets "
             "with errors 5 a second (a marginal cable or transceiver); the other ports are clean")
p = sc["nics"][2]["ports"][0]
p["counters"]["symbol_error"] = 1200
p["counters_per_s"] = {"symbol_error": 40, "port_rcv_errors": 5}
save("net-ib-symbol-errors.json", sc)

sc = roce_node("8x H100 SXM, RoCE: the job sets NCCL_IB_GID_INDEX=2, which is each port's RoCE v1 GID (v2 is at 3); "
               "run with --pid 41003")
sc["host"]["proc"] = "proc/net-roce-gid-v1"
save("net-roce-gid-v1.json", sc)
job = os.path.join(ROOT, "proc", "net-roce-gid-v1", "41003")
write(os.path.join(job, "comm"), "python\n")
write(os.path.join(job, "status"), "Name:\tpython\nState:\tS (sleeping)\nTgid:\t41003\nPid:\t41003\nPPid:\t40990\n"
      "Threads:\t64\nCpus_allowed_list:\t0-47,96-143\nMems_allowed_list:\t0-1\n")
write(os.path.join(job, "environ"), "PATH=/usr/bin:/bin\0HOME=/home/train\0NCCL_IB_HCA=mlx5\0"
      "NCCL_IB_GID_INDEX=2\0NCCL_SOCKET_IFNAME=eth0\0")

sc = ib_node("8x H100 SXM with eight InfiniBand ports, but nvidia_peermem is not loaded: NCCL's GPUDirect RDMA is "
             "off, every message is staged through host memory")
sc["network"]["peermem"] = "none"
save("net-ib-no-peermem.json", sc)

sc = ib_node("8x H100 SXM, InfiniBand: ACS is on (SrcValid+ ReqRedir+ CmpltRedir+ UpstreamFwd+) on switch 0's "
             "ports above GPU 0, GPU 1, mlx5_0 and mlx5_1: their peer traffic detours through the root complex")
sc["network"]["acs"] = acs_rows(on=SWITCH0_DSPS)
save("net-ib-acs-on.json", sc)

sc = ib_node("8x H100 SXM with four InfiniBand ports, all on node 0's two switches: GPUs 4-7 reach the nearest "
             "NIC across the CPU link while GPUs 0-3 have theirs on their own switch")
sc["host"]["sysfs"] = "sysfs/hgx-h100x8-nics-node0"
sc["nics"] = nics(ib_port, placement=NICS8[:4])
sc["network"]["interfaces"] = interfaces([{"name": "ib%d" % i, "up": True} for i in range(4)])
sc["network"]["acs"] = [r for r in acs_rows() if r["bdf"].split(":")[1] in ("17", "39")
                        or r["bdf"].endswith((":00.0", ":02.0"))]
save("net-ib-nic-far.json", sc)
