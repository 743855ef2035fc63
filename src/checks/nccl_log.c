/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What NCCL's own INFO log says it chose (f->net->nccl), judged: sockets
 * between nodes where RDMA NICs exist, GPUDirect RDMA refused, NCCL
 * versions that differ between ranks, a loopback or bridge interface in use,
 * connections that fail, and peer-to-peer or shared memory turned off. No
 * log read: nothing to say (the checks stay silent, as bench's do without a
 * benchmark). Each finding cites the log's line.
 */
#include "checks_internal.h"
#include "core/strf.h"
#include "gpudoctor/net.h"
#include "gpudoctor/nccl_log.h"

#include <stdlib.h>
#include <strings.h>

static const struct gd_nccl_log *log_of(const gd_facts *f)
{
    return f->net ? f->net->nccl : NULL;
}

static json_t *line_ev(const struct gd_nccl_log *log, const char *host, int file, long line, const char *text)
{
    json_t *ev = json_object();
    json_object_set_new(ev, "source", json_string(log->source));
    json_object_set_new(ev, "host", json_string(host));
    json_object_set_new(ev, "file_index", json_integer(file));
    json_object_set_new(ev, "line", json_integer(line));
    if (text)
        json_object_set_new(ev, "text", json_string(text));
    return ev;
}

/* The network a process used between nodes: what it said, else what its channels show. */
static gd_nccl_net proc_net(const gd_nccl_proc *x)
{
    if (x->net != GD_NCCL_NET_UNKNOWN)
        return x->net;
    if (x->ch_net_gdr || x->ch_net_host)
        return GD_NCCL_NET_IB;
    if (x->ch_socket)
        return GD_NCCL_NET_SOCKET;
    if (x->ib_devs[0])
        return GD_NCCL_NET_IB;
    /* Older NCCLs print no "Using network": NET/IB found nothing, NET/Socket listed its interfaces. */
    return x->ib_missing[0] && x->socket_ifaces[0] ? GD_NCCL_NET_SOCKET : GD_NCCL_NET_UNKNOWN;
}

/* Appends name to a blank-separated list of cap bytes, once. */
static void list_add(char *list, size_t cap, const char *name)
{
    size_t n = strlen(name), used = strlen(list);
    for (const char *p = list; (p = strstr(p, name)) != NULL; p += n)
        if ((p == list || p[-1] == ' ') && (p[n] == '\0' || p[n] == ' '))
            return;
    if (used + n + 2 < cap)
        snprintf(list + used, cap - used, "%s%s", used ? " " : "", name);
}

static const char *host_name(const char *h)
{
    return h[0] ? h : "(no host in the prefix)";
}

/* One host's ranks all in the log and no other node: nothing crosses a node. */
static bool single_node(const struct gd_nccl_log *log)
{
    int nranks = -1;
    size_t ranks = 0;
    for (size_t i = 0; i < log->proc_count; i++) {
        const gd_nccl_proc *x = &log->procs[i];
        if (strcmp(x->host, log->procs[0].host) != 0)
            return false;
        if (x->rank >= 0) {
            ranks++;
            nranks = x->nranks;
        }
    }
    return nranks > 0 && ranks >= (size_t)nranks;
}

/* NCCL prints the host name up to its first dot; a report may hold the full one. */
static bool same_host(const char *nccl, const char *node)
{
    if (!node[0])
        return true; /* a capture without the node's name: the files are one node's */
    size_t n = strcspn(node, ".");
    return strlen(nccl) == n && strncmp(nccl, node, n) == 0;
}

/* This node's RDMA ports that are up, for a log of this node. */
static size_t active_rdma_ports(const gd_facts *f, char *names, size_t cap)
{
    size_t n = 0;
    names[0] = '\0';
    if (!f->net)
        return 0;
    for (size_t d = 0; d < f->net->dev_count; d++)
        for (size_t p = 0; p < f->net->devs[d].port_count; p++)
            if (f->net->devs[d].ports[p].state == GD_PORT_ACTIVE) {
                list_add(names, cap, f->net->devs[d].name);
                n++;
            }
    return n;
}

