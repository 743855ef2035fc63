/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Every verdict pinned: on every real capture (../shared/realdata) and every
 * scenario in examples/, the exact set of findings with their severities
 * and the exit code. A node health check drains nodes on exit 1 and 2, so a
 * severity that moves is a change of behaviour: it must show up here, on
 * purpose. A capture or scenario that is not in these tables fails too.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "run_tool.h"

#include <dirent.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct verdict {
    const char *file; /* realdata/FILE, or examples/FILE */
    const char *pid; /* --pid for scenarios about a job, or NULL */
    int exit_code;
    const char *ids[10]; /* "id@gpu=severity" (gpu -1: host-wide), NULL-terminated; a set */
} verdict;

static const verdict captures[] = {
    {"smi-xml/a100-sxm4-40gb-mig-gcp-netdata.xml",
     NULL,
     0,
     {"config.mig_enabled@0=info", "config.persistence_off@0=info", NULL}},
    {"smi-xml/a100-sxm4-80gb-mig-trimmed-telegraf.xml",
     NULL,
     0,
     {"config.mig_enabled@0=info", "config.persistence_off@0=info", NULL}},
    {"smi-xml/a10g-aws-x8-idle-telegraf.xml",
     NULL,
     0,
     {"config.persistence_off@0=info", "pcie.width_reduced@0=info", NULL}},
    {"smi-xml/dual-rtx-a5000-telegraf.xml", NULL, 0, {NULL}},
    {"smi-xml/dual-rtx2070-x8-telegraf.xml", NULL, 0, {"pcie.width_reduced@0=info", "pcie.width_reduced@1=info", NULL}},
    {"smi-xml/grid-p4-1q-vgpu-telegraf.xml", NULL, 0, {NULL}},
    {"smi-xml/gtx1070-x1-riser-load-trimmed-pai.xml",
     NULL,
     2,
     {"config.persistence_off@-1=info", "pcie.link_downgraded@0=critical", "pcie.link_downgraded@1=critical", NULL}},
    /* Lifetime double-bit errors whose pages are retired, nothing pending: history (issue 38). */
    {"smi-xml/k80-4gpu-azure-ecc-retired-pai.xml",
     NULL,
     0,
     {"config.persistence_off@-1=info", "health.ecc_uncorrectable@0=info", "health.ecc_uncorrectable@1=info", NULL}},
    {"smi-xml/rtx-pro-6000-blackwell-maxq-gen4host-telegraf.xml", NULL, 1, {"pcie.slot_limited@0=warning", NULL}},
    {"smi-xml/rtx3080-load-v13-telegraf.xml", NULL, 0, {"config.persistence_off@0=info", NULL}},
    {"smi-xml/rtx3080-windows-wddm-telegraf.xml", NULL, 0, {NULL}},
    {"smi-xml/rtx3090-powerlimit-200w-telegraf.xml", NULL, 1, {"power.limit_lowered@0=warning", NULL}},
    {"smi-xml/rtx3090-v13-swpowercap-idle-telegraf.xml", NULL, 0, {NULL}},
    {"smi-xml/rtx4090-gen3host-netdata.xml", NULL, 1, {"pcie.slot_limited@0=warning", NULL}},
    {"smi-xml/tesla-p100-gcp-sbe-netdata.xml", NULL, 0, {"config.persistence_off@0=info", NULL}},
    {"smi-xml/tesla-t4-aws-x8-telegraf.xml",
     NULL,
     0,
     {"config.persistence_off@0=info", "pcie.width_reduced@0=info", NULL}},
    {"smi-xml/v100-sxm3-dbe-retired-pending-pai.xml",
     NULL,
     2,
     {"health.ecc_uncorrectable@0=critical", "health.row_remap@0=critical", NULL}},
    {"smi-xml/dual-rtx2080-x8-idle-590-telegraf.xml",
     NULL,
     0,
     {"pcie.width_reduced@0=info", "pcie.width_reduced@1=info", NULL}},
    {"smi-xml/gt1030-x4-gen3-p0-idle-470-telegraf.xml", NULL, 0, {"config.persistence_off@0=info", NULL}},
    {"smi-xml/gtx1660ti-graphics-device-418-idle-telegraf.xml", NULL, 0, {"config.persistence_off@0=info", NULL}},
    {"smi-xml/quadro-p2000-x8-idle-525-telegraf.xml", NULL, 0, {"pcie.width_reduced@0=info", NULL}},
    {"smi-xml/quadro-p400-power-na-idle-418-telegraf.xml", NULL, 0, {"config.persistence_off@0=info", NULL}},
    {"smi-xml/rtx3060-idle-570-telegraf.xml", NULL, 0, {NULL}},
    {"smi-xml/rtx4000-sff-ada-idle-595-telegraf.xml", NULL, 0, {NULL}},
    {"smi-xml/tesla-t4-windows-wddm-512-telegraf.xml", NULL, 0, {NULL}},
    {"smi-text/a10-row-remap-pending-gpud.txt", NULL, 2, {"health.row_remap@0=critical", NULL}},
    {"smi-text/h100-sxm-load-utku.txt", NULL, 0, {NULL}},
    {"smi-text/h100x8-hw-slowdown-power-brake-gpud.txt",
     NULL,
     1,
     {"power.brake@0=warning", "power.brake@1=warning", "power.brake@2=warning", "power.brake@3=warning",
      "power.brake@4=warning", "power.brake@5=warning", "power.brake@6=warning", "power.brake@7=warning", NULL}},
    {"smi-text/h100x8-one-gpu-swcap-brake-swthermal-gpud.txt", NULL, 0, {"power.brake@2=info", NULL}},
    {"smi-text/h200-mig-load-utku.txt", NULL, 0, {"config.mig_enabled@0=info", NULL}},
    {"smi-text/rtx4090x8-idle-gpud.txt", NULL, 0, {NULL}},
    {"smi-text/rtx4090x8-swpowercap-under-load-gpud.txt",
     NULL,
     0,
     {"power.capped@-1=info", "vram.near_full@4=info", NULL}},
    {"smi-text/titan-v-idle-gpud.txt", NULL, 0, {"config.persistence_off@0=info", NULL}},
    {"smi-text/gh200-c2c-pcie-gen4-x1-idle-princeton.txt", NULL, 0, {NULL}},
    {"smi-text/h100-della-idle-prompt-no-blank-lines-princeton.txt", NULL, 0, {NULL}},
    {"smi-text/h100-mig-4-instances-idle-utku.txt", NULL, 0, {"config.mig_enabled@0=info", NULL}},
    {"smi-text/h200-full-load-utku.txt", NULL, 0, {NULL}},
    {"smi-text/rtx2080super-610-deprecated-driver-field-nvenc-load-utku.txt",
     NULL,
     0,
     {"config.persistence_off@0=info", NULL}},
    {"smi-text/rtx2080super-windows-wddm-610-idle-utku.txt", NULL, 0, {NULL}},
    {"smi-text/rtx4080super-idle-gen1-595-utku.txt", NULL, 0, {"config.persistence_off@0=info", NULL}},
    {"smi-text/rtx4090x8-five-loaded-535-gpud.txt", NULL, 0, {NULL}},
    /* Trimmed by hand ("[...]", one of 8 GPUs): what is there is read, its pending remap (DCGM fails on it). */
    {"smi-text/a100-sxm4-80gb-row-remap-pending-trimmed-510-stas00.txt",
     NULL,
     2,
     {"health.row_remap@0=critical", NULL}},
    {"smi-text/a100-sxm4-80gb-x4-row-remap-pending-555-gls.txt", NULL, 2, {"health.row_remap@1=critical", NULL}},
    /* Idle, "SW Power Cap" flagged at 15-31 W: an idle GPU's flag, nothing lowered. */
    {"smi-text/a40-x10-idle-swpowercap-flag-550-gls.txt", NULL, 0, {NULL}},
    {"smi-text/rtx-a6000-x9-idle-swpowercap-flag-550-gls.txt", NULL, 0, {NULL}},
    {"smi-text/gtx1080ti-x4-supermicro-4028gr-idle-384-bugreport-eler.txt",
     NULL,
     0,
     {"config.persistence_off@-1=info", NULL}},
    {"smi-text/h100-nvl-x2-idle-550-gls.txt", NULL, 0, {NULL}},
    /* 7, 4 and 15 replays since the last reset, one snapshot: no rate to judge, nothing failing. */
    {"smi-text/h100-sxm-x8-idle-565-gls.txt", NULL, 0, {NULL}},
    {"smi-text/h200-vm-passthrough-idle-550-gls.txt", NULL, 0, {NULL}},
    {"smi-text/l40s-nvenc-load-595-utku.txt", NULL, 0, {"config.persistence_off@0=info", NULL}},
    /* 84-85 C under load at the 2080 Ti's 84 C boost target, 4 C under its 89 C maximum, power-capped: warm, not
     * throttling; GPU 3 full of a job's memory. */
    {"smi-text/rtx2080ti-x4-supermicro-two-hot-84-85c-load-440-bugreport-toolman.txt",
     NULL,
     0,
     {"power.capped@-1=info", "thermal.hot@0=info", "thermal.hot@2=info", "vram.near_full@3=info", NULL}},
    {"smi-text/rtx4090x8-two-loaded-74c-tlimit-9-11-535-gpud.txt", NULL, 0, {"power.capped@4=info", NULL}},
    {"smi-text/v100-sxm2-16gb-x8-idle-550-gls.txt", NULL, 0, {NULL}},
    /* 900 W requested, 700 W enforced: the platform holds it (not -pl); one error, its row remapped: history. */
    {"smi-text/gh200-gpu-limit-700-of-900w-c2c-idle-550-gls.txt",
     NULL,
     1,
     {"power.limit_lowered@0=warning", "health.ecc_uncorrectable@0=info", NULL}},
    /* Idle links narrower than their maximum: said as context (pcie.width_reduced), never a failure. */
    {"smi-text/l4-x8-of-x16-width-idle-550-gls.txt", NULL, 0, {"pcie.width_reduced@0=info", NULL}},
    {"smi-text/rtx4060ti-x2-one-at-x4-of-x8-550-gls.txt",
     NULL,
     0,
     {"config.persistence_off@-1=info", "pcie.width_reduced@0=info", NULL}},
    {"smi-csv/h100-load-dmon-utku.txt", NULL, 0, {NULL}},
    {"smi-csv/h200-mig-load-dmon-utku.txt", NULL, 0, {NULL}},
    {"smi-csv/l40s-load-query-gpu-utku.csv", NULL, 0, {"config.persistence_off@0=info", NULL}},
    {"smi-csv/tesla-p100-query-gpu-netdata.csv", NULL, 0, {NULL}},
    {"smi-csv/h100-mig-load-query-gpu-utku.csv", NULL, 0, {"config.mig_enabled@0=info", NULL}},
    {"smi-csv/h200-full-load-query-gpu-utku.csv", NULL, 0, {NULL}},
    {"smi-csv/rtx2080super-windows-610-load-query-gpu-utku.csv", NULL, 0, {NULL}},
    {"smi-csv/rtx4080super-nvenc-load-query-gpu-utku.csv", NULL, 0, {"config.persistence_off@0=info", NULL}},
    {"smi-csv/l40s-nvenc-load-dmon-595-utku.txt", NULL, 0, {NULL}},
    {"smi-csv/rtx2080super-nvenc-load-query-gpu-595-linux-utku.csv", NULL, 0, {"config.persistence_off@0=info", NULL}},
    {"lspci/grid-k520-aws-g2-xen-lspci-vvv.txt", NULL, 0, {NULL}},
    {"lspci/h100x8-dell-lspci-vvv-gpud.txt", NULL, 0, {NULL}},
    {"lspci/p100x2-dell-lspci-vvv-cmlgpu.txt", NULL, 0, {NULL}},
    /* A prompt (and sudo's) before one GPU's -vvv, space-indented: idle at 2.5 GT/s, AER clean. */
    {"lspci/rtx6000ada-asus-esc8000a-01-gen1-idle-lspci-vvv-spaces-stelline.txt", NULL, 0, {NULL}},
    {"lspci/rtx6000ada-puget-wrx90-c1-gen1-idle-lspci-vvv-spaces-stelline.txt", NULL, 0, {NULL}},
    /* 'lspci -v -xxx' (nvidia-bug-report's): no decoded link, nothing of the GPUs judged. */
    {"lspci/rtx2080ti-x4-lspci-v-xxx-hexdump-bugreport-toolman.txt", NULL, 3, {NULL}},
    /* Kernel logs alone: what they say of the GPUs; a clean one is OK on what it judged, the GPUs' own
     * word on their state (exit 0; docs/interface.md, exit codes). */
    {"logs/h100nvl-x2-clean-boot-rocky9-dmesg-supermicro.txt", NULL, 0, {NULL}},
    {"logs/h100x8-xe9680-xid119-gsp-timeout-dmesg-T-gpud.log", NULL, 2, {"health.xid@-1=critical", NULL}},
    {"logs/l40-fallen-off-bus-no-xid-dmesg-nvsentinel155.log", NULL, 2, {"health.gpu_lost@-1=critical", NULL}},
    {"logs/peermem-noise-journalctl-short-iso-gpud.log", NULL, 0, {NULL}},
    {"logs/xid13-xid43-app-fault-flood-dmesg-decode-iso-gpud.log", NULL, 1, {"health.xid@-1=warning", NULL}},
    {"logs/xid48-dbe-xid63-remap-xid94-contained-dmesg-iso-gpud.log", NULL, 2, {"health.xid@-1=critical", NULL}},
    {"logs/a100-mig-xid120-gsp-error-xid119-dmesg-T-dcgmexporter84.log", NULL, 2, {"health.xid@-1=critical", NULL}},
    /* A bare NVRM line: a row remap recorded, waiting for a reset. */
    {"logs/a100-xid63-row-remapper-bare-nvrm-line-stas00.log", NULL, 1, {"health.xid@-1=warning", NULL}},
    {"logs/a40-xid119-gsp-rpc-timeout-nv-hostengine-dmesg-dcgm144.log", NULL, 2, {"health.xid@-1=critical", NULL}},
    {"logs/clean-boot-550-nvswitch-dmesg-decode-iso-gpud.log", NULL, 0, {NULL}},
    /* Non-fatal SXids on three links of one switch at driver load: to watch. */
    {"logs/h100-hgx-tdx-sxid22013-nonfatal-dmesg-nvtrust124.log", NULL, 1, {"nvlink.sxid@-1=warning", NULL}},
    {"logs/nvswitch-open-raw-dev-kmsg-format-gpud.log", NULL, 0, {NULL}},
    /* One GPU's Xids 13/31/32/45/62 from a job (32: a corrupt push buffer, 62: a halted micro-controller, both
     * warnings), as syslog and as journalctl in Chinese month names. */
    {"logs/rtx2080ti-x4-xid13-31-32-45-62-kernlog-syslog-bugreport-toolman.log",
     NULL,
     1,
     {"health.xid@-1=warning", NULL}},
    {"logs/rtx2080ti-x4-xid13-31-32-62-journalctl-zh-month-bugreport-toolman.log",
     NULL,
     1,
     {"health.xid@-1=warning", NULL}},
    /* After a prompt: 43 and 31 from the application, 94 contained (RST: No), one address each. */
    {"logs/xid43-31-94-contained-8gpu-vm-dmesg-T-prompt-akash244.log",
     NULL,
     1,
     {"health.xid@-1=warning", "health.xid@-1=warning", "health.xid@-1=warning", NULL}},
    /* Xid 48 and 64 on one GPU, another that the driver cannot initialise. */
    {"logs/xid48-dbe-xid64-retire-fail-rminitadapter-syslog-gpuoperator1146.log",
     NULL,
     2,
     {"health.gpu_lost@-1=critical", "health.xid@-1=critical", NULL}},
    /* After a prompt: Xid 79, the GPU off the bus (health.xid says it; health.gpu_lost does not repeat it). */
    {"logs/xid79-fallen-off-bus-dmesg-T-prompt-akash209.log", NULL, 2, {"health.xid@-1=critical", NULL}},
    /* Topology matrices alone: how the GPUs are wired, no GPU's own state (exit 3, not "healthy"). */
    {"topo/8gpu-nv18-10nic-2numa-dwflyingw.txt", NULL, 3, {NULL}},
    {"topo/g6e-4xl40s-pcie-node-gnosia93.txt", NULL, 3, {NULL}},
    {"topo/h100-1gpu-6nic-prompt-princeton.txt", NULL, 3, {NULL}},
    {"topo/h100-8gpu-nv18-stas00.txt", NULL, 3, {NULL}},
    {"topo/h100-single-gpu-ansi-utku.txt", NULL, 3, {NULL}},
    {"topo/p4d-8xa100-nv12-gnosia93.txt", NULL, 3, {NULL}},
    {"topo/p5-8xh100-nv18-gnosia93.txt", NULL, 3, {NULL}},
    {"topo/rtx2080super-windows-empty-affinity-utku.txt", NULL, 3, {NULL}},
    {"topo/asus-esc8000a-4xrtx6000ada-4nic-2numa-prompt-stelline.txt", NULL, 3, {NULL}},
    {"topo/puget-wrx90-2xrtx6000ada-phb-2nic-prompt-stelline.txt", NULL, 3, {NULL}},
    /* The node's RDMA NICs (docs/network-captures.md), each judged as its thread concluded: an IPoIB
     * netdev Down, a dual-port card's unused second port, front-end NICs of another kind are normal. */
    {"network/ib/ibdev2netdev-h100-8x-cx7-pure-ib-netdev-down-is-normal-imbue4.txt", NULL, 0, {NULL}},
    {"network/ib/ibstat-cx6-hdr200-active-cx6-down-disabled-cx4lx-ncclt128.txt",
     NULL,
     1,
     {"net.port_down@-1=warning", NULL}},
    {"network/ib/ibstat-dgx-spark-gb10-cx7-roce200-two-active-two-disabled-geerling92.txt", NULL, 0, {NULL}},
    {"network/ib/ibstat-h100-8x-cx7-roce400-two-down-disabled-gpud.txt",
     NULL,
     2,
     {"net.port_down@-1=critical", "net.port_down@-1=critical", NULL}},
    {"network/ib/ibstat-h100-8x-ndr400-ib-plus-bf3-bond-200-eth-gpud.txt", NULL, 0, {NULL}},
    /* ibstatus gives only the default GID, untyped: no table to judge RoCE by. */
    {"network/ib/ibstatus-a100-azure-8x-hdr200-all-active-gpud.txt", NULL, 0, {NULL}},
    {"network/ib/ibstatus-hdr200-one-active-one-down-disabled-nccl489.txt",
     NULL,
     1,
     {"net.port_down@-1=warning", NULL}},
    {"network/ib/ip-ibdev2netdev-topo-hgx8-roce-12x-mlx5-two-down-slurmv4.txt", NULL, 0, {NULL}},
    /* A table with a v2 row for every address: the thread's wrong NCCL_IB_GID_INDEX is not in it. */
    {"network/ib/show_gids-roce-mlx5_0-gid-index-4-is-v1-nccl1510.txt", NULL, 0, {NULL}},
    {"network/misc/lsmod-no-nvidia_peermem-no-nv_peer_mem-a100-ib-nccl988.txt",
     NULL,
     1,
     {"net.gdr_module@-1=warning", NULL}},
    {"network/misc/lspci-acsctl-still-enabled-although-bios-off-vendor-err-81-nccl523.txt",
     NULL,
     0,
     {"net.acs_enabled@-1=info", NULL}},
    /* NCCL's own logs (docs/nccl-log.md), each judged as its thread concluded. */
    {"network/nccl-logs/asymmetric-gdr-send-gdrdma-receive-host-staged-peermem-missing-one-node-nccltests152.log",
     NULL,
     1,
     {"nccl_log.gdr_off@-1=warning", NULL}},
    {"network/nccl-logs/azure-aks-ib-gdrdma-healthy-gdr-level-forced-sys-aksrdma36.log", NULL, 0, {NULL}},
    {"network/nccl-logs/container-no-ib-device-hpcx-ibext-socket-fallback-virbr0-nccl941.log",
     NULL,
     1,
     {"nccl_log.socket_fallback@-1=warning", "nccl_log.bad_iface@-1=warning", NULL}},
    {"network/nccl-logs/gdr-disabled-by-distance-for-far-gpus-gdr-level-phb-dle383.log",
     NULL,
     1,
     {"nccl_log.gdr_off@-1=warning", NULL}},
    {"network/nccl-logs/ib-4hca-gdr-disabled-no-module-peermem-missing-nccl899.log",
     NULL,
     1,
     {"nccl_log.gdr_off@-1=warning", NULL}},
    /* Every rank on IB: NET/Socket's list (virbr0 in it) carries no data; the thread's missing GDR is not in this excerpt. */
    {"network/nccl-logs/ib-without-gdr-virbr0-in-socket-list-4node-nccltests29.log", NULL, 0, {NULL}},
    {"network/nccl-logs/no-route-to-host-bootstrap-retries-llamafactory8045.log",
     NULL,
     2,
     {"nccl_log.connect_failed@-1=critical", NULL}},
    {"network/nccl-logs/roce-gdr-disabled-both-hcas-peermem-loaded-nccl1537.log",
     NULL,
     1,
     {"nccl_log.gdr_off@-1=warning", NULL}},
    /* One node's log alone: the mismatch shows only beside the other nodes' (e2e.test_e2e_nccl_log). */
    {"network/nccl-logs/version-mismatch-problem-node-nccl-2.14.3-fastsocket-gcp-nccl1267.log", NULL, 0, {NULL}},
    /* nccl-tests tables alone: explained (the peak at the large sizes), judged against no NIC (none given). */
    {"network/nccl-tests/all_reduce_perf-256gpu-16-per-node-nccl2.8.4-45-72GBs-ncclt78.txt",
     NULL,
     0,
     {"nccl_tests.summary@-1=info", NULL}},
    {"network/nccl-tests/all_reduce_perf-2node-16x-h100-gcp-a3mega-tcpxo-338GBs-lessizzmore.txt",
     NULL,
     0,
     {"nccl_tests.summary@-1=info", NULL}},
    {"network/nccl-tests/all_reduce_perf-2node-1x-h100-per-node-4nic-tree-41GBs-ncclt232.txt",
     NULL,
     0,
     {"nccl_tests.summary@-1=info", NULL}},
    {"network/nccl-tests/all_reduce_perf-3node-cross-rack-h100-roce-collapse-29-to-5GBs-tagged-rows-nccl1453.txt",
     NULL,
     1,
     {"nccl_tests.summary@-1=info", "nccl_tests.collapse@-1=warning", NULL}},
    {"network/nccl-tests/all_reduce_perf-8node-64x-v100-100g-ib-4.3GBs-slow-ncclt78.txt",
     NULL,
     0,
     {"nccl_tests.summary@-1=info", NULL}},
};

