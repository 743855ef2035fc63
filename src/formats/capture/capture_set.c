/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The value half of the capture builder: text as nvidia-smi prints it
 * ("43.89 W", "N/A", "[Not Supported]", "Active", "0x...") -> gd_value, and
 * where each field lands in the model.
 */
#include "capture.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define MAX_PROCESSES 4096

/* Static numbers and switches of gd_gpu, by field. */
static const struct {
    gd_cap_field field;
    size_t off;
} gpu_values[] = {
#define V(fld, member)                                                                                                 \
    {                                                                                                                  \
        fld, offsetof(gd_gpu, member)                                                                                  \
    }
    V(GD_CF_MEM_TOTAL, mem_total_mib),
    V(GD_CF_POWER_LIMIT, power_limit_w),
    V(GD_CF_POWER_REQUESTED, power_limit_requested_w),
    V(GD_CF_POWER_DEFAULT, power_limit_default_w),
    V(GD_CF_POWER_MIN, power_limit_min_w),
    V(GD_CF_POWER_MAX, power_limit_max_w),
    V(GD_CF_CLOCK_MAX_SM, clock_max_sm_mhz),
    V(GD_CF_CLOCK_MAX_MEM, clock_max_mem_mhz),
    V(GD_CF_CLOCK_APP_SM, clock_app_sm_mhz),
    V(GD_CF_CLOCK_APP_MEM, clock_app_mem_mhz),
    V(GD_CF_CLOCK_DEFAULT_APP_SM, clock_default_app_sm_mhz),
    V(GD_CF_CLOCK_DEFAULT_APP_MEM, clock_default_app_mem_mhz),
    V(GD_CF_TEMP_SHUTDOWN, temp_shutdown_c),
    V(GD_CF_TEMP_SLOWDOWN, temp_slowdown_c),
    V(GD_CF_TEMP_GPU_MAX, temp_gpu_max_c),
    V(GD_CF_TEMP_MEM_MAX, temp_mem_max_c),
    V(GD_CF_PCIE_GEN_MAX, pcie_gen_max),
    V(GD_CF_PCIE_WIDTH_MAX, pcie_width_max),
    V(GD_CF_PCIE_GEN_MAX_DEVICE, pcie_gen_max_device),
    V(GD_CF_PCIE_GEN_MAX_HOST, pcie_gen_max_host),
    V(GD_CF_PERSISTENCE, persistence_mode),
    V(GD_CF_COMPUTE_MODE, compute_mode),
    V(GD_CF_MIG, mig_mode),
    V(GD_CF_C2C, c2c_mode),
    V(GD_CF_ECC, ecc_enabled),
    V(GD_CF_ECC_VOL_UNC, ecc_volatile_uncorrected),
    V(GD_CF_ECC_AGG_UNC, ecc_aggregate_uncorrected),
    V(GD_CF_RETIRED_SBE, retired_pages_sbe),
    V(GD_CF_RETIRED_DBE, retired_pages_dbe),
    V(GD_CF_RETIRED_PENDING, retired_pages_pending),
    V(GD_CF_REMAP_CORR, remap_corr_rows),
    V(GD_CF_REMAP_UNC, remap_unc_rows),
    V(GD_CF_REMAP_PENDING, remap_pending),
    V(GD_CF_REMAP_FAILURE, remap_failure),
    V(GD_CF_PROCESSES, processes_status),
#undef V
};

int gd_cap_fail(gd_cap *c, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (c->line > 0)
        snprintf(c->err, c->errlen, "%s:%ld: %s", c->name, c->line, msg);
    else
        snprintf(c->err, c->errlen, "%s: %s", c->name, msg);
    return -1;
}

static gd_value *gpu_value(gd_gpu *gpu, gd_cap_field fld)
{
    for (size_t i = 0; i < sizeof gpu_values / sizeof gpu_values[0]; i++)
        if (gpu_values[i].field == fld)
            return (gd_value *)((char *)gpu + gpu_values[i].off);
    return NULL;
}

static bool is_switch(gd_cap_field fld)
{
    return fld == GD_CF_PERSISTENCE || fld == GD_CF_MIG || fld == GD_CF_C2C || fld == GD_CF_ECC ||
           fld == GD_CF_RETIRED_PENDING || fld == GD_CF_REMAP_PENDING || fld == GD_CF_REMAP_FAILURE;
}

