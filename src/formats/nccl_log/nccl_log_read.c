/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The messages read are NCCL's own format strings (NVIDIA/nccl,
 * src/bootstrap.cc "Bootstrap : Using %s", src/transport/net_ib.cc
 * "NET/IB : Using %s ; OOB %s", "NET/IB : No device found.", "NET/IB : GPU
 * Direct RDMA Disabled for HCA %d '%s' (no module)", src/transport/net.cc
 * "GPU Direct RDMA %s for GPU %lx / HCA %d (distance %d %s %d)",
 * src/transport.cc "Channel %02d%s : %d[%d] -> %d[%d] [%s] via %s",
 * src/misc/socket.cc "connect returned %s, retrying (%d/%d)", src/misc/param.cc
 * "%s set by environment to %s", src/init.cc "comm %p rank %d nranks %d",
 * "NCCL version %s"); words are matched, never columns, since each release
 * moves a blank or a colon ("NET/Plugin: " and "NET/Plugin : ").
 */
#include "nccl_log_read.h"
#include "nccl_line.h"

#include <math.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct gd_nccl_log *gd_nccl_log_new(void)
{
    struct gd_nccl_log *log = calloc(1, sizeof *log);
    if (log)
        log->started_s = NAN;
    if (log && !(log->procs = calloc(GD_NCCL_MAX_PROCS, sizeof *log->procs))) {
        free(log);
        return NULL;
    }
    return log;
}

void gd_nccl_log_free(struct gd_nccl_log *log)
{
    if (!log)
        return;
    free(log->procs);
    free(log);
}

/* Copies [s, s+n) into a buffer of cap bytes, cut. */
static void copy_n(char *dst, size_t cap, const char *s, size_t n)
{
    if (n >= cap)
        n = cap - 1;
    memcpy(dst, s, n);
    dst[n] = '\0';
}

static void copy_trim(char *dst, size_t cap, const char *s)
{
    size_t n = strlen(s);
    while (n && (s[n - 1] == ' ' || s[n - 1] == '.'))
        n--;
    copy_n(dst, cap, s, n);
}

/* What a reader keeps while it reads one file. */
typedef struct reader {
    struct gd_nccl_log *log;
    int file;
    long line;
    gd_nccl_proc *last; /* the process of the last prefixed line: a bare version line is its */
} reader;

static gd_nccl_proc *proc_of(reader *r, const gd_nccl_prefix *p)
{
    struct gd_nccl_log *log = r->log;
    for (size_t i = log->proc_count; i-- > 0;) {
        gd_nccl_proc *x = &log->procs[i];
        if (x->pid == p->pid && x->dev == p->dev && strcmp(x->host, p->host) == 0)
            return x;
    }
    if (log->proc_count >= GD_NCCL_MAX_PROCS) {
        log->procs_dropped++;
        return NULL;
    }
    gd_nccl_proc *x = &log->procs[log->proc_count++];
    memset(x, 0, sizeof *x);
    snprintf(x->host, sizeof x->host, "%s", p->host);
    x->pid = p->pid;
    x->dev = p->dev;
    x->rank = x->nranks = -1;
    x->file = r->file;
    x->line = r->line;
    return x;
}

static void keep_line(const reader *r, const gd_nccl_prefix *p, gd_nccl_line *out)
{
    snprintf(out->host, sizeof out->host, "%s", p->host);
    out->pid = p->pid;
    out->file = r->file;
    out->line = r->line;
    copy_trim(out->text, sizeof out->text, p->msg);
}

/* Interface names of "[0]ens5f0np0:10.2.1.1<0> [1]virbr0:<0>" (or of
 * "[0]mlx5_0:1/IB" for devices, whole), blank-separated, up to ';'. */
static void list_names(const char *s, char *out, size_t cap, bool whole, bool *roce)
{
    size_t used = 0;
    out[0] = '\0';
    while (*s && *s != ';') {
        while (*s == ' ')
            s++;
        if (*s != '[')
            break;
        const char *close = strchr(s, ']');
        if (!close)
            break;
        s = close + 1;
        if (close[-1] == 'O' && close[-2] == 'R' && close[-3] == '[') /* "[RO]": relaxed ordering */
            continue;
        size_t n = strcspn(s, whole ? " ;" : ": ;");
        if (n && used + n + 2 < cap) {
            used += (size_t)snprintf(out + used, cap - used, "%s%.*s", used ? " " : "", (int)n, s);
            if (roce && n >= 5 && strncmp(s + n - 5, "/RoCE", 5) == 0)
                *roce = true;
        }
        s += strcspn(s, " ;");
    }
}

