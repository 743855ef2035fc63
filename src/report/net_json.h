/* SPDX-License-Identifier: Apache-2.0 */
/* The JSON report's "network" object: what was read of the node's RDMA
 * NICs, interfaces, GPUDirect's module and PCIe ACS (docs/interface.md). */
#ifndef GD_REPORT_NET_JSON_H
#define GD_REPORT_NET_JSON_H

#include "gpudoctor/model.h"

#include <jansson.h>

/* The object, or NULL when nothing of the network was read (f->net NULL). */
json_t *gd_report_network_json(const gd_facts *f);

#endif
