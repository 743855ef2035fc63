/* SPDX-License-Identifier: Apache-2.0 */
/* The training network's model (include/gpudoctor/net.h): freeing it and
 * finding a device by name. */
#include "gpudoctor/net.h"
#include "gpudoctor/nccl_tests.h"

#include <stdlib.h>
#include <string.h>

void gd_net_facts_free(gd_net_facts *n)
{
    if (!n)
        return;
    if (n->nccl && n->nccl_free)
        n->nccl_free(n->nccl);
    free(n->tables);
    free(n);
}

const gd_net_dev *gd_net_dev_by_name(const gd_net_facts *n, const char *name)
{
    if (!n || !name)
        return NULL;
    for (size_t i = 0; i < n->dev_count; i++)
        if (strcmp(n->devs[i].name, name) == 0)
            return &n->devs[i];
    return NULL;
}

static const char *const counter_names[GD_PC_COUNT] = {
    [GD_PC_LINK_DOWNED] = "link_downed",
    [GD_PC_LINK_ERROR_RECOVERY] = "link_error_recovery",
    [GD_PC_SYMBOL_ERROR] = "symbol_error",
    [GD_PC_RCV_ERRORS] = "port_rcv_errors",
    [GD_PC_XMIT_DISCARDS] = "port_xmit_discards",
    [GD_PC_LOCAL_LINK_INTEGRITY] = "local_link_integrity_errors",
    [GD_PC_EXCESSIVE_OVERRUN] = "excessive_buffer_overrun_errors",
    [GD_PC_RCV_REMOTE_PHYS] = "port_rcv_remote_physical_errors",
    [GD_PC_OUT_OF_BUFFER] = "out_of_buffer",
    [GD_PC_OUT_OF_SEQUENCE] = "out_of_sequence",
    [GD_PC_PACKET_SEQ_ERR] = "packet_seq_err",
    [GD_PC_LOCAL_ACK_TIMEOUT] = "local_ack_timeout_err",
};

const char *gd_port_counter_name(gd_port_counter c)
{
    return (unsigned)c < GD_PC_COUNT ? counter_names[c] : "";
}

gd_port_counter gd_port_counter_by_name(const char *name)
{
    for (int c = 0; c < GD_PC_COUNT; c++)
        if (name && strcmp(counter_names[c], name) == 0)
            return (gd_port_counter)c;
    return GD_PC_COUNT;
}
