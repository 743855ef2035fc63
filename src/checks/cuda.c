/* SPDX-License-Identifier: Apache-2.0 */
/* Software stack: cuda.driver_too_old, cuda.minor_compat, cuda.forward_compat,
 * cuda.arch_unsupported, cuda.ptx_jit, cuda.framework_cpu_only. */
#include "checks_internal.h"
#include "cuda_rules.h"
#include "gpudoctor/stack.h"

static const char *runtime_label(const gd_cuda_runtime *rt, char *buf, size_t len)
{
    if (rt->kind == GD_RT_TORCH || rt->kind == GD_RT_TENSORFLOW || rt->kind == GD_RT_WHEEL)
        snprintf(buf, len, "%s (CUDA %s)", rt->framework, rt->version_text);
    else
        snprintf(buf, len, "CUDA %s %s", rt->version_text, rt->kind == GD_RT_TOOLKIT ? "toolkit" : "runtime");
    return buf;
}

static bool is_framework(const gd_cuda_runtime *rt)
{
    return rt->kind == GD_RT_TORCH || rt->kind == GD_RT_TENSORFLOW || rt->kind == GD_RT_WHEEL;
}

/* Stack collected and the driver's CUDA version known; else say why not. */
static bool stack_ready(const gd_facts *f, gd_findings *out, const char *id)
{
    if (!f->stack->system_scanned && f->stack->runtime_count == 0) {
        gd_skip_add(out, id, GD_NO_GPU, "no CUDA runtime found (%s; --python PATH names an environment)",
                    f->stack->system_skip);
        return false;
    }
    if (f->stack->runtime_count == 0) {
        gd_skip_add(out, id, GD_NO_GPU,
                    "no CUDA runtime found in /usr/local/cuda*, ld.so.cache or a Python environment");
        return false;
    }
    return true;
}

/* Does some GPU get this framework's code only as PTX? */
static bool needs_ptx(const gd_facts *f, const gd_cuda_runtime *rt)
{
    for (size_t g = 0; rt->arch_known && g < f->gpu_count; g++) {
        const gd_gpu *gpu = &f->gpus[g];
        if (gd_ok(gpu->cc_major) && gd_ok(gpu->cc_minor) &&
            gd_arch_coverage(rt->archs, rt->arch_count, (int)(gpu->cc_major.v * 10 + gpu->cc_minor.v)) ==
                GD_ARCH_PTX_ONLY)
            return true;
    }
    return false;
}

static bool all_datacenter(const gd_facts *f)
{
    for (size_t g = 0; g < f->gpu_count; g++)
        if (!gd_gpu_is_datacenter(f->gpus[g].name))
            return false;
    return f->gpu_count > 0;
}

/* The newest toolkit with a forward-compatibility package covering v. */
static const gd_cuda_runtime *forward_package(const gd_stack_facts *s, int v)
{
    const gd_cuda_runtime *best = NULL;
    for (size_t i = 0; i < s->runtime_count; i++) {
        const gd_cuda_runtime *t = &s->runtimes[i];
        if (t->kind == GD_RT_TOOLKIT && t->compat_lib[0] && t->version >= v && (!best || t->version > best->version))
            best = t;
    }
    return best;
}

static gd_compat_result judge(const gd_facts *f, const gd_cuda_runtime *rt)
{
    gd_compat_input in = {
        .runtime = rt->version,
        .driver_cuda = gd_ok(f->cuda_driver_version) ? (int)f->cuda_driver_version.v : 0,
        .driver_version = f->driver_version,
        .needs_ptx_jit = needs_ptx(f, rt),
        .forward_package = forward_package(f->stack, rt->version) != NULL,
        .datacenter = all_datacenter(f),
    };
    return gd_cuda_compat(&in);
}

static json_t *runtime_json(const gd_cuda_runtime *rt, const gd_compat_result *r)
{
    json_t *o = json_object();
    json_object_set_new(o, "kind", json_string(gd_runtime_kind_name(rt->kind)));
    if (rt->framework[0] && is_framework(rt))
        json_object_set_new(o, "framework", json_string(rt->framework));
    json_object_set_new(o, "cuda", json_string(rt->version_text));
    json_object_set_new(o, "path", json_string(rt->path));
    if (r) {
        json_object_set_new(o, "needs_driver", r->needed[0] ? json_string(r->needed) : json_null());
        json_object_set_new(o, "rule", json_string(r->rule));
    }
    return o;
}

