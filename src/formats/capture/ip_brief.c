/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ip -br a (also -br -c a, with colours; -br l) -> f->net->ifaces: one
 * interface a line, "NAME STATE ADDR/PREFIX ...": its name ("eth0@if12"
 * is eth0), whether it is up, its first IPv4 address, and what its name
 * says it is: lo, a bridge (docker0, virbr0, cni0, br-...), a device with
 * nothing behind it (veth, tun, flannel ...). IPv6 addresses and -br l's
 * MAC and flags are not read.
 */
#include "import.h"
#include "net_capture.h"
#include "net_readers.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The operstates `ip` prints (IF_OPER_*). */
static int oper_up(const char *s)
{
    static const struct {
        const char *word;
        int up;
    } states[] = {{"UP", 1},         {"DOWN", 0},    {"LOWERLAYERDOWN", 0}, {"DORMANT", 0},
                  {"NOTPRESENT", 0}, {"TESTING", 0}, {"UNKNOWN", -1}};
    for (size_t i = 0; i < sizeof states / sizeof states[0]; i++)
        if (strcmp(s, states[i].word) == 0)
            return states[i].up;
    return -2;
}

static bool prefixed(const char *name, const char *const *list, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (strncmp(name, list[i], strlen(list[i])) == 0)
            return true;
    return false;
}

bool gd_ip_brief_line(const char *line, gd_net_iface *out)
{
    char buf[512], *save = NULL;
    snprintf(buf, sizeof buf, "%s", line);
    char *name = strtok_r(buf, " ", &save), *state = name ? strtok_r(NULL, " ", &save) : NULL;
    if (!name || !state || strlen(name) > 40 || strchr(name, ':') || oper_up(state) == -2)
        return false;
    memset(out, 0, sizeof *out);
    char *at = strchr(name, '@');
    if (at)
        *at = '\0';
    if (!name[0])
        return false;
    snprintf(out->name, sizeof out->name, "%s", name);
    out->up = oper_up(state);
    for (char *t = strtok_r(NULL, " ", &save); t; t = strtok_r(NULL, " ", &save)) {
        unsigned a, b, c, d;
        int used = 0;
        if (sscanf(t, "%u.%u.%u.%u%n", &a, &b, &c, &d, &used) == 4 && (t[used] == '/' || t[used] == '\0') && a < 256 &&
            b < 256 && c < 256 && d < 256) {
            snprintf(out->ipv4, sizeof out->ipv4, "%u.%u.%u.%u", a, b, c, d);
            break;
        }
        if (!strchr(t, '/') && !strchr(t, ':') && t[0] != '<')
            return false; /* neither an address nor -br l's MAC or flags: not ip's line */
    }
    static const char *const bridges[] = {"docker", "virbr", "cni", "br-", "br0", "lxcbr", "lxdbr"};
    static const char *const virtual_devs[] = {"veth",  "tun",   "tap",       "flannel",   "cali",        "vxlan",
                                               "weave", "dummy", "kube-ipvs", "tailscale", "wg",          "cilium",
                                               "genev", "gre",   "sit",       "ip6tnl",    "nodelocaldns"};
    out->loopback = strcmp(out->name, "lo") == 0;
    out->bridge = prefixed(out->name, bridges, sizeof bridges / sizeof bridges[0]);
    out->virtual_dev = out->loopback || out->bridge || at ||
                       prefixed(out->name, virtual_devs, sizeof virtual_devs / sizeof virtual_devs[0]);
    if (out->loopback && out->up < 0)
        out->up = 1; /* lo's operstate is "unknown": it has no carrier to tell */
    return true;
}

int gd_import_ip_brief(const char *name, const char *text, size_t len, gd_facts *f, char *err, size_t errlen)
{
    gd_net_read r;
    if (!gd_net_read_start(&r, name, text, len, f, err, errlen))
        return -1;
    gd_net_facts *n = r.n;
    while (gd_net_read_line(&r)) {
        gd_net_iface x;
        if (!gd_ip_brief_line(r.s, &x))
            continue;
        r.rows++;
        size_t i = 0;
        while (i < n->iface_count && strcmp(n->ifaces[i].name, x.name) != 0)
            i++;
        if (i == GD_NET_MAX_IFACES) {
            r.dropped++;
            continue;
        }
        n->ifaces[i] = x;
        n->iface_count += i == n->iface_count;
    }
    n->ifaces_read |= r.rows > 0;
    return gd_net_read_end(&r, name, f, "\"NAME STATE ADDRESS/PREFIX\"", "ip -br a", "interfaces", n->source,
                           sizeof n->source, err, errlen);
}
