/* SPDX-License-Identifier: Apache-2.0 */
/*
 * lspci -vv / -vvv output -> PCIe facts: each NVIDIA GPU's link (LnkCap,
 * LnkSta with its "(downgraded)" marks), the bridges above it found through
 * their "Bus: primary=, secondary=" lines, AER status bits (UESta, CESta,
 * UESvrt), the NUMA node, and the NICs. GPUs are matched to f->gpus by bus
 * id; without any nvidia-smi capture, the NVIDIA devices become the GPUs,
 * with their link as the only thing known (one sample, load unknown), named
 * from the PCI id database where the capture gives their device id
 * (lspci_name.h).
 */
#include "capture.h"
#include "import.h"
#include "lspci_name.h"
#include "net_capture.h"
#include "loaders/pci_ids.h"

#include "gpudoctor/pcie.h"
#include "analysis/topology.h"
#include "core/pcie_util.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LSPCI_MAX_DEVICES 4096 /* a PCI domain has at most 256 buses x 32 x 8 functions; big hosts list ~1000 */
#define LSPCI_MAX_GPUS 256

typedef struct dev {
    unsigned dom, bus;
    char bdf[16];
    bool gpu, bridge, nic;
    int secondary; /* -1 unless a bridge */
    char desc[96]; /* "NVIDIA Corporation GP100GL [Tesla P100 PCIe 12GB]", without "(rev a1)" */
    long device_id; /* NVIDIA's device id where the capture gives it (lspci -nn, -x, "Device 2330"), else -1 */
    char express[24];
    gd_pcie_hop hop;
    gd_value numa;
    char uesta[512], uesvrt[512];
    bool has_acs; /* an ACSCtl line (lspci -vvv as root) */
    gd_net_acs acs;
} dev;

/* "[DDDD:]BB:DD.F class: ..." starts a device; returns whether `line` does. */
static bool parse_header(const char *line, dev *d)
{
    unsigned dom = 0, bus, sl, fn;
    int n = 0;
    if (sscanf(line, "%4x:%2x:%2x.%1x%n", &dom, &bus, &sl, &fn, &n) != 4 || line[n] != ' ') {
        dom = 0;
        n = 0;
        if (sscanf(line, "%2x:%2x.%1x%n", &bus, &sl, &fn, &n) != 3 || line[n] != ' ')
            return false;
    }
    if (sl > 0x1f)
        return false;
    memset(d, 0, sizeof *d);
    d->dom = dom;
    d->bus = bus;
    d->secondary = -1;
    snprintf(d->bdf, sizeof d->bdf, "%04x:%02x:%02x.%x", dom, bus, sl, fn);
    const char *rest = line + n;
    d->gpu = strstr(rest, "NVIDIA") && (strstr(rest, "3D controller") || strstr(rest, "VGA compatible controller"));
    d->bridge = strstr(rest, "PCI bridge") != NULL;
    /* Class 0200 / 0207, also as 'lspci -nn' prints them. */
    d->nic = strstr(rest, "Ethernet controller") || strstr(rest, "Infiniband controller") ||
             strstr(rest, "InfiniBand controller");
    const char *colon = strstr(rest, ": ");
    if (colon) {
        colon += 2;
        size_t len = strcspn(colon, "(");
        while (len > 0 && colon[len - 1] == ' ')
            len--;
        snprintf(d->desc, sizeof d->desc, "%.*s", (int)(len < sizeof d->desc ? len : sizeof d->desc - 1), colon);
    }
    d->device_id = gd_lspci_device_id(d->desc);
    gd_value unread = gd_missing(GD_ST_NOT_SUPPORTED);
    d->hop = (gd_pcie_hop){.speed_gts = unread,
                           .speed_max_gts = unread,
                           .gen = unread,
                           .gen_max = unread,
                           .width = unread,
                           .width_max = unread,
                           .aer_cor = unread,
                           .aer_nonfatal = unread,
                           .aer_fatal = unread,
                           .aer_bits = true};
    d->numa = unread;
    return true;
}

