/* SPDX-License-Identifier: Apache-2.0 */
/* gpudoctor: finds out why a GPU server trains slower than it should. */
#include "cli.h"
#include "core/data_tables.h"
#include "gpudoctor/checks.h"

#include <stdio.h>
#include <string.h>

/* The subcommands: one row each, one file each (cmd_NAME.c). A command that
 * a later version adds is a row here, and the top-level help lists it. */
static const gd_cli_command commands[] = {
    {"check",
     "watch the GPUs for a while and report problems (exit 0 ok, 1 warning,\n"
     "           2 critical, 3 could not check)",
     gd_check_help, gd_check_options, gd_cmd_check, true},
    {"info", "what the driver tells about each GPU, on one screen", gd_info_help, gd_info_options, gd_cmd_info, false},
    {"watch",
     "the GPUs live (a full-screen view, or dmon-like lines in a pipe), the\n"
     "           diagnosis running; --record FILE.jsonl keeps it for 'check --from'",
     gd_watch_help, gd_watch_options, gd_cmd_watch, true},
    {"vram", "the memory a training run needs per GPU and whether it fits", gd_vram_help, gd_vram_options, gd_cmd_vram,
     false},
    {"topo", "how the GPUs connect (NVLink, PCIe switches, NUMA) and their NICs", gd_topo_help, gd_snapshot_options,
     gd_cmd_topo, false},
    {"bench", "measure: 'bench pcie' copies between host and each GPU", gd_bench_help, gd_bench_options, gd_cmd_bench,
     true},
    {"trace", "why the GPU waits, from a PyTorch profiler trace (file or directory)", gd_trace_help, gd_trace_options,
     gd_cmd_trace, false},
    {"run", "run a training job and watch it: input starvation, loaders, ...", gd_run_help, gd_run_options, gd_cmd_run,
     true},
    {"export", "Prometheus metrics (dcgm-exporter's names) and findings, on /metrics", gd_export_help,
     gd_export_options, gd_cmd_export, false},
    {"fleet", "compare many nodes' check reports: outlier GPUs and causes they share", gd_fleet_help, gd_fleet_options,
     gd_cmd_fleet, false},
};
#define NCOMMANDS (sizeof commands / sizeof commands[0])

static const char help_help[] = "usage: gpudoctor help [COMMAND | findings]\n"
                                "       gpudoctor help --commands | --options COMMAND | --values OPTION\n"
                                "\n"
                                "Prints the help of COMMAND ('gpudoctor help check' is 'gpudoctor check --help'),\n"
                                "or without one the list of commands. 'gpudoctor help findings' lists every\n"
                                "finding id with its group and what it looks at: the ids --ignore and the\n"
                                "config file take (docs/checks.md has the rules).\n"
                                "\n"
                                "  --commands         the command names, one per line (for scripts, completion)\n"
                                "  --options COMMAND  COMMAND's options, one per line, '=' after those that\n"
                                "                     take a value (the parser's own table)\n"
                                "  --values OPTION    the values OPTION takes, one per line, for completion:\n"
                                "                     words, or <file>, <dir>, <finding> (a finding id), or\n"
                                "                     nothing when the value is free (a number, a size)\n";

/* What an option's value is, for completion: its words, or <file>, <dir>,
 * <finding>. Options missing here take a free value (a number, a size). */
static const struct {
    const char *option, *values;
} option_values[] = {
    {"sim", "<file>"},
    {"from", "<file>"},
    {"config", "<file>"},
    {"python", "<file>"},
    {"report", "<file>"},
    {"record", "<file>"},
    {"output", "<file>"},
    {"profile-dir", "<dir>"},
    {"hpc-job-mapping-dir", "<dir>"},
    {"ignore", "<finding>"},
    {"fail-on", "warning critical"},
    {"exit-codes", "nagios npd npd-healthy"},
    {"dtype", "bf16 fp16 tf32 fp32 fp8"},
    {"format", "table csv jsonl"},
    {"precision", "fp32 mixed bf16"},
    {"optimizer", "adam adamw sgd adam8bit"},
    {"offload", "none optimizer all"},
    {"method", "full lora qlora"},
    {"sharding", "none zero1 zero2 zero3 fsdp"},
    {"lora-targets", "attention all q k v o gate up down"},
    {"shape-from", "llama"},
    {"gpu", "<board>"},
};

/* help --values OPTION */
static int values_of(const char *option)
{
    while (*option == '-')
        option++;
    for (size_t i = 0; i < sizeof option_values / sizeof option_values[0]; i++) {
        if (strcmp(option_values[i].option, option) != 0)
            continue;
        const char *v = option_values[i].values;
        if (strcmp(v, "<finding>") == 0) {
            for (size_t k = 0; k < gd_checks_count; k++)
                printf("%s\n", gd_checks[k].id);
        } else if (strcmp(v, "<board>") == 0) {
            gd_gpu_board b;
            for (size_t k = 0; gd_gpu_board_at(k, &b); k++)
                printf("%s\n", b.name);
        } else {
            for (const char *w = v; *w;) {
                size_t n = strcspn(w, " ");
                printf("%.*s\n", (int)n, w);
                w += n + (w[n] == ' ');
            }
        }
        return GD_EXIT_OK;
    }
    return GD_EXIT_OK; /* a free value: nothing to offer */
}

