/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libnghttp2 (HTTP/2, the transport of gRPC), for the exporter's Kubernetes
 * labels only, opened with dlopen on first use (dl_table): the binary does
 * not link it, so no command pays the dynamic loader for it at start-up, and
 * an exporter without it (or without a kubelet) runs without pod labels.
 * The prototypes are nghttp2's own (its header, at build time).
 */
#ifndef GD_LOADERS_NGHTTP2_LOADER_H
#define GD_LOADERS_NGHTTP2_LOADER_H

#include "dl_table.h"

#include <nghttp2/nghttp2.h>
#include <stddef.h>

typedef struct gd_nghttp2_api {
    gd_dl_lib lib;
    __typeof__(nghttp2_session_callbacks_new) *callbacks_new;
    __typeof__(nghttp2_session_callbacks_del) *callbacks_del;
    __typeof__(nghttp2_session_callbacks_set_on_header_callback) *set_on_header_callback;
    __typeof__(nghttp2_session_callbacks_set_on_data_chunk_recv_callback) *set_on_data_chunk_recv_callback;
    __typeof__(nghttp2_session_callbacks_set_on_stream_close_callback) *set_on_stream_close_callback;
    __typeof__(nghttp2_session_client_new) *session_client_new;
    __typeof__(nghttp2_session_del) *session_del;
    __typeof__(nghttp2_submit_settings) *submit_settings;
    __typeof__(nghttp2_submit_request) *submit_request;
    __typeof__(nghttp2_session_mem_send) *session_mem_send;
    __typeof__(nghttp2_session_mem_recv) *session_mem_recv;
    __typeof__(nghttp2_session_want_read) *session_want_read;
    __typeof__(nghttp2_session_want_write) *session_want_write;
    __typeof__(nghttp2_strerror) *strerror_;
    __typeof__(nghttp2_http2_strerror) *http2_strerror;
} gd_nghttp2_api;

/* nghttp2's functions, loaded once per process (thread-safe); NULL with the
 * reason in err when it cannot be opened or lacks a function. */
const gd_nghttp2_api *gd_nghttp2_api_get(char *err, size_t errlen);

#endif