/* "Speed 8GT/s (ok), Width x16 (ok)" and "Port #0, Speed 32GT/s, Width x16, ..." */
static void parse_link(const char *s, gd_value *gts, gd_value *gen, gd_value *width)
{
    const char *sp = strstr(s, "Speed ");
    if (sp) {
        double v = gd_pcie_parse_speed(sp + 6);
        int g = gd_pcie_gen_of_speed(v);
        *gts = isnan(v) ? gd_missing(GD_ST_ERROR) : gd_val(v);
        *gen = g ? gd_val(g) : gd_missing(GD_ST_ERROR);
    }
    const char *wi = strstr(s, "Width x");
    if (wi) {
        char *end;
        long w = strtol(wi + 7, &end, 10);
        *width = end > wi + 7 && w >= 0 && w <= 32 ? gd_val((double)w) : gd_missing(GD_ST_ERROR);
    }
}

/* Number of "Name+" flags in an AER status line. */
static int plus_flags(const char *s)
{
    int n = 0;
    for (const char *p = s; (p = strchr(p, '+')); p++)
        n += p > s && isalnum((unsigned char)p[-1]);
    return n;
}

/* Uncorrectable errors flagged in UESta: fatal when UESvrt marks that
 * error type severe (+), non-fatal otherwise. */
static void split_uncorrectable(dev *d)
{
    if (!d->uesta[0])
        return;
    int fatal = 0, nonfatal = 0;
    char *save = NULL, copy[512];
    gd_pcie_copy(copy, sizeof copy, d->uesta);
    for (char *t = strtok_r(copy, " \t", &save); t; t = strtok_r(NULL, " \t", &save)) {
        size_t len = strlen(t);
        if (len < 2 || t[len - 1] != '+')
            continue;
        char want[64];
        snprintf(want, sizeof want, " %.*s+", (int)(len - 1 < 60 ? len - 1 : 60), t);
        char sv[520];
        snprintf(sv, sizeof sv, " %s", d->uesvrt);
        if (strstr(sv, want))
            fatal++;
        else
            nonfatal++;
    }
    d->hop.aer_fatal = gd_val(fatal);
    d->hop.aer_nonfatal = gd_val(nonfatal);
}

static void parse_detail(const char *line, dev *d)
{
    const char *s = line + strspn(line, " \t");
    const char *v;
    if (strncmp(s, "NUMA node:", 10) == 0) {
        long n = strtol(s + 10, NULL, 10);
        d->numa = n >= 0 ? gd_val((double)n) : gd_missing(GD_ST_NOT_SUPPORTED);
    } else if ((v = strstr(s, "secondary=")) && strncmp(s, "Bus:", 4) == 0) {
        d->secondary = (int)strtol(v + 10, NULL, 16);
        d->bridge = true;
    } else if (strncmp(s, "Capabilities:", 13) == 0 && (v = strstr(s, "Express ("))) {
        v = strchr(v, ')');
        if (v) { /* "Express (v2) Root Port ...": the ')' may end the line */
            v += 1 + strspn(v + 1, " ");
            gd_pcie_copy(d->express, sizeof d->express, v);
        }
    } else if (strncmp(s, "LnkCap:", 7) == 0) {
        parse_link(s + 7, &d->hop.speed_max_gts, &d->hop.gen_max, &d->hop.width_max);
    } else if (strncmp(s, "LnkSta:", 7) == 0) {
        parse_link(s + 7, &d->hop.speed_gts, &d->hop.gen, &d->hop.width);
    } else if (strncmp(s, "UESta:", 6) == 0) {
        gd_pcie_copy(d->uesta, sizeof d->uesta, s + 6);
    } else if (strncmp(s, "UESvrt:", 7) == 0) {
        gd_pcie_copy(d->uesvrt, sizeof d->uesvrt, s + 7);
    } else if (strncmp(s, "CESta:", 6) == 0) {
        d->hop.aer_cor = gd_val(plus_flags(s + 6));
    } else if (gd_net_parse_acsctl(s, &d->acs)) {
        d->has_acs = true;
    }
}

