/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The simulated NCCL's INFO log (docs/scenarios.md): with NCCL_DEBUG=INFO,
 * the lines the real NCCL writes for its choices, in its formats
 * (src/init.cc, src/transport/net_ib.cc, net_socket.cc, p2p.cc, shm.cc,
 * net.cc, src/graph/paths.cc of NCCL 2.22), to stdout or to NCCL_DEBUG_FILE
 * with %h and %p replaced by the host's name and the pid:
 *  - the version (rank 0, a bare line), the NCCL_* variables it reads "set
 *    by environment to", the bootstrap interface;
 *  - the network: NET/IB with the scenario's Active RDMA ports (filtered
 *    by NCCL_IB_HCA) unless NCCL_IB_DISABLE=1 or NCCL_NET=Socket, else
 *    NET/Socket with its interfaces, and "Using network IB|Socket";
 *  - GPUDirect RDMA per HCA: disabled "(no module)" without peermem, else
 *    per GPU and its HCA by their PCIe distance in the scenario's sysfs tree
 *    against NCCL_NET_GDR_LEVEL (default PXB);
 *  - each ring edge per channel: P2P (CUMEM, or IPC with
 *    NCCL_CUMEM_ENABLE=0) where the pair allows it and P2P is not
 *    disabled, else SHM.
 *  - each local rank's Init START and Init COMPLETE lines, with the
 *    communicator's rank and size (across processes: this process's ranks,
 *    the commId they share, no channel lines);
 *  - where NCCL_DEBUG is set, WARN lines (a join that timed out).
 * The node's network rate across processes (gdsim_nccl_node_gbps) comes
 * from the same choice of ports as the NET/IB line, so that they agree.
 * The bootstrap interface is NCCL_SOCKET_IFNAME's (a prefix list, "^" to
 * exclude, "=" exact), else the first up interface with an address that is
 * not lo or docker*, ib* first, as NCCL picks it.
 */
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "scenario.h"
#include "sim_nccl_log.h"
#include "sim_private.h"

#define NCCL_CHANNELS 2
#define VERSION_TEXT "2.22.3" /* ncclGetVersion's 22203 */

/* NCCL 2.22's path types (src/graph/topo.h) and their names for NCCL_NET_GDR_LEVEL. */
enum { PATH_LOC = 0, PATH_PIX = 4, PATH_PXB = 5, PATH_PHB = 7, PATH_SYS = 8 };
static const struct {
    const char *name;
    int type;
} gdr_levels[] = {{"LOC", PATH_LOC}, {"PIX", PATH_PIX}, {"PXB", PATH_PXB}, {"PHB", PATH_PHB}, {"SYS", PATH_SYS}};

/* The variables the simulated NCCL reads, reported as the real one does. */
static const char *const nccl_vars[] = {"NCCL_IB_DISABLE",    "NCCL_IB_HCA",        "NCCL_IB_GID_INDEX",
                                        "NCCL_SOCKET_IFNAME", "NCCL_NET_GDR_LEVEL", "NCCL_NET",
                                        "NCCL_P2P_DISABLE",   "NCCL_P2P_LEVEL",     "NCCL_SHM_DISABLE",
                                        "NCCL_CUMEM_ENABLE",  "NCCL_ALGO",          "NCCL_PROTO"};

/* What NCCL says once per process (its version, network), said already. */
static pthread_mutex_t said_lock = PTHREAD_MUTEX_INITIALIZER;
static bool said;

typedef struct log_out {
    FILE *f;
    bool own;
    char host[64];
    long pid, tid;
} log_out;

