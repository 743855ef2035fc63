/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Which pod holds each GPU, kept fresh beside a session: a thread asks the
 * kubelet (podres_client.h) at once and then every refresh_s seconds, and
 * keeps the newest answer; readers never wait for the kubelet. A failed
 * answer clears the assignment (labels absent, never stale ones), and is
 * told once through the log callback, as is the first answer after failures.
 */
#ifndef GD_SOURCES_K8S_K8S_PODS_H
#define GD_SOURCES_K8S_K8S_PODS_H

#include "formats/podres/podres.h"

#include <stdbool.h>
#include <stddef.h>

#define GD_K8S_REFRESH_S 10.0 /* between two questions to the kubelet */

typedef struct gd_k8s_pods gd_k8s_pods;

typedef struct gd_k8s_pods_opts {
    const char *socket; /* the kubelet's pod-resources socket */
    double refresh_s; /* <= 0: GD_K8S_REFRESH_S */
    void (*log)(void *ud, const char *msg); /* may be NULL */
    void *log_ud;
} gd_k8s_pods_opts;

/* Starts the thread (the first question is asked at once); NULL with the
 * reason in err when no thread can be started. */
gd_k8s_pods *gd_k8s_pods_start(const gd_k8s_pods_opts *o, char *err, size_t errlen);

/* Copies the assignment of the GPU (uuid, index; gd_k8s_assigns_find) into
 * *out: true, or false when no pod holds it (or no answer came yet). */
bool gd_k8s_pods_lookup(gd_k8s_pods *k, const char *uuid, int index, gd_k8s_assign *out);

/* Answers received so far (for tests and the log line at the end). */
unsigned long gd_k8s_pods_answers(gd_k8s_pods *k);

/* Stops the thread (waiting at most for a question in flight: the client's
 * deadline) and frees k; NULL is fine. */
void gd_k8s_pods_stop(gd_k8s_pods *k);

#endif
