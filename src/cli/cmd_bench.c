/* SPDX-License-Identifier: Apache-2.0 */
/* gpudoctor bench: active measurements (docs/bench.md, docs/pcie.md). */
#include "sources/collect.h"
#include "sources/sim_libs.h"
#include "cli.h"
#include "analysis/launch_env.h"
#include "cli_bench.h"
#include "gpudoctor/bench.h"
#include "gpudoctor/checks.h"
#include "gpudoctor/pcie.h"
#include "gpudoctor/stack.h"
#include "probes/pcie_bandwidth.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char gd_bench_help[] = "usage: gpudoctor bench [pcie|gemm|membw|p2p|nccl|stress|all] [--json]\n"
                             "                       [--sim SCENARIO] [--force]\n"
                             "                       [--dtype bf16|fp16|tf32|fp32|fp8] [--size N]\n"
                             "                       [--seconds S] [--interval MS] [--reps N]\n"
                             "                       [--no-concurrent] [--python PATH]... [--report FILE.html]\n"
                             "                       [--exit-findings] [--nodes [--timeout S]]\n"
                             "\n"
                             "Makes the GPUs work and measures them, so that a GPU that is slow only under\n"
                             "load, or slower than its peers with no flag set, shows itself. Run it on an idle\n"
                             "machine: it refuses while another process uses a GPU (that would disturb a job\n"
                             "and measure nothing meaningful) unless --force.\n"
                             "\n"
                             "  pcie    host<->device copy bandwidth, pinned and pageable, each GPU alone and\n"
                             "          all at once, against the link's rate (the default)\n"
                             "  gemm    matrix-multiply TFLOP/s through cuBLASLt, each GPU alone and all at\n"
                             "          once, against the SKU's dense datasheet peak and the best GPU in the\n"
                             "          node; results checked on the host first\n"
                             "  membw   device memory bandwidth (read + write) by a copy-engine copy and by a\n"
                             "          read/write kernel, against the datasheet (H100 3350, H200 4800 GB/s)\n"
                             "  p2p     GPU-to-GPU copy bandwidth, every pair one way and both ways at once,\n"
                             "          against what its path allows (NVLinks x their rate, or the slowest\n"
                             "          PCIe hop) and its peers; pairs without P2P are staged through host\n"
                             "          memory, as NCCL would be\n"
                             "  nccl    all-reduce and all-gather bus bandwidth over all GPUs through NCCL\n"
                             "          (libnccl.so.2), 8 MiB to 1 GiB, against what the GPUs' topology\n"
                             "          allows (the slowest ring edge); one all-reduce checked on the host\n"
                             "          first. With one GPU it says so and exits 3, as p2p does\n"
                             "  nccl --nodes\n"
                             "          the all-reduce across the nodes of a launch: start one gpudoctor per\n"
                             "          node through Slurm ('srun -N 4 --ntasks-per-node=1 gpudoctor bench\n"
                             "          nccl --nodes') or torchrun's variables (RANK, WORLD_SIZE, MASTER_ADDR,\n"
                             "          MASTER_PORT); each drives every GPU of its node, no MPI. Judged\n"
                             "          against what the nodes' RDMA NICs allow; when it is slow, node pairs\n"
                             "          say which node or link (and its NIC). Rank 0 prints the one report\n"
                             "  stress  GEMM on every GPU at once for --seconds (default 300) while clocks,\n"
                             "          temperature, power and throttle reasons are sampled; the thermal,\n"
                             "          power and clock checks judge that window; per-GPU curves\n"
                             "  all     pcie, gemm, membw, and p2p and nccl with two GPUs or more, one\n"
                             "          report\n"
                             "\n"
                             "  --json           results as JSON (docs/bench.md; pcie: docs/pcie.md)\n"
                             "  --sim SCENARIO   a simulated machine: copies, multiplies and kernels take the\n"
                             "                   time the scenario's bandwidth_gbps and gemm_tflops imply\n"
                             "  --force          run even while other processes use the GPUs\n"
                             "  --dtype T        GEMM type (default bf16; fp8 is e4m3, Hopper and newer)\n"
                             "  --size N         gemm, stress: M = N = K (default 8192); pcie, membw, p2p: MiB\n"
                             "                   per copy (pcie 256, 160 under --sim; membw 1024, 8192\n"
                             "                   --sim; p2p 256); nccl: one size in MiB instead of the sweep\n"
                             "  --seconds S      gemm: per figure (default 5; 0.25 under --sim); stress: the\n"
                             "                   window (default 300; scenario seconds under --sim, played\n"
                             "                   as fast as check plays them); its progress goes to stderr\n"
                             "  --interval MS    stress: sampling interval (default 1000)\n"
                             "  --reps N         pcie, membw, p2p: timed copies per figure, median reported;\n"
                             "                   nccl: timed collectives per size (default 20), mean reported\n"
                             "  --no-concurrent  skip the all-GPUs-at-once pass (pcie, gemm)\n"
                             "  --python PATH    an environment whose NVIDIA wheels hold cuBLASLt, searched\n"
                             "                   before libcublasLt.so.13, .12, .11 on the loader's path and\n"
                             "                   the toolkit's (CUDA_HOME); GPUDOCTOR_CUBLASLT_LIBRARY: one;\n"
                             "                   and NCCL (nvidia/nccl/lib), before libnccl.so.2 on the\n"
                             "                   loader's path and the toolkit's; GPUDOCTOR_NCCL_LIBRARY: one\n"
                             "  --report FILE    stress, nccl --nodes: also write the report as HTML\n"
                             "  --nodes          nccl: across the nodes of a Slurm or torchrun launch (above)\n"
                             "  --timeout S      --nodes: how long a rank is waited for (default 60); a rank\n"
                             "                   that does not come is named, nothing waits longer\n"
                             "  --exit-findings  exit 1/2 on warning/critical findings, as check does (else 0)\n"
                             "\n"
                             "Ctrl-C, SIGTERM or SIGHUP end a stress window early: the report (and --report's\n"
                             "page) covers what ran until then. They end the other benchmarks within about a\n"
                             "second with the report of what was measured.\n";

