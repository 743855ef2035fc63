/* gpudoctor bench: active measurements. This version has `bench pcie`. */
#include "backends/collect.h"
#include "cli.h"
#include "gpudoctor/checks.h"
#include "gpudoctor/pcie.h"
#include "probes/pcie_bandwidth.h"
#include "report/pcie_report.h"
#include "core/pcie_util.h"

#include <getopt.h>
#include <stdio.h>
#include <limits.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

const char gd_bench_help[] = "usage: gpudoctor bench [pcie|gemm|membw|all] [--json] [--sim SCENARIO]\n"
                             "                       [--size MIB] [--reps N] [--no-concurrent]\n"
                             "\n"
                             "pcie: host-to-device and device-to-host copy bandwidth, from pinned and from\n"
                             "pageable memory, each GPU alone and then all GPUs at once, compared with what\n"
                             "the GPU's PCIe link allows (Gen3 x16 15.75, Gen4 31.5, Gen5 63 GB/s per\n"
                             "direction; healthy links reach about 80%). Run it on an idle machine: other\n"
                             "traffic lowers the figures. gemm and membw come in a later version.\n"
                             "\n"
                             "  --json           results as JSON (docs/pcie.md)\n"
                             "  --sim SCENARIO   a simulated machine: copies take the scenario's bandwidth_gbps\n"
                             "  --size MIB       bytes per copy (default 256; 160 under --sim)\n"
                             "  --reps N         timed copies per figure, median reported (default 5)\n"
                             "  --no-concurrent  skip the all-GPUs-at-once pass\n";

/* Runs the one check that judges bench results. */
static void judge(const gd_facts *f, gd_findings *fs)
{
    gd_check_run(gd_check_find("pcie.bandwidth_low"), f, fs);
    gd_findings_sort(fs);
}

