/* SPDX-License-Identifier: Apache-2.0 */
/* Scratch directories for the sim tests: made with mkdtemp, removed after. */
#ifndef GPUDOCTOR_TESTS_SIM_TEST_UTIL_H
#define GPUDOCTOR_TESTS_SIM_TEST_UTIL_H

/* A fresh directory under $TMPDIR (or /tmp); the caller frees the string. NULL on failure. */
char *simt_mkdtemp(void);

/* Writes `content` to dir/name; returns the malloc'd path, NULL on failure. */
char *simt_write(const char *dir, const char *name, const char *content);

/* Removes dir and everything under it, then frees the string. */
void simt_rmtree(char *dir);

#endif
