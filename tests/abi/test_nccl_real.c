/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The NCCL loader against the real libnccl.so.2: it opens, resolves every
 * symbol nccl_symbols.h declares, and answers ncclGetVersion and
 * ncclGetErrorString without a GPU (NCCL links the CUDA runtime statically).
 * The library: $GD_NCCL_REAL_LIBRARY, else the one scripts/install-deps.sh
 * unpacked from Debian's libnccl2 (build/deps/nccl/lib), else what the
 * loader's own search finds (a CUDA toolkit's). Skipped (77), with the
 * reasons, where there is none this system can load (Debian's build needs a
 * newer glibc than bookworm's).
 */
#include <dlfcn.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "loaders/nccl_loader.h"

/* Opens the first real library of: $GD_NCCL_REAL_LIBRARY, the one
 * install-deps.sh unpacked, the loader's own search (the loader's path,
 * $CUDA_HOME, /usr/local/cuda). Not the simulated one, which has no
 * ncclCommInitRank. 0, or -1 with every reason in why. */
static int open_real(struct gd_nccl_api *api, char *why, size_t len)
{
    const char *env = getenv("GD_NCCL_REAL_LIBRARY");
    gd_nccl_search tries[3] = {{.path = env && *env ? env : NULL},
                               {.path = GD_NCCL_REAL_PATH[0] ? GD_NCCL_REAL_PATH : NULL},
                               {.toolkit = getenv("CUDA_HOME")}};
    size_t used = 0;
    why[0] = '\0';
    for (int i = 0; i < 3; i++) {
        if (i < 2 && !tries[i].path)
            continue;
        char err[1024];
        if (gd_nccl_load(api, &tries[i], err, sizeof err) == 0) {
            if (dlsym(api->lib.handle, "ncclCommInitRank"))
                return 0;
            snprintf(err, sizeof err, "%s is not the real NCCL", api->lib.path);
            gd_nccl_unload(api);
        }
        int k = snprintf(why + used, len - used, "%s%s", used ? "; " : "", err);
        if (k > 0 && (size_t)k < len - used)
            used += (size_t)k;
    }
    return -1;
}

static void loads_real_library(void **state)
{
    (void)state;
    struct gd_nccl_api api;
    char why[4096];
    assert_int_equal(open_real(&api, why, sizeof why), 0);
#define GD_NCCL_SYMBOL(t, sym) assert_non_null(api.sym);
#include "gpudoctor/abi/nccl_symbols.h"
#undef GD_NCCL_SYMBOL
    int version = 0;
    assert_int_equal(api.ncclGetVersion(&version), ncclSuccess);
    printf("nccl_real: %s: NCCL_VERSION_CODE %d\n", api.lib.path, version);
    assert_true(version >= 21000); /* ncclCommGetAsyncError and ncclRemoteError: 2.10 and later */
    assert_non_null(api.ncclGetErrorString(ncclInvalidUsage));
    /* Nothing that starts NCCL's own state (ncclGroupEnd keeps a per-thread
     * allocation for the process's life, which LeakSanitizer reports). */
    gd_nccl_unload(&api);
}

int main(void)
{
    struct gd_nccl_api probe;
    char why[4096];
    if (open_real(&probe, why, sizeof why) != 0) {
        /* install-deps.sh's note, where it left Debian's libnccl2 out. */
        char note[512] = "";
        FILE *f = GD_NCCL_NOTE_PATH[0] ? fopen(GD_NCCL_NOTE_PATH, "r") : NULL;
        if (f) {
            if (!fgets(note, sizeof note, f))
                note[0] = '\0';
            note[strcspn(note, "\n")] = '\0';
            fclose(f);
        }
        fprintf(stderr,
                "nccl_real: skipped: no real libnccl.so.2 this system can load%s%s. Debian ships NCCL from Debian 13 "
                "on, built for its newer C library (make test fetches it where this one can load it); with another "
                "build of NCCL: GD_NCCL_REAL_LIBRARY=/path/to/libnccl.so.2 ctest --test-dir build -R nccl_real\n",
                note[0] ? ": " : "", note);
        fprintf(stderr, "nccl_real: tried: %s\n", why);
        return 77;
    }
    gd_nccl_unload(&probe);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(loads_real_library),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
