/* SPDX-License-Identifier: Apache-2.0 */
/* The training network's facts (include/gpudoctor/net.h) of this machine,
 * from sysfs and procfs, or of a simulated one, from its scenario. */
#ifndef GD_SOURCES_NET_NET_COLLECT_H
#define GD_SOURCES_NET_NET_COLLECT_H

#include "gpudoctor/context.h"
#include "gpudoctor/net.h"

#include <stdbool.h>
#include <stddef.h>

/* Seconds between readings of the NIC counters in a session, beside the
 * first at its start and the last at its end (docs/network-live.md: a
 * reading is a dozen small files per port). */
#define GD_NET_REREAD_S 10.0

/* Reads the RDMA devices and ports (roots->sys/class/infiniband), the
 * interfaces (roots->sys/class/net; an IPv4 through getifaddrs when
 * `live`: roots->sys is this machine's own), GPUDirect RDMA's module
 * (roots->proc/modules) and ACS on the bridges (their config space, root
 * only) into a new gd_net_facts. Each counter is read once: first and last
 * alike. NULL only when out of memory. */
gd_net_facts *gd_net_sysfs_read(const gd_roots *roots, bool live);

/* Reads the ports' counters again into counters_last, span_s seconds after
 * the first reading (the window's end). */
void gd_net_sysfs_reread(gd_net_facts *n, const gd_roots *roots, double span_s);

struct gd_scenario;

/* The network a scenario describes ("nics", "network"), its counters at
 * scenario time 0; NULL when it describes none or out of memory. */
gd_net_facts *gd_net_from_scenario(const struct gd_scenario *sc, const char *name);

/* Where the scenario's host.sysfs has a PCI tree, each NIC's bdf is one of
 * its devices (the topology joins NICs and GPUs by it): 0, or -1 with a
 * message naming the key. */
int gd_net_scenario_check(const struct gd_scenario *sc, char *err, size_t errlen);

/* The counters of a scenario's NICs at scenario time t (the window's end). */
void gd_net_scenario_at(gd_net_facts *n, const struct gd_scenario *sc, double t);

#endif
