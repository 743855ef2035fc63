/* SPDX-License-Identifier: Apache-2.0 */
#include "facts_fixture.h"

#include "gpudoctor/job.h"
#include "gpudoctor/pcie.h"
#include "gpudoctor/stack.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void fx_facts(gd_facts *f, size_t gpus, size_t samples)
{
    memset(f, 0, sizeof *f);
    f->driver_loaded = true;
    snprintf(f->driver_version, sizeof f->driver_version, "550.54.15");
    f->cuda_driver_version = gd_val(12040);
    snprintf(f->source, sizeof f->source, "test");
    f->pid = -1; /* no job unless a test gives one (fx_job), as a session without --pid */
    f->gpu_count = gpus;
    f->gpus = calloc(gpus, sizeof *f->gpus);
    for (size_t g = 0; g < gpus; g++) {
        gd_gpu *x = &f->gpus[g];
        x->index = (int)g;
        snprintf(x->name, sizeof x->name, "NVIDIA H100 80GB HBM3");
        snprintf(x->pci_bus_id, sizeof x->pci_bus_id, "00000000:%02zX:00.0", 0x18 + g);
        x->temp_slowdown_c = gd_val(89);
        x->temp_shutdown_c = gd_val(92);
        x->temp_gpu_max_c = gd_val(87);
        x->temp_mem_max_c = gd_val(95);
        x->clock_max_sm_mhz = gd_val(1980);
        x->power_limit_w = gd_val(700);
        x->power_limit_default_w = gd_val(700);
        x->mem_total_mib = gd_val(81559);
    }
    gd_series_init(&f->series, gpus);
    for (size_t i = 0; i < samples; i++) {
        long k = gd_series_push(&f->series, (double)i);
        for (size_t g = 0; g < gpus; g++) {
            gd_value *row = gd_series_slot(&f->series, (size_t)k, g);
            row[GD_M_TEMP_C] = gd_val(65);
            row[GD_M_MEM_TEMP_C] = gd_val(60);
            row[GD_M_SM_CLOCK_MHZ] = gd_val(1980);
            row[GD_M_UTIL_GPU_PCT] = gd_val(98);
            row[GD_M_POWER_W] = gd_val(550);
            row[GD_M_EVENT_REASONS] = gd_val(0);
            row[GD_M_VIOL_THERMAL_NS] = gd_val(0); /* the thermal slowdown counter answers, still */
            row[GD_M_MEM_USED_MIB] = gd_val(60000);
        }
    }
}

void fx_set(gd_facts *f, size_t g, gd_metric m, size_t from, size_t to, double v)
{
    for (size_t i = from; i < to && i < f->series.n; i++)
        gd_series_slot(&f->series, i, g)[m] = gd_val(v);
}

void fx_unset(gd_facts *f, size_t g, gd_metric m, gd_status st)
{
    for (size_t i = 0; i < f->series.n; i++)
        gd_series_slot(&f->series, i, g)[m] = gd_missing(st);
}

void fx_run(const gd_facts *f, const char *id, gd_findings *out)
{
    fx_run_at(f, id, GD_AT_CHECK, out);
}

void fx_run_at(const gd_facts *f, const char *id, gd_where where, gd_findings *out)
{
    *out = (gd_findings){.where = where};
    const gd_check *c = gd_check_find(id);
    if (!c)
        fail_msg("no check %s", id);
    gd_check_run(c, f, out);
}

size_t fx_count(const gd_findings *fs, const char *id, int gpu)
{
    size_t n = 0;
    for (size_t i = 0; i < fs->n; i++)
        n += strcmp(fs->v[i].id, id) == 0 && (gpu == -2 || fs->v[i].gpu == gpu);
    return n;
}

size_t fx_run_count(const gd_facts *f, const char *id)
{
    gd_findings fs;
    fx_run(f, id, &fs);
    size_t n = fx_count(&fs, id, -2);
    gd_findings_free(&fs);
    return n;
}

void fx_assert_silent(const gd_facts *f, const char *id)
{
    gd_findings fs;
    fx_run(f, id, &fs);
    size_t n = fs.n, nskips = fs.nskips;
    gd_findings_free(&fs);
    if (n || nskips)
        fail_msg("%s: %zu findings and %zu notes, none expected", id, n, nskips);
}

const gd_finding *fx_only(const gd_findings *fs, const char *id)
{
    assert_int_equal(fx_count(fs, id, -2), 1);
    for (size_t i = 0; i < fs->n; i++)
        if (strcmp(fs->v[i].id, id) == 0)
            return &fs->v[i];
    return NULL;
}

