/* SPDX-License-Identifier: Apache-2.0 */
/* The exporter's Kubernetes labels (export_k8s.h). */
#include "export_k8s.h"
#include "sources/k8s/podres_client.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

static void say(void *ud, const char *msg)
{
    (void)ud;
    fprintf(stderr, "gpudoctor export: %s\n", msg);
}

gd_k8s_pods *gd_export_k8s_start(const char *socket, bool asked, double refresh_s, bool sim)
{
    asked = asked || socket;
    const char *path = socket ? socket : GD_K8S_DEFAULT_SOCKET;
    if (!asked && (sim || access(path, F_OK) != 0))
        return NULL;
    /* Started: its failures are said (a socket that exists and fails is a
     * node's misconfiguration, a missing one was asked for). */
    gd_k8s_pods_opts o = {.socket = path, .refresh_s = refresh_s, .log = say};
    char err[256];
    gd_k8s_pods *k = gd_k8s_pods_start(&o, err, sizeof err);
    if (!k && asked)
        fprintf(stderr, "gpudoctor export: no pod labels: %s\n", err);
    return k;
}

/* The pod that holds the device with this id (a GPU's UUID and index, or a
 * MIG device's UUID and -1), into *out; out->pod "" when none. */
static void fill_one(gd_k8s_pods *k, const char *uuid, int index, gd_prom_pod *out)
{
    gd_k8s_assign a;
    out->pod[0] = '\0';
    if (uuid[0] && gd_k8s_pods_lookup(k, uuid, index, &a)) {
        snprintf(out->pod, sizeof out->pod, "%s", a.pod);
        snprintf(out->namespace_, sizeof out->namespace_, "%s", a.namespace_);
        snprintf(out->container, sizeof out->container, "%s", a.container);
    }
}

void gd_export_k8s_fill(gd_k8s_pods *k, const gd_facts *f, gd_prom_pod *pods, size_t gpus)
{
    for (size_t g = 0; g < gpus; g++) {
        gd_prom_pod *slots = &pods[g * GD_PROM_POD_SLOTS];
        for (size_t s = 0; s < GD_PROM_POD_SLOTS; s++)
            slots[s].pod[0] = '\0';
        if (g >= f->gpu_count)
            continue;
        const gd_gpu *gpu = &f->gpus[g];
        fill_one(k, gpu->uuid, gpu->index, &slots[0]);
        /* A MIG device is given to a pod by its own UUID (resource nvidia.com/mig-*). */
        for (size_t m = 0; m < gpu->mig_device_count && m < GD_MAX_MIG_DEVICES; m++)
            fill_one(k, gpu->mig_devices[m].uuid, -1, &slots[1 + m]);
    }
}
