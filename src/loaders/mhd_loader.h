/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libmicrohttpd, for `gpudoctor export` only, opened with dlopen on first use
 * (dl_table, as every loader): the binary does not link it, so no other command
 * pays the dynamic loader for it and GnuTLS's dozen libraries at start-up.
 * The prototypes are libmicrohttpd's own (its header, at build time).
 */
#ifndef GD_CLI_MHD_LOADER_H
#define GD_CLI_MHD_LOADER_H

#include "dl_table.h"

#include <microhttpd.h>

typedef struct gd_mhd_api {
    gd_dl_lib lib;
    __typeof__(MHD_start_daemon) *start_daemon;
    __typeof__(MHD_stop_daemon) *stop_daemon;
    __typeof__(MHD_get_daemon_info) *get_daemon_info;
    __typeof__(MHD_create_response_from_buffer) *create_response_from_buffer;
    __typeof__(MHD_add_response_header) *add_response_header;
    __typeof__(MHD_queue_response) *queue_response;
    __typeof__(MHD_destroy_response) *destroy_response;
    __typeof__(MHD_get_connection_info) *get_connection_info;
} gd_mhd_api;

/* libmicrohttpd's functions, loaded once per process (thread-safe); NULL
 * with the reason in err when it cannot be opened or lacks a function. */
const gd_mhd_api *gd_mhd_api_get(char *err, size_t errlen);

#endif
