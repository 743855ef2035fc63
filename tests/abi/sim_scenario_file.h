/* SPDX-License-Identifier: Apache-2.0 */
/* For the tests of the simulated libraries: a scenario in a fresh temporary
 * directory, and the simulated libcuda loaded to play it. */
#ifndef GD_TEST_SIM_SCENARIO_FILE_H
#define GD_TEST_SIM_SCENARIO_FILE_H

#include "loaders/cuda_loader.h"

typedef struct sim_scenario_file {
    char dir[64], path[128];
} sim_scenario_file;

/* Writes json to DIR/scenario.json in a new directory: 0, or -1. */
int sim_scenario_write(sim_scenario_file *s, const char *json);
/* Removes the file and its directory. */
void sim_scenario_remove(sim_scenario_file *s);
/* Loads the simulated libcuda (path) and gives it the scenario through
 * gdsim_scenario_set: 0, or -1 with the reason on stderr. */
int sim_cuda_open(struct gd_cuda_api *cu, const char *path, const sim_scenario_file *s);

#endif
