/* SPDX-License-Identifier: Apache-2.0 */
/*
 * PCIe facts from sysfs: for each GPU, the path from the device up to its
 * root port with each hop's link speed and width and AER counters, its NUMA
 * node and CPUs, the NICs behind the same switch; the NUMA nodes' CPU lists;
 * and the job's placement from procfs.
 *
 * Why sysfs files and not libpci: libpci (pciutils) reads link status from
 * PCI config space, and Linux lets only root read config space past the
 * first 64 bytes, where the PCIe capability lives; the world-readable
 * current_link_speed / max_link_speed / *_link_width and aer_dev_* files
 * give the same facts to any user. libpci also does not expose the sysfs
 * device path, which is what tells bridges and host bridges apart, and its
 * sysfs back-end would need binary `config` files in every fixture tree.
 * What is read here is a handful of small text files.
 */
#include "core/input.h"
#include "gpudoctor/job.h"
#include "gpudoctor/pcie.h"
#include "pcie_collect.h"
#include "analysis/topology.h"
#include "core/pcie_util.h"

#include <dirent.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Reads a small file into buf without the trailing newline; false when absent. */
static bool read_text(const char *dir, const char *name, char *buf, size_t len)
{
    char path[PATH_MAX];
    if (snprintf(path, sizeof path, "%s/%s", dir, name) >= (int)sizeof path)
        return false; /* a path cut short names another file */
    FILE *fp = gd_input_fopen(path);
    if (!fp)
        return false;
    size_t n = fread(buf, 1, len - 1, fp);
    fclose(fp);
    buf[n] = '\0';
    while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
        buf[--n] = '\0';
    return true;
}

static gd_value read_number(const char *dir, const char *name)
{
    char buf[64], *end;
    if (!read_text(dir, name, buf, sizeof buf))
        return gd_missing(GD_ST_NOT_SUPPORTED);
    double v = strtod(buf, &end);
    return end == buf ? gd_missing(GD_ST_ERROR) : gd_val(v);
}

/* The TOTAL_ERR_* line of an aer_dev_* file. */
static gd_value read_aer(const char *dir, const char *name)
{
    char buf[2048];
    if (!read_text(dir, name, buf, sizeof buf))
        return gd_missing(GD_ST_NOT_SUPPORTED);
    const char *t = strstr(buf, "TOTAL_ERR_");
    if (!t || !(t = strchr(t, ' ')))
        return gd_missing(GD_ST_ERROR);
    return gd_val(strtod(t, NULL));
}

static void read_speed(const char *dir, const char *name, gd_value *gts, gd_value *gen)
{
    char buf[64];
    if (!read_text(dir, name, buf, sizeof buf)) {
        *gts = *gen = gd_missing(GD_ST_NOT_SUPPORTED);
        return;
    }
    double v = gd_pcie_parse_speed(buf);
    int g = gd_pcie_gen_of_speed(v);
    *gts = isnan(v) ? gd_missing(GD_ST_ERROR) : gd_val(v);
    *gen = g ? gd_val(g) : gd_missing(GD_ST_ERROR);
}

static void read_hop(const char *dir, gd_pcie_hop *h)
{
    read_speed(dir, "current_link_speed", &h->speed_gts, &h->gen);
    read_speed(dir, "max_link_speed", &h->speed_max_gts, &h->gen_max);
    h->width = read_number(dir, "current_link_width");
    h->width_max = read_number(dir, "max_link_width");
    h->aer_cor = read_aer(dir, "aer_dev_correctable");
    h->aer_nonfatal = read_aer(dir, "aer_dev_nonfatal");
    h->aer_fatal = read_aer(dir, "aer_dev_fatal");
    gd_value vendor = read_number(dir, "vendor"); /* "0x1022": strtod reads hex */
    h->vendor = gd_ok(vendor) && vendor.v > 0 && vendor.v <= 0xffff ? (int)vendor.v : 0;
}

static bool is_bdf(const char *s)
{
    unsigned d, b, v, fn;
    char c;
    return sscanf(s, "%x:%x:%x.%x%c", &d, &b, &v, &fn, &c) == 4;
}

/*
 * Resolves bus/pci/devices/BDF to its place under devices/ and fills the
 * path, deepest first. `real` gets the device directory. False when the
 * device is not in the tree.
 */
