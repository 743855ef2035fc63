/* SPDX-License-Identifier: Apache-2.0 */
/* Shared by the software-stack scan's files: stack_collect.c calls the scans
 * (stack_scan.c, stack_python.c), which use the root's paths and files
 * (stack_root.c) and record runtimes (stack_runtime.c): one way. */
#ifndef GD_STACK_INTERNAL_H
#define GD_STACK_INTERNAL_H

#include "gpudoctor/stack.h"
#include "core/strf.h"
#include "formats/stack/fatbin.h"
#include "formats/stack/ldcache.h"
#include "formats/stack/version_files.h"
#include "stack_collect.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* stack_root.c. Reads at most max bytes of a file, NUL-terminated (caller
 * frees), or NULL. */
char *gd_stack_read_file(const char *path, size_t max, size_t *len);

/* stack_runtime.c. A new runtime slot (zeroed, python = -1), or NULL when full. */
gd_cuda_runtime *gd_stack_add_runtime(gd_stack_facts *s, gd_runtime_kind kind, const char *path);

/* stack_root.c. The real path of `path` as the machine under `root` sees it
 * ("" = this machine: realpath): symbolic links are followed inside the
 * root (an absolute target starts again at the root, ".." stops at it, 40
 * links at most). Returns 0 and root + the resolved path in out, or -1 with
 * errno when a part is missing (as realpath). */
int gd_root_realpath(const char *root, const char *path, char *out, size_t len);

/* The host path of the absolute `path` inside s->root, resolved as above
 * where it exists, else simply s->root + path. */
void gd_stack_root_path(const gd_stack_facts *s, const char *path, char *out, size_t len);

/* stack_scan.c: system toolkits and the dynamic linker's cache, under s->root. */
void gd_stack_scan_toolkits(gd_stack_facts *s);
void gd_stack_scan_ldcache(gd_stack_facts *s);

/* stack_python.c: Python environments (--python, then the job's own) and
 * the frameworks and CUDA wheels in them. */
void gd_stack_scan_pythons(gd_stack_facts *s, const gd_stack_opts *o, bool system);

/* The architectures of the CUDA code in a library (its .nv_fatbin ELF
 * section; none in an ELF file without one; the whole file when it is not
 * ELF), read in blocks of
 * GD_FATBIN_BLOCK and at most GD_FATBIN_READ_MAX bytes of it: the walk reads
 * headers and skips the code, so a real library needs a few MiB, while a
 * file of padding would be read whole. Past the cap, or on a read error,
 * rt->arch_error says why and the architectures stay unknown. */
#define GD_FATBIN_BLOCK ((size_t)1 << 20)
#define GD_FATBIN_READ_MAX ((uint64_t)64 << 20)
bool gd_stack_library_archs(const char *path, gd_cuda_runtime *rt);

/* The walk itself over fd's [off, off+size), in blocks of block bytes, at
 * most cap read: adds to rt->archs, returns the entries seen; *capped when
 * the cap stopped it, *err the errno of a failed read (0 if none). */
size_t gd_stack_fatbin_fd(int fd, uint64_t off, uint64_t size, size_t block, uint64_t cap, gd_cuda_runtime *rt,
                          bool *capped, int *err);

#endif