static const dev *parent_of(const dev *devs, size_t n, const dev *d)
{
    for (size_t i = 0; i < n; i++)
        if (devs[i].bridge && devs[i].secondary == (int)d->bus && devs[i].dom == d->dom && &devs[i] != d)
            return &devs[i];
    return NULL;
}

static const char *role_of(const dev *d, bool top)
{
    if (d->gpu)
        return "gpu";
    if (strncmp(d->express, "Root Port", 9) == 0)
        return "root_port";
    if (strstr(d->express, "Upstream") || strstr(d->express, "Downstream"))
        return "switch_port";
    return top ? "root_port" : "bridge";
}

/* Where device d sits: its NUMA node, the path from it up to its root port
 * and the host bridge. */
static void place(const dev *devs, size_t n, const dev *dev0, gd_pcie_gpu *g)
{
    g->numa_node = dev0->numa;
    g->hop_count = 0;
    const dev *top = NULL;
    for (const dev *d = dev0; d && g->hop_count < GD_PCIE_MAX_HOPS; d = parent_of(devs, n, d)) {
        top = d;
        g->hops[g->hop_count] = d->hop;
        gd_pcie_copy(g->hops[g->hop_count].bdf, sizeof g->hops[0].bdf, d->bdf);
        g->hop_count++;
    }
    for (size_t k = 0; k < g->hop_count; k++) {
        const dev *d = NULL;
        for (size_t j = 0; j < n && !d; j++)
            if (strcmp(devs[j].bdf, g->hops[k].bdf) == 0)
                d = &devs[j];
        gd_pcie_copy(g->hops[k].role, sizeof g->hops[k].role,
                     k == 0 && !dev0->gpu ? "nic" : role_of(d, k + 1 == g->hop_count && k > 0));
    }
    /* The root bus stands for the host bridge (lspci -vv has no pciDDDD:BB). */
    snprintf(g->host_bridge, sizeof g->host_bridge, "%04x:%02x", top->dom, top->bus);
}

/* A NIC's short name: the model lspci gives in brackets ("ConnectX-7"), else its bus id. */
static void nic_name(const dev *d, char *out, size_t len)
{
    const char *open = strrchr(d->desc, '['), *close = open ? strchr(open, ']') : NULL;
    if (!close || close - open < 2)
        gd_pcie_copy(out, len, d->bdf);
    else
        snprintf(out, len, "%.*s", (int)(close - open - 1), open + 1);
}

static const char *base_name(const char *path)
{
    const char *b = strrchr(path, '/');
    return b ? b + 1 : path;
}

/* Without any nvidia-smi capture, the NVIDIA devices are the GPUs, in bus
 * order as nvidia-smi numbers them: named by lspci, with their link (LnkSta)
 * as one sample and everything else, load included, not known. */
static int add_gpus(gd_facts *f, const dev *devs, size_t n)
{
    size_t count = 0;
    for (size_t i = 0; i < n; i++)
        count += devs[i].gpu && count < LSPCI_MAX_GPUS;
    if (count == 0)
        return 0;
    f->gpus = calloc(count, sizeof *f->gpus);
    if (!f->gpus || gd_series_init(&f->series, count) != 0 || gd_series_push(&f->series, 0) < 0)
        return -1;
    for (size_t i = 0; i < n && f->gpu_count < count; i++) {
        if (!devs[i].gpu)
            continue;
        size_t g = f->gpu_count++;
        gd_gpu *gpu = &f->gpus[g];
        gpu->index = (int)g;
        char db[128] = "";
        if (devs[i].device_id >= 0)
            gd_pci_ids_device_name(GD_PCI_VENDOR_NVIDIA, (unsigned)devs[i].device_id, db, sizeof db);
        gd_lspci_gpu_name(devs[i].desc, devs[i].device_id, db, gpu->name, sizeof gpu->name);
        gd_pci_bus_id_norm(devs[i].bdf, gpu->pci_bus_id, sizeof gpu->pci_bus_id);
        gd_cap_mark_unsupported(gpu);
        gpu->pcie_width_max_device = gd_missing(GD_ST_NOT_SUPPORTED);
        gd_value *slot = gd_series_slot(&f->series, 0, g);
        for (int m = 0; m < GD_M_COUNT; m++)
            slot[m] = gd_missing(GD_ST_NOT_SUPPORTED);
        slot[GD_M_PCIE_GEN] = devs[i].hop.gen;
        slot[GD_M_PCIE_WIDTH] = devs[i].hop.width;
    }
    return 0;
}

