/* SPDX-License-Identifier: Apache-2.0 */
/*
 * nvmlDeviceGetPcieThroughput off the sampling path (nvml_pcie_poll.c): at
 * most once a second per GPU, by a thread of its own on a machine
 * (gd_nvml_session.pcie_thread), between samples on a simulated one.
 */
#ifndef GD_NVML_PCIE_POLL_H
#define GD_NVML_PCIE_POLL_H

#include "nvml_read.h"

/* GPU g's latest throughput into row (held until the next read; unread
 * before the first), and GPU g marked as needing the call. Never blocks. */
void gd_nvml_pcie_take(gd_nvml_reader *r, size_t g, gd_value *row);
/* After sample i's readings: the thread started (or woken) where the
 * session runs one, else one due GPU read now (every GPU for a single
 * snapshot) into the sample's row; f->pcie_throughput told. */
void gd_nvml_pcie_after_sample(gd_nvml_session *s, gd_facts *f, size_t i);
/* Stops and joins the thread, if any (before NVML is shut down). */
void gd_nvml_pcie_stop(gd_nvml_session *s);

#endif
