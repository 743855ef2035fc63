/* SPDX-License-Identifier: Apache-2.0 */
/* The kubelet's pod-resources answer (src/formats/podres/podres.c): the
 * protobuf reader on hand-encoded messages (fields in any order, unknown
 * fields of every wire type skipped, malformed input refused), gRPC's frame,
 * and how a GPU finds its pod. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "formats/podres/podres.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* A protobuf message being written. */
typedef struct enc {
    uint8_t b[8192];
    size_t n;
} enc;

static void varint(enc *e, uint64_t v)
{
    do {
        e->b[e->n++] = (uint8_t)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
        v >>= 7;
    } while (v);
}

static void bytes(enc *e, unsigned field, const void *p, size_t n)
{
    varint(e, field << 3 | 2);
    varint(e, n);
    memcpy(e->b + e->n, p, n);
    e->n += n;
}

static void str(enc *e, unsigned field, const char *s)
{
    bytes(e, field, s, strlen(s));
}

static void msg(enc *e, unsigned field, const enc *m)
{
    bytes(e, field, m->b, m->n);
}

/* ContainerDevices{resource_name, device_ids..., topology}, ids NULL-ended. */
static enc devices(const char *resource, const char *const *ids)
{
    enc d = {.n = 0};
    for (size_t i = 0; ids[i]; i++)
        str(&d, 2, ids[i]);
    enc topo = {.n = 0}, node = {.n = 0};
    varint(&node, 1 << 3 | 0);
    varint(&node, 1);
    msg(&topo, 1, &node);
    msg(&d, 3, &topo); /* TopologyInfo: skipped */
    str(&d, 1, resource); /* after the ids: order is free */
    return d;
}

static enc container(const char *name, const enc *devs, size_t n)
{
    enc c = {.n = 0};
    for (size_t i = 0; i < n; i++)
        msg(&c, 2, &devs[i]);
    varint(&c, 3 << 3 | 0); /* cpu_ids, unpacked */
    varint(&c, 7);
    uint8_t packed[] = {4, 5, 6};
    bytes(&c, 3, packed, sizeof packed); /* cpu_ids, packed */
    varint(&c, 9 << 3 | 1); /* a fixed64 of a later API */
    for (int i = 0; i < 8; i++)
        c.b[c.n++] = 0xff;
    varint(&c, 10 << 3 | 5); /* a fixed32 */
    for (int i = 0; i < 4; i++)
        c.b[c.n++] = 0xee;
    str(&c, 1, name);
    return c;
}

static enc pod(const char *name, const char *ns, const enc *ctrs, size_t n)
{
    enc p = {.n = 0};
    str(&p, 1, "renamed"); /* the last one wins, as protobuf merges */
    for (size_t i = 0; i < n; i++)
        msg(&p, 3, &ctrs[i]);
    str(&p, 1, name);
    str(&p, 2, ns);
    return p;
}

/* The answer the e2e test's fake kubelet gives, by hand. */
static enc answer(void)
{
    static const char *const gpus[] = {"GPU-aaaa", "GPU-bbbb", NULL};
    static const char *const nic[] = {"GPU-cccc", NULL};
    static const char *const mig[] = {"MIG-dddd", NULL};
    static const char *const shared[] = {"GPU-eeee::3", NULL};
    enc d1[] = {devices("example.com/nic", nic), devices("nvidia.com/gpu", gpus)};
    enc d2[] = {devices("nvidia.com/mig-1g.10gb", mig)};
    enc d3[] = {devices("nvidia.com/gpu", shared)};
    enc c1[] = {container("pytorch", d1, 2), container("sidecar", d2, 1)};
    enc c2[] = {container("jupyter", d3, 1)};
    enc p1 = pod("trainer-0", "ml", c1, 2), p2 = pod("notebook", "team-a", c2, 1);
    enc r = {.n = 0};
    msg(&r, 1, &p1);
    varint(&r, 7 << 3 | 0); /* an unknown field of the response */
    varint(&r, 1);
    msg(&r, 1, &p2);
    return r;
}

static void decodes_the_gpus_of_each_container(void **state)
{
    (void)state;
    enc r = answer();
    gd_k8s_assigns a = {0};
    assert_int_equal(gd_k8s_podres_decode(r.b, r.n, &a), 0);
    assert_int_equal(a.n, 4); /* the NIC is not a GPU */
    assert_string_equal(a.v[0].device_id, "GPU-aaaa");
    assert_string_equal(a.v[0].pod, "trainer-0");
    assert_string_equal(a.v[0].namespace_, "ml");
    assert_string_equal(a.v[0].container, "pytorch");
    assert_string_equal(a.v[1].device_id, "GPU-bbbb");
    assert_string_equal(a.v[2].device_id, "MIG-dddd");
    assert_string_equal(a.v[2].container, "sidecar");
    assert_string_equal(a.v[3].device_id, "GPU-eeee::3");
    assert_string_equal(a.v[3].pod, "notebook");
    assert_string_equal(a.v[3].namespace_, "team-a");
    /* An empty answer (no pods) is an answer. */
    assert_int_equal(gd_k8s_podres_decode(r.b, 0, &a), 0);
    assert_int_equal(a.n, 0);
    gd_k8s_assigns_free(&a);
}

