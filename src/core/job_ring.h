/* SPDX-License-Identifier: Apache-2.0 */
/* Appending to the job's ring of samples (include/gpudoctor/job.h). */
#ifndef GD_CORE_JOB_RING_H
#define GD_CORE_JOB_RING_H

#include "gpudoctor/job.h"

/* A zeroed new sample (the oldest makes room at the limit), or NULL (no memory). */
gd_job_sample *gd_job_push(gd_job_facts *j);

#endif