/* The facts entry of bus id `bdf`: the existing one, else a new one matched to f->gpus. */
static gd_pcie_gpu *entry_for(gd_pcie_facts *p, const gd_facts *f, const char *bdf, int ordinal)
{
    for (size_t i = 0; i < p->gpu_count; i++)
        if (strcmp(p->gpus[i].bdf, bdf) == 0)
            return &p->gpus[i];
    gd_pcie_gpu *g = gd_pcie_gpu_add(p);
    if (!g)
        return NULL;
    gd_pcie_copy(g->bdf, sizeof g->bdf, bdf);
    g->gpu = ordinal; /* nvidia-smi numbers GPUs in bus order, like lspci lists them */
    g->numa_node = gd_missing(GD_ST_NOT_SUPPORTED);
    for (size_t k = 0; k < f->gpu_count; k++) {
        char b[16];
        if (gd_pcie_norm_bdf(f->gpus[k].pci_bus_id, b, sizeof b) == 0 && strcmp(b, bdf) == 0) {
            g->gpu = f->gpus[k].index;
            g->matched = true;
        }
    }
    return g;
}

static void append_source(gd_pcie_facts *p, const char *kind, const char *name)
{
    size_t len = strlen(p->source);
    snprintf(p->source + len, sizeof p->source - len, "%s%s:%s", len ? ", " : "", kind, name);
}

/* The bridges' ACS control into f->net->acs, with their bdf. Read only
 * where lspci decoded the capabilities (as root): a user's lspci prints
 * "Capabilities: <access denied>" and says nothing of ACS. */
static int add_acs(gd_facts *f, const char *name, const dev *devs, size_t n, const char *text, size_t len)
{
    bool decoded = false;
    for (const char *at = text; !decoded && (at = memmem(at, len - (size_t)(at - text), "Capabilities: [", 15));
         at += 15)
        decoded = true;
    size_t with = 0;
    for (size_t i = 0; i < n; i++)
        with += devs[i].has_acs;
    if (!decoded && !with)
        return 0;
    gd_net_facts *net = gd_net_capture_facts(f);
    if (!net)
        return -1;
    net->acs_read = true;
    gd_net_capture_source(net->acs_source, sizeof net->acs_source, "lspci", gd_import_base(name));
    for (size_t i = 0; i < n && net->acs_count < GD_NET_MAX_ACS; i++) {
        if (!devs[i].has_acs)
            continue;
        gd_net_acs *a = &net->acs[net->acs_count++];
        *a = devs[i].acs;
        snprintf(a->bdf, sizeof a->bdf, "%s", devs[i].bdf);
    }
    return 0;
}