static const verdict scenarios[] = {
    {"a100x4-pcie-no-fan-no-memtemp.json", NULL, 0, {NULL}},
    /* The benchmarks' scenarios are idle (or loaded and cool at first) to check:
     * what they hold shows under bench (test_e2e_bench.c). */
    {"bench-h100x4-faults.json", NULL, 0, {NULL}},
    {"bench-h100x8-one-slow.json", NULL, 0, {NULL}},
    {"bench-h100x8-stress-heats.json", NULL, 0, {NULL}},
    {"demo.json", NULL, 2, {"power.limit_lowered@2=critical", "thermal.hot@5=warning", NULL}},
    /* Without a job (run, --pid) NVML's empty process lists link nothing: quiet (test_e2e_job_tree.c). */
    {"h100x2-container-starved.json", NULL, 0, {NULL}},
    {"h100x8-clocks-locked.json", NULL, 2, {"clocks.locked@0=critical", NULL}},
    {"h100x8-clocks-low.json", NULL, 2, {"clocks.low@1=critical", NULL}},
    {"h100x8-driver-535.json", NULL, 0, {NULL}},
    /* Its faults come at 25 and 40 s: the first 10 s are healthy (test_e2e_health_events judges the rest). */
    {"h100x8-ecc-arrives.json", NULL, 0, {NULL}},
    {"h100x8-gpu-lost.json", NULL, 2, {"health.gpu_lost@3=critical", NULL}},
    {"h100x8-hbm-hot.json", NULL, 2, {"thermal.throttling@3=critical", NULL}},
    {"h100x8-hw-slowdown.json", NULL, 2, {"power.hw_slowdown@7=critical", NULL}},
    {"h100x8-hw-thermal-slowdown.json", NULL, 2, {"thermal.throttling@6=critical", NULL}},
    {"h100x8-idle.json", NULL, 0, {NULL}},
    {"h100x8-input-io-wait.json",
     "41000",
     1,
     {"input.io_wait@-1=warning", "gpu.underutilized@0=warning", "gpu.underutilized@1=warning",
      "gpu.underutilized@2=warning", "gpu.underutilized@3=warning", "gpu.underutilized@4=warning",
      "gpu.underutilized@5=warning", "gpu.underutilized@6=warning", "gpu.underutilized@7=warning", NULL}},
    {"h100x8-memory-errors.json",
     NULL,
     2,
     {"health.ecc_uncorrectable@4=critical", "health.row_remap@5=critical", "health.row_remap@6=critical",
      "health.row_remap@7=warning", NULL}},
    {"h100x8-misconfigured.json",
     NULL,
     2,
     {"config.compute_mode@2=critical", "config.ecc_disabled@6=info", "config.mig_enabled@0=info",
      "config.persistence_off@-1=info", NULL}},
    /* Fabric Manager not running: no GPU registered with the NVLink fabric. */
    {"h100x8-fabric-manager-down.json", NULL, 2, {"nvlink.fabric@-1=critical", NULL}},
    /* One link's errors grow from 2 s (a recovery at 6), one link down on GPU 3 only, non-fatal SXids. */
    {"h100x8-nvlink-degraded.json",
     NULL,
     2,
     {"nvlink.errors@5=critical", "nvlink.down@3=warning", "nvlink.sxid@-1=warning", NULL}},
    /* Its NVLink errors start at 20 s: the first 10 s are clean (test_e2e_health_events judges the rest). */
    {"h100x8-nvlink-errors.json", NULL, 0, {NULL}},
    {"h100x8-one-gpu-hotter.json", NULL, 1, {"thermal.outlier@5=warning", NULL}},
    {"h100x8-power-brake.json", NULL, 2, {"power.brake@4=critical", NULL}},
    {"h100x8-power-capped-normal.json", NULL, 0, {"power.capped@-1=info", NULL}},
    {"h100x8-power-limit-lowered.json", NULL, 2, {"power.limit_lowered@1=critical", NULL}},
    {"h100x8-thermal-throttling.json", NULL, 2, {"thermal.throttling@2=critical", NULL}},
    {"h100x8-training.json", NULL, 0, {NULL}},
    {"h100x8-underutilized.json",
     NULL,
     1,
     {"gpu.underutilized@0=warning", "gpu.underutilized@1=warning", "gpu.underutilized@2=warning",
      "gpu.underutilized@3=warning", "gpu.underutilized@4=warning", "gpu.underutilized@5=warning",
      "gpu.underutilized@6=warning", "gpu.underutilized@7=warning", NULL}},
    {"h100x8-xid.json", NULL, 2, {"health.xid@1=info", "health.xid@3=critical", "health.xid@4=critical", NULL}},
    {"pcie-a100x3-bridge-downgraded.json", NULL, 2, {"pcie.upstream_downgraded@1=critical", NULL}},
    {"pcie-a100x4-gen4-in-gen3-slot.json", NULL, 1, {"pcie.slot_limited@3=warning", NULL}},
    {"pcie-a100x4-x8.json", NULL, 2, {"pcie.link_downgraded@1=critical", NULL}},
    /* GPU pairs: what the links say; bench p2p measures the cost (test_e2e_p2p.c). */
    {"pcie-a100x4-slow-switch.json",
     NULL,
     2,
     {"pcie.upstream_downgraded@2=critical", "pcie.upstream_downgraded@3=critical", NULL}},
    {"rtx4090x8-no-p2p.json", NULL, 0, {"p2p.unsupported@-1=info", NULL}},
    /* Two EPYC sockets, a GPU per root port: healthy; bench p2p and nccl hold copies across the sockets to
     * what Infinity Fabric carries (test_e2e_p2p.c, test_e2e_bench_nccl.c). */
    {"pcie-epyc-a100x8-sys.json", NULL, 0, {NULL}},
    {"pcie-epyc-a100x8-gpu5-x8.json", NULL, 2, {"pcie.link_downgraded@5=critical", NULL}},
    {"pcie-h100x8-idle-gen1.json", NULL, 0, {NULL}},
    {"pcie-h100x8-numa-far-job.json", "41003", 1, {"topology.numa_mismatch@3=warning", NULL}},
    {"pcie-h100x8-nvlink-down.json", NULL, 1, {"nvlink.down@2=warning", NULL}},
    {"pcie-h100x8-replays.json", NULL, 2, {"pcie.replays@5=critical", NULL}},
    {"pcie-h100x8-switches.json", NULL, 0, {NULL}},
    {"vram-foreign-process.json", "41000", 1, {"vram.foreign_process@2=warning", NULL}},
    {"vram-growing.json", NULL, 2, {"vram.growing@0=critical", NULL}},
    {"vram-near-full.json", NULL, 0, {"vram.near_full@1=info", NULL}},
    /* The training network (examples/net-*.json, scripts/gen-net-examples.py): each story fires its
     * one check; the healthy IB and RoCE nodes and the Ethernet-only VM stay quiet. */
    {"net-eth-cloud-vm.json", NULL, 0, {NULL}},
    {"net-ib-acs-on.json", NULL, 1, {"net.acs_enabled@0=warning", "net.acs_enabled@1=warning", NULL}},
    {"net-ib-h100x8-healthy.json", NULL, 0, {NULL}},
    {"net-ib-nic-far.json",
     NULL,
     1,
     {"net.gpu_nic_far@4=warning", "net.gpu_nic_far@5=warning", "net.gpu_nic_far@6=warning",
      "net.gpu_nic_far@7=warning", NULL}},
    {"net-ib-no-peermem.json", NULL, 1, {"net.gdr_module@-1=warning", NULL}},
    {"net-ib-port-down.json", NULL, 2, {"net.port_down@-1=critical", NULL}},
    {"net-ib-port-half-rate.json", NULL, 1, {"net.port_rate_low@-1=warning", NULL}},
    {"net-ib-symbol-errors.json", NULL, 1, {"net.port_errors@-1=warning", NULL}},
    {"net-roce-gid-v1.json", "41003", 1, {"net.roce_gid@-1=warning", NULL}},
    {"net-roce-h100x8-healthy.json", NULL, 0, {NULL}},
};

