/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The simulated libnccl's NCCL_DEBUG=INFO log (sim/nccl/sim_nccl_log.c),
 * loaded by dlopen as a program loads the real one: on an InfiniBand node
 * it says NET/IB with its ports and GPUDirect RDMA per GPU, P2P channels;
 * without nvidia_peermem GPUDirect is off "(no module)"; NCCL_IB_DISABLE=1
 * or an Ethernet-only node gives NET/Socket; the variables read are "set by
 * environment to"; NCCL_DEBUG_FILE's %h and %p are replaced; without
 * NCCL_DEBUG nothing is written. Each case in a child of its own: the
 * simulated driver loads its scenario once per process.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include <dirent.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

typedef int (*cu_init_fn)(unsigned);
typedef int (*comm_init_all_fn)(void **comms, int ndev, const int *devlist);
typedef int (*comm_destroy_fn)(void *comm);

static char dir[64];

/* In a child: the scenario, the environment (NAME=VALUE, ... NULL), two
 * ranks initialised; exits 0 when they were. */
static void run_child(const char *scenario, const char *const *env)
{
    char path[512], file[128];
    snprintf(path, sizeof path, "%s/%s", GD_EXAMPLES_DIR, scenario);
    setenv("GPUDOCTOR_SIM_SCENARIO", path, 1);
    snprintf(file, sizeof file, "%s/nccl.%%h.%%p.log", dir);
    setenv("NCCL_DEBUG_FILE", file, 1);
    for (const char *const *e = env; *e; e++)
        putenv((char *)*e);
    void *nccl = dlopen(SIM_NCCL_PATH, RTLD_NOW | RTLD_LOCAL);
    if (!nccl)
        _exit(10);
    cu_init_fn cu_init = (cu_init_fn)dlsym(nccl, "cuInit");
    comm_init_all_fn init = (comm_init_all_fn)dlsym(nccl, "ncclCommInitAll");
    comm_destroy_fn destroy = (comm_destroy_fn)dlsym(nccl, "ncclCommDestroy");
    if (!cu_init || !init || !destroy || cu_init(0) != 0)
        _exit(11);
    void *comms[2];
    int devs[2] = {0, 1};
    if (init(comms, 2, devs) != 0)
        _exit(12);
    destroy(comms[0]);
    destroy(comms[1]);
    _exit(0);
}

/* The log the child wrote (one file, named by the host and pid), or NULL. */
static char *run(const char *scenario, const char *const *env)
{
    strcpy(dir, "/tmp/gd-nccl-log-XXXXXX");
    assert_non_null(mkdtemp(dir));
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0)
        run_child(scenario, env);
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
    char *text = NULL, name[512], pidtext[32];
    snprintf(pidtext, sizeof pidtext, ".%d.log", (int)pid);
    DIR *d = opendir(dir);
    assert_non_null(d);
    for (struct dirent *e; (e = readdir(d));) {
        if (e->d_name[0] == '.')
            continue;
        assert_non_null(strstr(e->d_name, pidtext)); /* %p is the pid */
        assert_null(strchr(e->d_name, '%'));
        snprintf(name, sizeof name, "%s/%s", dir, e->d_name);
        FILE *f = fopen(name, "r");
        assert_non_null(f);
        text = calloc(1, 1 << 20);
        assert_non_null(text);
        size_t n = fread(text, 1, (1 << 20) - 1, f);
        text[n] = '\0';
        fclose(f);
        unlink(name);
    }
    closedir(d);
    rmdir(dir);
    return text;
}

/* Every line but the version has NCCL's prefix "host:pid:tid [dev] NCCL INFO ". */
static void prefixed(const char *text)
{
    const char *p = text;
    assert_true(strncmp(p, "NCCL version 2.22.3+cuda", 24) == 0);
    for (p = strchr(p, '\n') + 1; *p; p = strchr(p, '\n') + 1) {
        char host[64];
        long pid, tid;
        int dev, used = 0;
        if (sscanf(p, "%63[^:]:%ld:%ld [%d] NCCL INFO %n", host, &pid, &tid, &dev, &used) != 4 || used == 0)
            fail_msg("not NCCL's prefix: %.80s", p);
    }
}

