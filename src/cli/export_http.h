/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The exporter's HTTP side (libmicrohttpd): /metrics serves the newest
 * exposition the sampler published, never waiting for it; / is a short
 * page, /healthz is the liveness (it answers: the exporter works),
 * /readyz the readiness (there is an exposition to serve), /health/driver
 * and the metric gpudoctor_driver_answering say whether samples keep coming
 * from the driver, /health holds the current findings as JSON. Read-only: GET and HEAD only, a bounded number
 * of connections (in all and per address), each with deadlines for its
 * request and its answer, so that clients that hold connections open (idle,
 * or trickling a byte at a time) cannot shut Prometheus out.
 */
#ifndef GD_CLI_EXPORT_HTTP_H
#define GD_CLI_EXPORT_HTTP_H

#include <stdbool.h>
#include <stddef.h>

typedef struct gd_export_http gd_export_http;

/* Listens on addr ("127.0.0.1:9400", "[::1]:9400", port 0: any free one).
 * stale_s: the driver counts as not answering (/health/driver 503,
 * gpudoctor_driver_answering 0) when no sample was published for that long.
 * NULL with a message when the address is bad or taken. */
gd_export_http *gd_export_http_start(const char *addr, double stale_s, char *err, size_t errlen);

/* The port it listens on (useful with port 0). */
unsigned gd_export_http_port(const gd_export_http *h);

/* Publishes a new exposition (copied); scrapes from now on serve it.
 * sampled: it holds a new sample of the driver (false: the findings of a
 * node whose driver cannot be sampled). */
int gd_export_http_publish(gd_export_http *h, const char *text, size_t len, bool sampled);

/* Publishes a new JSON health document (copied) for /health. */
int gd_export_http_publish_health(gd_export_http *h, const char *json, size_t len);

/* Scrapes answered so far (for the log line at the end). */
unsigned long gd_export_http_scrapes(const gd_export_http *h);

/* Connections shut down so far for holding a place without a whole request
 * in time, or a slow answer (export_http.c has the limits). */
unsigned long gd_export_http_cut(const gd_export_http *h);

/* Stops listening and frees h (may be NULL). */
void gd_export_http_stop(gd_export_http *h);

#endif