/* "ens5f0np0:10.220.178.201<0>" into its name and address. */
static void iface_addr(const char *s, char *name, size_t ncap, char *addr, size_t acap)
{
    size_t n = strcspn(s, ": <");
    copy_n(name, ncap, s, n);
    s += n;
    if (*s == ':')
        s++;
    copy_n(addr, acap, s, strcspn(s, "< "));
}

static void add_env(struct gd_nccl_log *log, const char *host, const char *name, size_t nlen, const char *value)
{
    for (size_t i = 0; i < log->env_count; i++)
        if (strlen(log->env[i].name) == nlen && strncmp(log->env[i].name, name, nlen) == 0) {
            log->env[i].hosts++;
            return;
        }
    if (log->env_count >= GD_NCCL_MAX_ENV)
        return;
    gd_nccl_env *e = &log->env[log->env_count++];
    copy_n(e->name, sizeof e->name, name, nlen);
    copy_trim(e->value, sizeof e->value, value);
    snprintf(e->host, sizeof e->host, "%s", host);
    e->hosts = 1;
}

/* "NCCL_X set by environment to V" / "NCCL_X set to V". */
static bool read_env(reader *r, const gd_nccl_prefix *p)
{
    const char *m = p->msg;
    if (strncmp(m, "NCCL_", 5) != 0)
        return false;
    size_t n = strcspn(m, " ");
    const char *rest = m + n;
    static const char *const says[] = {" set by environment to ", " set to "};
    for (size_t i = 0; i < sizeof says / sizeof says[0]; i++)
        if (strncmp(rest, says[i], strlen(says[i])) == 0) {
            add_env(r->log, p->host, m, n, rest + strlen(says[i]));
            return true;
        }
    return false;
}

/* "Channel 00/0 : 9[1] -> 0[0] [receive] via NET/IB/0/GDRDMA". */
static void read_channel(gd_nccl_proc *x, const char *m)
{
    const char *via = strstr(m, " via ");
    if (!via || !strstr(m, "->"))
        return;
    via += 5;
    if (strncmp(via, "NET/", 4) == 0) {
        if (strstr(via, "/GDRDMA"))
            x->ch_net_gdr++;
        else if (strstr(via, "Socket"))
            x->ch_socket++;
        else
            x->ch_net_host++;
    } else if (strncmp(via, "P2P", 3) == 0) {
        x->ch_p2p++;
    } else if (strncmp(via, "SHM", 3) == 0) {
        x->ch_shm++;
    } else if (strncmp(via, "CollNet", 7) == 0 || strncmp(via, "COLLNET", 7) == 0) {
        x->ch_collnet++;
    }
}

static void add_gdr_off(reader *r, const gd_nccl_prefix *p, gd_nccl_gdr_cause cause, const char *gpu, size_t gpulen,
                        const char *hca, size_t hcalen, int distance, int limit)
{
    struct gd_nccl_log *log = r->log;
    for (size_t i = 0; i < log->gdr_off_count; i++) {
        const gd_nccl_gdr_off *g = &log->gdr_off[i];
        if (g->cause == cause && strcmp(g->host, p->host) == 0 && strlen(g->gpu) == gpulen &&
            strncmp(g->gpu, gpu, gpulen) == 0 && strlen(g->hca) == hcalen && strncmp(g->hca, hca, hcalen) == 0)
            return;
    }
    log->gdr_off_total++;
    if (log->gdr_off_count >= GD_NCCL_MAX_LINES)
        return;
    gd_nccl_gdr_off *g = &log->gdr_off[log->gdr_off_count++];
    g->cause = cause;
    snprintf(g->host, sizeof g->host, "%s", p->host);
    copy_n(g->gpu, sizeof g->gpu, gpu, gpulen);
    copy_n(g->hca, sizeof g->hca, hca, hcalen);
    g->distance = distance;
    g->limit = limit;
    g->file = r->file;
    g->line = r->line;
}

/* "GPU Direct RDMA Disabled for GPU 18000 / HCA 0 (distance 5 > 4)",
 * "NET/IB : GPU Direct RDMA Disabled for HCA 0 'mlx5_0' (no module)",
 * "... Enabled for GPU 86000 / HCA 0 (distance 4 <= 4), read 0". */
