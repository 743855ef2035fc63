/* SPDX-License-Identifier: Apache-2.0 */
/*
 * NCCL's INFO log read into struct gd_nccl_log (gpudoctor/nccl_log.h): one
 * file or many (one per rank, or one per node) into one log.
 */
#ifndef GD_NCCL_LOG_READ_H
#define GD_NCCL_LOG_READ_H

#include "gpudoctor/nccl_log.h"

#include <stddef.h>

/* A new, empty log; NULL when out of memory. */
struct gd_nccl_log *gd_nccl_log_new(void);

/* Frees a log and what it holds (NULL is fine): f->net->nccl_free. */
void gd_nccl_log_free(struct gd_nccl_log *log);

/* Adds one file's text (name for the evidence). Lines that are not NCCL's
 * (the job's own output, shell prompts) are passed over. 0; -1 with a
 * message for bytes that are no text (a NUL). */
int gd_nccl_log_add(struct gd_nccl_log *log, const char *name, const char *text, size_t len, char *err, size_t errlen);

#endif
