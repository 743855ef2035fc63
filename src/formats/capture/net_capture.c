/* SPDX-License-Identifier: Apache-2.0 */
/* The shared part of the RDMA capture readers (net_capture.h). */
#include "net_capture.h"
#include "import.h"

#include <ctype.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

gd_net_facts *gd_net_capture_facts(gd_facts *f)
{
    if (!f->net) {
        f->net = calloc(1, sizeof *f->net);
        if (f->net)
            f->net->peermem = GD_PEERMEM_UNKNOWN;
    }
    return f->net;
}

gd_net_dev *gd_net_capture_dev(gd_net_facts *n, const char *name)
{
    if (!name[0])
        return NULL;
    for (size_t i = 0; i < n->dev_count; i++)
        if (strcmp(n->devs[i].name, name) == 0)
            return &n->devs[i];
    if (n->dev_count == GD_NET_MAX_DEVS)
        return NULL;
    gd_net_dev *d = &n->devs[n->dev_count++];
    memset(d, 0, sizeof *d);
    snprintf(d->name, sizeof d->name, "%s", name);
    d->numa_node = -1;
    return d;
}

gd_net_port *gd_net_capture_port(gd_net_dev *d, int port)
{
    if (port < 1 || port > 255)
        return NULL;
    for (size_t i = 0; i < d->port_count; i++)
        if (d->ports[i].port == port)
            return &d->ports[i];
    if (d->port_count == GD_NET_MAX_PORTS)
        return NULL;
    gd_net_port *p = &d->ports[d->port_count++];
    memset(p, 0, sizeof *p); /* every gd_value GD_ST_UNREAD, states UNKNOWN */
    p->port = port;
    p->netdev_up = -1;
    return p;
}

void gd_net_capture_source(char *dst, size_t cap, const char *kind, const char *name)
{
    char item[200];
    snprintf(item, sizeof item, "%s:%s", kind, name);
    for (const char *at = dst; (at = strstr(at, item)) != NULL; at++)
        if ((at == dst || at[-1] == ' ') && (at[strlen(item)] == '\0' || at[strlen(item)] == ','))
            return;
    size_t used = strlen(dst);
    snprintf(dst + used, cap - used, "%s%s", used ? ", " : "", item);
}

/* s in lower case with everything but letters and digits left out. */
static void squeeze(const char *s, char *out, size_t cap)
{
    size_t k = 0;
    for (; *s && k + 1 < cap; s++)
        if (isalnum((unsigned char)*s))
            out[k++] = (char)tolower((unsigned char)*s);
    out[k] = '\0';
}

/* The number a tool puts beside a state: "4: ACTIVE" or "PORT_ACTIVE (4)"; -1 none. */
static int state_number(const char *s)
{
    s = gd_net_skip_blanks(s);
    if (isdigit((unsigned char)s[0]) && s[1] == ':')
        return s[0] - '0';
    const char *open = strrchr(s, '(');
    if (open && isdigit((unsigned char)open[1]) && open[2] == ')')
        return open[1] - '0';
    return -1;
}

gd_port_state gd_net_parse_state(const char *s)
{
    int n = state_number(s);
    if (n >= 1 && n <= 5)
        return (gd_port_state)n;
    char w[64];
    squeeze(s, w, sizeof w);
    const char *p = strncmp(w, "port", 4) == 0 ? w + 4 : w;
    if (strcmp(p, "activedefer") == 0)
        return GD_PORT_ACTIVE_DEFER;
    if (strcmp(p, "active") == 0)
        return GD_PORT_ACTIVE;
    if (strcmp(p, "armed") == 0)
        return GD_PORT_ARMED;
    if (strcmp(p, "init") == 0 || strcmp(p, "initializing") == 0 || strcmp(p, "initialize") == 0)
        return GD_PORT_INIT;
    if (strcmp(p, "down") == 0)
        return GD_PORT_DOWN;
    return GD_PORT_STATE_UNKNOWN;
}

gd_port_phys gd_net_parse_phys(const char *s)
{
    int n = state_number(s);
    if (n >= 1 && n <= 7)
        return (gd_port_phys)n;
    static const struct {
        const char *word;
        gd_port_phys phys;
    } names[] = {
        {"sleep", GD_PORT_PHYS_SLEEP},       {"polling", GD_PORT_PHYS_POLLING},
        {"disabled", GD_PORT_PHYS_DISABLED}, {"portconfigurationtraining", GD_PORT_PHYS_TRAINING},
        {"linkup", GD_PORT_PHYS_LINKUP},     {"linkerrorrecovery", GD_PORT_PHYS_ERROR_RECOVERY},
        {"phytest", GD_PORT_PHYS_TEST},
    };
    char w[64];
    squeeze(s, w, sizeof w);
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcmp(w, names[i].word) == 0)
            return names[i].phys;
    return GD_PORT_PHYS_UNKNOWN;
}

gd_link_layer gd_net_parse_link_layer(const char *s)
{
    char w[64];
    squeeze(s, w, sizeof w);
    if (strcmp(w, "infiniband") == 0)
        return GD_LINK_INFINIBAND;
    if (strcmp(w, "ethernet") == 0)
        return GD_LINK_ETHERNET;
    return GD_LINK_UNKNOWN;
}

bool gd_net_parse_rate(gd_net_port *p, const char *s)
{
    s = gd_net_skip_blanks(s);
    char *end;
    double v = strtod(s, &end);
    if (end == s || !(v >= 0 && v < 1e6))
        return false;
    p->rate_gbps = gd_val(v);
    snprintf(p->rate_text, sizeof p->rate_text, "%s", s);
    return true;
}

