/* SPDX-License-Identifier: Apache-2.0 */
/*
 * PCIe and topology facts: each GPU's link and the bridges above it (from
 * sysfs, or an `lspci -vv` capture), NUMA placement, the NICs that share its
 * switch, the GPU-to-GPU topology matrix (derived, or from `nvidia-smi topo
 * -m`), the job's CPU and memory placement, and `bench pcie` results.
 */
#ifndef GPUDOCTOR_PCIE_H
#define GPUDOCTOR_PCIE_H

#include "gpudoctor/model.h"

/* What a healthy link carries in pinned copies: 76-84 % of its theoretical
 * rate (research/facts.md 2.3: CUDA Best Practices Gen3 ~12 of 15.75 GB/s,
 * nvbandwidth A100 Gen4 ~25 of 31.5, H100 Gen5 D2H ~53 of 63). */
#define GD_PCIE_BW_HEALTHY_RATIO 0.80

#define GD_PCIE_MAX_HOPS 12
#define GD_PCIE_MAX_NICS 8
#define GD_PCIE_TOPO_MAX_GPUS 64 /* GPUs a NIC of a topo capture keeps its level to */
#define GD_PCIE_MAX_NODES 64

/* One device on the path from a GPU up to its root port. Values a source
 * does not give stay GD_ST_UNREAD / NOT_SUPPORTED, never 0. */
typedef struct gd_pcie_hop {
    char bdf[16]; /* "0000:1b:00.0", lower case */
    char role[16]; /* "gpu", "switch_port", "root_port", "bridge" */
    gd_value speed_gts, speed_max_gts; /* current_link_speed / max_link_speed, GT/s */
    gd_value gen, gen_max; /* the same as a generation */
    gd_value width, width_max; /* lanes */
    /* AER: totals since boot from sysfs (aer_dev_*: TOTAL_ERR_*), or from
     * lspci the number of error bits set in CESta / UESta (aer_bits). */
    gd_value aer_cor, aer_nonfatal, aer_fatal;
    bool aer_bits;
    int vendor; /* PCI vendor id (sysfs vendor): a root port's names the CPU's maker; 0 unknown */
} gd_pcie_hop;

/* The topology levels of nvidia-smi topo -m, valued like nvmlGpuTopologyLevel_t. */
typedef enum gd_topo_level {
    GD_TOPO_UNKNOWN = -1,
    GD_TOPO_SELF = 0, /* X */
    GD_TOPO_PIX = 10, /* through at most one PCIe switch */
    GD_TOPO_PXB = 20, /* through several switches, not the host bridge */
    GD_TOPO_PHB = 30, /* through a host bridge (the CPU) */
    GD_TOPO_NODE = 40, /* between host bridges of one NUMA node */
    GD_TOPO_SYS = 50, /* across NUMA nodes (QPI/UPI/xGMI) */
} gd_topo_level;

typedef struct gd_topo_cell {
    int level; /* gd_topo_level over PCIe */
    int nvlinks; /* > 0: NV# (a bonded set of # NVLinks) */
} gd_topo_cell;

typedef struct gd_pcie_nic {
    char bdf[16];
    char name[32]; /* netdev or RDMA device name, else the bdf */
    int level; /* gd_topo_level between the GPU and the NIC */
} gd_pcie_nic;

/* One GPU's place in the machine. */
typedef struct gd_pcie_gpu {
    int gpu; /* GPU index: f->gpus[gpu] when matched, else the capture's own numbering */
    bool matched; /* gpu indexes f->gpus */
    char bdf[16];
    char host_bridge[24]; /* "pci0000:16" (sysfs) or the root bus "0000:16" (lspci); "" unknown */
    size_t hop_count; /* 0 when the device was not found */
    gd_pcie_hop hops[GD_PCIE_MAX_HOPS]; /* [0] the GPU, then each bridge up to the root port */
    gd_value numa_node; /* NOT_SUPPORTED when the platform reports -1 */
    char cpulist[256]; /* local_cpulist / CPU Affinity, "" unknown */
    char iommu_type[24]; /* iommu_group/type: "identity", "DMA", "DMA-FQ"; "" unknown */
    size_t nic_count;
    gd_pcie_nic nics[GD_PCIE_MAX_NICS]; /* NICs behind the same PCIe switch (PIX/PXB) */
} gd_pcie_gpu;

