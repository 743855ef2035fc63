/* SPDX-License-Identifier: Apache-2.0 */
/* The job's bounded samples (include/gpudoctor/job.h). */
#include "gpudoctor/job.h"
#include "core/job_ring.h"

#include <stdlib.h>
#include <string.h>

static int job_grow(void *ud, size_t cap)
{
    gd_job_facts *j = ud;
    gd_job_sample *v = realloc(j->samples, cap * sizeof *v);
    if (!v)
        return -1;
    j->samples = v;
    return 0;
}

gd_job_sample *gd_job_push(gd_job_facts *j)
{
    long r = gd_ring_push(&j->ring, job_grow, j);
    if (r < 0)
        return NULL;
    gd_job_sample *s = &j->samples[r];
    memset(s, 0, sizeof *s);
    return s;
}

void gd_job_facts_free(gd_job_facts *j)
{
    if (!j)
        return;
    free(j->threads);
    free(j->procs);
    free(j->environ);
    free(j->samples);
    free(j);
}