static bool env_is(const struct gd_nccl_log *log, const char *name, const char *const *values, size_t nv,
                   const gd_nccl_env **out)
{
    for (size_t i = 0; i < log->env_count; i++)
        if (strcmp(log->env[i].name, name) == 0)
            for (size_t v = 0; v < nv; v++)
                if (!values || strcasecmp(log->env[i].value, values[v]) == 0) {
                    *out = &log->env[i];
                    return true;
                }
    return false;
}

/* The fix for the cause NCCL printed (or the setting that made it). */
static const char *socket_fix(const char *cause, bool plugin_rdma, const gd_nccl_env *forced)
{
    if (forced)
        return "The job's environment turns NCCL's RDMA transport off (NCCL_IB_DISABLE=1 or NCCL_NET=Socket): unset "
               "it so NCCL uses the RDMA NICs; if it was set to work around a failure, fix that failure instead "
               "(NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,NET shows it).";
    if (strstr(cause, "libibverbs") || strstr(cause, "libmlx5"))
        return "NCCL could not load the verbs library: install rdma-core's libibverbs1 and ibverbs-providers (or "
               "MOFED's userspace) in the image or on the node, so that 'ibv_devices' lists the HCAs where the "
               "job runs.";
    if (strstr(cause, "ibv_open_device") || strstr(cause, "Unable to open device"))
        return "NCCL found the HCAs but could not open them: the job cannot use /dev/infiniband/uverbs* (a "
               "container without those devices or without IPC_LOCK, permissions or the memlock limit: "
               "'ulimit -l unlimited'), or the userspace verbs library does not match the host's driver. Check "
               "'ibv_devinfo' as the job's user, inside its container.";
    if (plugin_rdma || strstr(cause, "No device found"))
        return "NCCL saw no RDMA device where the job runs. In a container pass the HCAs in (docker: "
               "--device=/dev/infiniband --cap-add=IPC_LOCK --ulimit memlock=-1, or --privileged; Kubernetes: "
               "an RDMA device plugin's resource such as rdma/ib, or hostNetwork with the devices), and check "
               "'ibv_devices' inside it; on the node, 'ibstat' should show the ports Active (mlx5_ib and "
               "ib_uverbs loaded).";
    return "NCCL did not say why it chose sockets: run with NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,NET and read "
           "its NET/IB lines; check 'ibv_devices' where the job runs and that NCCL_IB_DISABLE and NCCL_NET are "
           "not set.";
}

