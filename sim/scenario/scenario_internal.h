/* SPDX-License-Identifier: Apache-2.0 */
/* Shared between the parts of the scenario parser; not for other modules. */
#ifndef GPUDOCTOR_SIM_SCENARIO_INTERNAL_H
#define GPUDOCTOR_SIM_SCENARIO_INTERNAL_H

#include <jansson.h>

#include "scenario.h"

/* Key paths ("gpus[2].timeline[3].t") fit here; deeper paths are cut. */
#define GD_SCENARIO_PATH_MAX 256

typedef struct gd_parser {
    const char *file; /* name used in messages */
    char *err;
    size_t errlen;
} gd_parser;

/* Writes "file: at: <message>" and returns false, so callers can `return gdp_fail(...)`. */
bool gdp_fail(gd_parser *p, const char *at, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Child paths: "at.key" (or "key" at the top) and "at[i]". */
void gdp_key(char *out, const char *at, const char *key);
void gdp_index(char *out, const char *at, size_t i);

/*
 * Typed getters of an optional key of `obj`. A missing key or a null leaves
 * the output absent and succeeds; a value of the wrong type or out of
 * [lo, hi] fails with a message.
 */
bool gdp_int(gd_parser *p, json_t *obj, const char *key, const char *at, long long lo, long long hi,
             gd_scenario_int *out);
bool gdp_num(gd_parser *p, json_t *obj, const char *key, const char *at, double lo, double hi, gd_scenario_num *out);
bool gdp_flag(gd_parser *p, json_t *obj, const char *key, const char *at, gd_scenario_flag *out);
bool gdp_string(gd_parser *p, json_t *obj, const char *key, const char *at, char **out);
/* An optional object-valued key: *out is NULL when missing or null. */
bool gdp_object(gd_parser *p, json_t *obj, const char *key, const char *at, json_t **out);
/* An optional array-valued key: *out is NULL when missing or null. */
bool gdp_array(gd_parser *p, json_t *obj, const char *key, const char *at, json_t **out);

/* Appends the entries of an "errors" object to `list`. */
bool gdp_errors(gd_parser *p, json_t *obj, const char *at, bool always, double from_t, gd_scenario_errors *list);
void gdp_errors_free(gd_scenario_errors *list);

/* Parses gpus[i] into `gpu` (zeroed by the caller). */
bool gdp_gpu(gd_parser *p, json_t *obj, const char *at, gd_scenario_gpu *gpu);
void gdp_gpu_free(gd_scenario_gpu *gpu);
/* Parses gpus[i].events (scenario_events.c). */
bool gdp_events(gd_parser *p, json_t *gpu, const char *at, gd_scenario_gpu *g);

/* Parses "nics" and "network" (scenario_net.c); gdp_net_free releases them. */
bool gdp_net(gd_parser *p, json_t *root, gd_scenario_net *net);
void gdp_net_free(gd_scenario_net *net);

/* Builds sc->pid_names from the GPUs' processes; false when out of memory. */
bool gdp_index_process_names(gd_scenario *sc);

/* Largest value a timeline field accepts. */
double gd_scenario_field_max(gd_scenario_field field);
/* Fills `out` with "a, b, c" of the known reason names. */
void gd_scenario_reason_names(char *out, size_t n);

#endif