bool gd_net_capture_gid(gd_net_port *p, const gd_net_gid *g)
{
    size_t at = 0;
    while (at < p->gid_count && p->gids[at].index < g->index)
        at++;
    if (at < p->gid_count && p->gids[at].index == g->index) {
        p->gids[at] = *g;
        return true;
    }
    if (p->gid_count == GD_NET_MAX_GIDS) {
        if (at == GD_NET_MAX_GIDS)
            return false;
        p->gid_count--; /* the highest index goes: the table keeps the lowest */
    }
    memmove(&p->gids[at + 1], &p->gids[at], (p->gid_count - at) * sizeof p->gids[0]);
    p->gids[at] = *g;
    p->gid_count++;
    return true;
}

bool gd_net_next_line(gd_net_lines *it, char *buf, size_t cap)
{
    if (it->p >= it->end)
        return false;
    const char *nl = memchr(it->p, '\n', (size_t)(it->end - it->p));
    size_t n = nl ? (size_t)(nl - it->p) : (size_t)(it->end - it->p);
    size_t k = 0;
    for (size_t i = 0; i < n && k + 1 < cap; i++) {
        char c = it->p[i];
        if (c == '\033') { /* a colour (ip -c): ESC [ ... letter */
            while (i + 1 < n && !isalpha((unsigned char)it->p[i + 1]))
                i++;
            i++;
            continue;
        }
        buf[k++] = c == '\t' || c == '\r' || c == '\0' ? ' ' : c;
    }
    while (k && buf[k - 1] == ' ')
        k--;
    buf[k] = '\0';
    it->p += n + (nl ? 1 : 0);
    it->number++;
    return true;
}

const char *gd_net_skip_blanks(const char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    return s;
}

bool gd_net_starts(const char *s, const char *word)
{
    size_t n = strlen(word);
    return strncasecmp(s, word, n) == 0 && (s[n] == '\0' || s[n] == ' ' || s[n] == ':');
}

bool gd_net_parse_acsctl(const char *s, gd_net_acs *a)
{
    static const struct {
        const char *name;
        size_t off;
    } bits[] = {
        {"SrcValid", offsetof(gd_net_acs, src_valid)},       {"TransBlk", offsetof(gd_net_acs, trans_blk)},
        {"ReqRedir", offsetof(gd_net_acs, req_redir)},       {"CmpltRedir", offsetof(gd_net_acs, cmplt_redir)},
        {"UpstreamFwd", offsetof(gd_net_acs, upstream_fwd)}, {"EgressCtrl", offsetof(gd_net_acs, egress_ctrl)},
        {"DirectTrans", offsetof(gd_net_acs, direct_trans)},
    };
    s = gd_net_skip_blanks(s);
    if (strncmp(s, "ACSCtl:", 7) != 0)
        return false;
    size_t found = 0;
    for (size_t i = 0; i < sizeof bits / sizeof bits[0]; i++) {
        const char *at = strstr(s + 7, bits[i].name);
        if (!at)
            continue;
        char sign = at[strlen(bits[i].name)];
        if (sign != '+' && sign != '-')
            continue;
        *(bool *)((char *)a + bits[i].off) = sign == '+';
        found++;
    }
    return found > 0;
}

/* name's place in f->capture_files, added when new: the devices cite it. */
static uint8_t file_index(gd_facts *f, const char *name)
{
    for (size_t i = 0; i < f->capture_file_count && i < GD_CAPTURE_FILES; i++)
        if (strcmp(f->capture_files[i], name) == 0)
            return (uint8_t)i;
    if (f->capture_file_count >= GD_CAPTURE_FILES - 1)
        return GD_CAPTURE_NO_FILE;
    size_t k = f->capture_file_count++;
    snprintf(f->capture_files[k], sizeof f->capture_files[k], "%s", name);
    return (uint8_t)k;
}

gd_net_dev *gd_net_read_dev(gd_net_read *r, const char *name)
{
    size_t before = r->n->dev_count;
    gd_net_dev *d = gd_net_capture_dev(r->n, name);
    if (d && r->n->dev_count > before)
        d->file = r->file;
    return d;
}

bool gd_net_read_start(gd_net_read *r, const char *name, const char *text, size_t len, gd_facts *f, char *err,
                       size_t errlen)
{
    memset(r, 0, sizeof *r);
    r->file = file_index(f, name);
    r->n = gd_net_capture_facts(f);
    r->it = (gd_net_lines){text, text + len, 0};
    if (!r->n)
        snprintf(err, errlen, "%s: out of memory", name);
    return r->n != NULL;
}

bool gd_net_read_line(gd_net_read *r)
{
    if (!gd_net_next_line(&r->it, r->line, sizeof r->line))
        return false;
    r->s = gd_net_skip_blanks(r->line);
    return true;
}

int gd_net_read_end(const gd_net_read *r, const char *name, gd_facts *f, const char *want, const char *tool,
                    const char *what, char *src, size_t cap, char *err, size_t errlen)
{
    if (r->rows == 0) {
        snprintf(err, errlen, "%s: no %s line: not %s output", name, want, tool);
        return -1;
    }
    if (r->dropped)
        gd_import_note(f,
                       "%s: %zu %s not read: past the tables' %d devices, %d ports a device, %d GIDs a port, %d "
                       "interfaces or %d ACS rows",
                       gd_import_base(name), r->dropped, what, GD_NET_MAX_DEVS, GD_NET_MAX_PORTS, GD_NET_MAX_GIDS,
                       GD_NET_MAX_IFACES, GD_NET_MAX_ACS);
    gd_net_capture_source(src, cap, tool, gd_import_base(name));
    return 0;
}

const char *gd_net_value_of(const char *s, const char *key)
{
    size_t n = strlen(key);
    return strncmp(s, key, n) == 0 && s[n] == ':' ? gd_net_skip_blanks(s + n + 1) : NULL;
}