void gd_check_nccl_log_socket_fallback(const gd_check *self, const gd_facts *f, gd_findings *out)
{
    const struct gd_nccl_log *log = log_of(f);
    if (!log || single_node(log))
        return;
    char socket_hosts[256] = "", ib_hosts[256] = "", ports[256];
    const gd_nccl_proc *first = NULL;
    const char *cause = "";
    bool plugin_rdma = false;
    for (size_t i = 0; i < log->proc_count; i++) {
        const gd_nccl_proc *x = &log->procs[i];
        gd_nccl_net n = proc_net(x);
        if (n == GD_NCCL_NET_IB)
            list_add(ib_hosts, sizeof ib_hosts, host_name(x->host));
        if (n != GD_NCCL_NET_SOCKET)
            continue;
        list_add(socket_hosts, sizeof socket_hosts, host_name(x->host));
        if (!first)
            first = x;
        if (!cause[0] && x->ib_missing[0])
            cause = x->ib_missing;
        plugin_rdma |= strstr(x->plugin, "RDMA") || strstr(x->plugin, "IB");
    }
    if (!first)
        return;
    const gd_nccl_env *forced = NULL;
    static const char *const one[] = {"1"}, *const sock[] = {"Socket"};
    if (!env_is(log, "NCCL_IB_DISABLE", one, 1, &forced))
        env_is(log, "NCCL_NET", sock, 1, &forced);
    bool same_node = same_host(first->host, f->host.hostname);
    size_t up = same_node ? active_rdma_ports(f, ports, sizeof ports) : 0;
    gd_severity sev;
    if (ib_hosts[0] || up)
        sev = GD_SEV_CRITICAL;
    else if (forced || plugin_rdma || (cause[0] && !strstr(cause, "No device found")))
        sev = GD_SEV_WARNING;
    else
        return; /* an Ethernet-only cluster: sockets are all there is */
    json_t *ev = line_ev(log, first->host, first->file, first->line, cause[0] ? cause : NULL);
    json_object_set_new(ev, "socket_hosts", json_string(socket_hosts));
    if (ib_hosts[0])
        json_object_set_new(ev, "rdma_hosts", json_string(ib_hosts));
    if (up)
        json_object_set_new(ev, "active_rdma_devices", json_string(ports));
    if (first->socket_ifaces[0])
        json_object_set_new(ev, "socket_interfaces", json_string(first->socket_ifaces));
    if (forced)
        json_object_set_new(ev, forced->name, json_string(forced->value));
    char why[300];
    if (ib_hosts[0])
        snprintf(why, sizeof why, "while %s use%s RDMA", ib_hosts, strchr(ib_hosts, ' ') ? "" : "s");
    else if (up)
        gd_strf(why, sizeof why, "although this node's RDMA ports are Active (%s)", ports);
    else if (plugin_rdma)
        snprintf(why, sizeof why, "although an RDMA plugin was loaded (%s)", first->plugin);
    else
        snprintf(why, sizeof why, "(RDMA set up, not used)");
    gd_finding_add(out, self->id, sev, GD_NO_GPU, ev, NAN, socket_fix(cause, plugin_rdma, forced),
                   "NCCL on %s sends between nodes over TCP sockets %s%s%s%s", socket_hosts, why,
                   cause[0] ? ": NCCL said '" : "", cause, cause[0] ? "'" : "");
}

/* NCCL's bus id ("18000": bus 0x18, device 0, function 0) is GPU bus_id's ("00000000:18:00.0"). */
static bool same_gpu(const char *nccl, const char *bus_id)
{
    unsigned long v = strtoul(nccl, NULL, 16);
    unsigned dom = 0, bus = 0, dev = 0, fn = 0;
    if (!nccl[0] || sscanf(bus_id, "%x:%x:%x.%x", &dom, &bus, &dev, &fn) != 4)
        return false;
    /* NCCL reads the hex digits of "0000:18:00.0" as one number (busIdToInt64). */
    return v == ((unsigned long)dom << 20 | (unsigned long)bus << 12 | (unsigned long)dev << 4 | fn);
}

/* The refused GPUs as the report's indices, where the capture or the machine read them. */
static void gdr_gpus(const gd_facts *f, const struct gd_nccl_log *log, json_t *ev)
{
    json_t *a = json_array();
    for (size_t i = 0; i < log->gdr_off_count; i++)
        for (size_t g = 0; log->gdr_off[i].cause == GD_NCCL_GDR_DISTANCE && g < f->gpu_count; g++)
            if (same_gpu(log->gdr_off[i].gpu, f->gpus[g].pci_bus_id))
                json_array_append_new(a, json_integer(f->gpus[g].index));
    if (json_array_size(a))
        json_object_set_new(ev, "gpus", a);
    else
        json_decref(a);
}

