/* SPDX-License-Identifier: Apache-2.0 */
/* The software-stack model (include/gpudoctor/stack.h): pure accessors,
 * read by checks, formats and sources alike. */
#include "gpudoctor/stack.h"
#include "core/versions.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

const char *gd_runtime_kind_name(gd_runtime_kind k)
{
    static const char *const names[] = {"toolkit", "ld.so.cache", "torch", "tensorflow", "wheel"};
    return (unsigned)k < sizeof names / sizeof names[0] ? names[k] : "?";
}

const char *gd_stack_getenv(const gd_stack_facts *s, const char *name)
{
    size_t n = strlen(name);
    for (size_t i = 0; s && i < s->env_count; i++)
        if (strncmp(s->env[i], name, n) == 0 && s->env[i][n] == '=')
            return s->env[i] + n + 1;
    return NULL;
}

bool gd_env_kept(const char *entry)
{
    /* Every name a check (src/checks/env*.c, config.c, cuda.c) or the stack
     * scan (stack_python.c) reads is in one of these. */
    static const char *const prefixes[] = {"CUDA_",  "NCCL_",   "PYTORCH_", "TORCH_", "OMP_",
                                           "CUBLAS_", "CUDNN_", "NVIDIA_",  "NSIGHT_", "SLURM_", "OMPI_COMM_WORLD_"};
    static const char *const names[] = {"LD_LIBRARY_PATH", "PATH",           "VIRTUAL_ENV",     "CONDA_PREFIX",
                                        "WORLD_SIZE",      "LOCAL_WORLD_SIZE", "NNODES",        "COMPUTE_PROFILE",
                                        "OPENCL_PROFILE"};
    const char *eq = strchr(entry, '=');
    if (!eq)
        return false;
    size_t n = (size_t)(eq - entry);
    for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++)
        if (strncmp(entry, prefixes[i], strlen(prefixes[i])) == 0)
            return true;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strlen(names[i]) == n && strncmp(entry, names[i], n) == 0)
            return true;
    return false;
}

bool gd_env_secret(const char *name, size_t n)
{
    static const char *const words[] = {"TOKEN", "KEY", "SECRET", "PASSWORD", "PASSWD", "CREDENTIAL", "AUTH"};
    for (size_t w = 0; w < sizeof words / sizeof words[0]; w++) {
        size_t k = strlen(words[w]);
        for (size_t at = 0; at + k <= n; at++)
            if (strncasecmp(name + at, words[w], k) == 0)
                return true;
    }
    return false;
}

void gd_stack_facts_free(gd_stack_facts *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->env_count; i++)
        free(s->env[i]);
    free(s->env);
    free(s);
}

int gd_cuda_version_parse(const char *s)
{
    if (!s || !isdigit((unsigned char)*s))
        return 0;
    char *end;
    long major = strtol(s, &end, 10);
    long minor = 0;
    if (*end == '.' && isdigit((unsigned char)end[1]))
        minor = strtol(end + 1, NULL, 10);
    /* Plausible CUDA versions only: a stray "2024" is not CUDA 2024. */
    if (major < 1 || major > 99 || minor < 0 || minor > 9)
        return 0;
    return (int)(1000 * major + 10 * minor);
}

/* "dddd:bb:dd[.f]" or "bb:dd" -> domain, bus, device. */
static bool pci_fields(const char *s, unsigned long *dom, unsigned long *bus, unsigned long *dev)
{
    char *e;
    unsigned long a = strtoul(s, &e, 16);
    if (*e != ':')
        return false;
    unsigned long b = strtoul(e + 1, &e, 16);
    if (*e != ':') {
        if (*e != '\0' && *e != '.')
            return false;
        *dom = 0, *bus = a, *dev = b;
        return true;
    }
    unsigned long c = strtoul(e + 1, &e, 16);
    *dom = a, *bus = b, *dev = c;
    return true;
}

bool gd_pci_same(const char *log_pci, const char *nvml_bus_id)
{
    unsigned long d1, b1, v1, d2, b2, v2;
    return pci_fields(log_pci, &d1, &b1, &v1) && pci_fields(nvml_bus_id, &d2, &b2, &v2) && d1 == d2 && b1 == b2 &&
           v1 == v2;
}