static void driver_evidence(const gd_facts *f, json_t *ev)
{
    json_object_set_new(ev, "driver_version", f->driver_version[0] ? json_string(f->driver_version) : json_null());
    json_object_set_new(ev, "driver_cuda", gd_json_value(f->cuda_driver_version));
}

void gd_check_cuda_driver_too_old(const gd_check *self, const gd_facts *f, gd_findings *out)
{
    (void)self;
    static const char id[] = "cuda.driver_too_old";
    if (!stack_ready(f, out, id))
        return;
    if (!gd_ok(f->cuda_driver_version)) {
        gd_skip_add(out, id, GD_NO_GPU, "the driver's CUDA version is not known (%s)",
                    !f->driver_loaded ? "no driver loaded"
                                      : "the driver did not report it: nvmlSystemGetCudaDriverVersion failed");
        return;
    }
    json_t *list = json_array();
    const gd_cuda_runtime *first = NULL;
    gd_compat_result first_r = {0};
    bool framework = false;
    for (size_t i = 0; i < f->stack->runtime_count; i++) {
        const gd_cuda_runtime *rt = &f->stack->runtimes[i];
        if (rt->version <= 0)
            continue;
        gd_compat_result r = judge(f, rt);
        if (r.verdict != GD_COMPAT_TOO_OLD)
            continue;
        json_array_append_new(list, runtime_json(rt, &r));
        /* Name a framework first: it is what the job loads. */
        if (!first || (is_framework(rt) && !framework)) {
            first = rt;
            first_r = r;
        }
        framework |= is_framework(rt);
    }
    if (!first) {
        json_decref(list);
        return;
    }
    json_t *ev = json_object();
    driver_evidence(f, ev);
    json_object_set_new(ev, "runtimes", list);
    json_object_set_new(
        ev, "source", json_string("nvml:nvmlSystemGetCudaDriverVersion; files: version.py, version.json, ld.so.cache"));
    char label[160], dc[16], fix[768];
    gd_cuda_text((int)f->cuda_driver_version.v, dc, sizeof dc);
    snprintf(
        fix, sizeof fix,
        "Install a driver >= %s (the data-center R580 or newer branch for CUDA 13), or use a build for "
        "CUDA <= %s: e.g. 'pip install torch --index-url https://download.pytorch.org/whl/cu%d%d' for "
        "the driver's CUDA. On data-center GPUs a forward-compatibility package "
        "('apt-get install cuda-compat-%d-%d', then LD_LIBRARY_PATH=/usr/local/cuda-%d.%d/compat) "
        "runs a newer CUDA on this driver. Check with 'python -c \"import torch; print(torch.cuda.is_available())\"'.",
        first_r.needed[0] ? first_r.needed : "the one its CUDA release names", dc, (int)f->cuda_driver_version.v / 1000,
        ((int)f->cuda_driver_version.v % 1000) / 10, first->version / 1000, (first->version % 1000) / 10,
        first->version / 1000, (first->version % 1000) / 10);
    gd_finding_add(out, id, framework ? GD_SEV_CRITICAL : GD_SEV_WARNING, GD_NO_GPU, ev, framework ? 100.0 : NAN, fix,
                   "%s needs a newer driver than %s (CUDA %s)%s", runtime_label(first, label, sizeof label),
                   f->driver_version[0] ? f->driver_version : "the installed one", dc,
                   framework ? ": CUDA will not initialise" : "");
}

