/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What the readers of the node's RDMA captures share (ibstat, ibstatus,
 * ibv_devinfo, ibdev2netdev, show_gids, lsmod, ip -br a, lspci's ACSCtl):
 * f->net made on demand, a device and a port found by name and number or
 * added, so that several files join (ibstat's states, ibdev2netdev's
 * netdevs, show_gids' GIDs on the same mlx5_0 port 1), the states as each
 * tool spells them, and the lines of a file one by one.
 */
#ifndef GD_FORMATS_CAPTURE_NET_CAPTURE_H
#define GD_FORMATS_CAPTURE_NET_CAPTURE_H

#include "gpudoctor/model.h"
#include "gpudoctor/net.h"

#include <stdbool.h>
#include <stddef.h>

/* f->net, allocated the first time; NULL when out of memory. */
gd_net_facts *gd_net_capture_facts(gd_facts *f);

/* The device called name, added (ports none, numa -1) when new; NULL when
 * the table is full or the name is empty. */
gd_net_dev *gd_net_capture_dev(gd_net_facts *n, const char *name);

/* Port number `port` of d, added (every value unread) when new; NULL when
 * the device has GD_NET_MAX_PORTS already or the number is not 1..255. */
gd_net_port *gd_net_capture_port(gd_net_dev *d, int port);

/* Appends "KIND:FILE" to dst (of size cap), unless it is there. */
void gd_net_capture_source(char *dst, size_t cap, const char *kind, const char *name);

/* The states as the tools write them: ibstat "Active", "LinkUp";
 * ibstatus "4: ACTIVE", "5: LinkUp"; ibv_devinfo "PORT_ACTIVE (4)",
 * "LINK_UP (5)"; ibdev2netdev -v "(ACTIVE)". Unknown words: UNKNOWN. */
gd_port_state gd_net_parse_state(const char *s);
gd_port_phys gd_net_parse_phys(const char *s);
gd_link_layer gd_net_parse_link_layer(const char *s);

/* A rate as ibstat ("200") or ibstatus ("200 Gb/sec (4X HDR)") writes it
 * into p (rate_gbps and rate_text); false when s holds no number. */
bool gd_net_parse_rate(gd_net_port *p, const char *s);

/* Adds (or replaces, by index) a GID row of p in index order; false when
 * the table is full and the row was not kept. */
bool gd_net_capture_gid(gd_net_port *p, const gd_net_gid *g);

/* lspci -vvv's "ACSCtl: SrcValid+ TransBlk- ReqRedir+ ..." into a (its
 * bdf untouched); false when s is no such line. */
bool gd_net_parse_acsctl(const char *s, gd_net_acs *a);

/* One line after another of a file's bytes. */
typedef struct gd_net_lines {
    const char *p, *end;
    long number; /* of the line last given, 1-based */
} gd_net_lines;

/* The next line into buf (cut at cap - 1, '\r' and trailing blanks gone,
 * tabs as blanks); false at the end. */
bool gd_net_next_line(gd_net_lines *it, char *buf, size_t cap);

/* One reader's pass over a file: f->net, its lines, what it read and what
 * did not fit the tables. */
typedef struct gd_net_read {
    gd_net_facts *n;
    gd_net_lines it;
    char line[512];
    const char *s; /* the line past its blanks */
    size_t rows, dropped;
    uint8_t file; /* the file's place in f->capture_files (GD_CAPTURE_NO_FILE past the list) */
} gd_net_read;

/* Starts r on text; false (out of memory) with a message naming `name`. */
bool gd_net_read_start(gd_net_read *r, const char *name, const char *text, size_t len, gd_facts *f, char *err,
                       size_t errlen);

/* The device called name (gd_net_capture_dev), citing r's file when new. */
gd_net_dev *gd_net_read_dev(gd_net_read *r, const char *name);

/* The next line into r->line and r->s; false at the end. */
bool gd_net_read_line(gd_net_read *r);

/* Ends r: -1 with "NAME: no WANT line: not TOOL output" when no row was
 * read; otherwise notes what did not fit ("N WHAT not read: past the
 * table's ...") and adds "KIND:FILE" to the source `src` (cap bytes). */
int gd_net_read_end(const gd_net_read *r, const char *name, gd_facts *f, const char *want, const char *tool,
                    const char *what, char *src, size_t cap, char *err, size_t errlen);

/* The value after "key:" when s starts with it (blanks skipped), else NULL. */
const char *gd_net_value_of(const char *s, const char *key);

/* s past its leading blanks. */
const char *gd_net_skip_blanks(const char *s);

/* Whether s starts with `word` (case-insensitive) and a blank, ':' or the end follows. */
bool gd_net_starts(const char *s, const char *word);

#endif
