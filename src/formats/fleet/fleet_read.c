/* SPDX-License-Identifier: Apache-2.0 */
/* One node's check report into the fleet's model (fleet_read.h). Reports of
 * schema_version 0 (none) and 1 are read; keys a version lacks are unknown. */
#include "fleet_read.h"
#include "core/input.h"
#include "gpudoctor/schema.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double num(const json_t *o, const char *key)
{
    const json_t *v = json_object_get(o, key);
    return json_is_number(v) ? json_number_value(v) : NAN;
}

static void text(char *dst, size_t len, const json_t *v, const char *fallback)
{
    snprintf(dst, len, "%s", json_is_string(v) ? json_string_value(v) : fallback);
}

/* The file's name without its folder and ".json": a node's name where the report has no hostname
 * (srun -o %N.json names each report after its node). */
static void name_from_file(const char *path, char *dst, size_t len)
{
    const char *b = strrchr(path, '/');
    b = b ? b + 1 : path;
    size_t n = strlen(b);
    if (n > 5 && strcmp(b + n - 5, ".json") == 0)
        n -= 5;
    snprintf(dst, len, "%.*s", (int)n, b);
}

static int read_gpus(const json_t *gpus, gd_fleet_node *node)
{
    size_t n = json_array_size(gpus);
    node->gpus = calloc(n + 1, sizeof *node->gpus);
    if (!node->gpus)
        return -1;
    for (size_t i = 0; i < n; i++) {
        const json_t *g = json_array_get(gpus, i);
        if (!json_is_object(g) || json_is_true(json_object_get(g, "lost")))
            continue; /* a lost GPU has no figures; its report's health.gpu_lost says so */
        gd_fleet_gpu *x = &node->gpus[node->ngpus++];
        const json_t *idx = json_object_get(g, "index");
        x->index = json_is_integer(idx) ? (int)json_integer_value(idx) : (int)i;
        text(x->model, sizeof x->model, json_object_get(g, "name"), "unknown model");
        text(x->uuid, sizeof x->uuid, json_object_get(g, "uuid"), "");
        const json_t *w = json_object_get(g, "window");
        const json_t *med = json_object_get(w, "loaded_median");
        x->loaded_pct = num(w, "loaded_pct");
        x->sm_clock_mhz = num(med, "sm_clock_mhz");
        x->temp_c = num(med, "temp_c");
        x->power_w = num(med, "power_w");
    }
    return 0;
}

static int read_findings(const json_t *fs, gd_fleet_node *node)
{
    size_t n = json_array_size(fs);
    node->findings = calloc(n + 1, sizeof *node->findings);
    if (!node->findings)
        return -1;
    for (size_t i = 0; i < n; i++) {
        const json_t *f = json_array_get(fs, i);
        const json_t *id = json_object_get(f, "id"), *sev = json_object_get(f, "severity");
        gd_severity s;
        if (!json_is_string(id) || !json_is_string(sev) || gd_severity_parse(json_string_value(sev), &s) != 0 ||
            s == GD_SEV_INFO || json_is_true(json_object_get(f, "ignored")))
            continue;
        gd_fleet_finding *x = &node->findings[node->nfindings++];
        snprintf(x->id, sizeof x->id, "%s", json_string_value(id));
        x->severity = s;
        const json_t *gpu = json_object_get(f, "gpu");
        x->gpu = json_is_integer(gpu) ? (int)json_integer_value(gpu) : GD_NO_GPU;
    }
    return 0;
}

int gd_fleet_read_report(const char *path, gd_fleet_node *node, char *err, size_t errlen)
{
    memset(node, 0, sizeof *node);
    size_t len = 0;
    char ierr[512];
    char *buf = gd_input_read(path, GD_INPUT_FILE, GD_FLEET_REPORT_MAX, &len, ierr, sizeof ierr);
    if (!buf) {
        snprintf(err, errlen, "%s", ierr);
        return -1;
    }
    int rc = gd_fleet_parse_report(buf, len, path, node, err, errlen);
    free(buf);
    return rc;
}

