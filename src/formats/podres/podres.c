/* SPDX-License-Identifier: Apache-2.0 */
/* The pod-resources answer's decoder (podres.h). */
#include "podres.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The field numbers of kubelet's podresources/v1/api.proto that are read. */
enum {
    LIST_POD_RESOURCES = 1, /* ListPodResourcesResponse.pod_resources */
    POD_NAME = 1,
    POD_NAMESPACE = 2,
    POD_CONTAINERS = 3,
    CONTAINER_NAME = 1,
    CONTAINER_DEVICES = 2,
    DEVICES_RESOURCE_NAME = 1,
    DEVICES_DEVICE_IDS = 2,
};

enum { WT_VARINT = 0, WT_I64 = 1, WT_LEN = 2, WT_I32 = 5 };

/* A protobuf message being read: [p, end). */
typedef struct pb {
    const uint8_t *p, *end;
} pb;

/* A string field's bytes, not NUL-terminated. */
typedef struct pb_str {
    const uint8_t *s;
    size_t n;
} pb_str;

static int varint(pb *r, uint64_t *v)
{
    *v = 0;
    for (unsigned shift = 0; shift < 64; shift += 7) {
        if (r->p >= r->end)
            return -1;
        uint8_t b = *r->p++;
        *v |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80))
            return 0;
    }
    return -1; /* more than 10 bytes */
}

/* The next field of r: 1 with its number and, for a length-delimited one,
 * its bytes; 0 at the end; -1 when malformed. Other wire types are skipped
 * over (their value is not needed). */
static int next_field(pb *r, uint32_t *field, int *wt, pb_str *val)
{
    if (r->p == r->end)
        return 0;
    uint64_t key, v;
    if (varint(r, &key) != 0 || (key >> 3) == 0 || (key >> 3) > UINT32_MAX)
        return -1;
    *field = (uint32_t)(key >> 3);
    *wt = (int)(key & 7);
    *val = (pb_str){NULL, 0};
    size_t left;
    switch (*wt) {
    case WT_VARINT: return varint(r, &v) == 0 ? 1 : -1;
    case WT_I64: left = 8; break;
    case WT_I32: left = 4; break;
    case WT_LEN:
        if (varint(r, &v) != 0 || v > (uint64_t)(r->end - r->p))
            return -1;
        *val = (pb_str){r->p, (size_t)v};
        left = (size_t)v;
        break;
    default: return -1; /* groups (3, 4) are not in proto3; 6 and 7 do not exist */
    }
    if (left > (size_t)(r->end - r->p))
        return -1;
    r->p += left;
    return 1;
}

/* Copies a string field when it fits and is printable ASCII; else "". */
static void take(char *dst, size_t cap, pb_str s)
{
    dst[0] = '\0';
    if (s.n == 0 || s.n >= cap)
        return;
    for (size_t i = 0; i < s.n; i++)
        if (s.s[i] < 0x20 || s.s[i] > 0x7e)
            return;
    memcpy(dst, s.s, s.n);
    dst[s.n] = '\0';
}

/* The string of field `want` of message m (the last one, as protobuf
 * merges), or "" when absent. -1 when m is malformed. */
static int string_field(pb_str m, uint32_t want, char *dst, size_t cap)
{
    pb r = {m.s, m.s + m.n};
    uint32_t field;
    int wt, rc;
    pb_str val;
    dst[0] = '\0';
    while ((rc = next_field(&r, &field, &wt, &val)) > 0)
        if (field == want && wt == WT_LEN)
            take(dst, cap, val);
    return rc;
}

typedef struct ctx {
    gd_k8s_assigns *out;
    const char *pod, *ns, *container;
} ctx;

static int push(ctx *c, pb_str id)
{
    gd_k8s_assigns *a = c->out;
    if (a->n == GD_K8S_MAX_DEVICES) {
        a->over_cap++; /* the rest of the answer is still read: malformed is malformed */
        return 0;
    }
    if (a->n == a->cap) {
        size_t cap = a->cap ? a->cap * 2 : 16;
        gd_k8s_assign *v = realloc(a->v, cap * sizeof *v);
        if (!v)
            return -1;
        a->v = v;
        a->cap = cap;
    }
    gd_k8s_assign *e = &a->v[a->n];
    take(e->device_id, sizeof e->device_id, id);
    if (!e->device_id[0])
        return 0;
    snprintf(e->pod, sizeof e->pod, "%s", c->pod);
    snprintf(e->namespace_, sizeof e->namespace_, "%s", c->ns);
    snprintf(e->container, sizeof e->container, "%s", c->container);
    a->n++;
    return 0;
}