static bool read_gdr(reader *r, gd_nccl_proc *x, const gd_nccl_prefix *p)
{
    const char *m = p->msg, *g = strstr(m, "GPU Direct RDMA ");
    if (!g)
        return false;
    if (strncmp(m, "NET/Socket", 10) == 0)
        return true; /* the socket transport says so of every interface: nothing was refused */
    g += 16;
    if (strncasecmp(g, "Disabled", 8) != 0) {
        if (strcasestr(g, "enable"))
            x->gdr_enabled++;
        return true;
    }
    x->gdr_disabled++;
    const char *gpu = strstr(g, "for GPU "), *hca = strstr(g, "HCA ");
    size_t gpulen = 0, hcalen = 0;
    if (gpu) {
        gpu += 8;
        gpulen = strcspn(gpu, " /");
    }
    if (hca) {
        hca += 4;
        const char *end = strstr(hca, " (");
        hcalen = end ? (size_t)(end - hca) : strlen(hca);
    }
    int distance = -1, limit = -1;
    const char *d = strstr(g, "(distance ");
    gd_nccl_gdr_cause cause = GD_NCCL_GDR_NO_CAUSE;
    if (d && sscanf(d, "(distance %d > %d)", &distance, &limit) == 2)
        cause = GD_NCCL_GDR_DISTANCE;
    else if (strstr(g, "(no module"))
        cause = GD_NCCL_GDR_NO_MODULE;
    add_gdr_off(r, p, cause, gpu ? gpu : "", gpulen, hca ? hca : "", hcalen, distance, limit);
    return true;
}

/* The causes NCCL prints for finding no RDMA device (net_ib.cc, ibvwrap.cc). */
static bool is_ib_missing(const char *m)
{
    static const char *const causes[] = {
        "NET/IB : No device found", "Failed to open libibverbs", "ibv_open_device failed",    "Unable to open device",
        "No IP interface found",    "ibv_get_device_list",       "Failed to load libibverbs", "Failed to open libmlx5",
    };
    for (size_t i = 0; i < sizeof causes / sizeof causes[0]; i++)
        if (strstr(m, causes[i]))
            return true;
    return false;
}

static void add_missing(reader *r, const gd_nccl_prefix *p)
{
    struct gd_nccl_log *log = r->log;
    for (size_t i = 0; i < log->missing_count; i++)
        if (strcmp(log->missing[i].host, p->host) == 0 && strncmp(log->missing[i].text, p->msg, 24) == 0)
            return;
    if (log->missing_count < GD_NCCL_MAX_LINES)
        keep_line(r, p, &log->missing[log->missing_count++]);
}

/* Connect errors (misc/socket.cc), by the errno text they carry. */
static void read_connect(reader *r, gd_nccl_proc *x, const gd_nccl_prefix *p)
{
    static const char *const errors[] = {"No route to host", "Connection refused", "Connection timed out",
                                         "Network is unreachable"};
    const char *m = p->msg, *which = NULL;
    for (size_t i = 0; !which && i < sizeof errors / sizeof errors[0]; i++)
        if (strstr(m, errors[i]))
            which = errors[i];
    if (!which || (!strcasestr(m, "connect") && !strstr(m, "Call to")))
        return;
    struct gd_nccl_log *log = r->log;
    gd_nccl_connect *c = NULL;
    for (size_t i = 0; i < log->connect_count && !c; i++)
        if (strcmp(log->connects[i].error, which) == 0 && strcmp(log->connects[i].where.host, p->host) == 0)
            c = &log->connects[i];
    if (!c) {
        if (log->connect_count >= GD_NCCL_MAX_LINES)
            return;
        c = &log->connects[log->connect_count++];
        keep_line(r, p, &c->where);
        snprintf(c->error, sizeof c->error, "%s", which);
        const char *to = strstr(m, "onnect to ");
        if (to) {
            to += 10;
            copy_n(c->peer, sizeof c->peer, to, strcspn(to, " "));
        }
    }
    if (x && !c->iface[0])
        snprintf(c->iface, sizeof c->iface, "%s", x->bootstrap_iface[0] ? x->bootstrap_iface : x->oob_iface);
    c->count++;
    int a, b;
    const char *retry = strstr(m, "retrying (");
    if ((retry && sscanf(retry, "retrying (%d/%d)", &a, &b) == 2 && a >= b && b > 0) || p->level == GD_NCCL_LINE_WARN)
        c->retries_exhausted = true;
}

static gd_nccl_net net_kind(const char *name)
{
    if (strncmp(name, "IB", 2) == 0)
        return GD_NCCL_NET_IB;
    if (strcmp(name, "Socket") == 0)
        return GD_NCCL_NET_SOCKET;
    return name[0] ? GD_NCCL_NET_OTHER : GD_NCCL_NET_UNKNOWN;
}

