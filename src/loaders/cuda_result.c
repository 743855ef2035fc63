/* SPDX-License-Identifier: Apache-2.0 */
/* A CUresult's name for a message, whatever the value. */
#include "cuda_loader.h"

const char *gd_cuda_result_name(CUresult result)
{
    const char *name = gd_cuda_result_name_or_null(result);
    return name ? name : "CUDA_ERROR_<unrecognised>";
}
