/* SPDX-License-Identifier: Apache-2.0 */
/* CUDA compatibility rules: runtime vs driver, architecture coverage. */
#include "cuda_rules.h"

#include <stdio.h>
#include <string.h>

void gd_cuda_text(int v, char *buf, size_t len)
{
    snprintf(buf, len, "%d.%d", v / 1000, (v % 1000) / 10);
}

gd_compat_result gd_cuda_compat(const gd_compat_input *in)
{
    gd_compat_result r = {.verdict = GD_COMPAT_UNKNOWN};
    gd_cuda_release rel;
    bool known = gd_cuda_release_find(in->runtime, &rel);
    if (known)
        snprintf(r.needed, sizeof r.needed, "%s", rel.driver_min);
    if (in->driver_cuda <= 0 || in->runtime <= 0) {
        snprintf(r.rule, sizeof r.rule, "the driver's CUDA version is not known");
        return r;
    }
    if (in->runtime <= in->driver_cuda) {
        r.verdict = GD_COMPAT_NATIVE;
        snprintf(r.rule, sizeof r.rule, "the driver supports this CUDA version (backward compatibility)");
        return r;
    }
    /* Forward compatibility: the compat package's libcuda is a newer
     * user-mode driver; it brings its own PTX JIT too. */
    if (in->forward_package && in->datacenter) {
        r.verdict = GD_COMPAT_FORWARD;
        snprintf(r.rule, sizeof r.rule,
                 "a forward-compatibility package provides a newer libcuda on a data-center GPU");
        return r;
    }
    /* PTX JIT needs a driver at least as new as the toolkit that wrote the
     * PTX: minor-version compatibility does not cover it. */
    if (in->needs_ptx_jit) {
        r.verdict = GD_COMPAT_TOO_OLD;
        snprintf(r.rule, sizeof r.rule,
                 "PTX-only code needs a driver at least as new as its toolkit (cudaErrorUnsupportedPtxVersion)");
        return r;
    }
    int major = in->runtime / 1000;
    if (!known) {
        snprintf(r.rule, sizeof r.rule, "CUDA %d.x is not in gpudoctor's table", major);
        return r;
    }
    if (major >= 11 && major == in->driver_cuda / 1000) {
        snprintf(r.needed, sizeof r.needed, "%s", rel.family_min);
        if (!in->driver_version || !in->driver_version[0] ||
            gd_driver_version_cmp(in->driver_version, rel.family_min) >= 0) {
            r.verdict = GD_COMPAT_MINOR;
            snprintf(r.rule, sizeof r.rule, "minor-version compatibility: CUDA %d.x runs on drivers >= %s", major,
                     rel.family_min);
            return r;
        }
        r.verdict = GD_COMPAT_TOO_OLD;
        snprintf(r.rule, sizeof r.rule, "below the CUDA %d.x minor-version compatibility minimum %s", major,
                 rel.family_min);
        return r;
    }
    r.verdict = GD_COMPAT_TOO_OLD;
    if (major < 11)
        snprintf(r.rule, sizeof r.rule, "before CUDA 11 each minor release needs its own driver");
    else
        snprintf(r.rule, sizeof r.rule,
                 "a newer CUDA major than the driver supports: needs the driver branch of CUDA %d.x "
                 "(minor-version compatibility stays within one major)",
                 major);
    return r;
}

gd_arch_cover gd_arch_coverage(const gd_arch *archs, size_t n, int sm)
{
    bool ptx = false;
    for (size_t i = 0; i < n; i++) {
        if (archs[i].sm > sm)
            continue;
        if (!archs[i].ptx && archs[i].sm / 10 == sm / 10)
            return GD_ARCH_SASS;
        ptx |= archs[i].ptx;
    }
    return ptx ? GD_ARCH_PTX_ONLY : GD_ARCH_NONE;
}

/* Research notes section 1.3 (toolkit release notes; LLVM and CMake
 * commits quoting them): 9.0 dropped Fermi, 11.0 sm_30/32, 12.0 Kepler
 * sm_35/37, 13.0 Maxwell, Pascal and Volta. */
int gd_toolkit_min_sm(int cuda)
{
    return cuda >= 13000 ? 75 : cuda >= 12000 ? 50 : cuda >= 11000 ? 35 : cuda >= 9000 ? 30 : 20;
}

/* The newest target of each toolkit (release notes): sm_80 in 11.0, sm_86
 * in 11.1, sm_89/sm_90 in 11.8, sm_100/sm_120 in 12.8, sm_103/sm_121 in
 * 12.9 (13.0 renamed Thor's sm_101 to sm_110). */
int gd_toolkit_max_sm(int cuda)
{
    return cuda >= 12090   ? 121
           : cuda >= 12080 ? 120
           : cuda >= 11080 ? 90
           : cuda >= 11010 ? 86
           : cuda >= 11000 ? 80
                           : 75;
}

bool gd_gpu_is_datacenter(const char *name)
{
    static const char *const consumer[] = {"GeForce", "TITAN", "Quadro", "RTX"};
    if (strstr(name, "Server")) /* RTX PRO 6000 Blackwell Server Edition */
        return true;
    for (size_t i = 0; i < sizeof consumer / sizeof consumer[0]; i++)
        if (strstr(name, consumer[i]))
            return false;
    return true;
}
