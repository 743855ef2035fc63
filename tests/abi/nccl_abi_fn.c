/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Compile-time check of every function typedef of nccl_api.h against the
 * prototype that NCCL's nccl.h gives the exported symbol. With
 * GD_NCCL_API_TYPEDEFS_ONLY our header declares only its typedefs, in terms
 * of NCCL's types; a mismatch stops the build with the symbol's name.
 */
#include <nccl.h>

#define GD_NCCL_API_TYPEDEFS_ONLY
#include "gpudoctor/abi/nccl_api.h"

#define GD_ABI_CONST(c)
#define GD_ABI_EXPR(e)
#define GD_ABI_TYPE(t)
#define GD_ABI_MEMBER(t, m)
#define GD_ABI_FN(t, sym) _Static_assert(_Generic(&sym, t : 1, default : 0), #sym " does not have the type " #t " in nccl.h");
#include "nccl_abi_list.h"

/* Keeps the translation unit non-empty for the compiler's sake. */
int gd_abi_nccl_fn_checked(void);
int gd_abi_nccl_fn_checked(void)
{
    return 1;
}