int gd_import_lspci(const char *name, const char *text, size_t len, gd_facts *f, char *err, size_t errlen)
{
    char *buf = malloc(len + 1);
    size_t n = 0, cap = 64;
    dev *devs = malloc(cap * sizeof *devs);
    int rc = -1;
    if (!buf || !devs) {
        snprintf(err, errlen, "%s: out of memory", name);
        goto out;
    }
    memcpy(buf, text, len);
    buf[len] = '\0';
    char *save = NULL;
    /* A device's line starts at the capture's margin, its details are
     * indented below it; a paste may have moved the margin (a quote, an
     * indented block), so it is where the first device line starts. */
    size_t margin = (size_t)-1;
    for (char *line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        line[strcspn(line, "\r")] = '\0';
        size_t indent = strspn(line, " \t");
        dev probe;
        if (margin == (size_t)-1 && line[indent] && parse_header(line + indent, &probe))
            margin = indent;
        if (margin == (size_t)-1 || indent <= margin) {
            if (n == LSPCI_MAX_DEVICES)
                break;
            if (n == cap) {
                dev *more = realloc(devs, 2 * cap * sizeof *devs);
                if (!more) {
                    snprintf(err, errlen, "%s: out of memory", name);
                    goto out;
                }
                devs = more;
                cap *= 2;
            }
            long id;
            if (parse_header(line + indent, &devs[n]))
                n++;
            else if (n > 0 && (id = gd_lspci_dump_device_id(line + indent)) >= 0)
                devs[n - 1].device_id = id; /* lspci -x: the configuration space's first bytes */
        } else if (n > 0) {
            parse_detail(line, &devs[n - 1]);
        }
    }
    if (n == 0) {
        snprintf(err, errlen, "%s: no PCI device found; is this 'lspci -vv' output?", name);
        goto out;
    }
    if (f->gpu_count == 0 && !f->driver_loaded && add_gpus(f, devs, n) != 0) {
        snprintf(err, errlen, "%s: out of memory", name);
        goto out;
    }
    gd_pcie_facts *p = gd_pcie_facts_get(f);
    if (!p) {
        snprintf(err, errlen, "%s: out of memory", name);
        goto out;
    }
    append_source(p, "lspci", name);
    size_t gpus = 0, linked = 0;
    for (size_t i = 0; i < n; i++) {
        gpus += devs[i].gpu;
        linked += devs[i].gpu && (gd_ok(devs[i].hop.gen) || gd_ok(devs[i].hop.gen_max));
    }
    if (gpus && !linked) /* what nvidia-bug-report collects: 'lspci -v -xxx' */
        gd_import_note(f,
                       "%s: no LnkCap or LnkSta line for its %zu GPU%s (an 'lspci -v' capture, or its hex dump): "
                       "their PCIe links are not judged; 'sudo lspci -vv' decodes them",
                       gd_import_base(name), gpus, gpus == 1 ? "" : "s");
    int ordinal = 0;
    for (size_t i = 0; i < n; i++) {
        split_uncorrectable(&devs[i]);
        if (!devs[i].gpu || ordinal == LSPCI_MAX_GPUS)
            continue;
        gd_pcie_gpu *g = entry_for(p, f, devs[i].bdf, ordinal++);
        if (!g) {
            snprintf(err, errlen, "%s: out of memory", name);
            goto out;
        }
        place(devs, n, &devs[i], g);
    }
    char link_source[300];
    snprintf(link_source, sizeof link_source, "lspci:%s:LnkCap", base_name(name));
    gd_pcie_fill_link_max(f, link_source);
    for (size_t i = 0; i < n; i++) {
        if (!devs[i].nic)
            continue;
        gd_pcie_gpu where;
        memset(&where, 0, sizeof where);
        gd_pcie_copy(where.bdf, sizeof where.bdf, devs[i].bdf);
        place(devs, n, &devs[i], &where);
        char nic[32];
        nic_name(&devs[i], nic, sizeof nic);
        if (gd_topo_add_nic(p, &where, nic, devs[i].desc) != 0) {
            snprintf(err, errlen, "%s: out of memory", name);
            goto out;
        }
    }
    if (add_acs(f, name, devs, n, text, len) != 0) {
        snprintf(err, errlen, "%s: out of memory", name);
        goto out;
    }
    rc = gd_topo_derive(p, f) == 0 ? 0 : -1;
    if (rc != 0)
        snprintf(err, errlen, "%s: out of memory", name);
out:
    free(buf);
    free(devs);
    return rc;
}
