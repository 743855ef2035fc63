/* SPDX-License-Identifier: Apache-2.0 */
/* libmicrohttpd through dl_table, once per process (mhd_loader.h). */
#include "mhd_loader.h"


#define AT(field) offsetof(gd_mhd_api, field)

static const gd_dl_sym syms[] = {
    {AT(start_daemon), true, {"MHD_start_daemon", NULL}},
    {AT(stop_daemon), true, {"MHD_stop_daemon", NULL}},
    {AT(get_daemon_info), true, {"MHD_get_daemon_info", NULL}},
    {AT(create_response_from_buffer), true, {"MHD_create_response_from_buffer", NULL}},
    {AT(add_response_header), true, {"MHD_add_response_header", NULL}},
    {AT(queue_response), true, {"MHD_queue_response", NULL}},
    {AT(destroy_response), true, {"MHD_destroy_response", NULL}},
    {AT(get_connection_info), true, {"MHD_get_connection_info", NULL}},
};

static const gd_dl_table table = {"libmicrohttpd (needed by gpudoctor export)", syms, sizeof syms / sizeof syms[0]};

static const char *const paths[] = {"libmicrohttpd.so.12"};

/* Process-wide, like the library itself: loaded once, never unloaded. */
static gd_mhd_api api;
static gd_dl_lazy lazy = GD_DL_LAZY(&table, paths, &api.lib, &api);

const gd_mhd_api *gd_mhd_api_get(char *err, size_t errlen)
{
    return gd_dl_lazy_get(&lazy, err, errlen);
}
