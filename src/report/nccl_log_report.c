/* SPDX-License-Identifier: Apache-2.0 */
/*
 * "nccl_log" in check --json and run --json: per NCCL process what it chose
 * (version, network, devices, interfaces, GPUDirect, transports), and for
 * the whole log the versions and networks seen, GPUDirect's refusals, the
 * NCCL_* variables, WARN lines, fallback causes and connect errors. Unknown
 * is null, never "".
 */
#include "nccl_log_report.h"
#include "gpudoctor/nccl_log.h"
#include "gpudoctor/net.h"

#include <math.h>
#include <string.h>

static json_t *str_or_null(const char *s)
{
    return s && s[0] ? json_string(s) : json_null();
}

static json_t *int_or_null(long v)
{
    return v >= 0 ? json_integer(v) : json_null();
}

static const char *net_name(gd_nccl_net n)
{
    static const char *const names[] = {[GD_NCCL_NET_UNKNOWN] = NULL,
                                        [GD_NCCL_NET_IB] = "ib",
                                        [GD_NCCL_NET_SOCKET] = "socket",
                                        [GD_NCCL_NET_OTHER] = "other"};
    return names[n];
}

/* A blank-separated list as an array. */
static json_t *words(const char *s)
{
    json_t *a = json_array();
    while (*s) {
        size_t n = strcspn(s, " ");
        if (n)
            json_array_append_new(a, json_stringn(s, n));
        s += n;
        s += strspn(s, " ");
    }
    return a;
}

static json_t *line_json(const gd_nccl_line *l)
{
    return json_pack("{s:o, s:o, s:i, s:I, s:s}", "host", str_or_null(l->host), "pid", int_or_null(l->pid), "file",
                     l->file, "line", (json_int_t)l->line, "text", l->text);
}

static json_t *proc_json(const gd_nccl_proc *x)
{
    json_t *o = json_object();
    json_object_set_new(o, "host", str_or_null(x->host));
    json_object_set_new(o, "pid", int_or_null(x->pid));
    json_object_set_new(o, "device", int_or_null(x->dev));
    json_object_set_new(o, "rank", int_or_null(x->rank));
    json_object_set_new(o, "nranks", int_or_null(x->nranks));
    json_object_set_new(o, "bus_id", str_or_null(x->busid));
    json_object_set_new(o, "version", str_or_null(x->version));
    json_object_set_new(o, "network", str_or_null(net_name(x->net)));
    json_object_set_new(o, "network_name", str_or_null(x->net_name));
    json_object_set_new(o, "ib_devices", words(x->ib_devs));
    json_object_set_new(o, "roce", json_boolean(x->ib_roce));
    json_object_set_new(o, "socket_interfaces", words(x->socket_ifaces));
    json_object_set_new(o, "bootstrap_interface", str_or_null(x->bootstrap_iface));
    json_object_set_new(o, "bootstrap_address", str_or_null(x->bootstrap_addr));
    json_object_set_new(o, "oob_interface", str_or_null(x->oob_iface));
    json_object_set_new(o, "plugin", str_or_null(x->plugin));
    json_object_set_new(o, "ib_missing", str_or_null(x->ib_missing));
    json_object_set_new(o, "channels",
                        json_pack("{s:i, s:i, s:i, s:i, s:i, s:i}", "net_gdrdma", (int)x->ch_net_gdr, "net_host",
                                  (int)x->ch_net_host, "socket", (int)x->ch_socket, "p2p", (int)x->ch_p2p, "shm",
                                  (int)x->ch_shm, "collnet", (int)x->ch_collnet));
    json_object_set_new(o, "gdr_enabled_lines", json_integer(x->gdr_enabled));
    json_object_set_new(o, "gdr_disabled_lines", json_integer(x->gdr_disabled));
    json_object_set_new(o, "file", json_integer(x->file));
    json_object_set_new(o, "line", json_integer(x->line));
    return o;
}

static json_t *gdr_json(const gd_nccl_gdr_off *g)
{
    static const char *const causes[] = {[GD_NCCL_GDR_NO_CAUSE] = "none given",
                                         [GD_NCCL_GDR_NO_MODULE] = "no module",
                                         [GD_NCCL_GDR_DISTANCE] = "distance"};
    return json_pack("{s:s, s:o, s:o, s:o, s:o, s:o, s:i, s:I}", "cause", causes[g->cause], "host",
                     str_or_null(g->host), "gpu", str_or_null(g->gpu), "hca", str_or_null(g->hca), "distance",
                     int_or_null(g->distance), "limit", int_or_null(g->limit), "file", g->file, "line",
                     (json_int_t)g->line);
}

