/* gpudoctor info: one snapshot, shown as a readable screen or JSON. */
#include "backends/collect.h"
#include "cli.h"

#include <getopt.h>
#include <stdio.h>

static const char help[] =
    "usage: gpudoctor info [--json] [--sim SCENARIO | --from FILE...]\n"
    "\n"
    "What 'nvidia-smi -q' would tell about each GPU, on one screen: identity,\n"
    "temperatures and their limits, power and its limits, clocks, clock event\n"
    "reasons, memory, PCIe link, configuration, ECC and row-remap health, NVLink\n"
    "and processes. 'n/a' means the board does not report a value.\n"
    "\n"
    "  --json           the same as JSON; unreadable values are null\n"
    "  --sim SCENARIO   read a simulated machine (examples/*.json)\n"
    "  --from FILE      read captured nvidia-smi / lspci / topo output instead (repeatable)\n";

int gd_cmd_info(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"json", no_argument, NULL, 'j'}, {"sim", required_argument, NULL, 's'},
        {"from", required_argument, NULL, 'f'}, {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    int json = 0, c;
    const char *sim = NULL;
    const char *from[32];
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
        case ':': return gd_cli_error("%s needs a value (see 'gpudoctor info --help')", argv[optind - 1]);
        default: return gd_cli_error("unknown option '%s' (see 'gpudoctor info --help')", argv[optind - 1]);
        }
    }
    if (optind < argc)
        return gd_cli_error("unexpected argument '%s' (see 'gpudoctor info --help')", argv[optind]);

    if (sim && from_count)
        return gd_cli_error("--sim and --from exclude each other");
    gd_collect_opts co = {.sim_scenario = sim, .duration_s = 0, .interval_s = 1, .pid = -1,
                          .from = from, .from_count = from_count};
    gd_facts f;
    char err[1024];
    if (gd_collect(&co, &f, err, sizeof err) != 0) {
        gd_facts_free(&f);
        return gd_cli_error("%s", err);
    }
    int code = GD_EXIT_OK;
    if (json) {
        json_t *j = gd_info_json(&f);
        if (!j || gd_json_print(stdout, j) != 0)
            code = gd_cli_error("cannot write JSON");
        json_decref(j);
    } else {
        gd_text_style st = gd_cli_text_style();
        gd_info_text(stdout, &f, &st);
    }
    if (code == GD_EXIT_OK && !f.driver_loaded)
        code = gd_cli_error("no NVIDIA driver: %s", f.driver_error);
    gd_facts_free(&f);
    return code;
}
