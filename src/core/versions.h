/* SPDX-License-Identifier: Apache-2.0 */
/* Version strings as numbers. */
#ifndef GD_CORE_VERSIONS_H
#define GD_CORE_VERSIONS_H

/* "12.8.93", "12.8", "12" -> 12080, 12080, 12000 (1000*major + 10*minor).
 * Returns 0 when s does not start with a version. */
int gd_cuda_version_parse(const char *s);

#endif