void gd_cap_mark_unsupported(gd_gpu *gpu)
{
    for (size_t i = 0; i < sizeof gpu_values / sizeof gpu_values[0]; i++) {
        gd_value *v = (gd_value *)((char *)gpu + gpu_values[i].off);
        if (v->status == GD_ST_UNREAD)
            *v = gd_missing(GD_ST_NOT_REPORTED);
    }
    if (gpu->cc_major.status == GD_ST_UNREAD)
        gpu->cc_major = gpu->cc_minor = gd_missing(GD_ST_NOT_REPORTED);
}

/* What a non-number in nvidia-smi's output means. */
static gd_status special_status(const char *s)
{
    static const struct {
        const char *text;
        gd_status st;
    } words[] = {
        {"", GD_ST_NOT_SUPPORTED},
        {"N/A", GD_ST_NOT_SUPPORTED},
        {"-", GD_ST_NOT_SUPPORTED}, /* dmon */
        {"Not Supported", GD_ST_NOT_SUPPORTED},
        {"Not Available", GD_ST_NOT_SUPPORTED},
        {"Requested functionality has been deprecated", GD_ST_NOT_SUPPORTED},
        {"Insufficient Permissions", GD_ST_NO_PERMISSION},
        {"No Permission", GD_ST_NO_PERMISSION},
        {"GPU is lost", GD_ST_GPU_LOST},
    };
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
        if (strcasecmp(s, words[i].text) == 0)
            return words[i].st;
    return GD_ST_OK;
}

/* 0: a number (units after it allowed); 1: not a number; 2: out of range. */
static int parse_number(const char *s, double *out)
{
    if (!isdigit((unsigned char)s[0]) && !(s[0] == '-' && isdigit((unsigned char)s[1])) && s[0] != '.')
        return 1; /* also keeps strtod away from "inf", "nan" and hex floats */
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s)
        return 1;
    if (errno == ERANGE || !isfinite(v) || fabs(v) > GD_CAP_MAX_ABS)
        return 2;
    for (const char *p = end; *p; p++)
        if (!(isalpha((unsigned char)*p) || *p == ' ' || *p == '%' || *p == '/' || *p == '(' || *p == ')'))
            return 1;
    *out = v;
    return 0;
}

static int parse_switch(const char *s, double *out)
{
    static const char *const on[] = {"Enabled", "Yes", "On", "Active", "True"};
    static const char *const off[] = {"Disabled", "No", "Off", "Not Active", "False", "None"};
    for (size_t i = 0; i < sizeof on / sizeof on[0]; i++)
        if (strcasecmp(s, on[i]) == 0)
            return *out = 1, 0;
    for (size_t i = 0; i < sizeof off / sizeof off[0]; i++)
        if (strcasecmp(s, off[i]) == 0)
            return *out = 0, 0;
    return -1;
}

static int parse_compute_mode(const char *s, double *out)
{
    static const struct {
        const char *name;
        int mode;
    } modes[] = {
        {"Default", 0},    {"Exclusive_Thread", 1},  {"E. Thread", 1},
        {"Prohibited", 2}, {"Exclusive_Process", 3}, {"E. Process", 3},
    };
    for (size_t i = 0; i < sizeof modes / sizeof modes[0]; i++)
        if (strcasecmp(s, modes[i].name) == 0)
            return *out = modes[i].mode, 0;
    return -1;
}

/* "P0" .. "P15" (nvidia-smi writes the performance state that way). */
static int parse_pstate(const char *s, double *out)
{
    if ((s[0] != 'P' && s[0] != 'p') || !isdigit((unsigned char)s[1]))
        return -1;
    int n = s[1] - '0';
    if (isdigit((unsigned char)s[2]))
        n = 10 * n + (s[2] - '0');
    else if (s[2])
        return -1;
    if (s[2] && s[3])
        return -1;
    if (n > 15)
        return -1;
    *out = n;
    return 0;
}