static bool resolve_path(const char *root, const char *bdf, gd_pcie_gpu *g, char *real, size_t reallen)
{
    char link[PATH_MAX], abs[PATH_MAX];
    snprintf(link, sizeof link, "%s/bus/pci/devices/%s", root, bdf);
    if (!realpath(link, abs))
        return false;
    snprintf(real, reallen, "%s", abs);
    const char *devices = strstr(abs, "/devices/");
    if (!devices)
        return false;
    /* Components top-down, each with the length of its directory path. */
    size_t ends[GD_PCIE_MAX_HOPS], n = 0, top = 0;
    for (const char *c = devices + 9; *c;) {
        size_t len = strcspn(c, "/");
        char comp[64];
        snprintf(comp, sizeof comp, "%.*s", (int)(len < 63 ? len : 63), c);
        if (strncmp(comp, "pci", 3) == 0 && !is_bdf(comp)) {
            gd_pcie_copy(g->host_bridge, sizeof g->host_bridge, comp);
            top = n; /* a nested domain (VMD) starts a new hierarchy */
        } else if (is_bdf(comp)) {
            if (n == GD_PCIE_MAX_HOPS)
                return false;
            ends[n++] = (size_t)(c - abs) + len;
        }
        c += len;
        c += *c == '/';
    }
    if (n == 0 || strcmp(abs + ends[n - 1] - strlen(bdf), bdf) != 0)
        return false;
    g->hop_count = n;
    for (size_t k = 0; k < n; k++) {
        gd_pcie_hop *h = &g->hops[k];
        size_t comp = n - 1 - k;
        char dir[PATH_MAX];
        snprintf(dir, sizeof dir, "%.*s", (int)ends[comp], abs);
        const char *slash = strrchr(dir, '/');
        gd_pcie_copy(h->bdf, sizeof h->bdf, slash ? slash + 1 : dir);
        gd_pcie_copy(h->role, sizeof h->role, k == 0 ? "gpu" : comp == top ? "root_port" : "switch_port");
        read_hop(dir, h);
    }
    return true;
}

static void read_placement(const char *dir, gd_pcie_gpu *g)
{
    gd_value node = read_number(dir, "numa_node");
    g->numa_node = gd_ok(node) && node.v < 0 ? gd_missing(GD_ST_NOT_SUPPORTED) : node;
    if (!read_text(dir, "local_cpulist", g->cpulist, sizeof g->cpulist))
        g->cpulist[0] = '\0';
    char type[64];
    if (read_text(dir, "iommu_group/type", type, sizeof type))
        gd_pcie_copy(g->iommu_type, sizeof g->iommu_type, type);
}

static void read_nodes(const char *root, gd_pcie_facts *p)
{
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s/devices/system/node", root);
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d)) && p->node_count < GD_PCIE_MAX_NODES) {
        int id;
        char c;
        if (sscanf(e->d_name, "node%d%c", &id, &c) != 1 || id < 0)
            continue;
        char nd[PATH_MAX + 300];
        snprintf(nd, sizeof nd, "%s/%s", dir, e->d_name);
        if (!read_text(nd, "cpulist", p->node_cpulist[p->node_count], sizeof p->node_cpulist[0]))
            continue;
        p->node_ids[p->node_count++] = id;
    }
    closedir(d);
}

