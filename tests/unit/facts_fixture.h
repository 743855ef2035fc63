/* SPDX-License-Identifier: Apache-2.0 */
/* Builds literal facts for check tests: N GPUs, S samples, healthy defaults. */
#ifndef GD_FACTS_FIXTURE_H
#define GD_FACTS_FIXTURE_H

#include "gpudoctor/checks.h"
#include "gpudoctor/model.h"

/* A loaded, healthy H100-like node: util 98 %, 65 C, full clocks, 1 s apart. */
void fx_facts(gd_facts *f, size_t gpus, size_t samples);

/* Sets metric m of GPU g to v in samples [from, to). */
void fx_set(gd_facts *f, size_t g, gd_metric m, size_t from, size_t to, double v);

/* Marks metric m of GPU g unreadable (status st) in every sample. */
void fx_unset(gd_facts *f, size_t g, gd_metric m, gd_status st);

/* Runs one registered check by id into out (which it initialises). */
void fx_run(const gd_facts *f, const char *id, gd_findings *out);

/* Runs check id and counts its findings (any GPU). */
size_t fx_run_count(const gd_facts *f, const char *id);

/* Number of findings with this id (and GPU, or any GPU with -2). */
size_t fx_count(const gd_findings *fs, const char *id, int gpu);

#endif
