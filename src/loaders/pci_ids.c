/* SPDX-License-Identifier: Apache-2.0 */
/* libpci's name lookup through dl_table, once per process (pci_ids.h). */
#include "pci_ids.h"
#include "dl_table.h"

#include <pci/pci.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdio.h>

typedef struct gd_pci_api {
    gd_dl_lib lib;
    __typeof__(pci_alloc) *alloc;
    __typeof__(pci_lookup_name) *lookup_name;
} gd_pci_api;

#define AT(field) offsetof(gd_pci_api, field)

static const gd_dl_sym syms[] = {
    {AT(alloc), true, {"pci_alloc", NULL}},
    {AT(lookup_name), true, {"pci_lookup_name", NULL}},
};

static const gd_dl_table table = {"libpci (the PCI id database's names)", syms, sizeof syms / sizeof syms[0]};

/* Debian 12's soname (pciutils 3.x). */
static const char *const paths[] = {"libpci.so.3"};

/* Process-wide, like the library itself: loaded once, never unloaded; one
 * pci_access for every lookup, never cleaned up (libpci frees nothing a
 * lookup leaves behind until then). The lock serialises lookups: libpci's
 * hash of names is not thread-safe, and `bail` is where its error handler
 * returns to. */
static gd_pci_api api;
static gd_dl_lazy lazy = GD_DL_LAZY(&table, paths, &api.lib, &api);
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct pci_access *access_;
static bool broken; /* the database could not be read whole: no more lookups */
static jmp_buf bail;

/* libpci's error handler must not return (it quits lspci): a malformed
 * database ends the lookup here instead of ending the process. */
static void on_error(char *msg, ...) PCI_NONRET; /* the attribute of libpci's pointer type */

static void on_error(char *msg, ...)
{
    (void)msg;
    longjmp(bail, 1);
}

static void on_warning(char *msg, ...)
{
    (void)msg;
}

/* The access the lookups share, made on first use; NULL without libpci. */
static struct pci_access *shared_access(void)
{
    if (access_ || broken)
        return access_;
    const gd_pci_api *p = gd_dl_lazy_get(&lazy, NULL, 0);
    if (!p || !(access_ = p->alloc())) {
        broken = true;
        return NULL;
    }
    access_->error = on_error;
    access_->warning = on_warning;
    access_->debug = on_warning;
    /* The local database only: no DNS, no cache in $HOME, no udev hwdb. */
    access_->id_lookup_mode = 0;
    access_->numeric_ids = 0;
    return access_;
}

bool gd_pci_ids_device_name(unsigned vendor, unsigned device, char *out, size_t len)
{
    if (len == 0)
        return false;
    out[0] = '\0';
    char buf[256];
    const char *volatile name = NULL;
    pthread_mutex_lock(&lock);
    struct pci_access *a = shared_access();
    if (a) {
        if (setjmp(bail) == 0)
            name =
                api.lookup_name(a, buf, (int)sizeof buf, PCI_LOOKUP_DEVICE | PCI_LOOKUP_NO_NUMBERS | PCI_LOOKUP_NO_HWDB,
                                (int)vendor, (int)device);
        else
            broken = true, access_ = NULL; /* left as libpci had it: never used again */
    }
    if (name)
        snprintf(out, len, "%s", name);
    pthread_mutex_unlock(&lock);
    return name != NULL && out[0] != '\0';
}
