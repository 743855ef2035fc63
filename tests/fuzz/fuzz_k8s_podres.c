/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libFuzzer target for the kubelet's pod-resources answer
 * (src/formats/podres/podres.c): the bytes as a ListPodResourcesResponse and
 * as a gRPC body (the 5-byte prefix, then the message). None may crash, read
 * out of bounds or give an entry with an empty, unterminated or unprintable
 * field, whatever the bytes.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "formats/podres/podres.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_field(const char *s, size_t cap)
{
    size_t n = strnlen(s, cap);
    if (n == 0 || n == cap)
        __builtin_trap();
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)s[i] < 0x20 || (unsigned char)s[i] > 0x7e)
            __builtin_trap();
}

static void decode(const uint8_t *data, size_t size)
{
    gd_k8s_assigns a = {0};
    int rc = gd_k8s_podres_decode(data, size, &a);
    if ((rc != 0 && a.n != 0) || a.n > GD_K8S_MAX_DEVICES)
        __builtin_trap();
    for (size_t i = 0; i < a.n; i++) {
        check_field(a.v[i].device_id, sizeof a.v[i].device_id);
        check_field(a.v[i].pod, sizeof a.v[i].pod);
        check_field(a.v[i].namespace_, sizeof a.v[i].namespace_);
        check_field(a.v[i].container, sizeof a.v[i].container);
    }
    if (a.n && !gd_k8s_assigns_find(&a, a.v[0].device_id, -1))
        __builtin_trap();
    gd_k8s_assigns_free(&a);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    decode(data, size);
    const uint8_t *msg;
    size_t n;
    if (gd_k8s_grpc_unframe(data, size, &msg, &n) == 0) {
        if (msg != data + 5 || n != size - 5)
            __builtin_trap();
        decode(msg, n);
    }
    return 0;
}