/* help findings: every finding id, its group and what it looks at. */
static void findings_list(void)
{
    char *text = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&text, &len);
    if (!m)
        return;
    fprintf(m, "Finding ids (for --ignore ID[@GPU] and the config file's [ignore]):\n\n");
    const char *group = "";
    for (size_t k = 0; k < gd_checks_count; k++) {
        const gd_check *c = &gd_checks[k];
        if (strcmp(group, c->group) != 0) {
            fprintf(m, "%s%s\n", k ? "\n" : "", c->group);
            group = c->group;
        }
        fprintf(m, "  %-28s %s\n", c->id, c->summary);
    }
    fprintf(m, "\ndocs/checks.md gives each one's rule, severities and fix.\n");
    if (fclose(m) == 0 && text)
        gd_cli_help_print(stdout, text);
    free(text);
}

static const struct option help_options[] = {
    {"commands", no_argument, NULL, 'c'},
    {"options", required_argument, NULL, 'o'},
    {"values", required_argument, NULL, 'v'},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

static void usage(FILE *out)
{
    char *text = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&text, &len);
    if (!m)
        return;
    fputs("usage: gpudoctor COMMAND [OPTIONS]\n"
          "\n"
          "Finds out why a GPU server trains AI models slower than it should, proves it\n"
          "with numbers, and says how to fix it.\n"
          "\n"
          "Commands:\n",
          m);
    for (size_t i = 0; i < NCOMMANDS; i++)
        fprintf(m, "  %-8s %s\n", commands[i].name, commands[i].summary);
    fprintf(m, "  %-8s %s\n", "help", "a command's help: 'gpudoctor help check'");
    fputs("\n"
          "Every command that reads the machine takes --sim SCENARIO to run against a\n"
          "simulated machine instead (see examples/).\n"
          "\n"
          "Examples:\n"
          "  gpudoctor check                       diagnose this machine (10 s window)\n"
          "  gpudoctor check --duration 60 --json  a longer window, machine-readable\n"
          "  gpudoctor info --sim examples/h100x8-training.json\n"
          "  gpudoctor vram --config examples/models/llama-2-7b.json --gpus 1 \\\n"
          "      --gpu-memory 80G\n"
          "\n"
          "Run 'gpudoctor help COMMAND' or 'gpudoctor COMMAND --help' for a command's\n"
          "options, 'man gpudoctor' for all of them.\n",
          m);
    if (fclose(m) == 0 && text)
        gd_cli_help_print(out, text); /* the summaries wrap to the terminal */
    free(text);
}

static const gd_cli_command *find(const char *name)
{
    for (size_t i = 0; i < NCOMMANDS; i++)
        if (strcmp(name, commands[i].name) == 0)
            return &commands[i];
    return NULL;
}

static int unknown(const char *cmd)
{
    gd_cli_error("unknown command '%s' (see 'gpudoctor --help')", cmd);
    return GD_EXIT_ERROR;
}

/* gpudoctor help [COMMAND | --commands | --options COMMAND] */
static int help(int argc, char **argv)
{
    optind = 1;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, "+:h", help_options, NULL)) != -1) {
        switch (c) {
        case 'c':
            for (size_t i = 0; i < NCOMMANDS; i++)
                printf("%s\n", commands[i].name);
            puts("help");
            return GD_EXIT_OK;
        case 'o': {
            const struct option *o = strcmp(optarg, "help") == 0 ? help_options : NULL;
            const gd_cli_command *cmd = find(optarg);
            if (cmd)
                o = cmd->options;
            if (!o)
                return unknown(optarg);
            for (; o->name; o++)
                printf("--%s%s\n", o->name, o->has_arg == no_argument ? "" : "=");
            return GD_EXIT_OK;
        }
        case 'v': return values_of(optarg);
        case 'h': gd_cli_help_print(stdout, help_help); return GD_EXIT_OK;
        case ':': return gd_cli_error("%s needs a value (see 'gpudoctor help --help')", argv[optind - 1]);
        default: return gd_cli_error("unknown option '%s' (see 'gpudoctor help --help')", argv[optind - 1]);
        }
    }
    if (optind == argc) {
        usage(stdout);
        return GD_EXIT_OK;
    }
    if (optind + 1 < argc)
        return gd_cli_error("unexpected argument '%s' (see 'gpudoctor help --help')", argv[optind + 1]);
    if (strcmp(argv[optind], "help") == 0) {
        gd_cli_help_print(stdout, help_help);
        return GD_EXIT_OK;
    }
    if (strcmp(argv[optind], "findings") == 0) {
        findings_list();
        return GD_EXIT_OK;
    }
    const gd_cli_command *cmd = find(argv[optind]);
    if (!cmd)
        return unknown(argv[optind]);
    gd_cli_help_print(stdout, cmd->help);
    return GD_EXIT_OK;
}

static int run(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return GD_EXIT_ERROR;
    }
    const char *cmd = argv[1];
    if (strcmp(cmd, "-h") == 0 || strcmp(cmd, "--help") == 0) {
        usage(stdout);
        return GD_EXIT_OK;
    }
    if (strcmp(cmd, "help") == 0)
        return help(argc - 1, argv + 1);
    if (strcmp(cmd, "--version") == 0 || strcmp(cmd, "version") == 0) {
        printf("gpudoctor %s\n", GD_VERSION);
        return GD_EXIT_OK;
    }
    const gd_cli_command *c = find(cmd);
    if (c && c->catches_stops)
        gd_cli_catch_stops();
    if (c) {
        gd_cli_json_errors(c->name, argc - 1, argv + 1);
        return gd_cli_json_error_exit(c->run(argc - 1, argv + 1));
    }
    unknown(cmd);
    usage(stderr);
    return GD_EXIT_ERROR;
}

int main(int argc, char **argv)
{
    return gd_cli_close_stdout(run(argc, argv));
}
