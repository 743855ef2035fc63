/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Simulated device and pinned host memory, and copies that take the time
 * the scenario's bandwidth figures imply (see sim_cuda.h).
 */
#include <stdlib.h>
#include <string.h>

#include "sim_cuda.h"

#define SIM_ALLOC_ALIGN 512u

/* The allocation holding [ptr, ptr + bytes); the caller holds the lock. */
static struct sim_alloc *find_alloc_locked(CUdeviceptr ptr, size_t bytes)
{
    struct sim_cuda *s = &sim_cuda_state;
    for (size_t i = 0; i < s->n_allocs; i++) {
        struct sim_alloc *a = &s->allocs[i];
        if (ptr >= a->base && ptr - a->base <= a->size && bytes <= a->size - (ptr - a->base))
            return a;
    }
    return NULL;
}

/* Whether [p, p + bytes) lies in pinned host memory; the caller holds the lock. */
static bool is_pinned_locked(const void *p, size_t bytes)
{
    struct sim_cuda *s = &sim_cuda_state;
    uintptr_t u = (uintptr_t)p;
    for (size_t i = 0; i < s->n_pinned; i++) {
        uintptr_t base = (uintptr_t)s->pinned[i].ptr;
        if (u >= base && u - base <= s->pinned[i].size && bytes <= s->pinned[i].size - (u - base))
            return true;
    }
    return false;
}

CUresult cuMemGetInfo_v2(size_t *free_bytes, size_t *total)
{
    int dev;
    CUresult r = sim_current_device(&dev);
    if (r != CUDA_SUCCESS)
        return r;
    if (!free_bytes || !total)
        return CUDA_ERROR_INVALID_VALUE;
    sim_lock();
    const struct sim_device *d = &sim_cuda_state.devices[dev];
    size_t used = d->used_bytes + d->foreign_bytes;
    *total = d->total_bytes;
    *free_bytes = used < d->total_bytes ? d->total_bytes - used : 0;
    sim_unlock();
    return CUDA_SUCCESS;
}

