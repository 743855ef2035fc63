/* SPDX-License-Identifier: Apache-2.0 */
/* Software stack: cuda.arch_unsupported and cuda.ptx_jit: does the installed
 * build carry code for this GPU's compute capability? */
#include "checks_internal.h"
#include "cuda_rules.h"
#include "gpudoctor/stack.h"

static int gpu_sm(const gd_gpu *gpu)
{
    return gd_ok(gpu->cc_major) && gd_ok(gpu->cc_minor) ? (int)(gpu->cc_major.v * 10 + gpu->cc_minor.v) : 0;
}

static json_t *arch_list(const gd_cuda_runtime *rt)
{
    json_t *a = json_array();
    for (size_t i = 0; i < rt->arch_count; i++) {
        char name[24];
        snprintf(name, sizeof name, "%s_%d", rt->archs[i].ptx ? "compute" : "sm", rt->archs[i].sm);
        json_array_append_new(a, json_string(name));
    }
    return a;
}

/* GPUs (indices) of runtime rt whose coverage is `want`; the sm of the first. */
static json_t *gpus_with(const gd_facts *f, const gd_cuda_runtime *rt, gd_arch_cover want, int *sm, int *first)
{
    json_t *a = json_array();
    for (size_t g = 0; g < f->gpu_count; g++) {
        int s = gpu_sm(&f->gpus[g]);
        if (s && gd_arch_coverage(rt->archs, rt->arch_count, s) == want) {
            if (json_array_size(a) == 0)
                *sm = s, *first = f->gpus[g].index;
            json_array_append_new(a, json_integer(f->gpus[g].index));
        }
    }
    return a;
}

/* GPUs whose compute capability is below lo or of a newer major than hi:
 * no SASS of [lo, hi] can serve them. */
static json_t *gpus_outside(const gd_facts *f, int lo, int hi, int *sm, int *first)
{
    json_t *a = json_array();
    for (size_t g = 0; g < f->gpu_count; g++) {
        int s = gpu_sm(&f->gpus[g]);
        if (s && (s < lo || s / 10 > hi / 10)) {
            if (json_array_size(a) == 0)
                *sm = s, *first = f->gpus[g].index;
            json_array_append_new(a, json_integer(f->gpus[g].index));
        }
    }
    return a;
}

static void add_arch_finding(const gd_facts *f, gd_findings *out, const char *id, gd_severity sev,
                             const gd_cuda_runtime *rt, json_t *gpus, int sm, int first, const char *fix,
                             const char *what)
{
    const gd_gpu *g0 = NULL;
    for (size_t g = 0; g < f->gpu_count; g++)
        if (f->gpus[g].index == first)
            g0 = &f->gpus[g];
    json_t *ev = json_object();
    json_object_set_new(ev, "framework", json_string(rt->kind == GD_RT_TOOLKIT ? "toolkit" : rt->framework));
    json_object_set_new(ev, "cuda", json_string(rt->version_text));
    json_object_set_new(ev, "gpu_compute_capability", json_sprintf("%d.%d", sm / 10, sm % 10));
    json_object_set_new(ev, "gpus", gpus);
    if (rt->arch_known)
        json_object_set_new(ev, "build_archs", arch_list(rt));
    json_object_set_new(ev, "source", json_string(rt->arch_known ? rt->arch_source : rt->path));
    size_t n = json_array_size(gpus);
    char label[128];
    if (rt->kind == GD_RT_TOOLKIT)
        snprintf(label, sizeof label, "The CUDA %.20s toolkit (%.60s)", rt->version_text, rt->path);
    else
        snprintf(label, sizeof label, "%.80s (CUDA %.20s)", rt->framework, rt->version_text);
    gd_finding_add(out, id, sev, n == 1 ? first : GD_NO_GPU, ev, sev == GD_SEV_CRITICAL ? 100.0 : NAN, fix,
                   "%s %s %s (sm_%d)%s", label, what, g0 ? g0->name : "this GPU", sm,
                   n > 1 ? " on every GPU listed" : "");
}

