/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The training network of this machine from sysfs and procfs
 * (docs/network-live.md): the RDMA devices under class/infiniband with their
 * ports' state, rate, link layer, GIDs and error counters; the interfaces
 * under class/net; GPUDirect RDMA's module in /proc/modules; PCIe ACS from
 * each bridge's config space. Small text files all (a GID table is up to
 * 256 of them per port, read until GD_NET_MAX_GIDS used rows), read at the
 * session's start; the counters once more at its end.
 */
#include "net_collect.h"

#include "core/input.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <limits.h>
#include <net/if_arp.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define GID_TABLE_MAX 256 /* rows looked at per port (a RoCE table has 128 to 256) */
#define PCI_EXT_CAP_START 0x100
#define PCI_EXT_CAP_ID_ACS 0x000d /* PCIe Base Specification 7.7.11 */
#define PCI_ACS_CTRL 6 /* the ACS Control Register's offset in the capability */
#define PCI_CONFIG_USER 64 /* what Linux lets a non-root reader see of config space */

/* Reads a small file into buf without the trailing newline; false when absent. */
static bool read_text(const char *path, char *buf, size_t len)
{
    FILE *fp = gd_input_fopen(path);
    if (!fp)
        return false;
    size_t n = fread(buf, 1, len - 1, fp);
    bool ok = !ferror(fp);
    fclose(fp);
    buf[n] = '\0';
    while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
        buf[--n] = '\0';
    return ok;
}

