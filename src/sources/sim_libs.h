/* SPDX-License-Identifier: Apache-2.0 */
/* The simulated libraries of --sim (libnvidia-ml, libcuda, libcublasLt, libnccl). */
#ifndef GD_SIM_LIBS_H
#define GD_SIM_LIBS_H

#include "gpudoctor/context.h"

#include <stddef.h>

/* Directory holding the simulated libraries: the context's sim_dir, else the
 * directory of the running executable. Returns 0 or -1. */
int gd_sim_dir(const gd_ctx *ctx, char *out, size_t len);

#endif