static void malformed_answers_are_refused(void **state)
{
    (void)state;
    enc r = answer();
    gd_k8s_assigns a = {0};
    /* Every cut inside the message: refused, or (at a field's end) fewer pods. */
    size_t refused = 0;
    for (size_t n = 1; n < r.n; n++) {
        int rc = gd_k8s_podres_decode(r.b, n, &a);
        refused += rc != 0;
        if (rc != 0)
            assert_int_equal(a.n, 0);
    }
    assert_true(refused >= r.n - 3);
    static const uint8_t lying_length[] = {0x0a, 0xff, 0xff, 0xff, 0xff, 0x07, 0x0a, 0x00};
    static const uint8_t group[] = {0x0b, 0x0c};
    static const uint8_t field_zero[] = {0x02, 0x00};
    static const uint8_t long_varint[] = {0x08, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01};
    static const uint8_t short_fixed64[] = {0x09, 0x01, 0x02};
    static const uint8_t nested_lie[] = {0x0a, 0x03, 0x1a, 0x7f, 0x00}; /* a container longer than its pod */
    const struct {
        const uint8_t *b;
        size_t n;
    } bad[] = {{lying_length, sizeof lying_length}, {group, sizeof group},
               {field_zero, sizeof field_zero},     {long_varint, sizeof long_varint},
               {short_fixed64, sizeof short_fixed64}, {nested_lie, sizeof nested_lie}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_int_equal(gd_k8s_podres_decode(bad[i].b, bad[i].n, &a), -1);
    gd_k8s_assigns_free(&a);
}

static void odd_names_drop_their_device(void **state)
{
    (void)state;
    char long_name[300];
    memset(long_name, 'p', sizeof long_name - 1);
    long_name[sizeof long_name - 1] = '\0';
    static const char *const ids[] = {"GPU-1", NULL};
    static const char *const odd_ids[] = {"GPU-\xc3\xa9", "", "GPU-2", NULL};
    enc d[] = {devices("nvidia.com/gpu", ids)};
    enc d2[] = {devices("nvidia.com/gpu", odd_ids)};
    enc c[] = {container("main", d, 1)};
    enc c_noname[] = {container("", d, 1)};
    enc c2[] = {container("main", d2, 1)};
    enc pods[] = {pod(long_name, "ml", c, 1), pod("quo\"te", "ml", c, 1), pod("x", "ns\n", c, 1),
                  pod("ok", "ml", c_noname, 1),
                  pod("fine", "ml", c2, 1)};
    enc r = {.n = 0};
    for (size_t i = 0; i < sizeof pods / sizeof pods[0]; i++)
        msg(&r, 1, &pods[i]);
    gd_k8s_assigns a = {0};
    assert_int_equal(gd_k8s_podres_decode(r.b, r.n, &a), 0);
    /* Too long, a control byte, no container name, a non-ASCII id, an
     * empty id: left out, never cut or made up. A quote is kept (the
     * exposition escapes it). */
    assert_int_equal(a.n, 2);
    assert_string_equal(a.v[0].pod, "quo\"te");
    assert_string_equal(a.v[1].device_id, "GPU-2");
    assert_string_equal(a.v[1].pod, "fine");
    gd_k8s_assigns_free(&a);
}

static void too_many_devices_keep_the_first(void **state)
{
    (void)state;
    size_t n = GD_K8S_MAX_DEVICES + 1;
    uint8_t *ids = malloc(n * 3 + 64);
    assert_non_null(ids);
    size_t o = 0;
    for (size_t i = 0; i < n; i++) { /* device_ids "x" */
        ids[o++] = 0x12;
        ids[o++] = 1;
        ids[o++] = 'x';
    }
    memcpy(ids + o, "\x0a\x0envidia.com/gpu", 16);
    o += 16;
    /* ContainerDevices in ContainerResources{name "c"} in PodResources{"p", "n"} */
    size_t cap = o + 64;
    uint8_t *buf = malloc(cap * 3);
    assert_non_null(buf);
    enc *hdr = calloc(1, sizeof *hdr);
    assert_non_null(hdr);
    /* devices: field 2 of the container */
    size_t k = 0;
    uint8_t *ctr = buf;
    ctr[k++] = 0x0a, ctr[k++] = 1, ctr[k++] = 'c';
    ctr[k++] = 0x12;
    hdr->n = 0;
    varint(hdr, o);
    memcpy(ctr + k, hdr->b, hdr->n), k += hdr->n;
    memcpy(ctr + k, ids, o), k += o;
    uint8_t *p = buf + cap;
    size_t pk = 0;
    p[pk++] = 0x0a, p[pk++] = 1, p[pk++] = 'p', p[pk++] = 0x12, p[pk++] = 1, p[pk++] = 'n', p[pk++] = 0x1a;
    hdr->n = 0;
    varint(hdr, k);
    memcpy(p + pk, hdr->b, hdr->n), pk += hdr->n;
    memcpy(p + pk, ctr, k), pk += k;
    uint8_t *r = buf + 2 * cap;
    size_t rk = 0;
    r[rk++] = 0x0a;
    hdr->n = 0;
    varint(hdr, pk);
    memcpy(r + rk, hdr->b, hdr->n), rk += hdr->n;
    memcpy(r + rk, p, pk), rk += pk;
    gd_k8s_assigns a = {0};
    /* One past the cap: the first GD_K8S_MAX_DEVICES keep their labels,
     * the one past is counted (the whole answer was once refused). */
    assert_int_equal(gd_k8s_podres_decode(r, rk, &a), 0);
    assert_int_equal(a.n, GD_K8S_MAX_DEVICES);
    assert_int_equal(a.over_cap, 1);
    assert_string_equal(a.v[0].pod, "p");
    /* One fewer: an answer. */
    ids[o - 16 - 3] = 0x3a; /* the last id becomes an unknown field 7 */
    memcpy(ctr + k - o, ids, o);
    memcpy(p + pk - k, ctr, k);
    memcpy(r + rk - pk, p, pk);
    assert_int_equal(gd_k8s_podres_decode(r, rk, &a), 0);
    assert_int_equal(a.n, GD_K8S_MAX_DEVICES);
    assert_int_equal(a.over_cap, 0);
    gd_k8s_assigns_free(&a);
    free(hdr);
    free(buf);
    free(ids);
}

static void grpc_frames(void **state)
{
    (void)state;
    const uint8_t ok[] = {0, 0, 0, 0, 2, 0x0a, 0x00};
    const uint8_t *m;
    size_t n;
    assert_int_equal(gd_k8s_grpc_unframe(ok, sizeof ok, &m, &n), 0);
    assert_ptr_equal(m, ok + 5);
    assert_int_equal(n, 2);
    const uint8_t empty[] = {0, 0, 0, 0, 0};
    assert_int_equal(gd_k8s_grpc_unframe(empty, sizeof empty, &m, &n), 0);
    assert_int_equal(n, 0);
    const uint8_t compressed[] = {1, 0, 0, 0, 2, 0x0a, 0x00};
    const uint8_t longer[] = {0, 0, 0, 0, 3, 0x0a, 0x00};
    const uint8_t huge[] = {0, 0xff, 0xff, 0xff, 0xff, 0x0a, 0x00};
    const uint8_t trailing[] = {0, 0, 0, 0, 1, 0x0a, 0x00};
    assert_int_equal(gd_k8s_grpc_unframe(compressed, sizeof compressed, &m, &n), -1);
    assert_int_equal(gd_k8s_grpc_unframe(longer, sizeof longer, &m, &n), -1);
    assert_int_equal(gd_k8s_grpc_unframe(huge, sizeof huge, &m, &n), -1);
    assert_int_equal(gd_k8s_grpc_unframe(trailing, sizeof trailing, &m, &n), -1);
    assert_int_equal(gd_k8s_grpc_unframe(ok, 4, &m, &n), -1);
    assert_int_equal(gd_k8s_grpc_unframe(NULL, 0, &m, &n), -1);
}

static void a_gpu_finds_its_pod(void **state)
{
    (void)state;
    gd_k8s_assign v[] = {{"GPU-1", "a", "ns", "c"}, {"GPU-10::2", "b", "ns", "c"}, {"nvidia3", "c", "ns", "c"},
                         {"GPU-1", "later", "ns", "c"}};
    gd_k8s_assigns a = {.v = v, .n = 4, .cap = 4};
    assert_string_equal(gd_k8s_assigns_find(&a, "GPU-1", 0)->pod, "a"); /* the first */
    assert_string_equal(gd_k8s_assigns_find(&a, "GPU-10", 1)->pod, "b"); /* a shared GPU's replica */
    assert_string_equal(gd_k8s_assigns_find(&a, "GPU-7", 3)->pod, "c"); /* by device name */
    assert_null(gd_k8s_assigns_find(&a, "GPU-", 5)); /* no prefix match */
    assert_null(gd_k8s_assigns_find(&a, "GPU-100", 4));
    assert_null(gd_k8s_assigns_find(&a, "", -1));
    assert_null(gd_k8s_assigns_find(&a, NULL, 30));
    assert_null(gd_k8s_assigns_find(NULL, "GPU-1", 0));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(decodes_the_gpus_of_each_container),
        cmocka_unit_test(malformed_answers_are_refused),
        cmocka_unit_test(odd_names_drop_their_device),
        cmocka_unit_test(too_many_devices_keep_the_first),
        cmocka_unit_test(grpc_frames),
        cmocka_unit_test(a_gpu_finds_its_pod),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