/* No CUDA_VISIBLE_DEVICES, NCCL_* or Slurm of the machine running the tests. */
static const char *const env[] = {
    "GPUDOCTOR_SIM_TIMESCALE=", "NO_COLOR=",     "GPUDOCTOR_ROOT=", "CUDA_VISIBLE_DEVICES=", "NCCL_IB_DISABLE=",
    "SLURM_JOB_NUM_NODES=",     "SLURM_NNODES=", "WORLD_SIZE=",     "LOCAL_WORLD_SIZE=",     NULL};

/* Unknown is null, never "" (docs/interface.md): hostname, kernel and every
 * name, uuid and bus id anywhere in the report. */
static void no_empty_unknowns(const char *file, const char *path, json_t *j)
{
    static const char *const keys[] = {"hostname", "kernel", "name", "uuid", "pci_bus_id", "remote_pci_bus_id"};
    const char *key;
    json_t *v;
    size_t i;
    char sub[512];
    if (json_is_object(j)) {
        json_object_foreach(j, key, v)
        {
            for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++)
                if (strcmp(key, keys[k]) == 0 && json_is_string(v) && json_string_value(v)[0] == '\0')
                    fail_msg("%s: %s.%s is \"\", not null", file, path, key);
            snprintf(sub, sizeof sub, "%s.%s", path, key);
            no_empty_unknowns(file, sub, v);
        }
    } else if (json_is_array(j)) {
        json_array_foreach(j, i, v)
        {
            snprintf(sub, sizeof sub, "%s[%zu]", path, i);
            no_empty_unknowns(file, sub, v);
        }
    }
}