/* GPUDirect RDMA refused: by cause, one finding each. */
static void gdr_by_cause(const gd_check *self, const gd_facts *f, const struct gd_nccl_log *log, gd_nccl_gdr_cause c,
                         gd_findings *out)
{
    char hosts[256] = "", what[256] = "";
    const gd_nccl_gdr_off *first = NULL;
    for (size_t i = 0; i < log->gdr_off_count; i++) {
        const gd_nccl_gdr_off *g = &log->gdr_off[i];
        if (g->cause != c)
            continue;
        first = first ? first : g;
        list_add(hosts, sizeof hosts, host_name(g->host));
        char item[80];
        snprintf(item, sizeof item, "%s%s", c == GD_NCCL_GDR_DISTANCE ? "GPU " : "HCA ",
                 c == GD_NCCL_GDR_DISTANCE ? g->gpu : g->hca);
        if (!strstr(what, item) && strlen(what) + strlen(item) + 3 < sizeof what)
            snprintf(what + strlen(what), sizeof what - strlen(what), "%s%s", what[0] ? ", " : "", item);
    }
    if (!first)
        return;
    json_t *ev = line_ev(log, first->host, first->file, first->line, NULL);
    json_object_set_new(ev, "hosts", json_string(hosts));
    json_object_set_new(ev, "refused", json_string(what));
    const gd_nccl_env *lvl = NULL;
    char fix[768];
    if (c == GD_NCCL_GDR_NO_MODULE) {
        snprintf(fix, sizeof fix,
                 "Load GPUDirect RDMA's kernel module on %s: 'modprobe nvidia_peermem' (driver 470 and newer; the "
                 "older Mellanox nv_peer_mem otherwise), make it load at boot (/etc/modules-load.d), and check "
                 "'lsmod | grep peermem'. Without it every byte between nodes is staged through host memory.",
                 hosts);
        gd_finding_add(out, self->id, GD_SEV_WARNING, GD_NO_GPU, ev, NAN, fix,
                       "GPUDirect RDMA off on %s for %s: NCCL found no peer-memory module (nvidia_peermem not "
                       "loaded)",
                       hosts, what);
    } else if (c == GD_NCCL_GDR_DISTANCE) {
        json_object_set_new(ev, "distance", json_integer(first->distance));
        json_object_set_new(ev, "limit", json_integer(first->limit));
        bool set = env_is(log, "NCCL_NET_GDR_LEVEL", NULL, 1, &lvl);
        if (set)
            json_object_set_new(ev, "NCCL_NET_GDR_LEVEL", json_string(lvl->value));
        gdr_gpus(f, log, ev);
        if (set)
            snprintf(fix, sizeof fix,
                     "NCCL_NET_GDR_LEVEL=%s keeps GPUDirect RDMA to GPUs that near a NIC: these GPUs' traffic to "
                     "the network is staged through host memory. Give each GPU a NIC on its own PCIe switch "
                     "(nvidia-smi topo -m: PIX or PXB); or, after measuring with all_reduce_perf, allow a longer "
                     "path (a higher NCCL_NET_GDR_LEVEL, up to SYS) or unset it for NCCL's default.",
                     lvl->value);
        else
            snprintf(fix, sizeof fix,
                     "These GPUs are farther from the NIC than NCCL's default allows: their traffic to the network "
                     "is staged through host memory. Give each GPU a NIC on its own PCIe switch (nvidia-smi topo "
                     "-m: PIX or PXB); or, after measuring with all_reduce_perf, allow a longer path "
                     "(NCCL_NET_GDR_LEVEL=PHB or SYS).");
        gd_finding_add(out, self->id, GD_SEV_WARNING, GD_NO_GPU, ev, NAN, fix,
                       "GPUDirect RDMA off on %s for %s: farther from the NIC than allowed (distance %d > %d%s%s)",
                       hosts, what, first->distance, first->limit, set ? ", NCCL_NET_GDR_LEVEL=" : "",
                       set ? lvl->value : "");
    } else {
        bool loaded = f->net && f->net->peermem == GD_PEERMEM_LOADED;
        snprintf(fix, sizeof fix,
                 "NCCL printed no reason. %sCheck that nvidia_peermem is loaded and registered (lsmod | grep "
                 "peermem; /sys/kernel/mm/memory_peers/nv_mem/version exists), built against the running "
                 "driver and MOFED (reinstall the driver after MOFED), or that DMA-BUF is usable (open kernel "
                 "modules, kernel 5.12+). NCCL 2.22 and older look only for nv_peer_mem: upgrade NCCL where the "
                 "driver ships nvidia_peermem.",
                 loaded ? "nvidia_peermem is loaded on this node, so NCCL did not find it registered or cannot "
                          "use it. "
                        : "");
        gd_finding_add(out, self->id, GD_SEV_WARNING, GD_NO_GPU, ev, NAN, fix,
                       "GPUDirect RDMA off on %s for %s: NCCL gave no reason%s", hosts, what,
                       loaded ? " (nvidia_peermem is loaded)" : "");
    }
}