/* A NIC (Ethernet or InfiniBand controller, class 0200 / 0207) and where it
 * sits, for the NIC rows of the topology (nvidia-smi topo -m's NIC columns). */
typedef struct gd_pcie_nic_place {
    char name[32]; /* netdev or RDMA device name, else the bdf */
    char model[96]; /* lspci's description ("Mellanox ... [ConnectX-7]"), "" from sysfs */
    gd_pcie_gpu where; /* its bdf, path to the root port, host bridge and NUMA node */
    /* From 'nvidia-smi topo -m', which gives no path: the level to each GPU
     * (by position in gd_pcie_facts.gpus), level_count of them; 0 from a tree. */
    size_t level_count;
    int levels[GD_PCIE_TOPO_MAX_GPUS];
} gd_pcie_nic_place;

/* The job (--pid): where it may run and where its memory is. */
typedef struct gd_pcie_job {
    long pid; /* -1: no job */
    bool readable;
    char why[160]; /* when !readable */
    char cpus_allowed[256]; /* Cpus_allowed_list */
    char mems_allowed[128]; /* Mems_allowed_list */
    bool has_pages; /* numa_maps was readable */
    double pages[GD_PCIE_MAX_NODES]; /* resident pages per node, from numa_maps N<node>= */
} gd_pcie_job;

/* `bench pcie` results of one GPU, GB/s (1e9 bytes/s), NAN when not measured. */
enum { GD_BW_H2D = 0, GD_BW_D2H = 1 };
enum { GD_BW_PINNED = 0, GD_BW_PAGEABLE = 1 };
typedef struct gd_pcie_bench_gpu {
    int gpu; /* f->gpus index, -1 when the CUDA device is not matched */
    int cuda_device;
    char bdf[16];
    double single_gbps[2][2]; /* [direction][memory]: this GPU alone */
    double concurrent_gbps[2][2]; /* all GPUs copying at once */
    gd_value link_gen, link_width; /* the link as the driver reads it right after the copies */
    char error[200]; /* "" or why it could not be measured */
} gd_pcie_bench_gpu;

typedef struct gd_pcie_bench {
    size_t bytes; /* per copy */
    int reps; /* timed copies per figure (median reported) */
    size_t gpu_count;
    gd_pcie_bench_gpu *gpus;
} gd_pcie_bench;

typedef struct gd_pcie_facts {
    char source[600]; /* "sysfs:/sys", "lspci:FILE", "topo:FILE" (joined with ", ") */
    size_t gpu_count;
    gd_pcie_gpu *gpus;
    gd_topo_cell *matrix; /* gpu_count x gpu_count, row-major; NULL when not known */
    size_t nic_count; /* every NIC of the tree (sysfs, lspci) */
    gd_pcie_nic_place *nics;
    size_t node_count; /* NUMA nodes with a known CPU list */
    int node_ids[GD_PCIE_MAX_NODES];
    char node_cpulist[GD_PCIE_MAX_NODES][256];
    gd_pcie_job job;
    gd_pcie_bench *bench; /* NULL unless bench pcie ran */
} gd_pcie_facts;

void gd_pcie_facts_free(gd_pcie_facts *p);

/* The pcie entry of GPU index `gpu` (matched), or NULL. */
const gd_pcie_gpu *gd_pcie_gpu_of(const gd_facts *f, int gpu);
/* The link GPU g (f->gpus index) should train to in its slot: what card
 * and slot reach together (else the card's own maximum), capped by the host's
 * maximum and the port above it where sysfs or lspci tells. Returns false
 * when no maximum is known. */
bool gd_pcie_expected_link(const gd_facts *f, size_t g, int *gen, int *width);
/* The card's own maximum: Device Max / GpuMax, else the GPU's own LnkCap;
 * 0 where unknown (nvidia-smi and NVML have no card-only width). False when
 * neither is known. */
bool gd_pcie_device_link(const gd_facts *f, size_t g, int *gen, int *width);

/* The link that carried bench pcie's copies of bg on GPU g (f->gpus index):
 * the driver's reading right after them where the copies fit in it (*as_read
 * true); where they ran faster than that link carries, the reading came
 * after an idle link trained down (the link rises under load and falls
 * back), and the link it should reach carried them (*as_read false). False
 * when neither is known. */
bool gd_pcie_bench_link(const gd_facts *f, size_t g, const gd_pcie_bench_gpu *bg, int *gen, int *width,
                        bool *as_read);

#endif
