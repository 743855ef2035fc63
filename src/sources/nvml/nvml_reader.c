/* SPDX-License-Identifier: Apache-2.0 */
/* NVML's reader core: the library opened and closed, every return code
 * turned into a value (and a lost GPU noticed) in one place, and the reads
 * the snapshot, the samples and the health re-reads share. */
#include "nvml_read.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

gd_status gd_nvml_status(nvmlReturn_t rc)
{
    switch (rc) {
    case NVML_SUCCESS: return GD_ST_OK;
    case NVML_ERROR_NOT_SUPPORTED: return GD_ST_NOT_SUPPORTED;
    case NVML_ERROR_DEPRECATED: return GD_ST_DEPRECATED;
    case NVML_ERROR_NO_PERMISSION: return GD_ST_NO_PERMISSION;
    case NVML_ERROR_FUNCTION_NOT_FOUND: return GD_ST_UNAVAILABLE;
    case NVML_ERROR_GPU_IS_LOST: return GD_ST_GPU_LOST;
    default: return GD_ST_ERROR;
    }
}

gd_value gd_nvml_take(gd_nvml_reader *r, const char *call, nvmlReturn_t rc, double v)
{
    if (rc == NVML_SUCCESS)
        return gd_val(v);
    gd_value x = gd_missing(gd_nvml_status(rc));
    x.raw = (int32_t)rc;
    if (rc == NVML_ERROR_GPU_IS_LOST && r->gpu && !r->gpu->lost) {
        r->gpu->lost = true;
        r->gpu->lost_at_s = r->t_s;
        r->gpu->lost_code = rc;
        snprintf(r->gpu->lost_call, sizeof r->gpu->lost_call, "%s", call);
    }
    return x;
}

const char *gd_nvml_error_text(const gd_nvml_session *s, nvmlReturn_t rc, char *buf, size_t len)
{
    const char *t = s->api.ErrorString ? s->api.ErrorString(rc) : NULL;
    if (t && *t)
        return t;
    snprintf(buf, len, "NVML error %d", (int)rc);
    return buf;
}

static void close_partial(gd_nvml_session *s)
{
    if (s->initialised && s->api.Shutdown)
        s->api.Shutdown();
    free(s->devices);
    free(s->pcie);
    free(s->memo);
    gd_nvml_unload(&s->api);
    memset(s, 0, sizeof *s);
}

int gd_nvml_open(gd_nvml_session *s, const char *path, const char *sim_scenario, char *err, size_t errlen)
{
    memset(s, 0, sizeof *s);
    if (gd_nvml_load(&s->api, path, err, errlen) != 0)
        return -1;
    /* The simulated library is told its scenario, not through the environment. */
    if (sim_scenario) {
        if (!s->api.SimScenarioSet) {
            snprintf(err, errlen, "%s is not gpudoctor's simulated NVML (no gdsim_scenario_set)", s->api.lib.path);
            close_partial(s);
            return -1;
        }
        s->api.SimScenarioSet(sim_scenario);
    }
    nvmlReturn_t rc = s->api.Init();
    if (rc != NVML_SUCCESS) {
        const char *sim = s->api.SimLastError ? s->api.SimLastError() : NULL;
        if (sim && *sim)
            snprintf(err, errlen, "%s", sim);
        else {
            char buf[32];
            snprintf(err, errlen, "nvmlInit failed: %s (%d)", gd_nvml_error_text(s, rc, buf, sizeof buf), (int)rc);
        }
        close_partial(s);
        return -1;
    }
    s->initialised = true;
    unsigned int n = 0;
    rc = s->api.DeviceGetCount(&n);
    if (rc != NVML_SUCCESS) {
        char buf[32];
        snprintf(err, errlen, "nvmlDeviceGetCount failed: %s (%d)", gd_nvml_error_text(s, rc, buf, sizeof buf),
                 (int)rc);
        close_partial(s);
        return -1;
    }
    s->count = n;
    s->devices = calloc(n ? n : 1, sizeof *s->devices);
    s->pcie = calloc(n ? n : 1, sizeof *s->pcie);
    s->memo = calloc(n ? n : 1, sizeof *s->memo);
    if (!s->devices || !s->pcie || !s->memo) {
        snprintf(err, errlen, "out of memory");
        close_partial(s);
        return -1;
    }
    return 0;
}

void gd_nvml_close(gd_nvml_session *s)
{
    if (s->on_close) /* a thread that calls NVML (nvml_pcie_poll.c): stopped before the shutdown */
        s->on_close(s);
    close_partial(s);
}