int gd_fleet_parse_report(const char *buf, size_t len, const char *path, gd_fleet_node *node, char *err, size_t errlen)
{
    memset(node, 0, sizeof *node);
    json_error_t je;
    json_t *root = json_loadb(buf, len, 0, &je);
    if (!root) {
        snprintf(err, errlen, "%s: not JSON (line %d: %s)", path, je.line, je.text);
        return -1;
    }
    const json_t *tool = json_object_get(root, "tool"), *gpus = json_object_get(root, "gpus");
    const json_t *sv = json_object_get(root, "schema_version");
    int rc = -1;
    if (!json_is_object(root) || !json_is_string(json_object_get(tool, "name")) ||
        strcmp(json_string_value(json_object_get(tool, "name")), "gpudoctor") != 0 || !json_is_array(gpus) ||
        !json_is_array(json_object_get(root, "findings")))
        snprintf(err, errlen, "%s: not a 'gpudoctor check --json' report (no tool, gpus and findings)", path);
    else if (sv && (!json_is_integer(sv) || json_integer_value(sv) > GD_JSON_SCHEMA_VERSION))
        snprintf(err, errlen, "%s: schema_version %s is newer than this build reads (%d): use a newer gpudoctor", path,
                 json_is_integer(sv) ? "above" : "not a number,", GD_JSON_SCHEMA_VERSION);
    else if (read_gpus(gpus, node) != 0 || read_findings(json_object_get(root, "findings"), node) != 0)
        snprintf(err, errlen, "out of memory");
    else
        rc = 0;
    if (rc == 0) {
        const json_t *host = json_object_get(json_object_get(root, "host"), "hostname");
        if (json_is_string(host) && json_string_length(host) > 0)
            text(node->name, sizeof node->name, host, "");
        else
            name_from_file(path, node->name, sizeof node->name);
        snprintf(node->file, sizeof node->file, "%s", path);
    }
    json_decref(root);
    if (rc != 0) {
        free(node->gpus);
        free(node->findings);
        memset(node, 0, sizeof *node);
    }
    return rc;
}

/* A rank's own network findings the fleet keeps, at most (a report's are 6). */
#define RUN_NOTES_MAX 32

/* The node named host among out (n of them), or -1. */
static long node_named(const gd_fleet_node *out, size_t n, const char *host)
{
    for (size_t i = 0; host && i < n; i++)
        if (strcmp(out[i].name, host) == 0)
            return (long)i;
    return -1;
}

/* Adds finding id at sev to node (once). */
static void add_finding(gd_fleet_node *node, size_t cap, const char *id, gd_severity sev)
{
    for (size_t i = 0; i < node->nfindings; i++)
        if (strcmp(node->findings[i].id, id) == 0)
            return;
    if (node->nfindings == cap)
        return;
    gd_fleet_finding *x = &node->findings[node->nfindings++];
    snprintf(x->id, sizeof x->id, "%s", id);
    x->severity = sev;
    x->gpu = GD_NO_GPU;
}

/* A finding's severity when the fleet counts it (warning, critical, not ignored). */
static bool counted(const json_t *f, gd_severity *s)
{
    const json_t *id = json_object_get(f, "id"), *sev = json_object_get(f, "severity");
    return json_is_string(id) && json_is_string(sev) && gd_severity_parse(json_string_value(sev), s) == 0 &&
           *s != GD_SEV_INFO && !json_is_true(json_object_get(f, "ignored"));
}