static void infiniband_node(void **state)
{
    (void)state;
    static const char *const env[] = {"NCCL_DEBUG=INFO", "NCCL_IB_HCA=mlx5", NULL};
    char *t = run("net-ib-h100x8-healthy.json", env);
    assert_non_null(t);
    prefixed(t);
    assert_non_null(strstr(t, " [0] NCCL INFO NCCL_IB_HCA set by environment to mlx5\n"));
    assert_non_null(strstr(t, " NCCL INFO Bootstrap : Using eth0:10.0.0.1<0>\n"));
    assert_non_null(strstr(t, " NCCL INFO NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/IB [2]mlx5_2:1/IB"));
    assert_non_null(strstr(t, "[7]mlx5_7:1/IB ; OOB eth0:10.0.0.1<0>\n"));
    assert_non_null(strstr(t, " NCCL INFO Using network IB\n"));
    /* GPU 0 and mlx5_0 share a switch: PXB, GDR's default level. */
    assert_non_null(strstr(t, " [0] NCCL INFO GPU Direct RDMA Enabled for GPU 0 / HCA 0 (distance 5 <= 5), read 1\n"));
    assert_non_null(strstr(t, " [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/CUMEM\n"));
    assert_non_null(strstr(t, " [1] NCCL INFO Channel 01/0 : 1[1] -> 0[0] via P2P/CUMEM\n"));
    assert_null(strstr(t, "NET/Socket"));
    free(t);
}

static void gdr_off_without_peermem_and_ib_disabled(void **state)
{
    (void)state;
    static const char *const env[] = {"NCCL_DEBUG=INFO", NULL};
    char *t = run("net-ib-no-peermem.json", env);
    assert_non_null(strstr(t, " NCCL INFO NET/IB : GPU Direct RDMA Disabled for HCA 0 'mlx5_0' (no module)\n"));
    assert_null(strstr(t, "GPU Direct RDMA Enabled"));
    free(t);
    static const char *const off[] = {"NCCL_DEBUG=INFO", "NCCL_IB_DISABLE=1", "NCCL_P2P_DISABLE=1", NULL};
    t = run("net-ib-h100x8-healthy.json", off);
    assert_non_null(strstr(t, " NCCL INFO NCCL_IB_DISABLE set by environment to 1\n"));
    assert_non_null(strstr(t, " NCCL INFO NET/Socket : Using [0]eth0:10.0.0.1<0>\n"));
    assert_non_null(strstr(t, " NCCL INFO Using network Socket\n"));
    assert_null(strstr(t, "NET/IB"));
    assert_non_null(strstr(t, " NCCL INFO Channel 00/0 : 0[0] -> 1[1] via SHM/direct/direct\n"));
    free(t);
}

static void ethernet_only_node(void **state)
{
    (void)state;
    static const char *const env[] = {"NCCL_DEBUG=INFO", NULL};
    char *t = run("net-eth-cloud-vm.json", env);
    prefixed(t);
    assert_non_null(strstr(t, " NCCL INFO Bootstrap : Using ens4:10.128.0.5<0>\n"));
    assert_non_null(strstr(t, " NCCL INFO NET/IB : No device found.\n"));
    assert_non_null(strstr(t, " NCCL INFO NET/Socket : Using [0]ens4:10.128.0.5<0>\n"));
    assert_non_null(strstr(t, " NCCL INFO Using network Socket\n"));
    assert_null(strstr(t, "GPU Direct RDMA"));
    free(t);
    /* NCCL_SOCKET_IFNAME picks the interface, even the loopback. */
    static const char *const ifname[] = {"NCCL_DEBUG=INFO", "NCCL_SOCKET_IFNAME=lo", NULL};
    t = run("net-eth-cloud-vm.json", ifname);
    assert_non_null(strstr(t, " NCCL INFO NCCL_SOCKET_IFNAME set by environment to lo\n"));
    assert_non_null(strstr(t, " NCCL INFO Bootstrap : Using lo:127.0.0.1<0>\n"));
    assert_non_null(strstr(t, " NCCL INFO NET/Socket : Using [0]lo:127.0.0.1<0>\n"));
    free(t);
}

static void silent_without_nccl_debug(void **state)
{
    (void)state;
    static const char *const env[] = {"NCCL_DEBUG=WARN", NULL};
    assert_null(run("net-ib-h100x8-healthy.json", env));
}

int main(void)
{
    unsetenv("NCCL_DEBUG");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(infiniband_node),
        cmocka_unit_test(gdr_off_without_peermem_and_ib_disabled),
        cmocka_unit_test(ethernet_only_node),
        cmocka_unit_test(silent_without_nccl_debug),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