double gd_nvml_field_number(const nvmlFieldValue_t *fv)
{
    switch (fv->valueType) {
    case NVML_VALUE_TYPE_DOUBLE: return fv->value.dVal;
    case NVML_VALUE_TYPE_UNSIGNED_INT: return fv->value.uiVal;
    case NVML_VALUE_TYPE_UNSIGNED_LONG: return (double)fv->value.ulVal;
    case NVML_VALUE_TYPE_SIGNED_LONG_LONG: return (double)fv->value.sllVal;
    default: return (double)fv->value.ullVal;
    }
}

/* Answers that stand for the session: this board or driver does not do it. */
static bool cannot(nvmlReturn_t rc)
{
    return rc == NVML_ERROR_NOT_SUPPORTED || rc == NVML_ERROR_DEPRECATED || rc == NVML_ERROR_FUNCTION_NOT_FOUND ||
           rc == NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
}

static gd_nvml_cannot *find(gd_nvml_memo *m, gd_nvml_fn fn, int arg)
{
    for (size_t k = 0; k < m->cannot_count; k++)
        if (m->cannot[k].fn == fn && m->cannot[k].arg == arg)
            return &m->cannot[k];
    return NULL;
}

bool gd_nvml_ask(gd_nvml_reader *r, gd_nvml_fn fn, int arg, nvmlReturn_t *rc)
{
    const gd_nvml_cannot *c = r->memo && fn ? find(r->memo, fn, arg) : NULL;
    if (!c || r->t_s >= c->until - 1e-9)
        return true;
    *rc = c->rc;
    return false;
}

nvmlReturn_t gd_nvml_answered(gd_nvml_reader *r, gd_nvml_fn fn, int arg, nvmlReturn_t rc)
{
    if (!r->memo || !fn)
        return rc;
    gd_nvml_cannot *c = find(r->memo, fn, arg);
    if (!cannot(rc)) {
        if (c) /* it answers now: forgotten (the last entry takes its place) */
            *c = r->memo->cannot[--r->memo->cannot_count];
        return rc;
    }
    if (!c && r->memo->cannot_count < GD_NVML_CANNOT_MAX) /* a full table: asked every sample, as before */
        c = &r->memo->cannot[r->memo->cannot_count++];
    /* Asked again on the health cadence, and no more often than every
     * GD_NVML_CANNOT_SAMPLES samples: at a 1 s interval the re-asks of 5 s
     * were most of what a sample added over one at 100 ms. */
    double every = r->s && r->s->interval_s * GD_NVML_CANNOT_SAMPLES > GD_HEALTH_REREAD_S
                       ? r->s->interval_s * GD_NVML_CANNOT_SAMPLES
                       : GD_HEALTH_REREAD_S;
    if (c)
        *c = (gd_nvml_cannot){.fn = fn, .arg = arg, .rc = rc, .until = r->t_s + every};
    return rc;
}

gd_value gd_nvml_read_temp(gd_nvml_reader *r, nvmlDevice_t d)
{
    nvmlTemperature_t tv;
    memset(&tv, 0, sizeof tv);
    tv.version = nvmlTemperature_v1;
    tv.sensorType = NVML_TEMPERATURE_GPU;
    nvmlReturn_t rc = NVASK(r, DeviceGetTemperatureV, 0, d, &tv);
    if (!gd_nvml_try_older(rc))
        return gd_nvml_take(r, "nvmlDeviceGetTemperatureV", rc, tv.temperature);
    unsigned int u = 0;
    rc = NVASK(r, DeviceGetTemperature, NVML_TEMPERATURE_GPU, d, NVML_TEMPERATURE_GPU, &u);
    return gd_nvml_take(r, "nvmlDeviceGetTemperature", rc, u);
}

gd_value gd_nvml_read_uint(gd_nvml_reader *r, const char *call, nvml_DeviceGetUInt_fn fn, nvmlDevice_t d, double scale)
{
    unsigned int v = 0;
    nvmlReturn_t rc = NVML_ERROR_FUNCTION_NOT_FOUND;
    if (gd_nvml_ask(r, (gd_nvml_fn)fn, 0, &rc))
        rc = gd_nvml_answered(r, (gd_nvml_fn)fn, 0, fn ? fn(d, &v) : NVML_ERROR_FUNCTION_NOT_FOUND);
    return gd_nvml_take(r, call, rc, v * scale);
}

gd_value gd_nvml_read_clock(gd_nvml_reader *r, const char *call, nvml_DeviceGetClockInfo_fn fn, nvmlDevice_t d,
                            nvmlClockType_t type)
{
    unsigned int v = 0;
    nvmlReturn_t rc = NVML_ERROR_FUNCTION_NOT_FOUND;
    if (gd_nvml_ask(r, (gd_nvml_fn)fn, (int)type, &rc))
        rc = gd_nvml_answered(r, (gd_nvml_fn)fn, (int)type, fn ? fn(d, type, &v) : NVML_ERROR_FUNCTION_NOT_FOUND);
    return gd_nvml_take(r, call, rc, v);
}
