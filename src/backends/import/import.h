/*
 * Captured evidence (`--from FILE`): nvidia-smi XML, text, CSV and dmon logs,
 * lspci -vv and nvidia-smi topo -m, recognised by content, merged into one
 * gd_facts as if read from the machine at capture time.
 */
#ifndef GD_IMPORT_H
#define GD_IMPORT_H

#include "gpudoctor/model.h"

#include <stddef.h>

/*
 * lspci -vv (or -vvv) output: link capability and status (LnkCap/LnkSta,
 * "downgraded"), AER counters, bridges, mapped to f's GPUs by bus id; fills
 * f->pcie. Returns 0, or -1 with a message naming `name`.
 */
int gd_import_lspci(const char *name, const char *text, size_t len, gd_facts *f, char *err, size_t errlen);

/* nvidia-smi topo -m output: the GPU-to-GPU matrix, CPU and NUMA affinity; fills f->pcie. */
int gd_import_topo(const char *name, const char *text, size_t len, gd_facts *f, char *err, size_t errlen);

#endif