/* Hosts whose network channels go through host memory while others' use GPUDirect. */
static void gdr_mixed(const gd_check *self, const struct gd_nccl_log *log, gd_findings *out)
{
    char with[256] = "", without[256] = "";
    const gd_nccl_proc *first = NULL;
    for (size_t i = 0; i < log->proc_count; i++) {
        const gd_nccl_proc *x = &log->procs[i];
        if (x->ch_net_gdr)
            list_add(with, sizeof with, host_name(x->host));
        if (x->ch_net_host && !x->ch_net_gdr) {
            list_add(without, sizeof without, host_name(x->host));
            first = first ? first : x;
        }
    }
    if (!first || !with[0])
        return;
    for (size_t i = 0; i < log->gdr_off_count; i++)
        if (strstr(without, host_name(log->gdr_off[i].host)))
            return; /* said with its cause above */
    json_t *ev = line_ev(log, first->host, first->file, first->line, NULL);
    json_object_set_new(ev, "hosts_without_gdr", json_string(without));
    json_object_set_new(ev, "hosts_with_gdr", json_string(with));
    char fix[768];
    gd_strf(fix, sizeof fix,
            "On %s load GPUDirect RDMA's module ('modprobe nvidia_peermem'; check 'lsmod | grep peermem') and "
            "compare it with %s: the same driver, MOFED, NCCL and NCCL_NET_GDR_LEVEL. Every transfer to or "
            "from it is staged through host memory, which slows the whole ring to it.",
            without, with);
    gd_finding_add(out, self->id, GD_SEV_WARNING, GD_NO_GPU, ev, NAN, fix,
                   "GPUDirect RDMA off on %s: its network channels go through host memory while %s use%s GDRDMA",
                   without, with, strchr(with, ' ') ? "" : "s");
}

void gd_check_nccl_log_gdr_off(const gd_check *self, const gd_facts *f, gd_findings *out)
{
    const struct gd_nccl_log *log = log_of(f);
    if (!log)
        return;
    gdr_by_cause(self, f, log, GD_NCCL_GDR_NO_MODULE, out);
    gdr_by_cause(self, f, log, GD_NCCL_GDR_DISTANCE, out);
    gdr_by_cause(self, f, log, GD_NCCL_GDR_NO_CAUSE, out);
    gdr_mixed(self, log, out);
}

void gd_check_nccl_log_version_mismatch(const gd_check *self, const gd_facts *f, gd_findings *out)
{
    const struct gd_nccl_log *log = log_of(f);
    if (!log)
        return;
    char versions[256] = "", where[256] = "";
    const gd_nccl_proc *a = NULL, *b = NULL;
    for (size_t i = 0; i < log->proc_count; i++) {
        const gd_nccl_proc *x = &log->procs[i];
        if (!x->version[0])
            continue;
        char v[48], va[48];
        snprintf(v, sizeof v, "%.*s", (int)strcspn(x->version, "+"), x->version); /* NCCL's own, not its CUDA */
        if (!a)
            a = x;
        snprintf(va, sizeof va, "%.*s", (int)strcspn(a->version, "+"), a->version);
        if (!b && strcmp(va, v) != 0)
            b = x;
        list_add(versions, sizeof versions, v);
        char item[128];
        snprintf(item, sizeof item, "%s=%s", host_name(x->host), v);
        list_add(where, sizeof where, item);
    }
    if (!b)
        return;
    json_t *ev = line_ev(log, b->host, b->file, b->line, NULL);
    json_object_set_new(ev, "versions", json_string(versions));
    json_object_set_new(ev, "by_host", json_string(where));
    gd_finding_add(out, self->id, GD_SEV_CRITICAL, GD_NO_GPU, ev, NAN,
                   "Ranks of one job must run one NCCL: its wire protocol changes between releases, and mixed "
                   "versions fail to connect or hang. Find which library each node loads (python -c 'import "
                   "torch; print(torch.cuda.nccl.version())'; pip list | grep nccl; ldconfig -p | grep libnccl; "
                   "LD_LIBRARY_PATH), remove the stray one (a second nvidia-nccl-cu1x wheel, a system "
                   "libnccl earlier on the path) and install the same version everywhere.",
                   "NCCL versions differ between ranks: %s (%s)", versions, where);
}

