/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Where a finding's evidence came from, for its "source" field. A check
 * names what a live run reads (the NVML calls, sysfs files); the same
 * finding from --from captures cites the files and the fields the values
 * were read from instead: no NVML call was made there.
 */
#ifndef GD_CHECKS_SOURCE_H
#define GD_CHECKS_SOURCE_H

#include "gpudoctor/findings.h"
#include "gpudoctor/model.h"

#include <jansson.h>
#include <stddef.h>

/*
 * live: what a live (or --sim) run cites, parts separated by ';':
 * "nvml:nvmlDeviceGetEnforcedPowerLimit,nvmlDeviceGetPowerManagementDefaultLimit",
 * "sysfs:max_link_speed,max_link_width", "lspci:UESta,CESta". Live and
 * simulated facts get it unchanged. Captured facts get, for GPU g (a
 * position in f->gpus), "capture:FILE:<key>,<key>" for the keys (an XML
 * element, an nvidia-smi -q label path, a CSV column, a dmon column) the
 * NVML calls' values were read under, files separated by "; ";
 * "capture:FILE:<field>" for sysfs and lspci parts (the lspci file); other
 * parts (the environment, the kernel log) stay. A capture that held none of
 * the values is cited as a whole ("capture:FILE,...").
 */
void gd_source_text(const gd_facts *f, size_t g, const char *live, char *buf, size_t len);

/* gd_source_text as a JSON string. */
json_t *gd_source(const gd_facts *f, size_t g, const char *live);

/*
 * The one place captures get their sources: after the checks ran, every
 * finding's evidence "source" becomes gd_source_text of it for the
 * finding's GPU (nothing changes for live and simulated facts). Checks
 * therefore name what a live run reads and need not know about captures.
 */
void gd_sources_of_capture(const gd_facts *f, gd_findings *fs);

#endif
