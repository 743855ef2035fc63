/* gpudoctor: finds out why a GPU server trains slower than it should. */
#include "cli.h"

#include <stdio.h>
#include <string.h>

static const char usage[] =
    "usage: gpudoctor COMMAND [OPTIONS]\n"
    "\n"
    "Finds out why a GPU server trains AI models slower than it should, proves it\n"
    "with numbers, and says how to fix it.\n"
    "\n"
    "Commands:\n"
    "  check    watch the GPUs for a while and report problems (exit 0 ok, 1 warning,\n"
    "           2 critical, 3 could not check)\n"
    "  info     what the driver tells about each GPU, on one screen\n"
    "  watch    the GPUs live (a full-screen view, or dmon-like lines in a pipe), the\n"
    "           diagnosis running; --record FILE.jsonl keeps it for 'check --from'\n"
    "  vram     the memory a training run needs per GPU, whether it fits, what to change\n"
    "  topo     how the GPUs connect (NVLink, PCIe switches, NUMA nodes) and their NICs\n"
    "  bench    measure: 'bench pcie' copies between host and each GPU\n"
    "\n"
    "Every command that reads the machine takes --sim SCENARIO to run against a\n"
    "simulated machine instead (see examples/).\n"
    "\n"
    "Examples:\n"
    "  gpudoctor check                       diagnose this machine (10 s window)\n"
    "  gpudoctor check --duration 60 --json  a longer window, machine-readable\n"
    "  gpudoctor info --sim examples/h100x8-training.json\n"
    "  gpudoctor vram --config examples/models/llama-2-7b.json --gpus 1 --gpu-memory 80G\n"
    "\n"
    "Run 'gpudoctor COMMAND --help' for a command's options.\n";

/* The subcommands: one line each, one file each (cmd_NAME.c). */
static const struct command {
    const char *name;
    int (*run)(int argc, char **argv);
} commands[] = {
    {"check", gd_cmd_check},
    {"info", gd_cmd_info},
    {"vram", gd_cmd_vram},
    {"topo", gd_cmd_topo},
    {"bench", gd_cmd_bench},
    {"watch", gd_cmd_watch},
};

/* Commands that later versions add. */
static const char *const planned[] = {"trace", "run", "export", "fleet"};

static int run(int argc, char **argv)
{
    if (argc < 2) {
        fputs(usage, stderr);
        return GD_EXIT_ERROR;
    }
    const char *cmd = argv[1];
    if (strcmp(cmd, "-h") == 0 || strcmp(cmd, "--help") == 0 || strcmp(cmd, "help") == 0) {
        fputs(usage, stdout);
        return GD_EXIT_OK;
    }
    if (strcmp(cmd, "--version") == 0 || strcmp(cmd, "version") == 0) {
        printf("gpudoctor %s\n", GD_VERSION);
        return GD_EXIT_OK;
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (strcmp(cmd, commands[i].name) == 0)
            return commands[i].run(argc - 1, argv + 1);
    for (size_t i = 0; i < sizeof planned / sizeof planned[0]; i++)
        if (strcmp(cmd, planned[i]) == 0)
            return gd_cli_error("'%s' is not available in this version yet", cmd);
    gd_cli_error("unknown command '%s'", cmd);
    fputs(usage, stderr);
    return GD_EXIT_ERROR;
}

int main(int argc, char **argv)
{
    return gd_cli_close_stdout(run(argc, argv));
}