static void line(const log_out *o, int dev, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void line(const log_out *o, int dev, const char *fmt, ...)
{
    char msg[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fprintf(o->f, "%s:%ld:%ld [%d] NCCL INFO %s\n", o->host, o->pid, o->tid, dev, msg);
}

static bool debug_info(void)
{
    const char *d = getenv("NCCL_DEBUG");
    return d && (strcasecmp(d, "INFO") == 0 || strcasecmp(d, "TRACE") == 0);
}

/* NCCL_DEBUG_FILE with %h (host) and %p (pid) replaced; NULL: stdout. */
static FILE *open_debug_file(const char *host, long pid)
{
    const char *tmpl = getenv("NCCL_DEBUG_FILE");
    if (!tmpl || !tmpl[0])
        return NULL;
    char path[PATH_MAX] = "";
    size_t n = 0;
    for (const char *c = tmpl; *c && n + 64 < sizeof path; c++) {
        if (c[0] == '%' && c[1] == 'h')
            n += (size_t)snprintf(path + n, sizeof path - n, "%s", host), c++;
        else if (c[0] == '%' && c[1] == 'p')
            n += (size_t)snprintf(path + n, sizeof path - n, "%ld", pid), c++;
        else
            path[n++] = *c;
    }
    path[n] = '\0';
    return fopen(path, "a");
}

static bool truthy(const char *name)
{
    const char *v = getenv(name);
    return v && atoi(v) != 0;
}

/* NCCL's interface filter: "eth0,ib" prefixes, "^docker" excluded, "=eth0" exact. */
static bool if_matches(const char *filter, const char *name)
{
    bool exclude = filter[0] == '^', exact = false;
    const char *p = filter + (exclude ? 1 : 0);
    if (*p == '=') {
        exact = true;
        p++;
    }
    char buf[256];
    snprintf(buf, sizeof buf, "%s", p);
    bool hit = false;
    for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok && !hit; tok = strtok_r(NULL, ",", &save))
        hit = exact ? strcmp(tok, name) == 0 : strncmp(tok, name, strlen(tok)) == 0;
    return exclude ? !hit : hit;
}

/* The interface NCCL bootstraps on (and NET/Socket uses), or NULL. */
static const gd_scenario_iface *socket_iface(const gd_scenario_net *n)
{
    const char *filter = getenv("NCCL_SOCKET_IFNAME");
    for (int pass = 0; pass < 2; pass++)
        for (size_t i = 0; i < n->iface_count; i++) {
            const gd_scenario_iface *x = &n->ifaces[i];
            if (!x->ipv4[0] || (x->up.present && !x->up.value))
                continue;
            if (filter && filter[0]) {
                if (pass == 0 && if_matches(filter, x->name))
                    return x;
                continue;
            }
            bool ib = strncmp(x->name, "ib", 2) == 0;
            if ((pass == 0) == ib && !x->loopback && strncmp(x->name, "docker", 6) != 0)
                return x;
        }
    return NULL;
}

/* NCCL_IB_HCA: "mlx5_0,mlx5_1", "mlx5" (a prefix), "^mlx5_3", "=mlx5_0" (exact), ":1" ports ignored. */
static bool hca_allowed(const char *name)
{
    const char *filter = getenv("NCCL_IB_HCA");
    if (!filter || !filter[0])
        return true;
    char buf[256], *c;
    snprintf(buf, sizeof buf, "%s", filter);
    while ((c = strchr(buf, ':'))) /* "mlx5_0:1": the device part */
        memmove(c, c + strcspn(c, ","), strlen(c + strcspn(c, ",")) + 1);
    return if_matches(buf, name);
}

/* The RDMA ports NCCL's IB transport would use: Active, allowed. */
static size_t ib_ports(const gd_scenario_net *n, const gd_scenario_nic **nic, const gd_scenario_nic_port **port,
                       size_t cap)
{
    size_t k = 0;
    for (size_t i = 0; i < n->nic_count; i++)
        for (size_t j = 0; j < n->nics[i].port_count && k < cap; j++)
            if (n->nics[i].ports[j].state == 4 && hca_allowed(n->nics[i].name)) {
                nic[k] = &n->nics[i];
                port[k++] = &n->nics[i].ports[j];
            }
    return k;
}

/* A PCI function's path in the scenario's sysfs tree ("devices/pci0000:15/0000:15:01.0/..."). */
static bool pci_path(const gd_scenario *sc, const char *bdf, char *out, size_t len)
{
    char link[PATH_MAX], lower[32];
    snprintf(lower, sizeof lower, "%s", bdf);
    for (char *c = lower; *c; c++)
        *c = (char)(*c >= 'A' && *c <= 'F' ? *c - 'A' + 'a' : *c);
    /* NVML's "00000000:18:00.0" is sysfs' "0000:18:00.0". */
    const char *b = strlen(lower) == 16 ? lower + 4 : lower;
    snprintf(link, sizeof link, "%s/bus/pci/devices/%s", sc->host.sysfs, b);
    char *real = realpath(link, NULL);
    if (!real)
        return false;
    snprintf(out, len, "%s", real);
    free(real);
    return true;
}

/* A device's numa_node file, "" when absent. */
static void read_numa(const char *dev, char *out, size_t len)
{
    char p[PATH_MAX + 16];
    snprintf(p, sizeof p, "%s/numa_node", dev);
    FILE *f = fopen(p, "r");
    out[0] = '\0';
    if (f && !fgets(out, (int)len, f))
        out[0] = '\0';
    if (f)
        fclose(f);
}

/* NCCL's path type between a GPU and a NIC from the sysfs tree: a switch in
 * common (PXB), a host bridge (PHB), the same NUMA node (PHB) or not (SYS);
 * PXB when the scenario has no tree to tell. */
static int gpu_nic_distance(const gd_scenario *sc, const char *gpu_bdf, const gd_scenario_nic *nic)
{
    char a[PATH_MAX], b[PATH_MAX];
    if (!sc->host.sysfs || !gpu_bdf || !nic->bdf[0] || !pci_path(sc, gpu_bdf, a, sizeof a) ||
        !pci_path(sc, nic->bdf, b, sizeof b))
        return PATH_PXB;
    size_t common = 0;
    for (size_t i = 0; a[i] && a[i] == b[i]; i++)
        if (a[i] == '/')
            common = i;
    const char *last = a + common; /* the common ancestor's own name ends here */
    while (last > a && last[-1] != '/')
        last--;
    if (strncmp(last, "pci", 3) == 0) /* the host bridge */
        return PATH_PHB;
    if (strncmp(last, "devices", 7) == 0 || common == 0) { /* different host bridges */
        char na[16], nb[16];
        read_numa(a, na, sizeof na);
        read_numa(b, nb, sizeof nb);
        return na[0] && strcmp(na, nb) == 0 ? PATH_PHB : PATH_SYS;
    }
    return PATH_PXB; /* below a root port: through the switch */
}

static int gdr_level(void)
{
    const char *v = getenv("NCCL_NET_GDR_LEVEL");
    if (!v || !v[0])
        return PATH_PXB;
    for (size_t i = 0; i < sizeof gdr_levels / sizeof *gdr_levels; i++)
        if (strcasecmp(v, gdr_levels[i].name) == 0)
            return gdr_levels[i].type;
    return atoi(v);
}

/* Bus id as NCCL prints it: "18000" for 00000000:18:00.0. */
static unsigned long bus_id(const char *pci)
{
    unsigned dom = 0, bus = 0, dev = 0, fn = 0;
    if (!pci || sscanf(pci, "%x:%x:%x.%x", &dom, &bus, &dev, &fn) != 4)
        return 0;
    return (unsigned long)dom << 20 | bus << 12 | dev << 4 | fn;
}

/* Whether NCCL's IB transport is on: not NCCL_IB_DISABLE=1 nor NCCL_NET=Socket. */
static bool ib_enabled(void)
{
    const char *net = getenv("NCCL_NET");
    return !truthy("NCCL_IB_DISABLE") && !(net && strcasecmp(net, "Socket") == 0);
}

double gdsim_nccl_node_gbps(const char **transport)
{
    const gd_scenario *sc = gdsim_scenario();
    const gd_scenario_nic *nic[64];
    const gd_scenario_nic_port *port[64];
    size_t k = sc && ib_enabled() ? ib_ports(&sc->net, nic, port, 64) : 0, rated = 0;
    double slowest = INFINITY;
    bool roce = k > 0;
    for (size_t i = 0; i < k; i++) {
        roce &= port[i]->link_layer == 2;
        if (port[i]->rate_gbps.present && port[i]->rate_gbps.value > 0) {
            rated++;
            slowest = fmin(slowest, port[i]->rate_gbps.value);
        }
    }
    if (rated == 0) {
        *transport = "Socket";
        return GDSIM_NCCL_SOCKET_GBPS;
    }
    *transport = roce ? "RoCE" : "IB";
    return (double)rated * slowest / 8.0;
}

static void net_lines(const log_out *o, const gd_scenario *sc, int dev0, bool say, bool *ib)
{
    const gd_scenario_net *n = &sc->net;
    const gd_scenario_iface *oob = socket_iface(n);
    char oobtext[96] = "";
    if (oob)
        snprintf(oobtext, sizeof oobtext, "%s:%s<0>", oob->name, oob->ipv4);
    if (oob && say)
        line(o, dev0, "Bootstrap : Using %s", oobtext);
    if (say)
        line(o, dev0, "NET/Plugin : No plugin found (libnccl-net.so), using internal implementation");
    *ib = false;
    if (ib_enabled()) {
        const gd_scenario_nic *nic[64];
        const gd_scenario_nic_port *port[64];
        size_t k = ib_ports(n, nic, port, 64);
        if (k == 0 && say) {
            line(o, dev0, "NET/IB : No device found.");
        } else if (k > 0) {
            char list[1024] = "";
            for (size_t i = 0; i < k; i++)
                snprintf(list + strlen(list), sizeof list - strlen(list), " [%zu]%s:%u/%s", i, nic[i]->name,
                         port[i]->port, port[i]->link_layer == 2 ? "RoCE" : "IB");
            if (say)
                line(o, dev0, "NET/IB : Using%s ; OOB %s", list, oob ? oobtext : "");
            *ib = true;
        }
    }
    if (!*ib && say)
        line(o, dev0, "NET/Socket : Using [0]%s", oob ? oobtext : "");
    line(o, dev0, "Using network %s", *ib ? "IB" : "Socket"); /* per communicator */
}

/* GPUDirect RDMA: off without its module (per HCA), else per GPU and its HCA by distance. */
static void gdr_lines(const log_out *o, const gd_scenario *sc, int ndev, const int *devices)
{
    const gd_scenario_net *n = &sc->net;
    const gd_scenario_nic *nic[64];
    const gd_scenario_nic_port *port[64];
    size_t k = ib_ports(n, nic, port, 64);
    if (n->peermem == GD_SCENARIO_PEERMEM_NONE) {
        for (size_t i = 0; i < k; i++)
            line(o, devices[0], "NET/IB : GPU Direct RDMA Disabled for HCA %zu '%s' (no module)", i, nic[i]->name);
        return;
    }
    int level = gdr_level();
    for (int r = 0; r < ndev; r++) {
        const gd_scenario_gpu *g = &sc->gpus[devices[r]];
        /* The nearest HCA, as NCCL's graph search prefers it. */
        size_t best = 0;
        int dist = 1 << 20;
        for (size_t i = 0; i < k; i++) {
            int d = gpu_nic_distance(sc, g->pci_bus_id, nic[i]);
            if (d < dist)
                dist = d, best = i;
        }
        if (k == 0)
            continue;
        if (dist > level)
            line(o, devices[r], "GPU Direct RDMA Disabled for GPU %d / HCA %zu (distance %d > %d)", r, best, dist,
                 level);
        else
            line(o, devices[r], "GPU Direct RDMA Enabled for GPU %d / HCA %zu (distance %d <= %d), read %d", r, best,
                 dist, level, 1);
    }
}

static void channel_lines(const log_out *o, const gd_scenario *sc, int ndev, const int *devices, bool p2p_off)
{
    bool ipc = getenv("NCCL_CUMEM_ENABLE") && !truthy("NCCL_CUMEM_ENABLE");
    for (int c = 0; c < NCCL_CHANNELS && ndev > 1; c++)
        for (int r = 0; r < ndev; r++) {
            int next = (r + 1) % ndev, a = devices[r], b = devices[next];
            bool p2p = !p2p_off && gd_scenario_p2p_status(sc, (size_t)a, (size_t)b) == 0;
            if (p2p)
                line(o, a, "Channel %02d/%01d : %d[%d] -> %d[%d] via P2P/%s", c, 0, r, a, next, b,
                     ipc ? "IPC" : "CUMEM");
            else
                line(o, a, "Channel %02d/%01d : %d[%d] -> %d[%d] via SHM/direct/direct", c, 0, r, a, next, b);
        }
}

/* The log's destination and the line prefix's host, pid and thread; false
 * without a scenario. */
static bool log_open(log_out *o)
{
    const gd_scenario *sc = gdsim_scenario();
    if (!sc)
        return false;
    *o = (log_out){.pid = (long)getpid(), .tid = (long)syscall(SYS_gettid)};
    if (sc->host.hostname)
        snprintf(o->host, sizeof o->host, "%s", sc->host.hostname);
    else if (gethostname(o->host, sizeof o->host) != 0)
        snprintf(o->host, sizeof o->host, "localhost");
    o->host[sizeof o->host - 1] = '\0';
    FILE *file = open_debug_file(o->host, o->pid);
    o->f = file ? file : stdout;
    o->own = file != NULL;
    return true;
}

static void log_close(log_out *o)
{
    fflush(o->f);
    if (o->own)
        fclose(o->f);
}

void gdsim_nccl_log_init(const void *const *comms, int ndev, const int *devices, bool p2p_off, int first_rank,
                         int nranks, unsigned long long comm_id)
{
    log_out o;
    if (!debug_info() || ndev < 1 || !log_open(&o))
        return;
    const gd_scenario *sc = gdsim_scenario();
    pthread_mutex_lock(&said_lock);
    bool first = !said;
    said = true;
    pthread_mutex_unlock(&said_lock);
    if (first) {
        long cuda = sc->cuda_driver_version.present ? (long)sc->cuda_driver_version.value : 12040;
        if (first_rank == 0)
            fprintf(o.f, "NCCL version %s+cuda%ld.%ld\n", VERSION_TEXT, cuda / 1000, cuda % 1000 / 10);
        for (size_t i = 0; i < sizeof nccl_vars / sizeof *nccl_vars; i++) {
            const char *v = getenv(nccl_vars[i]);
            if (v)
                line(&o, devices[0], "%s set by environment to %s", nccl_vars[i], v);
        }
    }
    bool ib = false;
    net_lines(&o, sc, devices[0], first, &ib);
    if (!comm_id)
        comm_id = 0x5e1d000000000000ull ^ (unsigned long long)o.pid;
    for (int r = 0; r < ndev; r++)
        line(&o, devices[r], "comm %p rank %d nranks %d cudaDev %d nvmlDev %d busId %lx commId 0x%llx - Init START",
             comms[r], first_rank + r, nranks, devices[r], devices[r], bus_id(sc->gpus[devices[r]].pci_bus_id),
             comm_id);
    if (ib)
        gdr_lines(&o, sc, ndev, devices);
    if (nranks == ndev) /* a ring within the process (across processes: not written) */
        channel_lines(&o, sc, ndev, devices, p2p_off);
    for (int r = 0; r < ndev; r++)
        line(&o, devices[r], "comm %p rank %d nranks %d cudaDev %d nvmlDev %d busId %lx commId 0x%llx - Init COMPLETE",
             comms[r], first_rank + r, nranks, devices[r], devices[r], bus_id(sc->gpus[devices[r]].pci_bus_id),
             comm_id);
    log_close(&o);
}

void gdsim_nccl_log_warn(int dev, const char *fmt, ...)
{
    const char *d = getenv("NCCL_DEBUG");
    log_out o;
    if (!d || !*d || strcasecmp(d, "VERSION") == 0 || strcasecmp(d, "NONE") == 0 || !log_open(&o))
        return;
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fprintf(o.f, "%s:%ld:%ld [%d] NCCL WARN %s\n", o.host, o.pid, o.tid, dev, msg);
    log_close(&o);
}