/* Fails unless r has exactly v's findings, severities and exit code. */
static void want_verdict(const verdict *v, const tool_result *r)
{
    if (!r->json)
        fail_msg("%s: no JSON; exit %d, stderr: %s", v->file, r->exit_code, r->err);
    no_empty_unknowns(v->file, "", r->json);
    json_t *findings = json_object_get(r->json, "findings"), *f;
    size_t want = 0, i;
    while (v->ids[want])
        want++;
    char got[4096] = "";
    size_t used = 0;
    bool ok = json_array_size(findings) == want && r->exit_code == v->exit_code;
    json_array_foreach(findings, i, f)
    {
        char key[96], entry[128];
        finding_key(f, key, sizeof key);
        snprintf(entry, sizeof entry, "%s=%s", key, json_string_value(json_object_get(f, "severity")));
        bool listed = false;
        for (size_t k = 0; k < want; k++)
            listed |= strcmp(v->ids[k], entry) == 0;
        ok &= listed;
        used += (size_t)snprintf(got + used, used < sizeof got ? sizeof got - used : 0, " %s", entry);
    }
    if (!ok)
        fail_msg("%s: exit %d (want %d), findings:%s", v->file, r->exit_code, v->exit_code, got);
}

/* Every file of dir (a realdata subfolder, or examples/ *.json) is in the table. */
static void all_listed(const char *dir, const char *prefix, const verdict *t, size_t n, const char *suffix)
{
    DIR *d = opendir(dir);
    assert_non_null(d);
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t len = strlen(e->d_name);
        if (e->d_name[0] == '.' ||
            (suffix && (len < strlen(suffix) || strcmp(e->d_name + len - strlen(suffix), suffix))))
            continue;
        char name[512];
        snprintf(name, sizeof name, "%s%s", prefix, e->d_name);
        bool found = false;
        for (size_t i = 0; i < n; i++)
            found |= strcmp(t[i].file, name) == 0;
        if (!found)
            fail_msg("%s is in no verdict table: pin its findings in %s", name, __FILE__);
    }
    closedir(d);
}