const struct option gd_bench_options[] = {
    {"json", no_argument, NULL, 'j'},
    {"sim", required_argument, NULL, 's'},
    {"size", required_argument, NULL, 'b'},
    {"reps", required_argument, NULL, 'r'},
    {"no-concurrent", no_argument, NULL, 'n'},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

int gd_cmd_bench(int argc, char **argv)
{
    int json = 0, c;
    const char *sim = NULL;
    double mib = 0;
    long reps = 0;
    bool concurrent = true;
    optind = 1;
    opterr = 0;
    /* No '+': options may follow the benchmark's name ("bench pcie --json"). */
    while ((c = getopt_long(argc, argv, ":h", gd_bench_options, NULL)) != -1) {
        switch (c) {
        case 'j': json = 1; break;
        case 's': sim = optarg; break;
        case 'b':
            if (gd_cli_number(optarg, 1, 16384, &mib) != 0)
                return gd_cli_error("--size wants MiB between 1 and 16384, not '%s'", optarg);
            break;
        case 'r':
            if (gd_cli_integer(optarg, 1, 64, &reps) != 0)
                return gd_cli_error("--reps wants a whole number between 1 and 64, not '%s'", optarg);
            break;
        case 'n': concurrent = false; break;
        case 'h': fputs(gd_bench_help, stdout); return GD_EXIT_OK;
        case ':': return gd_cli_error("%s needs a value (see 'gpudoctor bench --help')", argv[optind - 1]);
        default: return gd_cli_error("unknown option '%s' (see 'gpudoctor bench --help')", argv[optind - 1]);
        }
    }
    const char *what = optind < argc ? argv[optind++] : "pcie"; /* the one this version has */
    if (optind < argc)
        return gd_cli_error("unexpected argument '%s' (see 'gpudoctor bench --help')", argv[optind]);
    if (strcmp(what, "gemm") == 0 || strcmp(what, "membw") == 0 || strcmp(what, "all") == 0)
        return gd_cli_error("'bench %s' is not available in this version yet; 'bench pcie' is", what);
    if (strcmp(what, "pcie") != 0)
        return gd_cli_error("unknown benchmark '%s': pcie, gemm, membw or all", what);

    gd_ctx ctx;
    int crc = gd_cli_context(&ctx);
    if (crc != 0)
        return crc;
    gd_collect_opts co = {.ctx = &ctx, .sim_scenario = sim, .duration_s = 0, .interval_s = 1, .pid = -1};
    gd_facts f;
    char err[1024];
    /* Under --sim, the simulated libcuda beside the simulated NVML plays the same scenario. */
    char cuda[PATH_MAX + 16] = "", scenario[PATH_MAX] = "";
    if (sim) {
        char dir[PATH_MAX];
        if (gd_sim_dir(&ctx, dir, sizeof dir) != 0)
            return gd_cli_error("cannot find the directory of the simulated libraries (set GPUDOCTOR_SIM_DIR)");
        snprintf(cuda, sizeof cuda, "%s/libcuda.so.1", dir);
        if (!realpath(sim, scenario))
            return gd_cli_error("%s: %s", sim, strerror(errno));
    }
    if (gd_collect(&co, &f, err, sizeof err) != 0) {
        gd_facts_free(&f);
        return gd_cli_error("%s", err);
    }
    /* Under --sim a copy is a timed sleep: 160 MiB keeps it quick (3 ms at
     * 50 GB/s) and long enough that wake-up latency stays near 1 %, and stays
     * above the simulator's 64 MiB of real device memory per buffer, so no
     * real memmove adds to the timing. */
    gd_pcie_bench_opts bo = {.bytes = (size_t)(mib > 0 ? mib
                                               : sim   ? 160
                                                       : 256)
                                      << 20,
                             .reps = (int)reps,
                             .concurrent = concurrent,
                             .cuda_library = sim ? cuda : ctx.cuda_library,
                             .sim_scenario = sim ? scenario : NULL};
    gd_pcie_bench *b = calloc(1, sizeof *b);
    gd_pcie_facts *p = b ? gd_pcie_facts_get(&f) : NULL;
    if (!p) {
        free(b);
        gd_facts_free(&f);
        return gd_cli_error("out of memory");
    }
    if (gd_pcie_bench_run(&bo, &f, b, err, sizeof err) != 0) {
        free(b);
        gd_facts_free(&f);
        return gd_cli_error("bench pcie: %s", err);
    }
    p->bench = b;
    /* The link that carried the copies: one sample read at once, before an
     * idle GPU trains it down (the snapshot above was taken idle). Only the
     * sample: closing without an error buffer skips the host areas (PCIe
     * tree, software stack), which the facts above already hold. */
    gd_facts after;
    char why[256];
    for (size_t i = 0; i < b->gpu_count; i++)
        b->gpus[i].link_gen = b->gpus[i].link_width = gd_missing(GD_ST_UNREAD);
    gd_session *s = gd_session_open(&co, &after, why, sizeof why);
    bool sampled = s && gd_session_step(s, why, sizeof why) > 0;
    gd_session_close(s, NULL, 0);
    if (sampled && after.series.n > 0)
        for (size_t i = 0; i < b->gpu_count; i++)
            for (size_t g = 0; g < after.gpu_count; g++)
                if (b->gpus[i].gpu >= 0 && after.gpus[g].index == b->gpus[i].gpu) {
                    b->gpus[i].link_gen = gd_series_at(&after.series, 0, g, GD_M_PCIE_GEN);
                    b->gpus[i].link_width = gd_series_at(&after.series, 0, g, GD_M_PCIE_WIDTH);
                }
    gd_facts_free(&after);
    gd_findings fs = {0};
    judge(&f, &fs);
    int code = GD_EXIT_OK;
    if (json) {
        json_t *j = gd_bench_pcie_json(&f, &fs);
        if (!j || gd_json_print(stdout, j) != 0)
            code = gd_cli_error("cannot write JSON");
        json_decref(j);
    } else {
        gd_bench_pcie_text(stdout, &f, &fs);
    }
    gd_findings_free(&fs);
    gd_facts_free(&f);
    return code;
}