/* Interfaces no peer on another node can reach: loopback, container and VM bridges. */
static bool unreachable_iface(const gd_facts *f, const char *name)
{
    static const char *const prefixes[] = {"lo",   "docker", "virbr",  "cni",   "flannel",     "cali",
                                           "veth", "br-",    "podman", "lxcbr", "kube-bridge", "vnet"};
    if (f->net)
        for (size_t i = 0; i < f->net->iface_count; i++)
            if (strcmp(f->net->ifaces[i].name, name) == 0 && (f->net->ifaces[i].loopback || f->net->ifaces[i].bridge))
                return true;
    for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++) {
        size_t n = strlen(prefixes[i]);
        if (strncmp(name, prefixes[i], n) == 0 && (strcmp(prefixes[i], "lo") != 0 || name[2] == '\0'))
            return true;
    }
    return false;
}

void gd_check_nccl_log_bad_iface(const gd_check *self, const gd_facts *f, gd_findings *out)
{
    const struct gd_nccl_log *log = log_of(f);
    if (!log || single_node(log))
        return; /* on one node, lo or a bridge reaches every rank */
    char hosts[256] = "", ifaces[256] = "", role[32] = "";
    const gd_nccl_proc *first = NULL;
    for (size_t i = 0; i < log->proc_count; i++) {
        const gd_nccl_proc *x = &log->procs[i];
        const char *const named[] = {x->bootstrap_iface, x->oob_iface};
        bool bad = false;
        for (size_t k = 0; k < 2; k++)
            if (named[k][0] && unreachable_iface(f, named[k])) {
                list_add(ifaces, sizeof ifaces, named[k]);
                snprintf(role, sizeof role, "bootstrap");
                bad = true;
            }
        /* NET/Socket's interfaces carry data only where sockets are the network. */
        char list[200];
        snprintf(list, sizeof list, "%s", proc_net(x) == GD_NCCL_NET_SOCKET ? x->socket_ifaces : "");
        for (char *save = NULL, *t = strtok_r(list, " ", &save); t; t = strtok_r(NULL, " ", &save))
            if (unreachable_iface(f, t)) {
                list_add(ifaces, sizeof ifaces, t);
                if (!role[0])
                    snprintf(role, sizeof role, "socket");
                bad = true;
            }
        if (bad) {
            list_add(hosts, sizeof hosts, host_name(x->host));
            first = first ? first : x;
        }
    }
    if (!first)
        return;
    json_t *ev = line_ev(log, first->host, first->file, first->line, NULL);
    json_object_set_new(ev, "interfaces", json_string(ifaces));
    json_object_set_new(ev, "hosts", json_string(hosts));
    char fix[768];
    snprintf(fix, sizeof fix,
             "%s is a loopback or bridge interface (a container's or a VM's network, not the fabric): a peer on "
             "another node cannot reach it, so connections through it fail or time out. Name the interface the "
             "nodes share: NCCL_SOCKET_IFNAME=<iface> (e.g. the one 'ip route get <peer address>' uses), or "
             "exclude these: NCCL_SOCKET_IFNAME=^lo,docker,virbr,cni.",
             ifaces);
    gd_finding_add(out, self->id, GD_SEV_WARNING, GD_NO_GPU, ev, NAN, fix,
                   "NCCL on %s uses %s for its %s connections: no other node can reach it", hosts, ifaces,
                   strcmp(role, "bootstrap") == 0 ? "bootstrap" : "socket");
}