/* The value of a field from text: OK with a number, or a missing status. */
static int read_value(gd_cap *c, const gd_cap_map *m, const char *s, gd_value *out)
{
    gd_status st = special_status(s);
    if (st != GD_ST_OK) {
        *out = gd_missing(st);
        return 0;
    }
    double v;
    int rc;
    if (is_switch(m->field) || m->field == GD_CF_REASON)
        rc = parse_switch(s, &v);
    else if (m->field == GD_CF_METRIC && m->arg == GD_M_PSTATE)
        rc = parse_pstate(s, &v);
    else if (m->field == GD_CF_COMPUTE_MODE)
        rc = parse_compute_mode(s, &v);
    else if ((rc = parse_number(s, &v)) == 2)
        return gd_cap_fail(c, "%s: '%.40s' is out of range", m->key, s);
    if (rc != 0) {
        *out = gd_missing(GD_ST_ERROR); /* "Unknown Error", "ERR!" or garbage: unreadable, not zero */
        return 0;
    }
    *out = gd_val(m->scale != 0 ? v * m->scale : v);
    return 0;
}

/* Copies s, cut to the field's size (a name longer than the model keeps is still that GPU's). */
static void copy_text(char *dst, size_t len, const char *s)
{
    if (special_status(s) != GD_ST_OK)
        return;
    size_t n = strnlen(s, len - 1);
    memcpy(dst, s, n);
    dst[n] = '\0';
}

/* Whether a key of the map for another field ends in the path part `tail`
 * of m's key (other spellings of m's own field do not count). */
static bool tail_shared(const gd_cap *c, const gd_cap_map *m, const char *tail)
{
    size_t n = strlen(tail);
    for (size_t i = 0; i < c->key_map_len; i++) {
        const char *k = c->key_map[i].key;
        size_t kn = strlen(k);
        bool same_field = c->key_map[i].field == m->field && c->key_map[i].arg == m->arg;
        if (!same_field && kn >= n && strcmp(k + kn - n, tail) == 0 && (kn == n || k[kn - n - 1] == '/'))
            return true;
    }
    return false;
}

/* What a source cites for m: the key, or (XML) its last element, with as
 * many parents as tell it from the map's other keys ("volatile/double_bit/total"). */
static gd_origin origin_of(const gd_cap *c, const gd_cap_map *m)
{
    const char *tail = m->key;
    if (c->key_leaf) {
        tail = m->key + strlen(m->key);
        do {
            while (tail > m->key && tail[-1] != '/')
                tail--;
            if (tail == m->key || !tail_shared(c, m, tail))
                break;
            tail--; /* onto the '/': the parent joins */
        } while (tail > m->key);
    }
    return (gd_origin){.key = tail, .file = 0};
}

/* Notes where gpu's reading dst came from; a sum keeps its first part's key. */
static void set_origin(const gd_cap *c, gd_gpu *gpu, const gd_value *dst, const gd_cap_map *m, bool replace)
{
    size_t slot = (size_t)(dst - &gpu->cc_major);
    if (dst >= &gpu->cc_major && slot < GD_GPU_READINGS && (replace || !gpu->origin[slot].key))
        gpu->origin[slot] = origin_of(c, m);
}

static int set_process(gd_cap *c, gd_gpu *gpu, const gd_cap_map *m, const char *s)
{
    if (m->field == GD_CF_PROC_PID) {
        if (gpu->process_count >= MAX_PROCESSES)
            return gd_cap_fail(c, "more than %d processes on one GPU", MAX_PROCESSES);
        gd_process *p = realloc(gpu->processes, (gpu->process_count + 1) * sizeof *p);
        if (!p)
            return gd_cap_fail(c, "out of memory");
        gpu->processes = p;
        p = &p[gpu->process_count++];
        memset(p, 0, sizeof *p);
        p->used_mib = gd_missing(GD_ST_NOT_SUPPORTED);
        double v;
        p->pid = parse_number(s, &v) == 0 && v >= 0 && v < 4294967296.0 ? (unsigned)v : 0;
        gpu->processes_status = gd_val(1);
        return 0;
    }
    if (gpu->process_count == 0)
        return 0; /* a name without its pid: nothing to attach it to */
    gd_process *p = &gpu->processes[gpu->process_count - 1];
    if (m->field == GD_CF_PROC_NAME) {
        copy_text(p->name, sizeof p->name, s);
        return 0;
    }
    return read_value(c, m, s, &p->used_mib);
}

