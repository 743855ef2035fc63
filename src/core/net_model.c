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
