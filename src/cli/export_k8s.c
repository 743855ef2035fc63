/* The exporter's Kubernetes labels (export_k8s.h). */
#include "export_k8s.h"
#include "backends/k8s/podres_client.h"

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

void gd_export_k8s_fill(gd_k8s_pods *k, const gd_facts *f, gd_prom_pod *pods, size_t gpus)
{
    for (size_t g = 0; g < gpus; g++) {
        gd_k8s_assign a;
        pods[g].pod[0] = '\0';
        if (g < f->gpu_count && gd_k8s_pods_lookup(k, f->gpus[g].uuid, f->gpus[g].index, &a)) {
            snprintf(pods[g].pod, sizeof pods[g].pod, "%s", a.pod);
            snprintf(pods[g].namespace_, sizeof pods[g].namespace_, "%s", a.namespace_);
            snprintf(pods[g].container, sizeof pods[g].container, "%s", a.container);
        }
    }
}