CUresult cuMemAlloc_v2(CUdeviceptr *dptr, size_t bytesize)
{
    int dev;
    CUresult r = sim_current_device(&dev);
    if (r != CUDA_SUCCESS)
        return r;
    if (!dptr || bytesize == 0)
        return CUDA_ERROR_INVALID_VALUE;
    struct sim_cuda *s = &sim_cuda_state;
    sim_lock();
    struct sim_device *d = &s->devices[dev];
    size_t used = d->used_bytes + d->foreign_bytes;
    if (used > d->total_bytes || bytesize > d->total_bytes - used) {
        sim_unlock();
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    if (!sim_grow((void **)&s->allocs, &s->cap_allocs, s->n_allocs, sizeof *s->allocs)) {
        sim_unlock();
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    void *backing = NULL;
    if (bytesize <= SIM_MAX_BACKED_BYTES && s->backed_total + bytesize <= SIM_MAX_BACKED_TOTAL) {
        backing = malloc(bytesize);
        if (backing)
            s->backed_total += bytesize;
    }
    struct sim_alloc *a = &s->allocs[s->n_allocs++];
    *a = (struct sim_alloc){.base = d->next_addr, .size = bytesize, .backing = backing, .device = dev};
    d->next_addr += (bytesize + SIM_ALLOC_ALIGN - 1) / SIM_ALLOC_ALIGN * SIM_ALLOC_ALIGN;
    d->used_bytes += bytesize;
    *dptr = a->base;
    sim_unlock();
    return CUDA_SUCCESS;
}

CUresult cuMemFree_v2(CUdeviceptr dptr)
{
    struct sim_cuda *s = &sim_cuda_state;
    sim_lock();
    for (size_t i = 0; i < s->n_allocs; i++) {
        struct sim_alloc *a = &s->allocs[i];
        if (a->base != dptr)
            continue;
        if (a->backing)
            s->backed_total -= a->size;
        free(a->backing);
        s->devices[a->device].used_bytes -= a->size;
        s->allocs[i] = s->allocs[--s->n_allocs];
        sim_unlock();
        return CUDA_SUCCESS;
    }
    sim_unlock();
    return CUDA_ERROR_INVALID_VALUE;
}

CUresult cuMemHostAlloc(void **pp, size_t bytesize, unsigned int Flags)
{
    (void)Flags;
    int dev;
    CUresult r = sim_current_device(&dev);
    if (r != CUDA_SUCCESS)
        return r;
    if (!pp || bytesize == 0)
        return CUDA_ERROR_INVALID_VALUE;
    struct sim_cuda *s = &sim_cuda_state;
    void *p = malloc(bytesize);
    if (!p)
        return CUDA_ERROR_OUT_OF_MEMORY;
    sim_lock();
    if (!sim_grow((void **)&s->pinned, &s->cap_pinned, s->n_pinned, sizeof *s->pinned)) {
        sim_unlock();
        free(p);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    s->pinned[s->n_pinned++] = (struct sim_host_block){.ptr = p, .size = bytesize};
    sim_unlock();
    *pp = p;
    return CUDA_SUCCESS;
}

CUresult cuMemAllocHost_v2(void **pp, size_t bytesize)
{
    return cuMemHostAlloc(pp, bytesize, 0);
}

CUresult cuMemFreeHost(void *p)
{
    struct sim_cuda *s = &sim_cuda_state;
    sim_lock();
    for (size_t i = 0; i < s->n_pinned; i++) {
        if (s->pinned[i].ptr != p)
            continue;
        s->pinned[i] = s->pinned[--s->n_pinned];
        sim_unlock();
        free(p);
        return CUDA_SUCCESS;
    }
    sim_unlock();
    return CUDA_ERROR_INVALID_VALUE;
}

enum sim_copy_kind { SIM_H2D, SIM_D2H, SIM_D2D };

/* The bandwidth figure of a copy, in GB/s (0 when the scenario has none). */
static double copy_gbps(const gd_scenario_gpu *gpu, enum sim_copy_kind kind, bool pinned)
{
    gd_scenario_num n;
    if (kind == SIM_D2D)
        n = gpu->bandwidth_gbps.d2d;
    else if (kind == SIM_H2D)
        n = pinned ? gpu->bandwidth_gbps.h2d_pinned : gpu->bandwidth_gbps.h2d_pageable;
    else if (pinned)
        n = gpu->bandwidth_gbps.d2h_pinned;
    else
        n = gpu->bandwidth_gbps.d2h_pageable.present ? gpu->bandwidth_gbps.d2h_pageable
                                                     : gpu->bandwidth_gbps.h2d_pageable;
    return n.present && n.value > 0 ? n.value : 0;
}

/*
 * One copy. Device sides are given by address (dst_dev / src_dev), host
 * sides by pointer (dst_host / src_host); exactly one of each pair is used,
 * as `kind` says. Completes, data and time, before returning.
 */
static CUresult sim_copy(enum sim_copy_kind kind, CUdeviceptr dst_dev, void *dst_host, CUdeviceptr src_dev,
                         const void *src_host, size_t bytes)
{
    struct timespec start = sim_stream_now();
    int dev;
    CUresult r = sim_current_device(&dev);
    if (r != CUDA_SUCCESS)
        return r;
    if (bytes == 0)
        return CUDA_SUCCESS;
    if ((kind == SIM_D2H && !dst_host) || (kind == SIM_H2D && !src_host))
        return CUDA_ERROR_INVALID_VALUE;

    sim_lock();
    struct sim_alloc *dst_a = kind == SIM_D2H ? NULL : find_alloc_locked(dst_dev, bytes);
    struct sim_alloc *src_a = kind == SIM_H2D ? NULL : find_alloc_locked(src_dev, bytes);
    if ((kind != SIM_D2H && !dst_a) || (kind != SIM_H2D && !src_a)) {
        sim_unlock();
        return CUDA_ERROR_INVALID_VALUE;
    }
    bool pinned = kind == SIM_H2D   ? is_pinned_locked(src_host, bytes)
                  : kind == SIM_D2H ? is_pinned_locked(dst_host, bytes)
                                    : false;
    const struct sim_alloc *timed = kind == SIM_H2D ? dst_a : src_a;
    double gbps = copy_gbps(sim_cuda_state.devices[timed->device].gpu, kind, pinned);
    void *to = dst_a ? (dst_a->backing ? (char *)dst_a->backing + (dst_dev - dst_a->base) : NULL) : dst_host;
    const void *from =
        src_a ? (src_a->backing ? (const char *)src_a->backing + (src_dev - src_a->base) : NULL) : src_host;
    sim_unlock();

    if (gbps <= 0)
        return CUDA_ERROR_NOT_SUPPORTED;
    if (to && from)
        memmove(to, from, bytes);
    /* A device-to-device copy reads and writes device memory: the scenario's
     * d2d figure counts both, as memory bandwidth is quoted (datasheets,
     * STREAM, nvbandwidth's device_local_copy counts the bytes once). */
    sim_sleep_until(start, (double)bytes * (kind == SIM_D2D ? 2.0 : 1.0) / (gbps * 1e9));
    return CUDA_SUCCESS;
}

void *gdsim_device_memory(CUdeviceptr ptr, size_t bytes)
{
    sim_lock();
    struct sim_alloc *a = find_alloc_locked(ptr, bytes);
    void *p = a && a->backing ? (char *)a->backing + (ptr - a->base) : NULL;
    sim_unlock();
    return p;
}

double gdsim_memory_gbps(void)
{
    int dev;
    if (sim_current_device(&dev) != CUDA_SUCCESS)
        return 0;
    sim_lock();
    gd_scenario_num n = sim_cuda_state.devices[dev].gpu->bandwidth_gbps.d2d;
    sim_unlock();
    return n.present && n.value > 0 ? n.value : 0;
}

CUresult cuMemcpyHtoD_v2(CUdeviceptr dstDevice, const void *srcHost, size_t ByteCount)
{
    return sim_copy(SIM_H2D, dstDevice, NULL, 0, srcHost, ByteCount);
}

CUresult cuMemcpyDtoH_v2(void *dstHost, CUdeviceptr srcDevice, size_t ByteCount)
{
    return sim_copy(SIM_D2H, 0, dstHost, srcDevice, NULL, ByteCount);
}

CUresult cuMemcpyDtoD_v2(CUdeviceptr dstDevice, CUdeviceptr srcDevice, size_t ByteCount)
{
    return sim_copy(SIM_D2D, dstDevice, NULL, srcDevice, NULL, ByteCount);
}

/* Streams are synchronous in the simulation: async copies complete now. */
CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr dstDevice, const void *srcHost, size_t ByteCount, CUstream hStream)
{
    (void)hStream;
    return cuMemcpyHtoD_v2(dstDevice, srcHost, ByteCount);
}

CUresult cuMemcpyDtoHAsync_v2(void *dstHost, CUdeviceptr srcDevice, size_t ByteCount, CUstream hStream)
{
    (void)hStream;
    return cuMemcpyDtoH_v2(dstHost, srcDevice, ByteCount);
}

CUresult cuMemcpyDtoDAsync_v2(CUdeviceptr dstDevice, CUdeviceptr srcDevice, size_t ByteCount, CUstream hStream)
{
    (void)hStream;
    return cuMemcpyDtoD_v2(dstDevice, srcDevice, ByteCount);
}

/* Fills N elements of elem_size bytes; memsets take no simulated time. */
static CUresult sim_memset(CUdeviceptr dst, unsigned int value, size_t elem_size, size_t n)
{
    int dev;
    CUresult r = sim_current_device(&dev);
    if (r != CUDA_SUCCESS)
        return r;
    if (n > SIZE_MAX / elem_size)
        return CUDA_ERROR_INVALID_VALUE;
    sim_lock();
    struct sim_alloc *a = find_alloc_locked(dst, n * elem_size);
    if (!a) {
        sim_unlock();
        return CUDA_ERROR_INVALID_VALUE;
    }
    if (a->backing) {
        unsigned char *p = (unsigned char *)a->backing + (dst - a->base);
        if (elem_size == 1)
            memset(p, (int)(value & 0xffu), n);
        else
            for (size_t i = 0; i < n; i++)
                memcpy(p + i * elem_size, &value, elem_size);
    }
    sim_unlock();
    return CUDA_SUCCESS;
}

CUresult cuMemsetD8_v2(CUdeviceptr dstDevice, unsigned char uc, size_t N)
{
    return sim_memset(dstDevice, uc, 1, N);
}

CUresult cuMemsetD32_v2(CUdeviceptr dstDevice, unsigned int ui, size_t N)
{
    return sim_memset(dstDevice, ui, sizeof ui, N);
}

CUresult cuMemsetD8Async(CUdeviceptr dstDevice, unsigned char uc, size_t N, CUstream hStream)
{
    (void)hStream;
    return sim_memset(dstDevice, uc, 1, N);
}

/* Peer copies: P2P at the rate of the scenario's pair (gd_scenario_p2p_gbps)
 * once either context enabled access to the other, else staged through host
 * memory, as the driver does when peer access is off or unsupported. */

static int scenario_index(int device)
{
    return (int)(sim_cuda_state.devices[device].gpu - sim_cuda_state.scenario->gpus);
}

static bool valid_device(CUdevice d)
{
    return d >= 0 && d < sim_cuda_state.device_count;
}

CUresult cuDeviceCanAccessPeer(int *canAccessPeer, CUdevice dev, CUdevice peerDev)
{
    if (!canAccessPeer)
        return CUDA_ERROR_INVALID_VALUE;
    int cur;
    CUresult r = sim_current_device(&cur); /* NOT_INITIALIZED before cuInit; a context is not needed */
    if (r == CUDA_ERROR_NOT_INITIALIZED)
        return r;
    sim_lock();
    bool ok = valid_device(dev) && valid_device(peerDev);
    if (ok)
        *canAccessPeer = dev != peerDev && gd_scenario_p2p_status(sim_cuda_state.scenario, (size_t)scenario_index(dev),
                                                                  (size_t)scenario_index(peerDev)) == 0;
    sim_unlock();
    return ok ? CUDA_SUCCESS : CUDA_ERROR_INVALID_DEVICE;
}

static CUresult set_peer(CUcontext peer, unsigned int flags, bool enable)
{
    int cur;
    CUresult r = sim_current_device(&cur);
    if (r != CUDA_SUCCESS)
        return r;
    if (!peer || peer->magic != SIM_MAGIC_CTX)
        return CUDA_ERROR_INVALID_CONTEXT;
    if (flags != 0)
        return CUDA_ERROR_INVALID_VALUE;
    struct sim_cuda *s = &sim_cuda_state;
    sim_lock();
    size_t n = (size_t)s->device_count;
    if (!s->peer_enabled)
        s->peer_enabled = calloc(n * n, sizeof *s->peer_enabled);
    if (!s->peer_enabled) {
        sim_unlock();
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    bool *e = &s->peer_enabled[(size_t)cur * n + (size_t)peer->device];
    if (enable && (peer->device == cur ||
                   gd_scenario_p2p_status(s->scenario, (size_t)scenario_index(cur), (size_t)scenario_index(peer->device))))
        r = CUDA_ERROR_PEER_ACCESS_UNSUPPORTED;
    else if (enable && *e)
        r = CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED;
    else if (!enable && !*e)
        r = CUDA_ERROR_PEER_ACCESS_NOT_ENABLED;
    else
        *e = enable;
    sim_unlock();
    return r;
}

CUresult cuCtxEnablePeerAccess(CUcontext peerContext, unsigned int Flags)
{
    return set_peer(peerContext, Flags, true);
}

CUresult cuCtxDisablePeerAccess(CUcontext peerContext)
{
    return set_peer(peerContext, 0, false);
}

CUresult cuMemcpyPeerAsync(CUdeviceptr dstDevice, CUcontext dstContext, CUdeviceptr srcDevice, CUcontext srcContext,
                           size_t ByteCount, CUstream hStream)
{
    (void)hStream; /* the calling thread's stream, as for every simulated copy */
    struct timespec start = sim_stream_now();
    int cur;
    CUresult r = sim_current_device(&cur);
    if (r != CUDA_SUCCESS)
        return r;
    if (!dstContext || dstContext->magic != SIM_MAGIC_CTX || !srcContext || srcContext->magic != SIM_MAGIC_CTX)
        return CUDA_ERROR_INVALID_CONTEXT;
    if (ByteCount == 0)
        return CUDA_SUCCESS;
    struct sim_cuda *s = &sim_cuda_state;
    sim_lock();
    struct sim_alloc *dst_a = find_alloc_locked(dstDevice, ByteCount), *src_a = find_alloc_locked(srcDevice, ByteCount);
    if (!dst_a || !src_a || dst_a->device != dstContext->device || src_a->device != srcContext->device) {
        sim_unlock();
        return CUDA_ERROR_INVALID_VALUE;
    }
    int from = src_a->device, to = dst_a->device;
    size_t n = (size_t)s->device_count;
    bool enabled = s->peer_enabled && (s->peer_enabled[(size_t)from * n + (size_t)to] ||
                                       s->peer_enabled[(size_t)to * n + (size_t)from]);
    bool p2p_ok = false;
    double gbps = from == to ? copy_gbps(s->devices[from].gpu, SIM_D2D, false) / 2
                             : gd_scenario_p2p_gbps(s->scenario, (size_t)scenario_index(from),
                                                    (size_t)scenario_index(to), &p2p_ok);
    if (from != to && p2p_ok && !enabled) {
        /* Peer access not enabled: staged through host memory, half the lower host-copy rate. */
        const gd_scenario_gpu *gs = s->devices[from].gpu, *gd = s->devices[to].gpu;
        double d2h = copy_gbps(gs, SIM_D2H, true), h2d = copy_gbps(gd, SIM_H2D, true);
        double host = d2h > 0 && h2d > 0 ? (d2h < h2d ? d2h : h2d) : d2h > 0 ? d2h : h2d;
        gbps = host > 0 ? host / 2 : gbps;
    }
    void *dst = dst_a->backing ? (char *)dst_a->backing + (dstDevice - dst_a->base) : NULL;
    const void *src = src_a->backing ? (const char *)src_a->backing + (srcDevice - src_a->base) : NULL;
    sim_unlock();
    if (!(gbps > 0))
        return CUDA_ERROR_NOT_SUPPORTED;
    if (dst && src)
        memmove(dst, src, ByteCount);
    sim_sleep_until(start, (double)ByteCount / (gbps * 1e9));
    return CUDA_SUCCESS;
}
