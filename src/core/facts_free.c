/* SPDX-License-Identifier: Apache-2.0 */
/* Freeing the facts, every part of them by its own model's free. Apart from
 * model.c, which the parts' models (job, PCIe, stack, bench, network) build on: so
 * model.c needs none of them. */
#include "gpudoctor/model.h"
#include "gpudoctor/bench.h"
#include "gpudoctor/job.h"
#include "gpudoctor/net.h"
#include "gpudoctor/pcie.h"
#include "gpudoctor/stack.h"

#include <stdlib.h>
#include <string.h>

void gd_facts_free(gd_facts *f)
{
    for (size_t i = 0; i < f->gpu_count; i++)
        free(f->gpus[i].processes);
    free(f->gpus);
    free(f->p2p_status);
    if (f->acc && f->acc_free)
        f->acc_free(f->acc);
    gd_series_free(&f->series);
    free(f->host_series.v);
    gd_pcie_facts_free(f->pcie);
    gd_stack_facts_free(f->stack);
    gd_job_facts_free(f->job);
    gd_bench_facts_free(f->bench);
    gd_net_facts_free(f->net);
    gd_events_free(&f->events);
    memset(f, 0, sizeof *f);
}