enum {
    OPT_DTYPE = 256,
    OPT_SECONDS,
    OPT_INTERVAL,
    OPT_FORCE,
    OPT_PYTHON,
    OPT_REPORT,
    OPT_EXIT,
    OPT_NODES,
    OPT_TIMEOUT
};

const struct option gd_bench_options[] = {
    {"json", no_argument, NULL, 'j'},
    {"sim", required_argument, NULL, 's'},
    {"size", required_argument, NULL, 'b'},
    {"reps", required_argument, NULL, 'r'},
    {"no-concurrent", no_argument, NULL, 'n'},
    {"dtype", required_argument, NULL, OPT_DTYPE},
    {"seconds", required_argument, NULL, OPT_SECONDS},
    {"interval", required_argument, NULL, OPT_INTERVAL},
    {"force", no_argument, NULL, OPT_FORCE},
    {"python", required_argument, NULL, OPT_PYTHON},
    {"report", required_argument, NULL, OPT_REPORT},
    {"exit-findings", no_argument, NULL, OPT_EXIT},
    {"nodes", no_argument, NULL, OPT_NODES},
    {"timeout", required_argument, NULL, OPT_TIMEOUT},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

static int parse(int argc, char **argv, gd_bench_cli *o)
{
    int c;
    optind = 1;
    opterr = 0;
    /* No '+': options may follow the benchmark's name ("bench pcie --json"). */
    while ((c = getopt_long(argc, argv, ":h", gd_bench_options, NULL)) != -1) {
        switch (c) {
        case 'j': o->json = 1; break;
        case 's': o->sim = gd_cli_scenario(optarg); break;
        case 'b':
            if (gd_cli_number(optarg, 1, 65536, &o->size) != 0)
                return gd_cli_error("--size wants a number between 1 and 65536, not '%s'", optarg);
            break;
        case 'r':
            if (gd_cli_integer(optarg, 1, 64, &o->reps) != 0)
                return gd_cli_error("--reps wants a whole number between 1 and 64, not '%s'", optarg);
            break;
        case 'n': o->concurrent = false; break;
        case OPT_DTYPE:
            if (gd_gemm_dtype_parse(optarg, &o->dtype) != 0)
                return gd_cli_error("--dtype wants bf16, fp16, tf32, fp32 or fp8, not '%s'", optarg);
            break;
        case OPT_SECONDS:
            if (gd_cli_duration(optarg, 1, 0.01, 7 * 86400, &o->seconds) != 0)
                return gd_cli_error("--seconds wants a duration between 0.01 s and 7 days, not '%s'", optarg);
            break;
        case OPT_INTERVAL:
            if (gd_cli_interval(optarg, &o->interval_ms) != 0)
                return GD_EXIT_ERROR;
            break;
        case OPT_FORCE: o->force = true; break;
        case OPT_PYTHON:
            if (o->python_count == GD_BENCH_MAX_PYTHONS)
                return gd_cli_error("at most %d --python paths", GD_BENCH_MAX_PYTHONS);
            o->python[o->python_count++] = optarg;
            break;
        case OPT_REPORT: o->report = optarg; break;
        case OPT_EXIT: o->exit_findings = true; break;
        case OPT_NODES: o->nodes = true; break;
        case OPT_TIMEOUT:
            if (gd_cli_duration(optarg, 1, 0.1, 86400, &o->timeout_s) != 0)
                return gd_cli_error("--timeout wants a duration between 0.1 s and a day, not '%s'", optarg);
            break;
        case 'h': gd_cli_help_print(stdout, gd_bench_help); return GD_EXIT_OK;
        case ':': return gd_cli_error("%s needs a value (see 'gpudoctor bench --help')", argv[optind - 1]);
        default: return gd_cli_error("unknown option '%s' (see 'gpudoctor bench --help')", argv[optind - 1]);
        }
    }
    o->what = optind < argc ? argv[optind++] : "pcie";
    if (optind < argc)
        return gd_cli_error("unexpected argument '%s' (see 'gpudoctor bench --help')", argv[optind]);
    static const char *const known[] = {"pcie", "gemm", "membw", "p2p", "nccl", "stress", "all"};
    bool ok = false;
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
        ok |= strcmp(o->what, known[i]) == 0;
    if (!ok)
        return gd_cli_error("unknown benchmark '%s': pcie, gemm, membw, p2p, nccl, stress or all", o->what);
    bool stress = strcmp(o->what, "stress") == 0, all = strcmp(o->what, "all") == 0;
    /* Every benchmark stops on Ctrl-C, SIGTERM or SIGHUP with what it
     * measured (the stop handler stays). */
    bool nccl = strcmp(o->what, "nccl") == 0;
    if (o->nodes && !nccl)
        return gd_cli_error("--nodes is for 'bench nccl' (the all-reduce across nodes)");
    /* One task per node: a second on the same node would drive the same GPUs
     * (under --sim each task plays a node of its own, as the tests run it). */
    gd_launch l;
    char lerr[256];
    if (o->nodes && !o->sim && gd_launch_from_env(gd_cli_env_lookup, NULL, &l, lerr, sizeof lerr) == 0 &&
        l.local_rank > 0)
        return gd_cli_error("bench nccl --nodes runs one task per node, each driving all of its node's GPUs; this is "
                            "local rank %d of its node: start it with 'srun --ntasks-per-node=1' (torchrun: "
                            "--nproc-per-node 1)",
                            l.local_rank);
    if (o->timeout_s > 0 && !o->nodes)
        return gd_cli_error("--timeout is for 'bench nccl --nodes' (how long a rank is waited for)");
    if (o->report && !stress && !o->nodes)
        return gd_cli_error("--report is for 'bench stress' (the window's plots) and 'bench nccl --nodes'");
    if (o->interval_ms > 0 && !stress)
        return gd_cli_error("--interval is for 'bench stress'");
    if (o->size > 0 && all)
        return gd_cli_error(
            "--size means MiB for pcie, membw, p2p and nccl and the matrix size for gemm: give it to one "
            "benchmark at a time");
    if (o->size > 0 && (stress || strcmp(o->what, "gemm") == 0) && (o->size < 16 || o->size != (long)o->size))
        return gd_cli_error("--size for a GEMM wants a whole number of at least 16, not %g", o->size);
    if (o->report && gd_cli_report_writable(o->report) != 0)
        return GD_EXIT_ERROR;
    return -1;
}

/* Refuses when another process uses a GPU: 0 to go on, or the exit code. */
static int refuse_busy(const gd_bench_cli *o, const gd_facts *f)
{
    for (size_t g = 0; g < f->gpu_count; g++) {
        const gd_gpu *gpu = &f->gpus[g];
        if (gpu->process_count == 0 || o->force)
            continue;
        const gd_process *p = &gpu->processes[0];
        return gd_cli_error("GPU %d is in use by process %u%s%s%s%s: a benchmark would disturb it and measure "
                            "nothing meaningful. Stop it, or pass --force to measure anyway",
                            gpu->index, p->pid, p->name[0] ? " (" : "", p->name, p->name[0] ? ")" : "",
                            gpu->process_count > 1 ? " and others" : "");
    }
    return 0;
}

int gd_cmd_bench(int argc, char **argv)
{
    gd_bench_cli o = {.concurrent = true, .dtype = GD_GEMM_BF16};
    int rc = parse(argc, argv, &o);
    if (rc >= 0)
        return rc;
    gd_ctx ctx;
    int crc = gd_cli_context(&ctx);
    if (crc != 0)
        return crc;
    o.ctx = &ctx;
    /* Under --sim the simulated libcuda, libcublasLt and libnccl beside the
     * simulated NVML play the same scenario. */
    if (o.sim) {
        char dir[PATH_MAX];
        if (gd_sim_dir(&ctx, dir, sizeof dir) != 0)
            return gd_cli_error("cannot find the directory of the simulated libraries (set GPUDOCTOR_SIM_DIR)");
        snprintf(o.sim_cuda, sizeof o.sim_cuda, "%s/libcuda.so.1", dir);
        snprintf(o.sim_cublaslt, sizeof o.sim_cublaslt, "%s/libcublasLt.so.13", dir);
        snprintf(o.sim_nccl, sizeof o.sim_nccl, "%s/libnccl.so.2", dir);
        if (!realpath(o.sim, o.scenario))
            return gd_cli_error("%s: %s", o.sim, strerror(errno));
    }
    gd_collect_opts co = {.ctx = &ctx,
                          .sim_scenario = o.sim,
                          .duration_s = 0,
                          .interval_s = 1,
                          .pid = -1,
                          .python = o.python,
                          .python_count = o.python_count};
    gd_facts f;
    char err[1024];
    if (gd_collect(&co, &f, err, sizeof err) != 0) {
        gd_facts_free(&f);
        return gd_cli_error("%s", err);
    }
    if (!f.driver_loaded && !o.sim) { /* said before the facts (and the reason in them) are freed */
        gd_cli_error("cannot benchmark: no NVIDIA driver: %s", f.driver_error);
        gd_facts_free(&f);
        return GD_EXIT_ERROR;
    }
    if ((rc = refuse_busy(&o, &f)) != 0) {
        gd_facts_free(&f);
        return rc;
    }
    if (strcmp(o.what, "stress") == 0)
        rc = gd_cli_bench_stress(&o, &co, &f);
    else if (o.nodes)
        rc = gd_cli_bench_nodes(&o, &f);
    else
        rc = gd_cli_bench_measure(&o, &co, &f);
    gd_facts_free(&f);
    return rc;
}
