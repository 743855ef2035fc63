/* The job's bounded samples (include/gpudoctor/job.h). */
#include "gpudoctor/job.h"
#include "core/job_ring.h"

#include <stdlib.h>
#include <string.h>

gd_job_sample *gd_job_push(gd_job_facts *j)
{
    if (j->limit && j->n == j->limit) { /* full ring: the oldest makes room */
        gd_job_sample *s = &j->samples[j->head];
        j->head = j->head + 1 < j->cap ? j->head + 1 : 0;
        j->dropped++;
        memset(s, 0, sizeof *s);
        return s;
    }
    if (j->n == j->cap) {
        size_t cap = j->cap ? j->cap * 2 : 64;
        if (j->limit && cap > j->limit)
            cap = j->limit;
        gd_job_sample *v = realloc(j->samples, cap * sizeof *v);
        if (!v)
            return NULL;
        j->samples = v;
        j->cap = cap;
    }
    gd_job_sample *s = &j->samples[j->n++];
    memset(s, 0, sizeof *s);
    return s;
}

void gd_job_facts_free(gd_job_facts *j)
{
    if (!j)
        return;
    free(j->threads);
    free(j->environ);
    free(j->samples);
    free(j);
}
