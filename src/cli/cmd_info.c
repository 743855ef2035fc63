/* SPDX-License-Identifier: Apache-2.0 */
/* gpudoctor info: one snapshot, shown as a readable screen or JSON. */
#include "sources/collect.h"
#include "cli.h"

#include <getopt.h>
#include <stdio.h>

const char gd_info_help[] = "usage: gpudoctor info [-q|--details] [--json] [--sim SCENARIO | --from FILE...]\n"
                            "\n"
                            "The host, the driver and one line per GPU, on one screen, as nvidia-smi's\n"
                            "table: temperature, power/limit, SM clock/max, memory used/total (MiB),\n"
                            "utilisation, PCIe link, and notes (MIG, ECC off, clocks held back...); then\n"
                            "each GPU's processes. '-' means the board does not report a value.\n"
                            "\n"
                            "  -q, --details    also what 'nvidia-smi -q' would tell about each GPU:\n"
                            "                   identity, temperature and power limits, clocks, clock\n"
                            "                   event reasons, configuration, ECC and row-remap health,\n"
                            "                   NVLink ('n/a' there: not reported)\n"
                            "  --json           everything, as JSON; unreadable values are null\n"
                            "  --sim SCENARIO   read a simulated machine (examples/*.json)\n"
                            "  --from FILE      read captured nvidia-smi / lspci / topo output instead of this machine (repeatable)\n";

int gd_cmd_info(int argc, char **argv)
{
    gd_snapshot_opts o;
    int rc = gd_cli_parse_snapshot(argc, argv, "info", gd_info_help, &o);
    if (rc >= 0)
        return rc;
    gd_facts f;
    if (gd_cli_snapshot(&o, &f) != 0)
        return GD_EXIT_ERROR;
    int code = GD_EXIT_OK;
    char why[1200];
    if (gd_facts_no_nvidia_gpu(&f))
        snprintf(why, sizeof why, "no NVIDIA GPU on this machine (no NVIDIA display or 3D controller on its PCI bus)");
    else
        snprintf(why, sizeof why, "%s: %s", f.captured ? "no nvidia-smi output" : "no NVIDIA driver", f.driver_error);
    if (o.json) {
        json_t *j = gd_info_json(&f);
        if (j && !f.driver_loaded)
            gd_cli_json_error_members(j, why, GD_EXIT_ERROR);
        if (gd_cli_print_json(j) != 0)
            code = GD_EXIT_ERROR;
        json_decref(j);
    } else {
        gd_text_style st = gd_cli_text_style();
        gd_info_text(stdout, &f, &st, o.details);
    }
    if (code == GD_EXIT_OK && !f.driver_loaded)
        code = gd_cli_error("%s", why);
    if (code == GD_EXIT_OK && f.capture_refused_count)
        code = gd_cli_refused(&f); /* what was read is shown; a file not read is an error */
    gd_facts_free(&f);
    return code;
}