static void every_real_capture_has_its_verdict(void **state)
{
    (void)state;
    need_realdata();
    size_t n = sizeof captures / sizeof captures[0];
    static const char *const subdirs[] = {"smi-xml",    "smi-text",    "smi-csv",           "lspci",
                                          "logs",       "topo",        "network/nccl-logs", "network/nccl-tests",
                                          "network/ib", "network/misc"};
    for (size_t s = 0; s < sizeof subdirs / sizeof subdirs[0]; s++) {
        char dir[1024], prefix[64];
        snprintf(dir, sizeof dir, "%s/%s", GD_REALDATA_DIR, subdirs[s]);
        snprintf(prefix, sizeof prefix, "%s/", subdirs[s]);
        all_listed(dir, prefix, captures, n, NULL);
    }
    for (size_t i = 0; i < n; i++) {
        tool_result r = run_tool((const char *[]){"check", "--json", "--from", realdata(captures[i].file), NULL}, env);
        want_verdict(&captures[i], &r);
        tool_result_free(&r);
    }
}

static void every_example_scenario_has_its_verdict(void **state)
{
    (void)state;
    size_t n = sizeof scenarios / sizeof scenarios[0];
    all_listed(GD_EXAMPLES_DIR, "", scenarios, n, ".json");
    for (size_t i = 0; i < n; i++) {
        const char *argv[] = {"check",
                              "--json",
                              "--duration",
                              "10",
                              "--interval",
                              "1000",
                              "--sim",
                              example(scenarios[i].file),
                              scenarios[i].pid ? "--pid" : NULL,
                              scenarios[i].pid,
                              NULL};
        tool_result r = run_tool(argv, env);
        want_verdict(&scenarios[i], &r);
        tool_result_free(&r);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_real_capture_has_its_verdict),
        cmocka_unit_test(every_example_scenario_has_its_verdict),
    };
    return realdata_exit(cmocka_run_group_tests(tests, NULL, NULL));
}
