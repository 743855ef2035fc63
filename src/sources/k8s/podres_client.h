/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A gRPC client of one call: the kubelet's PodResourcesLister.List on its
 * unix socket (/var/lib/kubelet/pod-resources/kubelet.sock where the node's
 * directory is mounted), over HTTP/2 (libnghttp2, opened with dlopen), an
 * empty request, the answer decoded by podres.h. Bounded: a deadline for
 * connecting and the whole answer, a cap on the answer's size; a server that
 * is not the kubelet, answers nonsense or never answers is an error, never a
 * hang or a crash.
 */
#ifndef GD_SOURCES_K8S_PODRES_CLIENT_H
#define GD_SOURCES_K8S_PODRES_CLIENT_H

#include "formats/podres/podres.h"

#include <stddef.h>

#define GD_K8S_DEFAULT_SOCKET "/var/lib/kubelet/pod-resources/kubelet.sock"
#define GD_K8S_DEADLINE_S 2.0 /* connect, ask and read the whole answer */
#define GD_K8S_MAX_ANSWER (16u << 20) /* the answer's protobuf, at most (16 MiB, gRPC's own default is 4) */

/*
 * Asks the server at the unix socket path for the pods' resources and
 * decodes them into *out (podres.h). Blocks at most deadline_s seconds.
 * Returns 0, or -1 with *out empty and the reason in err (no socket, refused,
 * no libnghttp2, not HTTP/2, a gRPC error status, an answer over max_bytes,
 * malformed, the deadline).
 */
int gd_k8s_podres_list(const char *path, double deadline_s, size_t max_bytes, gd_k8s_assigns *out, char *err,
                       size_t errlen);

#endif
