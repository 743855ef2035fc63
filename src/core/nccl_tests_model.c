/* SPDX-License-Identifier: Apache-2.0 */
/* nccl-tests' ops and their bus-bandwidth factors (include/gpudoctor/nccl_tests.h). */
#include "gpudoctor/nccl_tests.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static const struct {
    gd_nt_op op;
    const char *name, *binary;
} ops[] = {
    {GD_NT_ALL_REDUCE, "all_reduce", "all_reduce_perf"},
    {GD_NT_ALL_GATHER, "all_gather", "all_gather_perf"},
    {GD_NT_REDUCE_SCATTER, "reduce_scatter", "reduce_scatter_perf"},
    {GD_NT_BROADCAST, "broadcast", "broadcast_perf"},
    {GD_NT_REDUCE, "reduce", "reduce_perf"},
    {GD_NT_ALLTOALL, "alltoall", "alltoall_perf"},
    {GD_NT_SENDRECV, "sendrecv", "sendrecv_perf"},
};

const char *gd_nt_op_name(gd_nt_op op)
{
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
        if (ops[i].op == op)
            return ops[i].name;
    return "";
}

const char *gd_nt_size_text(size_t bytes, char *buf, size_t len)
{
    static const char *const unit[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    size_t u = 0;
    while (u < 4 && bytes >= 1024 && bytes % 1024 == 0)
        bytes /= 1024, u++;
    snprintf(buf, len, "%zu %s", bytes, unit[u]);
    return buf;
}

gd_nt_op gd_nt_op_of_binary(const char *name)
{
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
        if (strcmp(ops[i].binary, name) == 0)
            return ops[i].op;
    return GD_NT_UNKNOWN;
}

double gd_nt_busbw_factor(gd_nt_op op, int n)
{
    if (n < 1)
        return NAN;
    switch (op) {
    case GD_NT_ALL_REDUCE: return 2.0 * (n - 1) / n;
    case GD_NT_ALL_GATHER:
    case GD_NT_REDUCE_SCATTER:
    case GD_NT_ALLTOALL: return (double)(n - 1) / n;
    case GD_NT_BROADCAST:
    case GD_NT_REDUCE:
    case GD_NT_SENDRECV: return 1.0;
    default: return NAN;
    }
}

double gd_nt_row_busbw(const gd_nt_row *r)
{
    double a = r->oop.busbw_gbps, b = r->ip.busbw_gbps;
    return isnan(a) ? b : isnan(b) ? a : a > b ? a : b;
}
