/* SPDX-License-Identifier: Apache-2.0 */
/* libFuzzer target: the RDMA capture readers (src/formats/capture/ibstat.c,
 * ibstatus.c, ibv_devinfo.c, ibdev2netdev.c, show_gids.c, lsmod.c,
 * ip_brief.c, lspci_acs.c, rdma_link.c), each on the same bytes, then all of them as
 * --from reads a file (detection and the paste cut at its prompts). Any
 * bytes give facts within the tables' bounds or a message, never a crash,
 * a leak or undefined behaviour. */
#include "fuzz_import_common.h"

#include "formats/capture/net_readers.h"
#include "gpudoctor/net.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The network facts stay inside their tables, their strings terminated. */
static void check_net(const gd_facts *f)
{
    const gd_net_facts *n = f->net;
    if (!n)
        return;
    if (n->dev_count > GD_NET_MAX_DEVS || n->iface_count > GD_NET_MAX_IFACES || n->acs_count > GD_NET_MAX_ACS)
        __builtin_trap();
    for (size_t i = 0; i < n->dev_count; i++) {
        const gd_net_dev *d = &n->devs[i];
        if (d->port_count > GD_NET_MAX_PORTS || !d->name[0] || strlen(d->name) >= sizeof d->name)
            __builtin_trap();
        for (size_t k = 0; k < d->port_count; k++) {
            const gd_net_port *p = &d->ports[k];
            if (p->gid_count > GD_NET_MAX_GIDS || p->port < 1 || p->netdev_up < -1 || p->netdev_up > 1)
                __builtin_trap();
            for (size_t g = 1; g < p->gid_count; g++)
                if (p->gids[g].index <= p->gids[g - 1].index)
                    __builtin_trap(); /* the GID table in index order, one row an index */
            if (gd_ok(p->rate_gbps) && !(p->rate_gbps.v >= 0 && p->rate_gbps.v < 1e7))
                __builtin_trap();
        }
    }
}

static void run_net(fuzz_parser parse, const char *text, size_t size)
{
    char err[512] = "";
    gd_facts f;
    memset(&f, 0, sizeof f);
    if (parse("fuzz", text, size, &f, err, sizeof err) == 0) {
        fuzz_import_check(&f);
        check_net(&f);
    } else if (err[0] == '\0') {
        __builtin_trap(); /* every failure must explain itself */
    }
    gd_facts_free(&f);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const fuzz_parser readers[] = {
        gd_import_ibstat, gd_import_ibstatus, gd_import_ibv_devinfo, gd_import_ibdev2netdev, gd_import_show_gids,
        gd_import_lsmod,  gd_import_ip_brief, gd_import_lspci_acs,   gd_import_rdma_link,    gd_import_buffer};
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    for (size_t i = 0; i < sizeof readers / sizeof readers[0]; i++)
        run_net(readers[i], text, size);
    free(text);
    return 0;
}