void gd_check_nccl_log_connect_failed(const gd_check *self, const gd_facts *f, gd_findings *out)
{
    const struct gd_nccl_log *log = log_of(f);
    (void)f;
    for (size_t i = 0; log && i < log->connect_count; i++) {
        const gd_nccl_connect *c = &log->connects[i];
        json_t *ev = line_ev(log, c->where.host, c->where.file, c->where.line, c->where.text);
        json_object_set_new(ev, "error", json_string(c->error));
        json_object_set_new(ev, "count", json_integer(c->count));
        if (c->peer[0])
            json_object_set_new(ev, "peer", json_string(c->peer));
        if (c->iface[0])
            json_object_set_new(ev, "interface", json_string(c->iface));
        const char *fix =
            strcmp(c->error, "Connection refused") == 0
                ? "Nothing listened at the peer's address: the peer process had died or not started (read its "
                  "own log first), MASTER_ADDR/MASTER_PORT name another host or port, or the peer bound an "
                  "interface this node does not reach (lo, docker0). Set NCCL_SOCKET_IFNAME to the interface the "
                  "nodes share on every node."
                : "The peer's address is not reachable from this node over the interface NCCL chose: check "
                  "'ip route get <peer address>' and that NCCL_SOCKET_IFNAME (and GLOO_SOCKET_IFNAME) name an "
                  "interface on the network the nodes share, and that no firewall (firewalld, ufw, a cloud "
                  "security group) drops the ports between them.";
        char via[80] = "";
        if (c->iface[0])
            snprintf(via, sizeof via, " over %s", c->iface);
        gd_finding_add(out, self->id, c->retries_exhausted ? GD_SEV_CRITICAL : GD_SEV_WARNING, GD_NO_GPU, ev, NAN, fix,
                       "NCCL on %s could not connect%s%s%s: %s (%u time%s%s)", host_name(c->where.host),
                       c->peer[0] ? " to " : "", c->peer, via, c->error, c->count, c->count == 1 ? "" : "s",
                       c->retries_exhausted ? ", retries exhausted" : "");
    }
}

void gd_check_nccl_log_transport_disabled(const gd_check *self, const gd_facts *f, gd_findings *out)
{
    const struct gd_nccl_log *log = log_of(f);
    if (!log)
        return;
    static const char *const one[] = {"1"}, *const loc[] = {"LOC", "0"};
    static const struct {
        const char *name;
        const char *const *values;
        size_t n;
        const char *what;
    } rules[] = {
        {"NCCL_P2P_DISABLE", one, 1, "peer-to-peer (NVLink and PCIe) between GPUs of a node"},
        {"NCCL_P2P_LEVEL", loc, 2, "peer-to-peer (NVLink and PCIe) between GPUs of a node"},
        {"NCCL_SHM_DISABLE", one, 1, "shared memory between processes of a node"},
    };
    for (size_t r = 0; r < sizeof rules / sizeof rules[0]; r++) {
        const gd_nccl_env *e = NULL;
        if (!env_is(log, rules[r].name, rules[r].values, rules[r].n, &e))
            continue;
        json_t *ev = line_ev(log, e->host, 0, 0, NULL);
        json_object_del(ev, "file_index");
        json_object_del(ev, "line");
        json_object_set_new(ev, e->name, json_string(e->value));
        char fix[512];
        snprintf(fix, sizeof fix,
                 "Unset %s: traffic between GPUs of a node then goes through host memory (or the network). It is "
                 "often left from working around a hang: fix that cause instead (PCIe ACS or the IOMMU, "
                 "'nvidia-smi topo -p2p r').",
                 e->name);
        gd_finding_add(out, self->id, GD_SEV_WARNING, GD_NO_GPU, ev, NAN, fix,
                       "NCCL's %s is off: %s=%s (NCCL said so on %s)", rules[r].what, e->name, e->value,
                       host_name(e->host));
    }
}