static int set_whole(gd_cap *c, const gd_cap_map *m, const char *s)
{
    gd_facts *f = c->f;
    if (m->field == GD_CF_DRIVER_VERSION) {
        copy_text(f->driver_version, sizeof f->driver_version, s);
    } else if (m->field == GD_CF_HOSTNAME) {
        copy_text(f->host.hostname, sizeof f->host.hostname, s);
    } else {
        unsigned major, minor;
        int n = 0;
        if (sscanf(s, "%3u.%3u%n", &major, &minor, &n) == 2 && s[n] == '\0')
            f->cuda_driver_version = gd_val(1000.0 * major + 10.0 * minor);
        else
            f->cuda_driver_version = gd_missing(GD_ST_NOT_SUPPORTED); /* "Not Found" */
    }
    return 0;
}

static int set_gpu(gd_cap *c, const gd_cap_map *m, const char *s)
{
    gd_gpu *gpu = &c->f->gpus[c->cur->gpu];
    switch (m->field) {
    case GD_CF_NAME: copy_text(gpu->name, sizeof gpu->name, s); return 0;
    case GD_CF_UUID: copy_text(gpu->uuid, sizeof gpu->uuid, s); return 0;
    case GD_CF_SERIAL: copy_text(gpu->serial, sizeof gpu->serial, s); return 0;
    case GD_CF_VBIOS: copy_text(gpu->vbios, sizeof gpu->vbios, s); return 0;
    case GD_CF_BUS_ID: gd_pci_bus_id_norm(s, gpu->pci_bus_id, sizeof gpu->pci_bus_id); return 0;
    case GD_CF_INDEX: {
        double v;
        if (parse_number(s, &v) == 0 && v >= 0 && v < GD_CAP_MAX_GPUS * 4)
            gpu->index = (int)v;
        return 0;
    }
    case GD_CF_COMPUTE_CAP: {
        unsigned major, minor;
        int n = 0;
        if (sscanf(s, "%3u.%3u%n", &major, &minor, &n) == 2 && s[n] == '\0') {
            gpu->cc_major = gd_val(major);
            gpu->cc_minor = gd_val(minor);
        }
        return 0;
    }
    case GD_CF_PROCESSES:
        /* "None" or a list: the query worked. "N/A": it did not. */
        if (gd_ok(gpu->processes_status))
            return 0;
        gpu->processes_status =
            special_status(s) == GD_ST_NOT_SUPPORTED && s[0] ? gd_missing(GD_ST_NOT_SUPPORTED) : gd_val(1);
        return 0;
    case GD_CF_PROC_PID:
    case GD_CF_PROC_NAME:
    case GD_CF_PROC_MEM: return set_process(c, gpu, m, s);
    default: break;
    }
    if (m->field == GD_CF_POWER_REQUESTED) {
        /* Where a dump names no enforced limit, the requested one stands in, as the least of its keys. */
        gd_cap_map enforced = *m;
        enforced.field = GD_CF_POWER_LIMIT;
        enforced.prio = 1;
        if (set_gpu(c, &enforced, s) != 0)
            return -1;
    }
    gd_value *dst = gpu_value(gpu, m->field), v;
    if (!dst || read_value(c, m, s, &v) != 0)
        return dst ? -1 : 0;
    unsigned char *prio = &c->gprio[c->cur->gpu][m->field];
    if (m->field == GD_CF_ECC_VOL_UNC || m->field == GD_CF_ECC_AGG_UNC) {
        /* One total from its parts (DRAM + SRAM, or parity + SEC-DED); it
         * cites the first part that holds errors, else the first part read. */
        bool first_errors = gd_ok(v) && v.v > 0 && !(gd_ok(*dst) && dst->v > 0);
        if (gd_ok(v) && gd_ok(*dst))
            dst->v += v.v;
        else if (gd_ok(v) || dst->status == GD_ST_UNREAD)
            *dst = v;
        set_origin(c, gpu, dst, m, first_errors);
        return 0;
    }
    if (gd_ok(*dst) && !gd_ok(v))
        return 0;
    if (gd_ok(*dst) && gd_ok(v) && m->prio < *prio)
        return 0;
    *dst = v;
    *prio = m->prio;
    set_origin(c, gpu, dst, m, true);
    return 0;
}

