/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The PCI id database (pci.ids) through libpci, the library lspci reads it
 * with, opened with dlopen on first use (dl_table): a GPU named only by its
 * device id in a capture ("NVIDIA Corporation Device 2330", or a name from an
 * older database, "GV102") gets the database's model name. The prototypes are
 * libpci's own (its header, at build time). Without libpci or its database the
 * lookup answers nothing and the caller keeps what it had.
 */
#ifndef GD_LOADERS_PCI_IDS_H
#define GD_LOADERS_PCI_IDS_H

#include <stdbool.h>
#include <stddef.h>

/* The database's name of device `device` of `vendor` ("GH100[H100 SXM5
 * 80GB]" for 10de:2330) into out; false, out "", when libpci, its database or
 * the entry is missing, or the database is malformed. Thread-safe; the
 * database is read once per process, from libpci's default path
 * (/usr/share/misc/pci.ids on Debian). */
bool gd_pci_ids_device_name(unsigned vendor, unsigned device, char *out, size_t len);

#endif
