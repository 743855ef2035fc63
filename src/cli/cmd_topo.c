/* gpudoctor topo: the GPU-to-GPU topology, NUMA placement and NICs. */
#include "backends/collect.h"
#include "cli.h"
#include "gpudoctor/pcie.h"
#include "report/pcie_report.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char help[] =
    "usage: gpudoctor topo [--json] [--sim SCENARIO | --from FILE...]\n"
    "\n"
    "How the GPUs connect, as 'nvidia-smi topo -m' shows it, derived from the PCIe\n"
    "tree in sysfs: X self, NV# a bonded set of # NVLinks, PIX through one PCIe\n"
    "switch, PXB through several, PHB through the CPU's host bridge, NODE between\n"
    "host bridges of one NUMA node, SYS across NUMA nodes. Also each GPU's NUMA\n"
    "node and CPUs (bind the job there) and the NICs behind the same switch.\n"
    "\n"
    "  --json           the same as JSON\n"
    "  --sim SCENARIO   a simulated machine (examples/*.json with host.sysfs)\n"
    "  --from FILE      captured 'nvidia-smi topo -m' or 'lspci -vv' output (repeatable;\n"
    "                   add 'nvidia-smi -q -x' output to name the GPUs by bus id)\n";

int gd_cmd_topo(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"json", no_argument, NULL, 'j'}, {"sim", required_argument, NULL, 's'},
        {"from", required_argument, NULL, 'f'}, {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    int json = 0, c;
    const char *sim = NULL, *from[32];
    size_t from_count = 0;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "+h", longopts, NULL)) != -1) {
        switch (c) {
        case 'j': json = 1; break;
        case 's': sim = optarg; break;
        case 'f':
            if (from_count == sizeof from / sizeof from[0])
                return gd_cli_error("too many --from files");
            from[from_count++] = optarg;
            break;
        case 'h': fputs(help, stdout); return GD_EXIT_OK;
        default: return gd_cli_error("unknown option or missing value '%s' (see 'gpudoctor topo --help')", argv[optind - 1]);
        }
    }
    if (optind < argc)
        return gd_cli_error("unexpected argument '%s' (see 'gpudoctor topo --help')", argv[optind]);
    if (sim && from_count)
        return gd_cli_error("--sim and --from exclude each other");
    /* Captures go through the same content detection as 'check --from', so an
     * nvidia-smi dump beside an lspci capture names the GPUs of the matrix. */
    gd_collect_opts co = {.sim_scenario = sim, .duration_s = 0, .interval_s = 1, .pid = -1,
                          .from = from, .from_count = from_count};
    gd_facts f;
    char err[1024];
    if (gd_collect(&co, &f, err, sizeof err) != 0) {
        gd_facts_free(&f);
        return gd_cli_error("%s", err);
    }
    if (!f.pcie) {
        gd_facts_free(&f);
        return gd_cli_error("no PCIe tree to read: %s",
                            from_count ? "the captured files hold neither 'nvidia-smi topo -m' nor 'lspci -vv' output"
                            : sim      ? "the scenario has no host.sysfs"
                                       : "/sys is not readable");
    }
    int code = GD_EXIT_OK;
    if (json) {
        json_t *j = gd_topo_json(&f);
        if (!j || gd_json_print(stdout, j) != 0)
            code = gd_cli_error("cannot write JSON");
        json_decref(j);
    } else {
        gd_topo_text(stdout, &f);
    }
    if (code == GD_EXIT_OK && !from_count && !f.driver_loaded)
        code = gd_cli_error("no NVIDIA driver: %s", f.driver_error);
    gd_facts_free(&f);
    return code;
}