/* cuda.minor_compat and cuda.forward_compat: it runs, with conditions. */
static void compat_info(const gd_facts *f, gd_findings *out, const char *id, gd_compat want)
{
    if (!f->stack || !gd_ok(f->cuda_driver_version))
        return; /* cuda.driver_too_old says why */
    for (size_t i = 0; i < f->stack->runtime_count; i++) {
        const gd_cuda_runtime *rt = &f->stack->runtimes[i];
        if (rt->version <= 0 || (want == GD_COMPAT_MINOR && !is_framework(rt)))
            continue;
        gd_compat_result r = judge(f, rt);
        if (r.verdict != want)
            continue;
        json_t *ev = runtime_json(rt, &r);
        driver_evidence(f, ev);
        char label[160], fix[768];
        gd_severity sev = GD_SEV_INFO;
        if (want == GD_COMPAT_FORWARD) {
            const gd_cuda_runtime *pkg = forward_package(f->stack, rt->version);
            char dir[600];
            snprintf(dir, sizeof dir, "%s", pkg->compat_lib + strlen(f->stack->root));
            *strrchr(dir, '/') = '\0';
            const char *ld = gd_stack_getenv(f->stack, "LD_LIBRARY_PATH");
            bool on_path = ld && strstr(ld, dir);
            json_object_set_new(ev, "compat_lib", json_string(pkg->compat_lib));
            json_object_set_new(ev, "compat_driver", json_string(pkg->compat_driver));
            json_object_set_new(ev, "on_ld_library_path", json_boolean(on_path));
            json_object_set_new(ev, "source", json_string("compat/libcuda.so.*; job environment LD_LIBRARY_PATH"));
            sev = on_path ? GD_SEV_INFO : GD_SEV_WARNING;
            snprintf(fix, sizeof fix,
                     "%s: the forward-compatibility libcuda %s must be loaded instead of the driver's: "
                     "export LD_LIBRARY_PATH=%.200s:$LD_LIBRARY_PATH in the job (or an ld.so.conf.d entry). "
                     "It needs a supported data-center GPU and driver branch; upgrading the driver removes the need.",
                     on_path ? "Nothing to do while it stays on the loader path" : "Not on the job's loader path",
                     pkg->compat_driver, dir);
            gd_finding_add(out, id, sev, GD_NO_GPU, ev, NAN, fix, "%s runs through the forward-compatibility package%s",
                           runtime_label(rt, label, sizeof label), on_path ? "" : ", which the job does not load");
        } else {
            gd_cuda_release rel;
            bool known = gd_cuda_release_find(rt->version, &rel);
            json_object_set_new(ev, "source", json_string("nvml:nvmlSystemGetCudaDriverVersion"));
            snprintf(fix, sizeof fix,
                     "Works: CUDA %d.x runs on drivers >= %s with a limited feature set. Calls that need the "
                     "newer driver fail with cudaErrorCallRequiresNewerDriver, and PTX from this toolkit cannot be "
                     "JIT-compiled. A driver >= %s removes both limits.",
                     rt->version / 1000, r.needed, known ? rel.driver_min : "of its release");
            gd_finding_add(out, id, sev, GD_NO_GPU, ev, NAN, fix,
                           "%s runs on driver %s through minor-version compatibility",
                           runtime_label(rt, label, sizeof label), f->driver_version);
        }
    }
}

void gd_check_cuda_minor_compat(const gd_check *self, const gd_facts *f, gd_findings *out)
{
    (void)self;
    compat_info(f, out, "cuda.minor_compat", GD_COMPAT_MINOR);
}

void gd_check_cuda_forward_compat(const gd_check *self, const gd_facts *f, gd_findings *out)
{
    (void)self;
    compat_info(f, out, "cuda.forward_compat", GD_COMPAT_FORWARD);
}

void gd_check_cuda_cpu_only(const gd_check *self, const gd_facts *f, gd_findings *out)
{
    (void)self;
    if (!f->stack || f->gpu_count == 0)
        return;
    for (size_t i = 0; i < f->stack->runtime_count; i++) {
        const gd_cuda_runtime *rt = &f->stack->runtimes[i];
        if (rt->kind != GD_RT_TORCH || rt->version > 0)
            continue;
        json_t *ev = json_object();
        json_object_set_new(ev, "framework", json_string(rt->framework));
        json_object_set_new(ev, "cuda", json_null());
        json_object_set_new(ev, "path", json_string(rt->path));
        json_object_set_new(ev, "source", json_string("torch/version.py: cuda = None"));
        gd_finding_add(out, "cuda.framework_cpu_only", GD_SEV_WARNING, GD_NO_GPU, ev, NAN,
                       "Install a CUDA build: 'pip install torch --index-url https://download.pytorch.org/whl/cu128' "
                       "(pick the cuXY your driver supports). A CPU build trains on the CPU, or fails at "
                       "'.cuda()' with 'Torch not compiled with CUDA enabled'.",
                       "%s is a CPU-only build on a machine with %zu GPU%s", rt->framework, f->gpu_count,
                       f->gpu_count == 1 ? "" : "s");
    }
}
