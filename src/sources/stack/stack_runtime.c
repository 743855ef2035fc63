/* SPDX-License-Identifier: Apache-2.0 */
/* A runtime a scan found, recorded in the stack's facts. */
#include "stack_internal.h"

#include <string.h>

gd_cuda_runtime *gd_stack_add_runtime(gd_stack_facts *s, gd_runtime_kind kind, const char *path)
{
    if (s->runtime_count >= GD_STACK_MAX_RUNTIMES)
        return NULL;
    gd_cuda_runtime *rt = &s->runtimes[s->runtime_count++];
    memset(rt, 0, sizeof *rt);
    rt->kind = kind;
    rt->python = -1;
    gd_strf(rt->path, sizeof rt->path, "%s", path);
    return rt;
}
