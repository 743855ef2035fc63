/* SPDX-License-Identifier: Apache-2.0 */
/* gpudoctor topo: the GPU-to-GPU topology, NUMA placement and NICs. */
#include "sources/collect.h"
#include "cli.h"
#include "gpudoctor/pcie.h"
#include "report/pcie_report.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char gd_topo_help[] = "usage: gpudoctor topo [--json] [--sim SCENARIO | --from FILE...]\n"
                            "\n"
                            "How the GPUs connect, as 'nvidia-smi topo -m' shows it, derived from the PCIe\n"
                            "tree in sysfs: X self, NV# a bonded set of # NVLinks, PIX through one PCIe\n"
                            "switch, PXB through several, PHB through the CPU's host bridge, NODE between\n"
                            "host bridges of one NUMA node, SYS across NUMA nodes. Also each GPU's NUMA\n"
                            "node and CPUs (bind the job there), and every NIC with how each GPU reaches it.\n"
                            "An lspci capture shows PCIe paths only: NVLink needs 'nvidia-smi topo -m'.\n"
                            "\n"
                            "  --json           the same as JSON\n"
                            "  --sim SCENARIO   a simulated machine (examples/*.json with host.sysfs)\n"
                            "  --from FILE      captured 'nvidia-smi topo -m' or 'lspci -vv' output (repeatable;\n"
                            "                   add 'nvidia-smi -q -x' output to name the GPUs by bus id)\n";

int gd_cmd_topo(int argc, char **argv)
{
    gd_snapshot_opts o;
    int rc = gd_cli_parse_snapshot(argc, argv, "topo", gd_topo_help, &o);
    if (rc >= 0)
        return rc;
    /* Captures go through the same content detection as 'check --from', so an
     * nvidia-smi dump beside an lspci capture names the GPUs of the matrix. */
    gd_facts f;
    if (gd_cli_snapshot(&o, &f) != 0)
        return GD_EXIT_ERROR;
    if (!f.pcie) {
        gd_facts_free(&f);
        return gd_cli_error("no PCIe tree to read: %s",
                            o.from_count ? "the captured files hold neither 'nvidia-smi topo -m' nor 'lspci -vv' output"
                            : o.sim      ? "the scenario has no host.sysfs"
                                         : "/sys is not readable");
    }
    int code = GD_EXIT_OK;
    bool no_driver = !o.from_count && !f.driver_loaded;
    char why[1200];
    snprintf(why, sizeof why, "no NVIDIA driver: %s", f.driver_error);
    if (o.json) {
        json_t *j = gd_topo_json(&f);
        if (j && no_driver)
            gd_cli_json_error_members(j, why, GD_EXIT_ERROR);
        if (gd_cli_print_json(j) != 0)
            code = GD_EXIT_ERROR;
        json_decref(j);
    } else {
        gd_text_style st = gd_cli_text_style();
        gd_topo_text(stdout, &f, &st);
    }
    if (code == GD_EXIT_OK && no_driver)
        code = gd_cli_error("%s", why);
    if (code == GD_EXIT_OK && f.capture_refused_count)
        code = gd_cli_refused(&f); /* what was read is shown; a file not read is an error */
    gd_facts_free(&f);
    return code;
}