/* The first entry of DIR/sub (net/ or infiniband/), the NIC's name. */
static bool first_entry(const char *dir, const char *sub, char *out, size_t len)
{
    char path[PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/%s", dir, sub);
    DIR *d = opendir(path);
    if (!d)
        return false;
    struct dirent *e;
    bool found = false;
    while (!found && (e = readdir(d)))
        if (e->d_name[0] != '.') {
            gd_pcie_copy(out, len, e->d_name);
            found = true;
        }
    closedir(d);
    return found;
}

/* NICs (class 0200 Ethernet, 0207 InfiniBand) and how each GPU reaches
 * them; the ones behind a GPU's switch are what GPUDirect RDMA should pair
 * with that GPU. Returns 0 or -1 (no memory). */
static int find_nics(const char *root, gd_pcie_facts *p)
{
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s/bus/pci/devices", root);
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    struct dirent *e;
    int rc = 0;
    while (rc == 0 && (e = readdir(d))) {
        if (!is_bdf(e->d_name))
            continue;
        char dev[PATH_MAX + 300], cls[32];
        snprintf(dev, sizeof dev, "%s/%s", dir, e->d_name);
        if (!read_text(dev, "class", cls, sizeof cls) ||
            (strncmp(cls, "0x0200", 6) != 0 && strncmp(cls, "0x0207", 6) != 0))
            continue;
        gd_pcie_gpu nic = {0};
        char real[PATH_MAX];
        gd_pcie_copy(nic.bdf, sizeof nic.bdf, e->d_name);
        if (!resolve_path(root, e->d_name, &nic, real, sizeof real))
            continue;
        char name[32];
        if (!first_entry(real, "infiniband", name, sizeof name) && !first_entry(real, "net", name, sizeof name))
            gd_pcie_copy(name, sizeof name, e->d_name);
        read_placement(real, &nic);
        rc = gd_topo_add_nic(p, &nic, name, "");
    }
    closedir(d);
    return rc;
}

gd_value gd_pcie_count_nvidia_gpus(const char *sys_root)
{
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s/bus/pci/devices", sys_root);
    DIR *d = sys_root[0] ? opendir(dir) : NULL;
    if (!d)
        return gd_missing(GD_ST_NOT_SUPPORTED);
    struct dirent *e;
    double n = 0;
    while ((e = readdir(d))) {
        if (!is_bdf(e->d_name))
            continue;
        char dev[PATH_MAX + 300], vendor[32], cls[32];
        snprintf(dev, sizeof dev, "%s/%s", dir, e->d_name);
        if (read_text(dev, "vendor", vendor, sizeof vendor) && strcmp(vendor, "0x10de") == 0 &&
            read_text(dev, "class", cls, sizeof cls) &&
            (strncmp(cls, "0x0300", 6) == 0 || strncmp(cls, "0x0302", 6) == 0))
            n++;
    }
    closedir(d);
    return gd_val(n);
}

/* The job's allowed CPUs and memory nodes, and where its pages are. */
static void read_job(const char *proc_root, long pid, gd_pcie_job *j)
{
    j->pid = pid;
    if (pid < 0)
        return;
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%ld/status", proc_root, pid);
    FILE *fp = gd_input_fopen(path);
    if (!fp) {
        gd_pcie_copy(j->why, sizeof j->why, "status not readable");
        return;
    }
    char line[1024];
    while (fgets(line, sizeof line, fp)) {
        char *v = strchr(line, ':');
        if (!v)
            continue;
        v++;
        v += strspn(v, " \t");
        v[strcspn(v, "\n")] = '\0';
        if (strncmp(line, "Cpus_allowed_list:", 18) == 0)
            gd_pcie_copy(j->cpus_allowed, sizeof j->cpus_allowed, v);
        else if (strncmp(line, "Mems_allowed_list:", 18) == 0)
            gd_pcie_copy(j->mems_allowed, sizeof j->mems_allowed, v);
    }
    fclose(fp);
    j->readable = j->cpus_allowed[0] != '\0';
    if (!j->readable)
        gd_pcie_copy(j->why, sizeof j->why, "status has no Cpus_allowed_list");
    snprintf(path, sizeof path, "%s/%ld/numa_maps", proc_root, pid);
    if (!(fp = gd_input_fopen(path)))
        return;
    j->has_pages = true;
    while (fgets(line, sizeof line, fp)) {
        /* Mappings end in " N0=123 N1=45 kernelpagesize_kB=4". */
        for (char *t = strstr(line, " N"); t; t = strstr(t + 2, " N")) {
            int node;
            double pages;
            if (sscanf(t, " N%d=%lf", &node, &pages) == 2 && node >= 0 && node < GD_PCIE_MAX_NODES)
                j->pages[node] += pages;
        }
    }
    fclose(fp);
}

int gd_pcie_collect(gd_facts *f, const gd_roots *roots)
{
    if (!roots->sys[0])
        return 0; /* no host tree: the checks say "not available" */
    gd_pcie_facts *p = gd_pcie_facts_get(f);
    if (!p)
        return -1;
    snprintf(p->source, sizeof p->source, "sysfs:%s", roots->sys);
    for (size_t g = 0; g < f->gpu_count; g++) {
        gd_pcie_gpu *pg = gd_pcie_gpu_add(p);
        if (!pg)
            return -1;
        pg->gpu = f->gpus[g].index;
        pg->matched = true;
        pg->numa_node = gd_missing(GD_ST_NOT_SUPPORTED);
        if (gd_pcie_norm_bdf(f->gpus[g].pci_bus_id, pg->bdf, sizeof pg->bdf) != 0)
            continue;
        char real[PATH_MAX];
        if (resolve_path(roots->sys, pg->bdf, pg, real, sizeof real))
            read_placement(real, pg);
        else
            pg->hop_count = 0;
    }
    gd_pcie_fill_link_max(f, "sysfs:max_link_speed,max_link_width");
    read_nodes(roots->sys, p);
    if (find_nics(roots->sys, p) != 0)
        return -1;
    if (roots->proc[0]) /* a scenario without host.proc has no job to read */
        read_job(roots->proc, f->pid, &p->job);
    const gd_job_facts *jf = f->job;
    if (!p->job.readable && jf && jf->read && jf->affinity[0]) { /* the job ended: its CPUs as sampled */
        gd_pcie_copy(p->job.cpus_allowed, sizeof p->job.cpus_allowed, jf->affinity);
        p->job.readable = true;
        p->job.why[0] = '\0';
    }
    return gd_topo_derive(p, f);
}