/* Calls fn on each length-delimited field `want` of m; -1 when m is
 * malformed or fn fails. */
static int each(ctx *c, pb_str m, uint32_t want, int (*fn)(ctx *c, pb_str v))
{
    pb r = {m.s, m.s + m.n};
    uint32_t field;
    int wt, rc;
    pb_str val;
    while ((rc = next_field(&r, &field, &wt, &val)) > 0)
        if (field == want && wt == WT_LEN && fn(c, val) != 0)
            return -1;
    return rc;
}

static int skip(ctx *c, pb_str v)
{
    (void)c;
    (void)v;
    return 0;
}

static bool gpu_resource(const char *name)
{
    return strcmp(name, "nvidia.com/gpu") == 0 || strncmp(name, "nvidia.com/mig-", 15) == 0;
}

/* ContainerDevices: the resource's name first (it may come after the ids). */
static int devices(ctx *c, pb_str m)
{
    char resource[GD_K8S_NAME_MAX];
    if (string_field(m, DEVICES_RESOURCE_NAME, resource, sizeof resource) < 0)
        return -1;
    return each(c, m, DEVICES_DEVICE_IDS, gpu_resource(resource) ? push : skip);
}

static int container(ctx *c, pb_str m)
{
    char name[GD_K8S_NAME_MAX];
    if (string_field(m, CONTAINER_NAME, name, sizeof name) < 0)
        return -1;
    c->container = name;
    int rc = each(c, m, CONTAINER_DEVICES, devices);
    c->container = NULL;
    return rc;
}

static int pod(ctx *c, pb_str m)
{
    char name[GD_K8S_NAME_MAX], ns[GD_K8S_NAME_MAX];
    if (string_field(m, POD_NAME, name, sizeof name) < 0 || string_field(m, POD_NAMESPACE, ns, sizeof ns) < 0)
        return -1;
    c->pod = name;
    c->ns = ns;
    int rc = each(c, m, POD_CONTAINERS, container);
    c->pod = c->ns = NULL;
    return rc;
}

/* Drops the entries with an empty pod, namespace or container: a label
 * without its value would be made up. */
static void drop_incomplete(gd_k8s_assigns *a)
{
    size_t k = 0;
    for (size_t i = 0; i < a->n; i++)
        if (a->v[i].pod[0] && a->v[i].namespace_[0] && a->v[i].container[0])
            a->v[k++] = a->v[i];
    a->n = k;
}

int gd_k8s_podres_decode(const uint8_t *buf, size_t len, gd_k8s_assigns *out)
{
    out->n = 0;
    out->over_cap = 0;
    ctx c = {.out = out};
    if (each(&c, (pb_str){buf, len}, LIST_POD_RESOURCES, pod) < 0) {
        out->n = out->over_cap = 0;
        return -1;
    }
    drop_incomplete(out);
    return 0;
}

int gd_k8s_grpc_unframe(const uint8_t *body, size_t len, const uint8_t **msg, size_t *msglen)
{
    if (!body || len < 5 || body[0] != 0)
        return -1;
    uint32_t n = (uint32_t)body[1] << 24 | (uint32_t)body[2] << 16 | (uint32_t)body[3] << 8 | body[4];
    if ((size_t)n != len - 5)
        return -1;
    *msg = body + 5;
    *msglen = n;
    return 0;
}

/* id is uuid, or uuid and a "::N" replica suffix (the device plugin's
 * time-slicing and MPS sharing name each replica so). */
static bool same_gpu(const char *id, const char *uuid)
{
    size_t n = strlen(uuid);
    return n && strncmp(id, uuid, n) == 0 && (id[n] == '\0' || strncmp(id + n, "::", 2) == 0);
}

const gd_k8s_assign *gd_k8s_assigns_find(const gd_k8s_assigns *a, const char *uuid, int index)
{
    char name[32];
    snprintf(name, sizeof name, "nvidia%d", index);
    for (size_t i = 0; a && i < a->n; i++)
        if ((uuid && same_gpu(a->v[i].device_id, uuid)) || (index >= 0 && strcmp(a->v[i].device_id, name) == 0))
            return &a->v[i];
    return NULL;
}

void gd_k8s_assigns_free(gd_k8s_assigns *a)
{
    free(a->v);
    *a = (gd_k8s_assigns){0};
}
