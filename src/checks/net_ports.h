/* SPDX-License-Identifier: Apache-2.0 */
/* What the network checks share about f->net (include/gpudoctor/net.h): a
 * port's state in words, which ports are peers of one kind, where a device's
 * facts came from, and the "not checked" of a node whose NICs were not read. */
#ifndef GD_CHECKS_NET_PORTS_H
#define GD_CHECKS_NET_PORTS_H

#include "gpudoctor/findings.h"
#include "gpudoctor/model.h"
#include "gpudoctor/net.h"

#include <stdbool.h>
#include <stddef.h>

/* Thresholds of the network checks.
 * net.port_down: critical with GD_NET_RAILS_MIN or more active peers of the
 * port's kind (a rail-optimised node: one NIC per GPU or pair of GPUs, and
 * the dead one's GPUs now share another's); fewer, it may be a spare never
 * cabled: a warning.
 * net.port_errors: symbol, receive and remote-physical errors, and ack
 * timeouts, GD_NET_SYMBOL_ERRORS_MIN or more within the window (a few per
 * hour stay within the bit error rate IBTA allows at HDR/NDR speeds);
 * discards and sequence errors, which also come with congestion,
 * GD_NET_DISCARDS_MIN or more. */
#define GD_NET_RAILS_MIN 3
#define GD_NET_SYMBOL_ERRORS_MIN 10.0
#define GD_NET_DISCARDS_MIN 1000.0

/* Active (or ActiveDefer): the port carries traffic. An Ethernet port whose
 * state was not read counts as active when its netdev is up (ibdev2netdev). */
bool gd_net_port_active(const gd_net_port *p);
/* Down, Polling or Disabled: no link; Init or Armed: a link no subnet
 * manager brought up (it carries no traffic either). An InfiniBand port's netdev (IPoIB)
 * says nothing of the port: down is normal where IPoIB is not configured. */
bool gd_net_port_dead(const gd_net_port *p);
/* "Down/Disabled", "Down/Polling", "Down" (netdev down): the state in words. */
const char *gd_net_port_state_text(const gd_net_port *p, char *buf, size_t len);
/* The port's place on its card: 0 the first port (function 0, port 1, or
 * not known), 1 and up a later one (function 1 of a dual-port card, port 2),
 * from the bdf, else the netdev or device name (enp27s0f1np1, rocep1s0f1). */
int gd_net_port_position(const gd_net_dev *d, const gd_net_port *p);
/* Whether two ports are peers of one kind: the same link layer, the same
 * device model where both are known, and both first ports or both later
 * ones (a dual-port card's second port is most often left uncabled). */
bool gd_net_same_kind(const gd_net_dev *da, const gd_net_port *pa, const gd_net_dev *db, const gd_net_port *pb);
/* Where device d's facts were read: the capture file, else f->net->source. */
const char *gd_net_dev_source(const gd_facts *f, const gd_net_dev *d);
/* Active RDMA ports of the node (0 when not read). */
size_t gd_net_active_ports(const gd_facts *f);
/* The level (gd_topo_level) from each GPU of f->pcie to its nearest RDMA NIC
 * with an active port, into best[] (GD_TOPO_UNKNOWN: none placed) with that
 * NIC's name; *joined counts the GPU-NIC pairs placed. Returns the GPUs
 * filled (at most max; 0 without a PCIe tree). */
size_t gd_net_nearest_nics(const gd_facts *f, int *best, const char **best_nic, size_t max, size_t *joined);
/* True when the node's RDMA devices were read; otherwise records why check
 * `id` could not judge them and returns false. */
bool gd_net_devices_read(const gd_facts *f, const char *id, gd_findings *out);

#endif
