/* SPDX-License-Identifier: Apache-2.0 */
/* The table-driven dlopen/dlsym loader (dl_table.h). */
#include "dl_table.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* POSIX guarantees that a dlsym result converts to a function pointer. */
_Static_assert(sizeof(void *) == sizeof(void (*)(void)), "dlsym results are stored through a void *");

__attribute__((format(printf, 3, 4))) static void set_err(char *err, size_t errlen, const char *fmt, ...)
{
    if (!err || errlen == 0)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}

static void set_entry(void *fns, const gd_dl_sym *sym, void *p)
{
    memcpy((char *)fns + sym->offset, &p, sizeof p);
}

static void clear_entries(const gd_dl_table *table, void *fns, const char **found)
{
    for (size_t i = 0; i < table->count; i++) {
        set_entry(fns, &table->syms[i], NULL);
        if (found)
            found[i] = NULL;
    }
}

/* The first of sym->names that the library exports, or NULL; *name says which. */
static void *resolve(void *handle, const gd_dl_sym *sym, const char **name)
{
    for (size_t i = 0; i < GD_DL_MAX_NAMES && sym->names[i]; i++) {
        dlerror();
        void *p = dlsym(handle, sym->names[i]);
        if (p && !dlerror()) {
            *name = sym->names[i];
            return p;
        }
    }
    *name = NULL;
    return NULL;
}

/* dlopens the first candidate that opens; else names them all in err. */
static void *open_first(const gd_dl_table *table, const char *const *paths, size_t npaths, size_t *which, char *err,
                        size_t errlen)
{
    char tried[512] = "";
    size_t used = 0;
    const char *why = NULL;
    for (size_t i = 0; i < npaths; i++) {
        /* dlopen's own open() blocks on a FIFO: a path is a regular file
         * first (a bare soname is the loader's search, of its directories). */
        struct stat sb;
        void *h = NULL;
        dlerror();
        if (strchr(paths[i], '/') && stat(paths[i], &sb) == 0 && !S_ISREG(sb.st_mode))
            why = "not a regular file";
        else if ((h = dlopen(paths[i], RTLD_NOW | RTLD_LOCAL)) != NULL) {
            *which = i;
            return h;
        } else
            why = dlerror();
        int n = snprintf(tried + used, sizeof tried - used, "%s%s", i ? ", " : "", paths[i]);
        if (n > 0)
            used = used + (size_t)n < sizeof tried ? used + (size_t)n : sizeof tried - 1;
    }
    set_err(err, errlen, "cannot load %s (tried %s): %s", table->what, tried, why ? why : "dlopen failed");
    return NULL;
}

int gd_dl_open(gd_dl_lib *lib, const gd_dl_table *table, const char *const *paths, size_t npaths, void *fns,
               const char **found, char *err, size_t errlen)
{
    if (lib)
        memset(lib, 0, sizeof *lib);
    if (!lib || !table || !fns || !paths || npaths == 0) {
        set_err(err, errlen, "gd_dl_open: no %s given", !lib ? "library" : !table ? "table" : !fns ? "struct" : "path");
        return -EINVAL;
    }
    clear_entries(table, fns, found);

    size_t which = 0;
    void *handle = open_first(table, paths, npaths, &which, err, errlen);
    if (!handle)
        return -ENOENT;

    for (size_t i = 0; i < table->count; i++) {
        const gd_dl_sym *sym = &table->syms[i];
        const char *name;
        void *p = resolve(handle, sym, &name);
        if (!p && sym->required) {
            set_err(err, errlen, "%s: missing required symbol %s", paths[which], sym->names[0]);
            dlclose(handle);
            clear_entries(table, fns, found);
            return -ENOSYS;
        }
        set_entry(fns, sym, p);
        if (found)
            found[i] = name;
    }
    lib->handle = handle;
    snprintf(lib->path, sizeof lib->path, "%s", paths[which]);
    return 0;
}

const char *gd_dl_choose_path(const char *path, const char *def)
{
    return path && path[0] ? path : def;
}

void gd_dl_close(gd_dl_lib *lib)
{
    if (!lib)
        return;
    if (lib->handle)
        dlclose(lib->handle);
    memset(lib, 0, sizeof *lib);
}

size_t gd_dl_missing(const gd_dl_table *table, const void *fns)
{
    size_t n = 0;
    for (size_t i = 0; i < table->count; i++) {
        void *p;
        memcpy(&p, (const char *)fns + table->syms[i].offset, sizeof p);
        n += p == NULL;
    }
    return n;
}

const void *gd_dl_lazy_get(gd_dl_lazy *l, char *err, size_t errlen)
{
    pthread_mutex_lock(&l->lock);
    if (!l->tried) {
        l->rc = gd_dl_open(l->lib, l->table, l->paths, l->npaths, l->fns, NULL, l->err, sizeof l->err);
        l->tried = true;
    }
    pthread_mutex_unlock(&l->lock);
    if (l->rc == 0)
        return l->fns;
    if (err)
        snprintf(err, errlen, "%s", l->err);
    return NULL;
}