static bool read_at(char *buf, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static bool read_at(char *buf, size_t len, const char *fmt, ...)
{
    char path[PATH_MAX];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(path, sizeof path, fmt, ap);
    va_end(ap);
    buf[0] = '\0';
    return n > 0 && n < (int)sizeof path && read_text(path, buf, len); /* a path cut short names another file */
}

/* Copies src into dst, cut to fit. */
static void copy(char *dst, size_t cap, const char *src)
{
    size_t n = strnlen(src, cap - 1);
    memcpy(dst, src, n);
    dst[n] = '\0';
}

/* A path from parts; false when it does not fit (a path cut short names another file). */
static bool path_of(char *out, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static bool path_of(char *out, size_t cap, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(out, cap, fmt, ap);
    va_end(ap);
    return n > 0 && (size_t)n < cap;
}

/* Names in a directory, sorted (numerically where both are numbers); NULL when unreadable. */
static int by_name(const struct dirent **a, const struct dirent **b)
{
    const char *x = (*a)->d_name, *y = (*b)->d_name;
    char *ex, *ey;
    long nx = strtol(x, &ex, 10), ny = strtol(y, &ey, 10);
    if (ex != x && !*ex && ey != y && !*ey)
        return nx < ny ? -1 : nx > ny;
    return strcmp(x, y);
}

static int visible(const struct dirent *d)
{
    return d->d_name[0] != '.';
}

static int list_dir(const char *path, struct dirent ***out)
{
    return scandir(path, out, visible, by_name);
}

static void free_list(struct dirent **l, int n)
{
    for (int i = 0; i < n; i++)
        free(l[i]);
    free(l);
}

static bool all_zero_gid(const char *gid)
{
    for (const char *c = gid; *c; c++)
        if (*c != '0' && *c != ':')
            return false;
    return true;
}

static void read_gids(gd_net_port *p, const char *port_dir)
{
    for (int i = 0; i < GID_TABLE_MAX && p->gid_count < GD_NET_MAX_GIDS; i++) {
        char gid[64];
        if (!read_at(gid, sizeof gid, "%s/gids/%d", port_dir, i))
            break; /* the table's end */
        if (!gid[0] || all_zero_gid(gid))
            continue;
        gd_net_gid *g = &p->gids[p->gid_count++];
        g->index = i;
        copy(g->gid, sizeof g->gid, gid);
        char buf[64];
        /* An IB port's types file says "IB/RoCE v1" for every row: its type is IB. */
        if (read_at(buf, sizeof buf, "%s/gid_attrs/types/%d", port_dir, i))
            copy(g->type, sizeof g->type,
                 p->link_layer == GD_LINK_INFINIBAND && strncmp(buf, "IB", 2) == 0 ? "IB" : buf);
        if (read_at(buf, sizeof buf, "%s/gid_attrs/ndevs/%d", port_dir, i))
            copy(g->netdev, sizeof g->netdev, buf);
    }
}

/* One counter, from counters/ or hw_counters/. */
static gd_value read_counter(const char *port_dir, gd_port_counter c)
{
    char buf[64], *end;
    const char *name = gd_port_counter_name(c);
    if (!read_at(buf, sizeof buf, "%s/counters/%s", port_dir, name) &&
        !read_at(buf, sizeof buf, "%s/hw_counters/%s", port_dir, name))
        return gd_missing(GD_ST_NOT_SUPPORTED);
    double v = strtod(buf, &end);
    return end == buf ? gd_missing(GD_ST_ERROR) : gd_val(v);
}

static void read_counters(gd_value out[GD_PC_COUNT], const char *port_dir)
{
    for (int c = 0; c < GD_PC_COUNT; c++)
        out[c] = read_counter(port_dir, (gd_port_counter)c);
}

/* The netdev behind a port where no GID names one (an IB port's ib0): the
 * device's net/ entry whose dev_port is the port's number - 1, or its only one. */
static void port_netdev(gd_net_port *p, const char *dev_dir)
{
    for (size_t i = 0; i < p->gid_count && !p->netdev[0]; i++)
        copy(p->netdev, sizeof p->netdev, p->gids[i].netdev);
    if (p->netdev[0])
        return;
    char net_dir[PATH_MAX];
    path_of(net_dir, sizeof net_dir, "%s/device/net", dev_dir);
    struct dirent **l;
    int n = list_dir(net_dir, &l);
    for (int i = 0; i < n; i++) {
        char buf[16];
        bool has = read_at(buf, sizeof buf, "%s/%s/dev_port", net_dir, l[i]->d_name);
        if ((has && atoi(buf) == p->port - 1) || (!has && n == 1)) {
            copy(p->netdev, sizeof p->netdev, l[i]->d_name);
            break;
        }
    }
    if (n >= 0)
        free_list(l, n);
}

static void read_port(gd_net_dev *d, const char *dev_dir, const char *name)
{
    char port_dir[PATH_MAX], buf[64];
    if (!path_of(port_dir, sizeof port_dir, "%s/ports/%s", dev_dir, name))
        return;
    gd_net_port *p = &d->ports[d->port_count++];
    *p = (gd_net_port){.port = atoi(name), .netdev_up = -1};
    /* "4: ACTIVE", "5: LinkUp": the number leads. */
    if (read_at(buf, sizeof buf, "%s/state", port_dir))
        p->state = (gd_port_state)(atoi(buf) <= GD_PORT_ACTIVE_DEFER ? atoi(buf) : 0);
    if (read_at(buf, sizeof buf, "%s/phys_state", port_dir))
        p->phys = (gd_port_phys)(atoi(buf) <= GD_PORT_PHYS_TEST ? atoi(buf) : 0);
    if (read_at(buf, sizeof buf, "%s/link_layer", port_dir))
        p->link_layer = strcmp(buf, "InfiniBand") == 0 ? GD_LINK_INFINIBAND
                        : strcmp(buf, "Ethernet") == 0 ? GD_LINK_ETHERNET
                                                       : GD_LINK_UNKNOWN;
    char *end;
    if (read_at(p->rate_text, sizeof p->rate_text, "%s/rate", port_dir)) {
        double r = strtod(p->rate_text, &end);
        p->rate_gbps = end == p->rate_text ? gd_missing(GD_ST_ERROR) : gd_val(r);
    }
    read_gids(p, port_dir);
    port_netdev(p, dev_dir);
    read_counters(p->counters_first, port_dir);
    memcpy(p->counters_last, p->counters_first, sizeof p->counters_last);
}

static void read_dev(gd_net_facts *n, const char *ib_dir, const char *name)
{
    char dev_dir[PATH_MAX], buf[PATH_MAX];
    if (!path_of(dev_dir, sizeof dev_dir, "%s/%s", ib_dir, name))
        return;
    gd_net_dev *d = &n->devs[n->dev_count++];
    *d = (gd_net_dev){.numa_node = -1};
    copy(d->name, sizeof d->name, name);
    read_at(d->firmware, sizeof d->firmware, "%s/fw_ver", dev_dir);
    read_at(d->ca_type, sizeof d->ca_type, "%s/hca_type", dev_dir);
    if (read_at(buf, sizeof buf, "%s/device/numa_node", dev_dir))
        d->numa_node = atoi(buf);
    char link[PATH_MAX];
    path_of(link, sizeof link, "%s/device", dev_dir);
    ssize_t len = readlink(link, buf, sizeof buf - 1);
    if (len > 0) {
        buf[len] = '\0';
        const char *base = strrchr(buf, '/');
        copy(d->bdf, sizeof d->bdf, base ? base + 1 : buf);
        for (char *c = d->bdf; *c; c++)
            *c = (char)(*c >= 'A' && *c <= 'F' ? *c - 'A' + 'a' : *c);
    }
    char ports[PATH_MAX];
    path_of(ports, sizeof ports, "%s/ports", dev_dir);
    struct dirent **l;
    int np = list_dir(ports, &l);
    for (int i = 0; i < np && d->port_count < GD_NET_MAX_PORTS; i++)
        read_port(d, dev_dir, l[i]->d_name);
    if (np >= 0)
        free_list(l, np);
}

static void read_devices(gd_net_facts *n, const char *sys)
{
    char ib[PATH_MAX], cls[PATH_MAX];
    path_of(ib, sizeof ib, "%s/class/infiniband", sys);
    path_of(cls, sizeof cls, "%s/class", sys);
    struct dirent **l;
    int nd = list_dir(ib, &l);
    struct stat st;
    if (nd < 0) {
        /* No infiniband class (no RDMA driver loaded) is a node without RDMA
         * devices, where sysfs itself is there. */
        n->devices_read = errno == ENOENT && stat(cls, &st) == 0;
        if (n->devices_read)
            snprintf(n->source, sizeof n->source, "sysfs:%.500s", ib);
        return;
    }
    n->devices_read = true;
    snprintf(n->source, sizeof n->source, "sysfs:%.500s", ib);
    for (int i = 0; i < nd && n->dev_count < GD_NET_MAX_DEVS; i++)
        read_dev(n, ib, l[i]->d_name);
    free_list(l, nd);
}

static const gd_net_iface *iface_named(const gd_net_facts *n, const char *name)
{
    for (size_t i = 0; i < n->iface_count; i++)
        if (strcmp(n->ifaces[i].name, name) == 0)
            return &n->ifaces[i];
    return NULL;
}

static void read_ifaces(gd_net_facts *n, const char *sys, bool live)
{
    char dir[PATH_MAX];
    path_of(dir, sizeof dir, "%s/class/net", sys);
    struct dirent **l;
    int ni = list_dir(dir, &l);
    if (ni < 0)
        return;
    n->ifaces_read = true;
    for (int i = 0; i < ni && n->iface_count < GD_NET_MAX_IFACES; i++) {
        const char *name = l[i]->d_name;
        gd_net_iface *x = &n->ifaces[n->iface_count++];
        *x = (gd_net_iface){.up = -1};
        copy(x->name, sizeof x->name, name);
        char buf[32], path[PATH_MAX];
        if (read_at(buf, sizeof buf, "%s/%s/operstate", dir, name)) {
            char carrier[8];
            if (strcmp(buf, "up") == 0)
                x->up = 1;
            else if (strcmp(buf, "unknown") == 0) /* lo, tun: up where the carrier is */
                x->up = read_at(carrier, sizeof carrier, "%s/%s/carrier", dir, name) ? carrier[0] == '1' : -1;
            else
                x->up = 0;
        }
        x->loopback = read_at(buf, sizeof buf, "%s/%s/type", dir, name) && atoi(buf) == ARPHRD_LOOPBACK;
        struct stat st;
        path_of(path, sizeof path, "%s/%s/bridge", dir, name);
        x->bridge = stat(path, &st) == 0;
        path_of(path, sizeof path, "%s/%s/device", dir, name);
        x->virtual_dev = lstat(path, &st) != 0;
    }
    free_list(l, ni);
    struct ifaddrs *ifa = NULL;
    if (!live || getifaddrs(&ifa) != 0)
        return;
    for (struct ifaddrs *a = ifa; a; a = a->ifa_next) {
        gd_net_iface *x = a->ifa_addr && a->ifa_addr->sa_family == AF_INET && a->ifa_name
                              ? (gd_net_iface *)iface_named(n, a->ifa_name)
                              : NULL;
        if (x && !x->ipv4[0])
            inet_ntop(AF_INET, &((struct sockaddr_in *)(void *)a->ifa_addr)->sin_addr, x->ipv4, sizeof x->ipv4);
    }
    freeifaddrs(ifa);
}

/* The ports' netdevs up or down, from the interfaces read. */
static void netdevs_up(gd_net_facts *n)
{
    for (size_t i = 0; i < n->dev_count; i++)
        for (size_t k = 0; k < n->devs[i].port_count; k++) {
            gd_net_port *p = &n->devs[i].ports[k];
            const gd_net_iface *x = p->netdev[0] ? iface_named(n, p->netdev) : NULL;
            if (x)
                p->netdev_up = x->up;
        }
}

static void read_peermem(gd_net_facts *n, const char *proc)
{
    char path[PATH_MAX];
    path_of(path, sizeof path, "%s/modules", proc);
    FILE *fp = proc[0] ? gd_input_fopen(path) : NULL;
    if (!fp)
        return;
    n->peermem = GD_PEERMEM_ABSENT;
    snprintf(n->peermem_source, sizeof n->peermem_source, "%.120s", path);
    char line[512];
    while (fgets(line, sizeof line, fp)) {
        size_t len = strcspn(line, " ");
        line[len] = '\0';
        if (strcmp(line, "nvidia_peermem") == 0 || strcmp(line, "nv_peer_mem") == 0) {
            n->peermem = GD_PEERMEM_LOADED;
            copy(n->peermem_module, sizeof n->peermem_module, line);
            break;
        }
    }
    fclose(fp);
}

/* A bridge's ACS control from its config space: 1 read (with or without the
 * capability), 0 no extended space, -1 only the first 64 bytes (not root). */
static int read_acs(const char *config, gd_net_acs *out, bool *has)
{
    unsigned char cfg[4096];
    int fd = open(config, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0)
        return 0;
    ssize_t len = pread(fd, cfg, sizeof cfg, 0);
    close(fd);
    *has = false;
    if (len <= PCI_CONFIG_USER)
        return len == PCI_CONFIG_USER ? -1 : 0;
    unsigned off = PCI_EXT_CAP_START;
    for (int hops = 0; hops < 256 && off >= PCI_EXT_CAP_START && off + 8 <= (unsigned)len; hops++) {
        unsigned hdr = cfg[off] | cfg[off + 1] << 8 | cfg[off + 2] << 16 | (unsigned)cfg[off + 3] << 24;
        if (hdr == 0 || hdr == 0xffffffffu)
            break;
        if ((hdr & 0xffff) == PCI_EXT_CAP_ID_ACS) {
            unsigned ctl = cfg[off + PCI_ACS_CTRL] | cfg[off + PCI_ACS_CTRL + 1] << 8;
            *out = (gd_net_acs){.src_valid = ctl & 1,
                                .trans_blk = ctl >> 1 & 1,
                                .req_redir = ctl >> 2 & 1,
                                .cmplt_redir = ctl >> 3 & 1,
                                .upstream_fwd = ctl >> 4 & 1,
                                .egress_ctrl = ctl >> 5 & 1,
                                .direct_trans = ctl >> 6 & 1};
            *has = true;
            break;
        }
        off = hdr >> 20 & 0xffc;
    }
    return 1;
}

static void read_bridges_acs(gd_net_facts *n, const char *sys)
{
    char dir[PATH_MAX];
    path_of(dir, sizeof dir, "%s/bus/pci/devices", sys);
    struct dirent **l;
    int nb = list_dir(dir, &l);
    if (nb < 0)
        return;
    bool denied = false;
    for (int i = 0; i < nb; i++) {
        char cls[32], path[PATH_MAX];
        if (!read_at(cls, sizeof cls, "%s/%s/class", dir, l[i]->d_name) || strncmp(cls, "0x0604", 6) != 0)
            continue;
        path_of(path, sizeof path, "%s/%s/config", dir, l[i]->d_name);
        gd_net_acs acs;
        bool has = false;
        int rc = read_acs(path, &acs, &has);
        denied |= rc < 0;
        if (has && n->acs_count < GD_NET_MAX_ACS) {
            copy(acs.bdf, sizeof acs.bdf, l[i]->d_name);
            n->acs[n->acs_count++] = acs;
        }
    }
    free_list(l, nb);
    if (denied) { /* some bridges unseen: what was seen is not the whole tree */
        n->acs_read = false;
        n->acs_count = 0;
        snprintf(n->acs_source, sizeof n->acs_source, "not read: needs root (config space past 64 bytes)");
        return;
    }
    n->acs_read = true;
    snprintf(n->acs_source, sizeof n->acs_source, "sysfs:%.100s/*/config", dir);
}

gd_net_facts *gd_net_sysfs_read(const gd_roots *roots, bool live)
{
    gd_net_facts *n = calloc(1, sizeof *n);
    if (!n)
        return NULL;
    if (roots->sys[0]) {
        read_devices(n, roots->sys);
        read_ifaces(n, roots->sys, live);
        netdevs_up(n);
        read_bridges_acs(n, roots->sys);
    }
    read_peermem(n, roots->proc);
    return n;
}

void gd_net_sysfs_reread(gd_net_facts *n, const gd_roots *roots, double span_s)
{
    if (!n || !roots->sys[0])
        return;
    for (size_t i = 0; i < n->dev_count; i++)
        for (size_t k = 0; k < n->devs[i].port_count; k++) {
            char port_dir[PATH_MAX];
            gd_net_port *p = &n->devs[i].ports[k];
            path_of(port_dir, sizeof port_dir, "%s/class/infiniband/%s/ports/%d", roots->sys, n->devs[i].name, p->port);
            for (int c = 0; c < GD_PC_COUNT; c++) /* a counter absent at the start stays absent */
                if (gd_ok(p->counters_first[c]))
                    p->counters_last[c] = read_counter(port_dir, (gd_port_counter)c);
            p->counter_span_s = span_s;
        }
}
