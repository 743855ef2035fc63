/* SPDX-License-Identifier: Apache-2.0 */
/* See sim_scenario_file.h. */
#include "sim_scenario_file.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int sim_scenario_write(sim_scenario_file *s, const char *json)
{
    const char *tmp = getenv("TMPDIR");
    snprintf(s->dir, sizeof s->dir, "%s/gd-sim-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(s->dir))
        return -1;
    snprintf(s->path, sizeof s->path, "%s/scenario.json", s->dir);
    FILE *fp = fopen(s->path, "w");
    if (!fp)
        return -1;
    int bad = fputs(json, fp) < 0;
    return fclose(fp) != 0 || bad ? -1 : 0;
}

void sim_scenario_remove(sim_scenario_file *s)
{
    unlink(s->path);
    rmdir(s->dir);
}

int sim_cuda_open(struct gd_cuda_api *cu, const char *path, const sim_scenario_file *s)
{
    char err[1024];
    if (gd_cuda_load(cu, path, err, sizeof err) != 0) {
        fprintf(stderr, "%s\n", err);
        return -1;
    }
    if (!cu->gdsim_scenario_set) {
        fprintf(stderr, "%s is not the simulated libcuda\n", path);
        return -1;
    }
    cu->gdsim_scenario_set(s->path);
    return 0;
}