/* Each distinct value of a process's field, in the order first seen. */
static void add_once(json_t *a, const char *v)
{
    if (!v || !v[0])
        return;
    size_t i;
    json_t *x;
    json_array_foreach(a, i, x) if (strcmp(json_string_value(x), v) == 0) return;
    json_array_append_new(a, json_string(v));
}

json_t *gd_report_nccl_log_json(const gd_facts *f)
{
    const struct gd_nccl_log *log = f->net ? f->net->nccl : NULL;
    if (!log)
        return NULL;
    json_t *o = json_object(), *ranks = json_array(), *versions = json_array(), *nets = json_array();
    unsigned t[6] = {0};
    for (size_t i = 0; i < log->proc_count; i++) {
        const gd_nccl_proc *x = &log->procs[i];
        t[0] += x->ch_net_gdr, t[1] += x->ch_net_host, t[2] += x->ch_socket;
        t[3] += x->ch_p2p, t[4] += x->ch_shm, t[5] += x->ch_collnet;
        json_array_append_new(ranks, proc_json(x));
        add_once(versions, log->procs[i].version);
        add_once(nets, net_name(log->procs[i].net));
    }
    json_object_set_new(o, "source", json_string(log->source));
    json_object_set_new(o, "files", json_integer(log->files));
    json_object_set_new(o, "started_s", isnan(log->started_s) ? json_null() : json_real(log->started_s));
    json_object_set_new(o, "lines", json_integer((json_int_t)log->lines));
    json_object_set_new(o, "nccl_lines", json_integer((json_int_t)log->nccl_lines));
    json_object_set_new(o, "ranks", ranks);
    json_object_set_new(o, "ranks_left_out", json_integer((json_int_t)log->procs_dropped));
    json_object_set_new(o, "versions", versions);
    json_object_set_new(o, "transports",
                        json_pack("{s:i, s:i, s:i, s:i, s:i, s:i}", "net_gdrdma", (int)t[0], "net_host", (int)t[1],
                                  "socket", (int)t[2], "p2p", (int)t[3], "shm", (int)t[4], "collnet", (int)t[5]));
    json_object_set_new(o, "networks", nets);
    json_t *gdr = json_array(), *env = json_array(), *warns = json_array(), *missing = json_array(),
           *conns = json_array();
    for (size_t i = 0; i < log->gdr_off_count; i++)
        json_array_append_new(gdr, gdr_json(&log->gdr_off[i]));
    for (size_t i = 0; i < log->env_count; i++)
        json_array_append_new(env,
                              json_pack("{s:s, s:s, s:o, s:i}", "name", log->env[i].name, "value", log->env[i].value,
                                        "host", str_or_null(log->env[i].host), "processes", (int)log->env[i].hosts));
    for (size_t i = 0; i < log->warn_count; i++)
        json_array_append_new(warns, line_json(&log->warns[i]));
    for (size_t i = 0; i < log->missing_count; i++)
        json_array_append_new(missing, line_json(&log->missing[i]));
    for (size_t i = 0; i < log->connect_count; i++) {
        const gd_nccl_connect *c = &log->connects[i];
        json_t *x = line_json(&c->where);
        json_object_set_new(x, "error", json_string(c->error));
        json_object_set_new(x, "peer", str_or_null(c->peer));
        json_object_set_new(x, "interface", str_or_null(c->iface));
        json_object_set_new(x, "count", json_integer(c->count));
        json_object_set_new(x, "retries_exhausted", json_boolean(c->retries_exhausted));
        json_array_append_new(conns, x);
    }
    json_object_set_new(o, "gdr_disabled", gdr);
    json_object_set_new(o, "gdr_disabled_total", json_integer((json_int_t)log->gdr_off_total));
    json_object_set_new(o, "environment", env);
    json_object_set_new(o, "warnings", warns);
    json_object_set_new(o, "warnings_total", json_integer((json_int_t)log->warns_total));
    json_object_set_new(o, "fallback_causes", missing);
    json_object_set_new(o, "connect_errors", conns);
    return o;
}
