/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A job that uses NCCL as a training job does: it loads the library named
 * by argv[1] (the simulated libnccl in the tests), initialises one
 * communicator per GPU of argv[2] and destroys them; the library writes its
 * INFO log where NCCL_DEBUG and NCCL_DEBUG_FILE say. Prints one line of its
 * own, so a test can tell the job's output from NCCL's.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

typedef int (*cu_init_fn)(unsigned);
typedef int (*comm_init_all_fn)(void **comms, int ndev, const int *devlist);
typedef int (*comm_destroy_fn)(void *comm);

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: nccl_job LIBNCCL NGPUS\n");
        return 2;
    }
    int n = atoi(argv[2]);
    if (n < 1 || n > 8)
        return 2;
    void *nccl = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (!nccl) {
        fprintf(stderr, "nccl_job: %s\n", dlerror());
        return 3;
    }
    cu_init_fn cu_init = (cu_init_fn)dlsym(nccl, "cuInit");
    comm_init_all_fn init = (comm_init_all_fn)dlsym(nccl, "ncclCommInitAll");
    comm_destroy_fn destroy = (comm_destroy_fn)dlsym(nccl, "ncclCommDestroy");
    if (!cu_init || !init || !destroy || cu_init(0) != 0)
        return 4;
    void *comms[8];
    int devs[8];
    for (int i = 0; i < n; i++)
        devs[i] = i;
    if (init(comms, n, devs) != 0)
        return 5;
    for (int i = 0; i < n; i++)
        destroy(comms[i]);
    printf("job: %d ranks initialised\n", n);
    return 0;
}