/* The hosts a run's finding names: into hosts (up to cap), their count. */
static size_t hosts_named(const json_t *f, const json_t *ranks, const char **hosts, size_t cap)
{
    const char *id = json_string_value(json_object_get(f, "id"));
    const json_t *ev = json_object_get(f, "evidence"), *list = NULL, *x;
    size_t n = 0, i;
    if (strcmp(id, "bench.nccl_nodes_low") == 0)
        list = json_object_get(ev, "blamed_nodes");
    else if (strcmp(id, "bench.nccl_nodes_failed") == 0)
        list = json_object_get(ev, "ranks");
    else if (strcmp(id, "bench.nccl_node_missing") == 0)
        list = json_object_get(ev, "no_report");
    json_array_foreach(list, i, x) if (n < cap && json_is_string(json_object_get(x, "host"))) hosts[n++] =
        json_string_value(json_object_get(x, "host"));
    const json_t *link = json_object_get(ev, "slow_link");
    json_array_foreach(link, i, x)
    {
        const json_t *r = json_is_integer(x) ? json_array_get(ranks, (size_t)json_integer_value(x)) : NULL;
        if (n < cap && json_is_string(json_object_get(r, "host")))
            hosts[n++] = json_string_value(json_object_get(r, "host"));
    }
    return n;
}

int gd_fleet_parse_run(const char *buf, size_t len, const char *path, gd_fleet_node **out, size_t *count, char *err,
                       size_t errlen)
{
    *out = NULL;
    *count = 0;
    /* A check report is never one: a look for the key first, so that the fleet's reports are parsed once. */
    if (!memmem(buf, len, "\"nodes\"", 7) || !memmem(buf, len, "\"bench\"", 7))
        return 1;
    json_error_t je;
    json_t *root = json_loadb(buf, len, 0, &je);
    const json_t *bench = json_object_get(root, "bench"), *run = json_object_get(root, "nodes");
    const json_t *ranks = json_object_get(run, "ranks"), *fs = json_object_get(root, "findings");
    if (!json_is_string(bench) || strcmp(json_string_value(bench), "nccl") != 0 || !json_is_array(ranks) ||
        !json_is_array(fs)) {
        json_decref(root);
        return 1;
    }
    size_t nr = json_array_size(ranks), cap = json_array_size(fs) + RUN_NOTES_MAX, i; /* each node's findings */
    gd_fleet_node *nodes = calloc(nr + 1, sizeof *nodes);
    int rc = nodes ? 0 : -1;
    const json_t *r, *f;
    json_array_foreach(ranks, i, r)
    {
        const json_t *host = json_object_get(r, "host"), *notes = json_object_get(r, "network_findings");
        if (rc || !json_is_string(host) || json_string_length(host) == 0 ||
            node_named(nodes, *count, json_string_value(host)) >= 0)
            continue;
        gd_fleet_node *node = &nodes[(*count)++];
        text(node->name, sizeof node->name, host, "");
        snprintf(node->file, sizeof node->file, "%s", path);
        if (!(node->findings = calloc(cap, sizeof *node->findings))) {
            rc = -1;
            break;
        }
        size_t k;
        const json_t *x;
        gd_severity s;
        json_array_foreach(notes, k, x) if (counted(x, &s))
            add_finding(node, cap, json_string_value(json_object_get(x, "id")), s);
    }
    /* The run's findings on the nodes they name, else on rank 0's. */
    json_array_foreach(fs, i, f)
    {
        gd_severity s;
        if (rc || *count == 0 || !counted(f, &s))
            continue;
        const char *hosts[16];
        size_t nh = hosts_named(f, ranks, hosts, 16), placed = 0;
        for (size_t h = 0; h < nh; h++) {
            long at = node_named(nodes, *count, hosts[h]);
            if (at >= 0) {
                add_finding(&nodes[at], cap, json_string_value(json_object_get(f, "id")), s);
                placed++;
            }
        }
        if (!placed)
            add_finding(&nodes[0], cap, json_string_value(json_object_get(f, "id")), s);
    }
    json_decref(root);
    if (rc == 0 && *count == 0) {
        snprintf(err, errlen, "%s: a 'bench nccl --nodes' report in which no rank reported: no node to read", path);
        rc = -1;
    } else if (rc) {
        snprintf(err, errlen, "out of memory");
    }
    if (rc) {
        for (size_t k = 0; nodes && k < *count; k++)
            free(nodes[k].findings);
        free(nodes);
        *count = 0;
        return -1;
    }
    *out = nodes;
    return 0;
}