void fx_env(gd_facts *f, const char *const *vars)
{
    if (!f->stack)
        f->stack = calloc(1, sizeof *f->stack);
    gd_stack_facts *s = f->stack;
    s->env_read = true;
    snprintf(s->env_source, sizeof s->env_source, "/proc/4242/environ");
    /* A test may set the environment again: the last one replaces the one before. */
    for (size_t i = 0; i < s->env_count; i++)
        free(s->env[i]);
    free(s->env);
    s->env_count = 0;
    size_t n = 0;
    while (vars[n])
        n++;
    s->env = calloc(n ? n : 1, sizeof *s->env);
    for (s->env_count = 0; s->env_count < n; s->env_count++)
        s->env[s->env_count] = strdup(vars[s->env_count]);
}

gd_cuda_runtime *fx_cuda_runtime(gd_facts *f, gd_runtime_kind kind, int version, const char *framework)
{
    if (!f->stack)
        f->stack = calloc(1, sizeof *f->stack);
    gd_stack_facts *s = f->stack;
    s->system_scanned = true;
    assert_true(s->runtime_count < GD_STACK_MAX_RUNTIMES);
    gd_cuda_runtime *rt = &s->runtimes[s->runtime_count++];
    memset(rt, 0, sizeof *rt);
    rt->kind = kind;
    rt->version = version;
    rt->python = -1;
    snprintf(rt->version_text, sizeof rt->version_text, "%d.%d", version / 1000, version % 1000 / 10);
    snprintf(rt->framework, sizeof rt->framework, "%s", framework);
    if (kind == GD_RT_TOOLKIT)
        snprintf(rt->path, sizeof rt->path, "/usr/local/cuda-%d.%d", version / 1000, version % 1000 / 10);
    else
        snprintf(rt->path, sizeof rt->path, "/venv/lib/python3.12/site-packages/torch/version.py");
    return rt;
}

bool fx_skipped(const gd_findings *fs, const char *id, int gpu, const char *why)
{
    for (size_t i = 0; i < fs->nskips; i++)
        if (strcmp(fs->skips[i].check, id) == 0 && fs->skips[i].gpu == gpu && strstr(fs->skips[i].reason, why))
            return true;
    return false;
}

gd_findings fx_run_one(const gd_facts *f, const char *id)
{
    gd_findings fs;
    fx_run(f, id, &fs);
    return fs;
}

/* A job on GPU 0 (pid 4242 in its process list), sampled n times. */
void fx_job(gd_facts *f, size_t n, double job_cores, double host_busy)
{
    f->pid = 4242;
    f->gpus[0].processes_status = gd_val(0);
    f->gpus[0].process_count = 1;
    f->gpus[0].processes = calloc(1, sizeof *f->gpus[0].processes);
    f->gpus[0].processes[0] = (gd_process){.pid = 4242, .used_mib = gd_val(60000)};
    gd_job_facts *j = calloc(1, sizeof *j);
    j->read = true;
    j->pid = 4242;
    j->samples = calloc(n, sizeof *j->samples);
    j->n = j->cap = n;
    for (size_t i = 0; i < n; i++)
        j->samples[i] =
            (gd_job_sample){.t = (double)i, .job_cores = job_cores, .top_thread_core = job_cores / 4, .threads = 8};
    f->job = j;
    /* The host, sampled on the same seconds. */
    gd_host_series *h = &f->host_series;
    h->v = calloc(n, sizeof *h->v);
    h->n = h->cap = n;
    for (size_t i = 0; i < n; i++)
        h->v[i] = (gd_host_sample){.t = (double)i, .busy = host_busy, .swap_in_ps = NAN, .swap_out_ps = NAN};
}

/* n threads of the job: the main one (pid 4242, busy main_core) and one per
 * worker process (pids 5000.., busy worker_core each), measured 19 times. */
void fx_job_threads(gd_facts *f, double main_core, size_t nworkers, double worker_core)
{
    gd_job_facts *j = f->job;
    j->threads = calloc(1 + nworkers, sizeof *j->threads);
    j->thread_count = 1 + nworkers;
    j->procs_max = 1 + nworkers;
    for (size_t i = 0; i <= nworkers; i++) {
        double c = i == 0 ? main_core : worker_core;
        j->threads[i] = (gd_job_thread){.pid = i == 0 ? 4242 : 5000 + (int)i,
                                        .tid = i == 0 ? 4242 : 5000 + (int)i,
                                        .seen = 20,
                                        .measured = 19,
                                        .busy_sum = 19 * c,
                                        .saturated = c >= 0.9 ? 19 : 0};
        snprintf(j->threads[i].comm, sizeof j->threads[i].comm, "%s", i == 0 ? "python3" : "pt_data_worker");
    }
}

