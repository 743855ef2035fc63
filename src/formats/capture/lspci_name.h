/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The name of a GPU that an lspci capture alone describes. lspci names a
 * device from the database of the machine that ran it: "NVIDIA Corporation
 * Device 2330" when that database did not know it, "NVIDIA Corporation GV102"
 * from an old one. The name given is the PCI id database's model where the
 * device id is known, with the chip and the id kept: "NVIDIA H100 SXM5 80GB
 * (GH100, 10de:2330)"; else lspci's own words without the vendor's
 * "Corporation": "NVIDIA GV102 (10de:1e07)", "NVIDIA GPU (10de:2330)".
 */
#ifndef GD_FORMATS_CAPTURE_LSPCI_NAME_H
#define GD_FORMATS_CAPTURE_LSPCI_NAME_H

#include <stddef.h>

#define GD_PCI_VENDOR_NVIDIA 0x10de

/* The device id in lspci's description of an NVIDIA device ("... [10de:2330]"
 * of lspci -nn, or "NVIDIA Corporation Device 2330"); -1 when it gives none. */
long gd_lspci_device_id(const char *desc);

/* The device id from the first line of lspci -x's dump of its configuration
 * space ("00: de 10 07 1e ..."); -1 when the line is not that of an NVIDIA
 * device. */
long gd_lspci_dump_device_id(const char *line);

/* A GPU's name (above) from lspci's description `desc` (the text after the
 * class), its device id (-1: not known) and the PCI id database's name of it
 * (NULL or "": not found), into out. */
void gd_lspci_gpu_name(const char *desc, long device, const char *db, char *out, size_t len);

#endif
