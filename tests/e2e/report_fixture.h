/* SPDX-License-Identifier: Apache-2.0 */
/* For the HTML report's tests: scenarios written on the fly, pages read
 * back, and Debian's Chromium run headless on them. */
#ifndef GD_REPORT_FIXTURE_H
#define GD_REPORT_FIXTURE_H

#include <stdbool.h>
#include <stddef.h>

typedef struct scenario_opts {
    size_t gpus, points; /* a timeline of `points` points, 1 s apart */
    bool noisy; /* every metric changes at every point (the size bound's worst case) */
    const char *process_name; /* GPU 0's process, NULL: "python" */
    const char *gpu_name; /* every GPU's name, NULL: an H100's */
} scenario_opts;

/* GPU g's temperature at timeline point i (C): what the plots must show. */
double scenario_temp(size_t g, size_t i);

/* Writes the scenario to dir/name and returns its path (the caller frees). */
char *write_scenario(const char *dir, const char *name, const scenario_opts *o);

/* A file's bytes, NUL-terminated (the caller frees), or NULL; *len its size. */
char *slurp(const char *path, size_t *len);

/* Occurrences of needle in s. */
size_t count_of(const char *s, const char *needle);

/* Fails unless page (a written page, or the DOM Chromium made of it) makes
 * the browser fetch nothing: no script, no external stylesheet, image,
 * frame or font, no URL in an attribute or the style. */
void assert_self_contained(const char *page);

/* Chromium's path: $GD_CHROMIUM, else chromium or chromium-browser on PATH;
 * NULL when there is none. */
const char *chromium_path(void);

/* Skips the test without Chromium (fails it under CI=true). */
void need_chromium(void);

/*
 * Runs Chromium headless (--no-sandbox --disable-gpu
 * --disable-background-networking --no-first-run, a fresh profile in
 * profile_dir) on file://page with the extra arguments (NULL-terminated),
 * its stdout into out_file (NULL: discarded), bounded by `timeout`.
 * Returns its exit code (124 on timeout).
 */
int chromium_run(const char *page, const char *const *extra, const char *out_file, const char *profile_dir);

/* A PNG decoded to 8-bit RGB (the caller frees *rgb): 0, or -1 (not a PNG,
 * or no libpng in this build). */
int png_rgb(const char *path, unsigned *w, unsigned *h, unsigned char **rgb);

#endif
