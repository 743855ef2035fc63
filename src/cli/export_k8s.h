/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The exporter's Kubernetes labels (pod, namespace, container), as
 * dcgm-exporter sets them: from the kubelet's pod-resources socket where it
 * is mounted (src/sources/k8s/), asked every GD_K8S_REFRESH_S seconds on a
 * thread of its own, never by a scrape.
 */
#ifndef GD_CLI_EXPORT_K8S_H
#define GD_CLI_EXPORT_K8S_H

#include "sources/k8s/k8s_pods.h"
#include "sources/k8s/podres_client.h"
#include "gpudoctor/model.h"
#include "report/prom_report.h"

#include <stdbool.h>

/*
 * The watcher, as the options say: socket non-NULL (--kubernetes-socket) or
 * asked (--kubernetes) start it whatever the socket's state; otherwise it
 * starts only where the kubelet's default socket exists, and never for a
 * simulated machine (--sim), whose GPUs no pod holds: a missing socket is
 * then silent. A started watcher's failures are said on stderr (once, until
 * it answers again). refresh_s <= 0: GD_K8S_REFRESH_S. NULL: no pod labels.
 */
gd_k8s_pods *gd_export_k8s_start(const char *socket, bool asked, double refresh_s, bool sim);

/* pods[g * GD_PROM_POD_SLOTS] = the pod of GPU g of f, then those of its MIG
 * devices, or empty (gpus * GD_PROM_POD_SLOTS entries). */
void gd_export_k8s_fill(gd_k8s_pods *k, const gd_facts *f, gd_prom_pod *pods, size_t gpus);

#endif
