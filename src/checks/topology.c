/* SPDX-License-Identifier: Apache-2.0 */
/* Topology: topology.numa_mismatch (the job's CPUs and memory against its
 * GPU's NUMA node), topology.iommu_p2p (IOMMU translation on PCIe P2P). */
#include "analysis/job_timeline.h"
#include "checks_internal.h"
#include "gpudoctor/pcie.h"
#include "core/pcie_util.h"

#include <stdlib.h>

/* The GPU whose process list holds the job, or one of its tree (torchrun's
 * ranks, a launcher's child) when the job's /proc was sampled; or -1. */
static long job_gpu(const gd_facts *f, long pid)
{
    for (size_t g = 0; g < f->gpu_count; g++)
        for (size_t k = 0; k < f->gpus[g].process_count; k++)
            if ((long)f->gpus[g].processes[k].pid == pid)
                return (long)g;
    bool *mine = f->job && f->job->read ? calloc(f->gpu_count + 1, sizeof *mine) : NULL;
    bool by_pid = false;
    long found = -1;
    if (mine && gd_job_gpus(f, mine, &by_pid) && by_pid)
        for (size_t g = 0; g < f->gpu_count && found < 0; g++)
            found = mine[g] ? (long)g : -1;
    free(mine);
    return found;
}

static const char *node_cpus(const gd_pcie_facts *p, int node, const gd_pcie_gpu *pg)
{
    for (size_t i = 0; i < p->node_count; i++)
        if (p->node_ids[i] == node)
            return p->node_cpulist[i];
    return pg->cpulist; /* local_cpulist: the same CPUs */
}

/* CPUs of a cpulist that also lie in another. */
static int cpus_within(const char *list, const char *within)
{
    int n = 0, total = gd_cpulist_count(list);
    for (int cpu = 0, seen = 0; seen < total && cpu < (1 << 20); cpu++)
        if (gd_cpulist_has(list, cpu)) {
            seen++;
            n += gd_cpulist_has(within, cpu);
        }
    return n;
}

void gd_check_numa_mismatch(const gd_check *self, const gd_facts *f, gd_findings *out)
{
    (void)self;
    const char *id = "topology.numa_mismatch";
    const gd_pcie_facts *p = f->pcie; /* and f->pid: the table's needs */
    if (!p->job.readable) {
        gd_skip_add(out, id, GD_NO_GPU, "the job %ld: %s", f->pid, p->job.why[0] ? p->job.why : "not readable");
        return;
    }
    long g = job_gpu(f, f->pid);
    if (g < 0) {
        gd_skip_add(out, id, GD_NO_GPU, "process %ld holds no GPU (not in any GPU's process list)", f->pid);
        return;
    }
    const gd_gpu *gpu = &f->gpus[g];
    const gd_pcie_gpu *pg = gd_pcie_gpu_of(f, gpu->index);
    if (!pg || !gd_ok(pg->numa_node)) {
        gd_skip_add(out, id, gpu->index, "GPU %d's NUMA node is not reported (single-node machine?)", gpu->index);
        return;
    }
    int node = (int)pg->numa_node.v;
    const char *local = node_cpus(p, node, pg);
    const gd_pcie_job *j = &p->job;
    int allowed = gd_cpulist_count(j->cpus_allowed), near = cpus_within(j->cpus_allowed, local);
    double total = 0, on_node = node < GD_PCIE_MAX_NODES ? j->pages[node] : 0;
    for (int k = 0; k < GD_PCIE_MAX_NODES; k++)
        total += j->pages[k];
    bool cpu_far = allowed > 0 && local[0] && near == 0;
    bool mem_far = j->has_pages && total > 0 ? on_node / total < GD_NUMA_LOCAL_PAGES_MIN_SHARE
                                             : j->mems_allowed[0] && !gd_cpulist_has(j->mems_allowed, node);
    if (!cpu_far && !mem_far)
        return;
    json_t *ev = json_object();
    json_object_set_new(ev, "pid", json_integer(f->pid));
    json_object_set_new(ev, "gpu_numa_node", json_integer(node));
    json_object_set_new(ev, "gpu_node_cpus", json_string(local));
    json_object_set_new(ev, "cpus_allowed", json_string(j->cpus_allowed));
    json_object_set_new(ev, "cpus_on_gpu_node", json_integer(near));
    json_object_set_new(ev, "mems_allowed", json_string(j->mems_allowed));
    if (j->has_pages && total > 0)
        json_object_set_new(ev, "memory_on_gpu_node_pct", gd_json_number(round(1000 * on_node / total) / 10));
    json_object_set_new(ev, "source", json_string("procfs:PID/status,PID/numa_maps;sysfs:numa_node,node/cpulist"));
    char fix[768];
    snprintf(fix, sizeof fix,
             "Start the job on the GPU's node: 'numactl --cpunodebind=%d --membind=%d <command>' (or for the "
             "running process 'taskset -acp %s %ld' for its CPUs; its memory moves with 'migratepages %ld all "
             "%d'). Under Slurm use --cpu-bind and --gpu-bind=closest; torchrun has --numa-binding on newer "
             "versions. Every host-device copy of this job otherwise crosses the socket interconnect.",
             node, node, local, f->pid, f->pid, node);
    gd_finding_add(out, id, GD_SEV_WARNING, gpu->index, ev, NAN, fix,
                   "Job %ld %s on another NUMA node than its GPU %d (node %d)", f->pid,
                   cpu_far && mem_far ? "runs and keeps its memory"
                   : cpu_far          ? "runs"
                                      : "keeps its memory",
                   gpu->index, node);
}

void gd_check_iommu_p2p(const gd_check *self, const gd_facts *f, gd_findings *out)
{
    const gd_pcie_facts *p = f->pcie;
    if (!p || p->gpu_count < 2 || !p->matrix)
        return;
    json_t *gpus = json_array();
    const char *type = "";
    size_t pcie_pairs = 0;
    for (size_t a = 0; a < p->gpu_count; a++) {
        const char *t = p->gpus[a].iommu_type;
        if (strcmp(t, "DMA") == 0 || strcmp(t, "DMA-FQ") == 0) {
            json_array_append_new(gpus, json_integer(p->gpus[a].gpu));
            type = t;
        }
        for (size_t b = a + 1; b < p->gpu_count; b++)
            pcie_pairs += p->matrix[a * p->gpu_count + b].nvlinks == 0;
    }
    if (json_array_size(gpus) < 2 || pcie_pairs == 0) {
        json_decref(gpus);
        return;
    }
    json_t *ev = json_object();
    json_object_set_new(ev, "gpus", gpus);
    json_object_set_new(ev, "iommu_group_type", json_string(type));
    json_object_set_new(ev, "gpu_pairs_over_pcie", json_integer((json_int_t)pcie_pairs));
    json_object_set_new(ev, "source", json_string("sysfs:iommu_group/type"));
    gd_finding_add(out, self->id, GD_SEV_WARNING, GD_NO_GPU, ev, NAN, NULL,
                   "IOMMU translates DMA (%s) for %zu GPUs that talk over PCIe: peer traffic detours through the CPU",
                   type, json_array_size(json_object_get(ev, "gpus")));
}