static void read_message(reader *r, gd_nccl_proc *x, const gd_nccl_prefix *p)
{
    const char *m = p->msg;
    const char *s;
    if (strncmp(m, "NCCL version ", 13) == 0) {
        copy_n(x->version, sizeof x->version, m + 13, strcspn(m + 13, " "));
    } else if (strncmp(m, "Bootstrap", 9) == 0 && (s = strstr(m, "Using ")) != NULL) {
        iface_addr(s + 6, x->bootstrap_iface, sizeof x->bootstrap_iface, x->bootstrap_addr, sizeof x->bootstrap_addr);
    } else if (strncmp(m, "NET/IB", 6) == 0 && (s = strstr(m, ": Using ")) != NULL) {
        list_names(s + 8, x->ib_devs, sizeof x->ib_devs, true, &x->ib_roce);
        const char *oob = strstr(s, "OOB ");
        if (oob) {
            char addr[64];
            iface_addr(oob + 4, x->oob_iface, sizeof x->oob_iface, addr, sizeof addr);
        }
        if (!x->ib_devs[0])
            add_missing(r, p);
    } else if (strncmp(m, "NET/Socket", 10) == 0 && (s = strstr(m, ": Using ")) != NULL) {
        list_names(s + 8, x->socket_ifaces, sizeof x->socket_ifaces, false, NULL);
    } else if (strncmp(m, "Using network ", 14) == 0) {
        copy_trim(x->net_name, sizeof x->net_name, m + 14);
        x->net = net_kind(x->net_name);
    } else if ((s = strstr(m, "Loaded net plugin ")) != NULL) {
        copy_trim(x->plugin, sizeof x->plugin, s + 18);
    } else if (strncmp(m, "P2P plugin ", 11) == 0 && !x->plugin[0]) {
        copy_trim(x->plugin, sizeof x->plugin, m);
    } else if (strncmp(m, "Channel ", 8) == 0) {
        read_channel(x, m);
    } else if ((s = strstr(m, "comm 0x")) != NULL && (s = strstr(s, " rank ")) != NULL) {
        int rank, nranks;
        if (sscanf(s, " rank %d nranks %d", &rank, &nranks) == 2 ||
            sscanf(s, " rank %d nRanks %d", &rank, &nranks) == 2) {
            x->rank = rank;
            x->nranks = nranks;
        }
        const char *b = strstr(s, "busId ");
        if (b)
            copy_n(x->busid, sizeof x->busid, b + 6, strcspn(b + 6, " "));
    } else if (read_env(r, p) || read_gdr(r, x, p)) {
        /* read */
    }
    if (is_ib_missing(m)) {
        add_missing(r, p);
        if (!x->ib_missing[0])
            copy_trim(x->ib_missing, sizeof x->ib_missing, m);
    }
    read_connect(r, x, p);
}

static void read_line(reader *r, char *line)
{
    r->log->lines++;
    gd_nccl_prefix p;
    if (!gd_nccl_line_split(line, &p))
        return;
    r->log->nccl_lines++;
    gd_nccl_proc *x = p.level == GD_NCCL_LINE_VERSION && r->last ? r->last : proc_of(r, &p);
    if (!x)
        return;
    if (p.level != GD_NCCL_LINE_VERSION || x != r->last)
        r->last = x;
    if (p.level == GD_NCCL_LINE_WARN) {
        r->log->warns_total++;
        if (r->log->warn_count < GD_NCCL_MAX_LINES)
            keep_line(r, &p, &r->log->warns[r->log->warn_count++]);
    }
    read_message(r, x, &p);
}

int gd_nccl_log_add(struct gd_nccl_log *log, const char *name, const char *text, size_t len, char *err, size_t errlen)
{
    if (memchr(text, '\0', len)) {
        snprintf(err, errlen, "%s: binary data inside an NCCL log", name);
        return -1;
    }
    reader r = {.log = log, .file = log->files, .line = 0, .last = NULL};
    size_t used = strlen(log->source);
    const char *slash = strrchr(name, '/');
    snprintf(log->source + used, sizeof log->source - used, "%snccl_log:%s", used ? ", " : "",
             slash ? slash + 1 : name);
    char buf[4096];
    for (size_t i = 0; i < len;) {
        const char *nl = memchr(text + i, '\n', len - i);
        size_t n = nl ? (size_t)(nl - (text + i)) : len - i;
        r.line++;
        /* A line past 4 KiB is no NCCL message: its start is read. */
        size_t k = n < sizeof buf - 1 ? n : sizeof buf - 1;
        memcpy(buf, text + i, k);
        while (k && (buf[k - 1] == '\r' || buf[k - 1] == ' '))
            k--;
        buf[k] = '\0';
        for (size_t j = 0; j < k; j++)
            if (buf[j] == '\t')
                buf[j] = ' ';
        read_line(&r, buf);
        i += n + (nl ? 1 : 0);
    }
    log->files++;
    return 0;
}