/* A job of main_core plus nworkers at worker_core each, `cores` busy in all,
 * on `cpus` of `host_cpus`, beside GPU 0 that waits (20 % busy) or is fed. */
void fx_job_of(gd_facts *f, bool waits, double cores, double main_core, size_t nworkers, double worker_core, int cpus,
               int host_cpus)
{
    fx_facts(f, 1, 20);
    if (waits)
        fx_set(f, 0, GD_M_UTIL_GPU_PCT, 0, 20, 20);
    fx_job(f, 20, cores, 0.5);
    fx_job_threads(f, main_core, nworkers, worker_core);
    f->job->affinity_cpus = cpus;
    f->job->host_cpus = host_cpus;
}

/* A job of nprocs processes (pids 100..), 20 samples, beside GPUs that wait
 * (20 % busy) and whose NVML lists no process: a container. */
gd_job_facts *fx_container_job(gd_facts *f, size_t gpus, size_t nprocs)
{
    fx_facts(f, gpus, 20);
    for (size_t g = 0; g < gpus; g++) {
        fx_set(f, g, GD_M_UTIL_GPU_PCT, 0, 20, 20);
        f->gpus[g].processes_status = gd_val(0);
        f->gpus[g].process_count = 0;
        snprintf(f->gpus[g].uuid, sizeof f->gpus[g].uuid, "GPU-5e1d-%zu-4000-8000-00000000000%zu", g, g);
    }
    gd_job_facts *j = calloc(1, sizeof *j);
    j->read = true;
    j->pid = 100;
    f->pid = 100;
    j->samples = calloc(20, sizeof *j->samples);
    j->n = j->cap = 20;
    for (size_t i = 0; i < 20; i++)
        j->samples[i] = (gd_job_sample){.t = (double)i, .job_cores = 1.0, .threads = 4, .procs = (uint16_t)nprocs};
    j->procs = calloc(GD_JOB_MAX_PROCS, sizeof *j->procs);
    j->proc_count = nprocs;
    for (size_t i = 0; i < nprocs; i++)
        j->procs[i] = (gd_job_proc){.pid = 100 + (int)i, .ppid = i ? 99 + (int)i : 0, .rank = -1};
    j->gpu_minor_count = gpus;
    for (size_t g = 0; g < gpus; g++)
        j->gpu_minors[g] = (int)g;
    j->affinity_cpus = j->host_cpus = 8;
    j->threads = calloc(GD_JOB_MAX_THREADS, sizeof *j->threads);
    f->job = j;
    return j;
}

void fx_set_proc(gd_job_proc *p, const char *comm, const char *prog, bool python, bool torch)
{
    snprintf(p->comm, sizeof p->comm, "%s", comm);
    snprintf(p->prog, sizeof p->prog, "%s", prog);
    p->python = python;
    p->torch = torch;
}

/* A thread of pid: seen 20 times, runnable `running` of them, `core` busy,
 * `vcsw_ps` voluntary switches per second of its CPU time. */
void fx_add_thread(gd_job_facts *j, int pid, int tid, uint32_t running, double core, double vcsw_ps)
{
    gd_job_thread *t = &j->threads[j->thread_count++];
    *t = (gd_job_thread){.pid = pid,
                         .tid = tid,
                         .seen = 20,
                         .running = running,
                         .measured = 19,
                         .busy_sum = 19 * core,
                         .saturated = core >= 0.9 ? 19 : 0,
                         .vcsw_first = 0,
                         .vcsw_last = vcsw_ps * 19 * core,
                         .vcsw_first_t = 0,
                         .vcsw_last_t = 19,
                         .vcsw_first_cpu_s = 0,
                         .vcsw_last_cpu_s = 19 * core};
    snprintf(t->comm, sizeof t->comm, "python3");
}