void gd_check_cuda_arch_unsupported(const gd_check *self, const gd_facts *f, gd_findings *out)
{
    (void)self;
    static const char id[] = "cuda.arch_unsupported";
    bool any = false;
    for (size_t i = 0; i < f->stack->runtime_count; i++) {
        const gd_cuda_runtime *rt = &f->stack->runtimes[i];
        int sm = 0, first = -1;
        char fix[768];
        if ((rt->kind == GD_RT_TORCH || rt->kind == GD_RT_TENSORFLOW) && rt->version > 0) {
            any = true;
            if (!rt->arch_known) {
                /* Without the fatbin: a build cannot carry SASS newer than its toolkit knows. */
                int max = gd_toolkit_max_sm(rt->version);
                json_t *gpus = gpus_outside(f, 0, max, &sm, &first);
                if (!json_array_size(gpus)) {
                    json_decref(gpus);
                    if (rt->arch_error[0])
                        gd_skip_add(out, id, GD_NO_GPU, "%s: its architecture list could not be read: %s",
                                    rt->framework, rt->arch_error);
                    else
                        gd_skip_add(out, id, GD_NO_GPU,
                                    "%s: its architecture list could not be read (no CUDA "
                                    "fatbin in its libraries)",
                                    rt->framework);
                    continue;
                }
                snprintf(fix, sizeof fix,
                         "CUDA %s compiles for at most sm_%d, so this build can only run here through PTX, which "
                         "release builds rarely carry. Install a build for a newer CUDA (PyTorch: cu128 or later "
                         "for Blackwell, 'pip install torch --index-url https://download.pytorch.org/whl/cu128').",
                         rt->version_text, max);
                add_arch_finding(f, out, id, GD_SEV_WARNING, rt, gpus, sm, first, fix, "predates");
                continue;
            }
            json_t *gpus = gpus_with(f, rt, GD_ARCH_NONE, &sm, &first);
            if (!json_array_size(gpus)) {
                json_decref(gpus);
                continue;
            }
            snprintf(fix, sizeof fix,
                     "The build has no kernels for sm_%d: CUDA fails with 'no kernel image is available for "
                     "execution on the device'. Install a build whose arch list covers it (PyTorch: 'python -c "
                     "\"import torch; print(torch.cuda.get_arch_list())\"'; cu126 covers sm_50..sm_90, cu128 "
                     "sm_75..sm_120), or build from source with TORCH_CUDA_ARCH_LIST=\"%d.%d\".",
                     sm, sm / 10, sm % 10);
            add_arch_finding(f, out, id, GD_SEV_CRITICAL, rt, gpus, sm, first, fix, "has no kernels for");
        } else if (rt->kind == GD_RT_TOOLKIT && rt->version > 0) {
            /* Toolkits: what the GPU's extensions and custom kernels get built with. */
            int lo = gd_toolkit_min_sm(rt->version), hi = gd_toolkit_max_sm(rt->version);
            json_t *gpus = gpus_outside(f, lo, hi, &sm, &first);
            if (!json_array_size(gpus)) {
                json_decref(gpus);
                continue;
            }
            snprintf(fix, sizeof fix,
                     "nvcc from CUDA %s compiles for sm_%d..sm_%d only: CUDA extensions and kernels built with it "
                     "(pip builds of flash-attn, apex, custom ops) will not run here. Use a toolkit that "
                     "supports sm_%d (CUDA 12.x for Maxwell..Volta, 12.8+ for Blackwell) and point CUDA_HOME at it.",
                     rt->version_text, lo, hi, sm);
            add_arch_finding(f, out, id, GD_SEV_WARNING, rt, gpus, sm, first, fix,
                             sm < lo ? "dropped support for" : "cannot compile for");
        }
    }
    if (!any)
        gd_skip_add(out, id, GD_NO_GPU, "no PyTorch or TensorFlow CUDA build found");
}

void gd_check_cuda_ptx_jit(const gd_check *self, const gd_facts *f, gd_findings *out)
{
    (void)self;
    if (!f->stack || !gd_ok(f->cuda_driver_version))
        return;
    for (size_t i = 0; i < f->stack->runtime_count; i++) {
        const gd_cuda_runtime *rt = &f->stack->runtimes[i];
        /* A PTX JIT the driver cannot do is cuda.driver_too_old's. */
        if (!rt->arch_known || rt->version <= 0 || rt->version > (int)f->cuda_driver_version.v)
            continue;
        int sm = 0, first = -1;
        json_t *gpus = gpus_with(f, rt, GD_ARCH_PTX_ONLY, &sm, &first);
        if (!json_array_size(gpus)) {
            json_decref(gpus);
            continue;
        }
        char fix[768];
        snprintf(fix, sizeof fix,
                 "Only PTX serves sm_%d: the driver JIT-compiles every kernel at start-up (minutes for a "
                 "framework; cached in ~/.nv/ComputeCache, 256 MiB by default: raise CUDA_CACHE_MAXSIZE) and "
                 "the result can be slower than native code. Install a build with sm_%d SASS.",
                 sm, sm);
        add_arch_finding(f, out, "cuda.ptx_jit", GD_SEV_WARNING, rt, gpus, sm, first, fix, "runs only as PTX on");
    }
}
