#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Writes the PCIe / topology example scenarios and their sysfs (and proc)
fixture trees under examples/. Run it again on purpose after changing a
layout: python3 scripts/gen-pcie-examples.py

Each tree is laid out like /sys: devices/pci0000:XX/<root port>/<switch
ports>/<device> directories with the link files Linux writes
(drivers/pci/pci-sysfs.c), bus/pci/devices/<bdf> symlinks into them, and
devices/system/node/nodeN/cpulist. Some trees write link speeds the way
kernels up to 5.6 did ("16 GT/s"), others the newer way ("16.0 GT/s PCIe").
"""
import copy
import json
import os
import shutil

from example_files import ROOT, load, save, write
SPEED_NEW = {1: "2.5 GT/s PCIe", 2: "5.0 GT/s PCIe", 3: "8.0 GT/s PCIe", 4: "16.0 GT/s PCIe", 5: "32.0 GT/s PCIe"}
SPEED_OLD = {1: "2.5 GT/s", 2: "5 GT/s", 3: "8 GT/s", 4: "16 GT/s", 5: "32 GT/s"}
AER = {
    "aer_dev_correctable": "RxErr 0\nBadTLP 0\nBadDLLP 0\nRollover 0\nTimeout 0\nNonFatalErr 0\nCorrIntErr 0\nHeaderOF 0\nTOTAL_ERR_COR 0\n",
    "aer_dev_nonfatal": "Undefined 0\nDLP 0\nSDES 0\nTLP 0\nFCP 0\nCmpltTO 0\nCmpltAbrt 0\nUnxCmplt 0\nRxOF 0\nMalfTLP 0\nECRC 0\nUnsupReq 0\nACSViol 0\nTOTAL_ERR_NONFATAL 0\n",
    "aer_dev_fatal": "Undefined 0\nDLP 0\nSDES 0\nTLP 0\nFCP 0\nCmpltTO 0\nCmpltAbrt 0\nUnxCmplt 0\nRxOF 0\nMalfTLP 0\nECRC 0\nUnsupReq 0\nACSViol 0\nTOTAL_ERR_FATAL 0\n",
}


def node(kind, bdf, gen, width, children=(), cur=None, name=None, vendor=None):
    """A device: kind is root_port, usp, dsp, gpu or nic; cur = (gen, width) trained, else the maximum;
    vendor: its PCI vendor id (a root port's is the CPU's maker), else one by kind."""
    return {"kind": kind, "bdf": bdf, "max": (gen, width), "cur": cur or (gen, width), "children": list(children),
            "name": name, "vendor": vendor}


def switch(rp, usp, dsps, gen=5, rp_cur=None):
    """A root port with one PCIe switch below it; dsps: [(dsp_bdf, endpoint)]."""
    return node("root_port", rp, gen, 16, [node("usp", usp, gen, 16, [node("dsp", d, gen, 16, [ep]) for d, ep in dsps],
                                                cur=rp_cur)], cur=rp_cur)


def emit(tree_dir, parent_dir, dev, numa, cpus, speeds, links):
    d = os.path.join(parent_dir, dev["bdf"])
    # A port's current link is the link below it (to its child); an
    # endpoint's or upstream port's is the link above it.
    gen, width = dev["cur"]
    if dev["kind"] in ("root_port", "dsp") and dev["children"]:
        gen, width = dev["children"][0]["cur"]
    cls = {"gpu": "0x030200", "nic": "0x020700"}.get(dev["kind"], "0x060400")
    vendor = dev.get("vendor") or ("0x10de" if dev["kind"] == "gpu" else "0x15b3" if dev["kind"] == "nic" else "0x1000")
    files = {"class": cls, "vendor": vendor,
             "current_link_speed": speeds[gen], "max_link_speed": speeds[dev["max"][0]],
             "current_link_width": str(width), "max_link_width": str(dev["max"][1]),
             "numa_node": str(numa), "local_cpulist": cpus}
    files.update(AER)
    files.update(dev.get("extra", {}))
    for k, v in files.items():
        write(os.path.join(d, k), v if v.endswith("\n") else v + "\n")
    if dev["kind"] == "nic":
        write(os.path.join(d, "infiniband", dev["name"], "node_type"), "1: CA\n")
    links.append((dev["bdf"], os.path.relpath(d, tree_dir)))
    for c in dev["children"]:
        emit(tree_dir, d, c, numa, cpus, speeds, links)


def tree(name, host_bridges, nodes, speeds=SPEED_NEW):
    """host_bridges: [(\"pci0000:15\", numa, [root ports])]; nodes: {numa: cpulist}."""
    t = os.path.join(ROOT, "sysfs", name)
    shutil.rmtree(t, ignore_errors=True)
    links = []
    for hb, numa, rps in host_bridges:
        for rp in rps:
            emit(t, os.path.join(t, "devices", hb), rp, numa, nodes[numa], speeds, links)
    for bdf, rel in links:
        link = os.path.join(t, "bus", "pci", "devices", bdf)
        os.makedirs(os.path.dirname(link), exist_ok=True)
        os.symlink(os.path.relpath(os.path.join(t, rel), os.path.dirname(link)), link)
    for n, cpus in nodes.items():
        write(os.path.join(t, "devices", "system", "node", "node%d" % n, "cpulist"), cpus + "\n")


# --- HGX H100 x8: four Gen5 switches, a GPU pair and a NIC behind each ---
HGX_NODES = {0: "0-47,96-143", 1: "48-95,144-191"}


def hgx(gpu_gen=5, replay_aer=False):
    def sw(hb, rp, usp, dsp_bus, g0, nic, nic_name, g1):
        return (hb, None, [switch(rp, usp, [("0000:%s:00.0" % dsp_bus, node("gpu", g0, 5, 16, cur=(gpu_gen, 16))),
                                            ("0000:%s:01.0" % dsp_bus, node("nic", nic, 5, 16, name=nic_name)),
                                            ("0000:%s:02.0" % dsp_bus, node("gpu", g1, 5, 16, cur=(gpu_gen, 16)))])])
    s = [sw("pci0000:15", "0000:15:01.0", "0000:16:00.0", "17", "0000:18:00.0", "0000:19:00.0", "mlx5_0", "0000:2a:00.0"),
         sw("pci0000:37", "0000:37:01.0", "0000:38:00.0", "39", "0000:3a:00.0", "0000:3b:00.0", "mlx5_1", "0000:5d:00.0"),
         sw("pci0000:97", "0000:97:01.0", "0000:98:00.0", "99", "0000:9a:00.0", "0000:9b:00.0", "mlx5_2", "0000:ab:00.0"),
         sw("pci0000:b7", "0000:b7:01.0", "0000:b8:00.0", "b9", "0000:ba:00.0", "0000:bb:00.0", "mlx5_3", "0000:db:00.0")]
    return [(hb, 0 if i < 2 else 1, rps) for i, (hb, _, rps) in enumerate(s)]


tree("hgx-h100x8", hgx(), HGX_NODES)
tree("hgx-h100x8-idle", hgx(gpu_gen=1), HGX_NODES)


def hgx_nics(nics):
    """HGX H100 x8 with the NICs of `nics` (per switch: [(bdf, name)]) on each switch beside its GPU pair,
    for the network examples (scripts/gen-net-examples.py): two per switch as a DGX H100 has them, or
    none on a switch."""
    def sw(hb, rp, usp, dsp_bus, g0, g1, own):
        dsps = [("0000:%s:00.0" % dsp_bus, node("gpu", g0, 5, 16)), ("0000:%s:02.0" % dsp_bus, node("gpu", g1, 5, 16))]
        dsps += [("0000:%s:%02x.0" % (dsp_bus, 4 + i), node("nic", bdf, 5, 16, name=name)) for i, (bdf, name) in enumerate(own)]
        return (hb, [switch(rp, usp, dsps)])
    s = [sw("pci0000:15", "0000:15:01.0", "0000:16:00.0", "17", "0000:18:00.0", "0000:2a:00.0", nics[0]),
         sw("pci0000:37", "0000:37:01.0", "0000:38:00.0", "39", "0000:3a:00.0", "0000:5d:00.0", nics[1]),
         sw("pci0000:97", "0000:97:01.0", "0000:98:00.0", "99", "0000:9a:00.0", "0000:ab:00.0", nics[2]),
         sw("pci0000:b7", "0000:b7:01.0", "0000:b8:00.0", "b9", "0000:ba:00.0", "0000:db:00.0", nics[3])]
    return [(hb, 0 if i < 2 else 1, rps) for i, (hb, rps) in enumerate(s)]


NET_NICS = [[("0000:19:00.0", "mlx5_0"), ("0000:29:00.0", "mlx5_1")], [("0000:3b:00.0", "mlx5_2"), ("0000:4b:00.0", "mlx5_3")],
            [("0000:9b:00.0", "mlx5_4"), ("0000:aa:00.0", "mlx5_5")], [("0000:bb:00.0", "mlx5_6"), ("0000:ca:00.0", "mlx5_7")]]
tree("hgx-h100x8-8nic", hgx_nics(NET_NICS), HGX_NODES)
# The NICs on node 0's switches only: GPUs 4-7 reach theirs across the CPU link.
tree("hgx-h100x8-nics-node0", hgx_nics(NET_NICS[:2] + [[], []]), HGX_NODES)

# --- 4x A100 PCIe, one host bridge, two root ports with a Gen4 switch each ---
A100 = ["0000:18:00.0", "0000:2a:00.0", "0000:3a:00.0", "0000:5d:00.0"]
ONE_NODE = {0: "0-31"}


def a100_pair(rp, usp, dsp_bus, g0, g1, w1=16):
    return switch(rp, usp, [("0000:%s:00.0" % dsp_bus, node("gpu", g0, 4, 16)),
                            ("0000:%s:01.0" % dsp_bus, node("gpu", g1, 4, 16, cur=(4, w1)))], gen=4)


tree("pcie4-x8", [("pci0000:00", 0, [a100_pair("0000:00:01.0", "0000:16:00.0", "17", A100[0], A100[1], w1=8),
                                     a100_pair("0000:00:03.0", "0000:38:00.0", "39", A100[2], A100[3])])],
     ONE_NODE, speeds=SPEED_OLD)
# GPU 3 sits on a root port of its own that supports only Gen3.
tree("pcie4-gen3slot", [("pci0000:00", 0, [a100_pair("0000:00:01.0", "0000:16:00.0", "17", A100[0], A100[1]),
                                           switch("0000:00:03.0", "0000:38:00.0", [("0000:39:00.0", node("gpu", A100[2], 4, 16))], gen=4),
                                           node("root_port", "0000:00:05.0", 3, 16, [node("gpu", A100[3], 4, 16, cur=(3, 16))])])],
     ONE_NODE)
# Two levels of switches: GPU 1 (with a NIC) behind a second switch whose
# uplink trained at Gen3; GPUs 0 and 2 on the first switch.
CASCADE = ["0000:03:00.0", "0000:06:00.0", "0000:07:00.0"]
second = node("usp", "0000:04:00.0", 4, 16, [node("dsp", "0000:05:00.0", 4, 16, [node("gpu", CASCADE[1], 4, 16)]),
                                             node("dsp", "0000:05:01.0", 4, 16, [node("nic", "0000:08:00.0", 4, 16, name="mlx5_0")])],
              cur=(3, 16))
tree("pcie4-cascade", [("pci0000:00", 0, [node("root_port", "0000:00:01.0", 4, 16, [node("usp", "0000:01:00.0", 4, 16, [
    node("dsp", "0000:02:00.0", 4, 16, [node("gpu", CASCADE[0], 4, 16)]),
    node("dsp", "0000:02:01.0", 4, 16, [second]),
    node("dsp", "0000:02:02.0", 4, 16, [node("gpu", CASCADE[2], 4, 16)])])])])], ONE_NODE)

# --- the job's /proc for the NUMA scenario: pinned to node 1, GPU 3 on node 0 ---
proc = os.path.join(ROOT, "proc", "numa-far-job")
shutil.rmtree(proc, ignore_errors=True)
write(os.path.join(proc, "41003", "status"),
      "Name:\tpython\nState:\tS (sleeping)\nTgid:\t41003\nPid:\t41003\nPPid:\t40990\n"
      "Cpus_allowed:\tffff,ffffffff,ffff0000,00000000,0000ffff,ffffffff,ffff0000,00000000\n"
      "Cpus_allowed_list:\t48-95,144-191\nMems_allowed:\t00000000,00000002\nMems_allowed_list:\t1\n")
write(os.path.join(proc, "41003", "numa_maps"),
      "55d4c8a00000 default file=/usr/bin/python3.11 mapped=800 N1=800 kernelpagesize_kB=4\n"
      "7f2a40000000 default anon=2500000 dirty=2500000 active=2400000 N1=2500000 kernelpagesize_kB=4\n"
      "7f2c80000000 default anon=1200 dirty=1200 N0=1200 kernelpagesize_kB=4\n")
write(os.path.join(proc, "41003", "comm"), "python\n")
with open(os.path.join(proc, "41003", "environ"), "w") as f:
    f.write("PATH=/usr/bin:/bin\0HOME=/home/train\0")


# --- scenarios ---
hgx_sc = load("h100x8-training.json")
hgx_sc["host"] = {"sysfs": "sysfs/hgx-h100x8", "numa_nodes": 2}

sc = copy.deepcopy(hgx_sc)
sc["description"] = "8x H100 SXM, four Gen5 PCIe switches with a GPU pair and a NIC each, NVSwitch: healthy"
save("pcie-h100x8-switches.json", sc)

sc = copy.deepcopy(load("h100x8-idle.json"))
sc["host"] = {"sysfs": "sysfs/hgx-h100x8-idle", "numa_nodes": 2}
sc["description"] = "8x H100 SXM idle: links parked at Gen1 on purpose, nothing to report"
save("pcie-h100x8-idle-gen1.json", sc)

sc = copy.deepcopy(hgx_sc)
sc["description"] = "8x H100 SXM in training, GPU 5's PCIe link replays about 100 packets a second"
sc["gpus"][5]["timeline"] = sc["gpus"][5]["timeline"] + [
    {"t": t, "pcie_replays": 100 * t} for t in range(1, 61)
    if all(p["t"] != t for p in sc["gpus"][5]["timeline"])]
sc["gpus"][5]["timeline"].sort(key=lambda p: p["t"])
for p in sc["gpus"][5]["timeline"]:
    p["pcie_replays"] = 100 * min(p["t"], 60)
save("pcie-h100x8-replays.json", sc)

sc = copy.deepcopy(hgx_sc)
sc["description"] = "8x H100 SXM in training, NVLink 5 of GPU 2 is down"
sc["gpus"][2]["nvlink"][5]["active"] = False
save("pcie-h100x8-nvlink-down.json", sc)

sc = copy.deepcopy(hgx_sc)
sc["description"] = "8x H100 SXM in training; the job on GPU 3 (node 0) is pinned to node 1's CPUs and memory (run with --pid 41003)"
sc["host"]["proc"] = "proc/numa-far-job"
save("pcie-h100x8-numa-far-job.json", sc)

a100 = load("a100x4-pcie-no-fan-no-memtemp.json")
a100["host"] = {"sysfs": "sysfs/pcie4-x8", "numa_nodes": 1}
for g in a100["gpus"]:  # what Gen4 x16 links deliver (research/facts.md 2.3: ~25 GB/s)
    g["bandwidth_gbps"] = {"h2d_pinned": 24.5, "d2h_pinned": 25.0, "h2d_pageable": 11.0, "d2h_pageable": 10.0, "d2d": 1500}
sc = copy.deepcopy(a100)
sc["description"] = "4x A100 PCIe behind two Gen4 switches; GPU 1 trained at x8 of x16"
for p in sc["gpus"][1]["timeline"]:
    if "pcie_width" in p:
        p["pcie_width"] = 8
sc["gpus"][1]["bandwidth_gbps"].update({"h2d_pinned": 12.2, "d2h_pinned": 12.4})
save("pcie-a100x4-x8.json", sc)

sc = copy.deepcopy(a100)
sc["host"]["sysfs"] = "sysfs/pcie4-gen3slot"
sc["description"] = "4x A100 PCIe (Gen4); GPU 3 sits in a slot whose root port supports only Gen3"
for p in sc["gpus"][3]["timeline"]:
    if "pcie_gen" in p:
        p["pcie_gen"] = 3
sc["gpus"][3]["bandwidth_gbps"].update({"h2d_pinned": 12.1, "d2h_pinned": 12.3})
sc["gpus"][3]["pcie_max"]["host_gen"] = 3  # NVML's Max: what card and slot reach together
save("pcie-a100x4-gen4-in-gen3-slot.json", sc)

sc = copy.deepcopy(a100)
sc["host"]["sysfs"] = "sysfs/pcie4-cascade"
sc["description"] = "3x A100 PCIe behind two levels of Gen4 switches; the second switch's uplink trained at Gen3 (GPU 1 behind it)"
sc["gpus"] = sc["gpus"][:3]
for g, bdf in zip(sc["gpus"], CASCADE):
    g["pci_bus_id"] = "0000" + bdf.upper()
save("pcie-a100x3-bridge-downgraded.json", sc)

# --- GPU-to-GPU paths (bench p2p) ---
# 4x A100 PCIe behind two Gen4 switches; the second switch's uplink trained
# at Gen3 x8 (a riser fault): GPUs 2 and 3 reach each other at full speed
# within their switch, but every copy to GPUs 0 and 1 crosses that uplink.
SLOW = (3, 8)
tree("pcie4-slow-switch", [("pci0000:00", 0, [a100_pair("0000:00:01.0", "0000:16:00.0", "17", A100[0], A100[1]),
                                              switch("0000:00:03.0", "0000:38:00.0",
                                                     [("0000:39:00.0", node("gpu", A100[2], 4, 16)),
                                                      ("0000:39:01.0", node("gpu", A100[3], 4, 16))],
                                                     gen=4, rp_cur=SLOW)])], ONE_NODE)
sc = copy.deepcopy(a100)
sc["host"]["sysfs"] = "sysfs/pcie4-slow-switch"
sc["description"] = ("4x A100 PCIe behind two Gen4 switches; the second switch's uplink trained at Gen3 x8 of Gen4 x16: "
                     "GPUs 2 and 3 copy to GPUs 0 and 1 at a quarter of the path's rate (run bench p2p)")
for g in sc["gpus"]:
    g["p2p"] = {"gbps": 25.2}  # Gen4 x16 peer copies within a switch (80 % of 31.5 GB/s)
for i in (0, 1):
    sc["gpus"][i]["p2p"]["peers"] = {"0000" + A100[k].upper(): 6.2 for k in (2, 3)}
for i in (2, 3):
    sc["gpus"][i]["bandwidth_gbps"].update({"h2d_pinned": 6.3, "d2h_pinned": 6.4})
save("pcie-a100x4-slow-switch.json", sc)

# 8x GeForce RTX 4090 on two CPUs, each card on a root port of its own: the
# driver allows no P2P on these boards, so every copy is staged through host
# memory, and across the CPUs' interconnect slower still.
RTX = ["0000:01:00.0", "0000:25:00.0", "0000:41:00.0", "0000:61:00.0",
       "0000:81:00.0", "0000:a1:00.0", "0000:c1:00.0", "0000:e1:00.0"]
RTX_NODES = {0: "0-31,64-95", 1: "32-63,96-127"}


AMD = "0x1022"  # the root ports of an EPYC (Infinity Fabric between the sockets)


def rtx_slot(i):
    bus = int(RTX[i][5:7], 16)
    rp = "0000:%02x:01.1" % (bus - 1 if bus else 0)
    return ("pci0000:%02x" % (bus - 1 if bus else 0), 0 if i < 4 else 1,
            [node("root_port", rp, 4, 16, [node("gpu", RTX[i], 4, 16, cur=(1, 16))], vendor=AMD)])


tree("rtx4090x8", [rtx_slot(i) for i in range(8)], RTX_NODES)
rtx = copy.deepcopy(a100["gpus"][0])
rtx.update({"name": "NVIDIA GeForce RTX 4090", "compute_capability": [8, 9], "memory_total_mib": 24564,
            "power_limit_w": 450, "power_limit_default_w": 450, "power_limit_min_w": 150, "power_limit_max_w": 600,
            "clocks_max_mhz": {"sm": 3105, "mem": 10501}, "vbios_version": "95.02.3c.00.8a",
            "temperature_thresholds_c": {"shutdown": 98, "slowdown": 95, "gpu_max": 90},
            "bandwidth_gbps": {"h2d_pinned": 25.5, "d2h_pinned": 26.0, "h2d_pageable": 12.0, "d2h_pageable": 11.5,
                               "d2d": 900},
            "gemm_tflops": {"bf16": 165, "fp16": 165, "fp32": 82},
            "timeline": [{"t": 0, "temp_c": 34, "sm_clock_mhz": 210, "mem_clock_mhz": 405, "power_w": 18,
                          "util_gpu_pct": 0, "util_mem_pct": 0, "mem_used_mib": 310, "pcie_gen": 1, "pcie_width": 16,
                          "pcie_tx_kbps": 0, "pcie_rx_kbps": 0, "pcie_replays": 0, "event_reasons": ["gpu_idle"]}]})
for k in ("clocks_default_app_mhz", "clocks_app_mhz", "ecc"):
    rtx.pop(k, None)
sc = {"description": "8x GeForce RTX 4090 on two CPUs, idle: the driver reports P2P as not supported by the chipset "
                     "(nvidia-smi topo -p2p r: CNS), so GPU-to-GPU copies are staged through host memory, across the "
                     "CPUs at 7.5 GB/s (run bench p2p)",
      "driver_version": a100.get("driver_version"), "cuda_driver_version": a100.get("cuda_driver_version"),
      "host": {"sysfs": "sysfs/rtx4090x8", "numa_nodes": 2}, "gpus": []}
for i, bdf in enumerate(RTX):
    g = copy.deepcopy(rtx)
    g["uuid"] = "GPU-40900000-0000-4000-8000-%012d" % i
    g["serial"] = "0"
    g["pci_bus_id"] = "0000" + bdf.upper()
    g["p2p"] = {"supported": False, "status": "chipset_not_supported"}
    if i < 4:  # staged copies between the CPUs cross their interconnect twice
        g["p2p"]["peers"] = {"0000" + RTX[k].upper(): 7.5 for k in range(4, 8)}
    sc["gpus"].append(g)
save("rtx4090x8-no-p2p.json", sc)

# 8x A100 PCIe on a dual-socket EPYC, each GPU on a root port of its own
# (four per socket, one NUMA node per socket): peer copies reach 22.5 GB/s
# within a socket (89 % of the 25.2 a Gen4 x16 path's healthy node
# measures) and 15.5 GB/s across the sockets, where Infinity Fabric (xGMI)
# carries about 16 (NCCL's AMD_BW). A healthy node: nothing to fix.
EPYC = ["0000:01:00.0", "0000:21:00.0", "0000:41:00.0", "0000:61:00.0",
        "0000:81:00.0", "0000:a1:00.0", "0000:c1:00.0", "0000:e1:00.0"]
EPYC_NODES = {0: "0-63,128-191", 1: "64-127,192-255"}
EPYC_IN, EPYC_ACROSS = 22.5, 15.5


def epyc_slot(i, width=16):
    hb = int(EPYC[i][5:7], 16) - 1
    return ("pci0000:%02x" % hb, 0 if i < 4 else 1,
            [node("root_port", "0000:%02x:01.1" % hb, 4, 16, [node("gpu", EPYC[i], 4, 16, cur=(4, width))],
                  vendor=AMD)])


def epyc_scenario(description, slow=None):
    """The 8 GPUs of the EPYC node; slow: (gpu, GB/s) of a GPU whose own link trained at x8."""
    sc = copy.deepcopy(a100)
    sc["description"] = description
    sc["host"] = {"sysfs": "sysfs/epyc-a100x8" + ("-x8" if slow else ""), "numa_nodes": 2}
    sc["gpus"] = []
    for i, bdf in enumerate(EPYC):
        g = copy.deepcopy(a100["gpus"][i % 4])
        g["uuid"] = "GPU-a1000000-0000-4000-8000-1000000000%02d" % i
        g["serial"] = "16549220002%02d" % i
        g["pci_bus_id"] = "0000" + bdf.upper()
        g["p2p"] = {"gbps": EPYC_IN,
                    "peers": {"0000" + EPYC[k].upper(): EPYC_ACROSS for k in range(8) if (k < 4) != (i < 4)}}
        sc["gpus"].append(g)
    if slow:
        s, rate = slow
        for i, g in enumerate(sc["gpus"]):
            if i == s:
                g["p2p"] = {"gbps": rate, "peers": {"0000" + EPYC[k].upper(): rate for k in range(8) if (k < 4) != (s < 4)}}
                g["bandwidth_gbps"].update({"h2d_pinned": 12.2, "d2h_pinned": 12.4})
                for p in g["timeline"]:
                    if "pcie_width" in p:
                        p["pcie_width"] = 8
            elif (i < 4) != (s < 4):
                g["p2p"]["peers"]["0000" + EPYC[s].upper()] = rate
    return sc


tree("epyc-a100x8", [epyc_slot(i) for i in range(8)], EPYC_NODES)
save("pcie-epyc-a100x8-sys.json",
     epyc_scenario("8x A100 PCIe on two EPYC CPUs, each GPU on a root port of its own: peer copies at 22.5 GB/s "
                   "within a socket and 15.5 across the sockets (Infinity Fabric carries about 16): healthy "
                   "(run bench p2p, bench nccl)"))
# The same node with GPU 5's own link trained at x8 of x16: copies with it
# reach 11.2 GB/s (89 % of what a Gen4 x8 link's healthy node measures).
tree("epyc-a100x8-x8", [epyc_slot(i, width=8 if i == 5 else 16) for i in range(8)], EPYC_NODES)
save("pcie-epyc-a100x8-gpu5-x8.json",
     epyc_scenario("8x A100 PCIe on two EPYC CPUs; GPU 5's link trained at x8 of x16: its copies reach 11.2 GB/s "
                   "(run bench p2p, bench nccl)", slow=(5, 11.2)))