/* GPUs with `links` active NVLinks each. */
void fx_nvlinks(gd_facts *f, size_t links)
{
    for (size_t g = 0; g < f->gpu_count; g++) {
        f->gpus[g].nvlink_count = links;
        for (size_t l = 0; l < links; l++) {
            f->gpus[g].nvlink[l].link = (unsigned)l;
            f->gpus[g].nvlink[l].active = gd_val(1);
            f->gpus[g].nvlink[l].replay_errors = gd_val(0);
            f->gpus[g].nvlink[l].recovery_errors = gd_val(0);
            f->gpus[g].nvlink[l].crc_flit_errors = gd_val(0);
            f->gpus[g].nvlink[l].crc_data_errors = gd_val(0);
        }
    }
}
/* Gives GPU g `active` of `links` NVLinks to an NVSwitch, version v. */
void fx_nvswitch(gd_facts *f, size_t g, size_t links, size_t active, double v)
{
    gd_gpu *x = &f->gpus[g];
    x->nvlink_count = links;
    for (size_t l = 0; l < links; l++) {
        x->nvlink[l].link = (unsigned)l;
        x->nvlink[l].active = gd_val(l < active);
        x->nvlink[l].version = l < active ? gd_val(v) : gd_missing(GD_ST_NOT_SUPPORTED);
        snprintf(x->nvlink[l].remote_pci_bus_id, sizeof x->nvlink[l].remote_pci_bus_id, "00000000:%02zX:00.0",
                 0xc0 + l % 4);
    }
}

/* A path from literal bdfs, deepest first; the last is the root port. */
void fx_pcie_path(gd_pcie_gpu *g, const char *hb, int numa, const char *const *bdfs)
{
    memset(g, 0, sizeof *g);
    snprintf(g->host_bridge, sizeof g->host_bridge, "%s", hb);
    g->numa_node = numa >= 0 ? gd_val(numa) : gd_missing(GD_ST_NOT_SUPPORTED);
    while (bdfs[g->hop_count]) {
        gd_pcie_hop *h = &g->hops[g->hop_count];
        snprintf(h->bdf, sizeof h->bdf, "%s", bdfs[g->hop_count]);
        g->hop_count++;
    }
    snprintf(g->bdf, sizeof g->bdf, "%s", bdfs[0]);
    snprintf(g->hops[0].role, sizeof g->hops[0].role, "gpu");
    snprintf(g->hops[g->hop_count - 1].role, sizeof g->hops[0].role, "root_port");
}

/* f->pcie for f's GPUs (bus 18+g): each GPU behind its own switch
 * port, a switch upstream port 0000:17:00.0 they share and the root port
 * 0000:16:01.0, with AER counters at zero; a PCIe-only matrix. */
gd_pcie_facts *fx_pcie_switch_tree(gd_facts *f)
{
    gd_pcie_facts *p = calloc(1, sizeof *p);
    p->gpu_count = f->gpu_count;
    p->gpus = calloc(f->gpu_count, sizeof *p->gpus);
    p->matrix = calloc(f->gpu_count * f->gpu_count, sizeof *p->matrix);
    for (size_t g = 0; g < f->gpu_count; g++) {
        char gpu[16], port[16];
        snprintf(gpu, sizeof gpu, "0000:%02x:00.0", (unsigned)(0x18 + g) & 0xffu);
        snprintf(port, sizeof port, "0000:17:%02x.0", (unsigned)(g + 1) & 0x1fu);
        gd_pcie_gpu *pg = &p->gpus[g];
        fx_pcie_path(pg, "pci0000:16", 0, (const char *const[]){gpu, port, "0000:17:00.0", "0000:16:01.0", NULL});
        pg->gpu = (int)g;
        pg->matched = true;
        snprintf(pg->hops[1].role, sizeof pg->hops[1].role, "switch_port");
        snprintf(pg->hops[2].role, sizeof pg->hops[2].role, "switch_port");
        for (size_t k = 0; k < pg->hop_count; k++)
            pg->hops[k].aer_cor = pg->hops[k].aer_nonfatal = pg->hops[k].aer_fatal = gd_val(0);
        for (size_t b = 0; b < f->gpu_count; b++)
            p->matrix[g * f->gpu_count + b] = (gd_topo_cell){b == g ? GD_TOPO_SELF : GD_TOPO_PXB, 0};
    }
    f->pcie = p;
    return p;
}

char *fx_read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    rewind(f);
    char *buf = calloc(1, (size_t)n + 1);
    if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
        free(buf);
        buf = NULL;
    }
    fclose(f);
    return buf;
}

void fx_facts_no_peer_access(gd_facts *f, size_t n)
{
    fx_facts(f, n, 10);
    f->p2p_status = calloc(n * n, sizeof *f->p2p_status);
    for (size_t a = 0; a < n; a++) {
        f->gpus[a].pcie_gen_max = gd_val(4);
        f->gpus[a].pcie_width_max = gd_val(16);
        for (size_t b = 0; b < n; b++)
            f->p2p_status[a * n + b] = a == b ? -1 : 5; /* NVML_P2P_STATUS_NOT_SUPPORTED */
    }
}
