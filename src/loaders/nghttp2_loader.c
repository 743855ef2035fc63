/* SPDX-License-Identifier: Apache-2.0 */
/* libnghttp2 through dl_table, once per process (nghttp2_loader.h). */
#include "nghttp2_loader.h"

#define AT(field) offsetof(gd_nghttp2_api, field)

static const gd_dl_sym syms[] = {
    {AT(callbacks_new), true, {"nghttp2_session_callbacks_new", NULL}},
    {AT(callbacks_del), true, {"nghttp2_session_callbacks_del", NULL}},
    {AT(set_on_header_callback), true, {"nghttp2_session_callbacks_set_on_header_callback", NULL}},
    {AT(set_on_data_chunk_recv_callback), true, {"nghttp2_session_callbacks_set_on_data_chunk_recv_callback", NULL}},
    {AT(set_on_stream_close_callback), true, {"nghttp2_session_callbacks_set_on_stream_close_callback", NULL}},
    {AT(session_client_new), true, {"nghttp2_session_client_new", NULL}},
    {AT(session_del), true, {"nghttp2_session_del", NULL}},
    {AT(submit_settings), true, {"nghttp2_submit_settings", NULL}},
    {AT(submit_request), true, {"nghttp2_submit_request", NULL}},
    {AT(session_mem_send), true, {"nghttp2_session_mem_send", NULL}},
    {AT(session_mem_recv), true, {"nghttp2_session_mem_recv", NULL}},
    {AT(session_want_read), true, {"nghttp2_session_want_read", NULL}},
    {AT(session_want_write), true, {"nghttp2_session_want_write", NULL}},
    {AT(strerror_), true, {"nghttp2_strerror", NULL}},
    {AT(http2_strerror), true, {"nghttp2_http2_strerror", NULL}},
};

static const gd_dl_table table = {"libnghttp2 (the exporter's Kubernetes pod labels)", syms,
                                  sizeof syms / sizeof syms[0]};

static const char *const paths[] = {"libnghttp2.so.14"};

/* Process-wide, like the library itself: loaded once, never unloaded. */
static gd_nghttp2_api api;
static gd_dl_lazy lazy = GD_DL_LAZY(&table, paths, &api.lib, &api);

const gd_nghttp2_api *gd_nghttp2_api_get(char *err, size_t errlen)
{
    return gd_dl_lazy_get(&lazy, err, errlen);
}