static int set_row(gd_cap *c, const gd_cap_map *m, const char *s)
{
    gd_cap_row *r = c->cur;
    if (m->field == GD_CF_REASON || m->field == GD_CF_REASON_MASK) {
        double v;
        if (m->field == GD_CF_REASON) {
            if (parse_switch(s, &v) != 0)
                return 0; /* "N/A", or a counter ("0 us"): says nothing about now */
            r->reasons_seen = true;
            if (v != 0) {
                r->reasons |= (unsigned long long)m->arg;
                c->f->gpus[r->gpu].metric_origin[GD_M_EVENT_REASONS] = origin_of(c, m);
            } else if (!c->f->gpus[r->gpu].metric_origin[GD_M_EVENT_REASONS].key) {
                c->f->gpus[r->gpu].metric_origin[GD_M_EVENT_REASONS] = origin_of(c, m);
            }
            return 0;
        }
        char *end;
        errno = 0;
        unsigned long long mask = strtoull(s, &end, 16);
        if (end != s && *end == '\0' && errno == 0 && strncasecmp(s, "0x", 2) == 0) {
            r->reasons_seen = true;
            r->reasons |= mask & 0xffffffffULL; /* NVML's reasons are low bits; a double holds 32 exactly */
            c->f->gpus[r->gpu].metric_origin[GD_M_EVENT_REASONS] = origin_of(c, m);
        }
        return 0;
    }
    if (m->arg < 0 || m->arg >= GD_M_COUNT)
        return 0;
    gd_metric metric = (gd_metric)m->arg;
    gd_value v;
    if (read_value(c, m, s, &v) != 0)
        return -1;
    if (m->field == GD_CF_VIOLATION_US) {
        if (gd_ok(v))
            v.v *= 1000.0;
        /* Thermal: software and hardware, the larger, as a live run reads
         * them (their union lies between the larger and the sum). */
        if (gd_ok(v) && gd_ok(r->v[metric]) && r->v[metric].v > v.v)
            v.v = r->v[metric].v;
    } else if (gd_ok(r->v[metric]) && (!gd_ok(v) || m->prio < r->prio[metric])) {
        return 0;
    }
    r->v[metric] = v;
    r->prio[metric] = m->prio;
    c->f->gpus[r->gpu].metric_origin[metric] = origin_of(c, m);
    return 0;
}

int gd_cap_set(gd_cap *c, const gd_cap_map *m, const char *raw, size_t len)
{
    /* Trim, and drop CSV's brackets: "[N/A]", "[Not Supported]". */
    while (len && isspace((unsigned char)*raw))
        raw++, len--;
    while (len && isspace((unsigned char)raw[len - 1]))
        len--;
    if (len >= 2 && raw[0] == '[' && raw[len - 1] == ']')
        raw++, len -= 2;
    /* A note after the value, "610.57.04 [Deprecated; ... Use KMD Version
     * instead]" (driver 610): the value is what comes before it. */
    if (len >= 2 && raw[len - 1] == ']' && m->field != GD_CF_NAME && m->field != GD_CF_PROC_NAME)
        for (size_t i = len - 1; i-- > 0;)
            if (raw[i] == '[' && i > 0 && raw[i - 1] == ' ') {
                len = i - 1;
                while (len && isspace((unsigned char)raw[len - 1]))
                    len--;
                break;
            }
    char s[256];
    if (len >= sizeof s) {
        if (m->field != GD_CF_NAME && m->field != GD_CF_PROC_NAME)
            return gd_cap_fail(c, "%s: a value of %zu bytes is not something nvidia-smi prints", m->key, len);
        len = sizeof s - 1;
    }
    memcpy(s, raw, len);
    s[len] = '\0';
    for (size_t i = 0; i < len; i++)
        if (s[i] == '\0' || (unsigned char)s[i] < 0x20)
            s[i] = ' '; /* control bytes would reach the terminal through the report */
    if (m->field <= GD_CF_HOSTNAME)
        return set_whole(c, m, s);
    if (!c->cur)
        return 0;
    if (m->field >= GD_CF_METRIC)
        return set_row(c, m, s);
    return set_gpu(c, m, s);
}
