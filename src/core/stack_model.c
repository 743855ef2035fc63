/* The software-stack model (include/gpudoctor/stack.h): pure accessors,
 * read by checks and backends alike. */
#include "gpudoctor/stack.h"
#include "core/versions.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

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
