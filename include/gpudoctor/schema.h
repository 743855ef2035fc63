/* SPDX-License-Identifier: Apache-2.0 */
/* The JSON reports' version: written by the renderers, read back by fleet
 * and recordings' readers, so it belongs to neither. */
#ifndef GPUDOCTOR_SCHEMA_H
#define GPUDOCTOR_SCHEMA_H

/* The JSON reports' schema_version (docs/interface.md). 1: sample times,
 * --duration and --interval under --sim are scenario seconds (the session
 * clock); reports without it come from builds that paced the simulated
 * machine in wall time. */
#define GD_JSON_SCHEMA_VERSION 1

#endif
