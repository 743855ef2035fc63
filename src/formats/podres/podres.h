/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The kubelet's pod-resources API (PodResourcesLister, podresources v1): which
 * pod's container holds which GPU, for the exporter's pod, namespace and
 * container labels as dcgm-exporter sets them. The decoder here is pure (no
 * I/O): the client (podres_client.h) fetches the answer, the watcher
 * (k8s_pods.h) keeps it fresh.
 *
 * Only what gpudoctor reads of kubelet's api.proto is decoded, by a small
 * protobuf wire reader: ListPodResourcesResponse{repeated PodResources
 * pod_resources = 1}, PodResources{string name = 1; string namespace = 2;
 * repeated ContainerResources containers = 3}, ContainerResources{string
 * name = 1; repeated ContainerDevices devices = 2}, ContainerDevices{string
 * resource_name = 1; repeated string device_ids = 2}; every other field is
 * skipped by its wire type. Not protobuf-c: it needs descriptors generated
 * from the .proto at build time (protoc-c, committed or generated code) for
 * five fields of four messages.
 */
#ifndef GD_FORMATS_PODRES_PODRES_H
#define GD_FORMATS_PODRES_PODRES_H

#include <stddef.h>
#include <stdint.h>

/* Fields longer than these (beyond any Kubernetes name) drop their device:
 * a cut name would be a made-up value. */
#define GD_K8S_DEVICE_ID_MAX 128
#define GD_K8S_NAME_MAX 254
/* More devices than any node has (GPUs times time-slicing replicas): an
 * answer with more keeps its first this many and counts the rest. */
#define GD_K8S_MAX_DEVICES 4096

/* One device of a container: a GPU's UUID ("GPU-..."), a MIG device's
 * ("MIG-..."), a shared GPU's ("GPU-...::2") or a device name ("nvidia3"). */
typedef struct gd_k8s_assign {
    char device_id[GD_K8S_DEVICE_ID_MAX];
    char pod[GD_K8S_NAME_MAX];
    char namespace_[GD_K8S_NAME_MAX];
    char container[GD_K8S_NAME_MAX];
} gd_k8s_assign;

typedef struct gd_k8s_assigns {
    gd_k8s_assign *v;
    size_t n, cap;
    size_t over_cap; /* GPU devices past GD_K8S_MAX_DEVICES, left out */
} gd_k8s_assigns;

/*
 * Decodes a ListPodResourcesResponse (the protobuf message, without gRPC's
 * prefix) into *out (emptied first): one entry per device id of each
 * container's devices of resource "nvidia.com/gpu" or "nvidia.com/mig-*".
 * Devices with an empty or over-long field, or bytes outside printable
 * ASCII (Kubernetes names are DNS names), are left out; so are the devices
 * past the first GD_K8S_MAX_DEVICES, counted in out->over_cap (the pods
 * before them keep their labels). Returns 0, or -1 with *out empty:
 * malformed protobuf (truncated, a length past the end, a group or unknown
 * wire type), or no memory.
 */
int gd_k8s_podres_decode(const uint8_t *buf, size_t len, gd_k8s_assigns *out);

/*
 * The one message of a unary gRPC answer's body: a 5-byte prefix (flag 0:
 * not compressed; a big-endian length) and exactly that many bytes. 0 with
 * *msg, *msglen set, or -1 (short, compressed, a length past the end, bytes
 * after it).
 */
int gd_k8s_grpc_unframe(const uint8_t *body, size_t len, const uint8_t **msg, size_t *msglen);

/*
 * The assignment of the GPU with this UUID and index, matched as
 * dcgm-exporter does: a device id equal to the UUID (or to the UUID and a
 * "::N" replica suffix of a shared GPU) or to the device name "nvidiaINDEX";
 * the first such device. NULL when no pod holds the GPU.
 */
const gd_k8s_assign *gd_k8s_assigns_find(const gd_k8s_assigns *a, const char *uuid, int index);

void gd_k8s_assigns_free(gd_k8s_assigns *a);

#endif
