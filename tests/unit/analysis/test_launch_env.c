/* SPDX-License-Identifier: Apache-2.0 */
/* Where a process stands in a multi-node run, from the launcher's variables. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "analysis/launch_env.h"

#include <string.h>

/* The environment as NAME=VALUE strings, NULL-terminated. */
static const char *get(const char *name, void *ud)
{
    size_t n = strlen(name);
    for (const char *const *e = ud; *e; e++)
        if (strncmp(*e, name, n) == 0 && (*e)[n] == '=')
            return *e + n + 1;
    return NULL;
}

static int launch(const char *const *env, gd_launch *l, char *err)
{
    return gd_launch_from_env(get, (void *)env, l, err, 256);
}

static void torchrun(void **state)
{
    (void)state;
    gd_launch l;
    char err[256];
    const char *env[] = {"RANK=3",
                         "WORLD_SIZE=4",
                         "LOCAL_RANK=0",
                         "MASTER_ADDR=node01",
                         "MASTER_PORT=29600",
                         "SLURM_PROCID=9",
                         "SLURM_NTASKS=16",
                         NULL};
    assert_int_equal(launch(env, &l, err), 0);
    assert_string_equal(l.launcher, "torchrun"); /* torchrun inside an allocation: its own variables win */
    assert_int_equal(l.rank, 3);
    assert_int_equal(l.world, 4);
    assert_int_equal(l.local_rank, 0);
    assert_string_equal(l.master_addr, "node01");
    assert_int_equal(l.master_port, 29600);
    const char *no_addr[] = {"RANK=0", "WORLD_SIZE=2", NULL};
    assert_int_equal(launch(no_addr, &l, err), -1);
    assert_non_null(strstr(err, "MASTER_ADDR"));
    const char *bad_rank[] = {"RANK=4", "WORLD_SIZE=4", "MASTER_ADDR=a", NULL};
    assert_int_equal(launch(bad_rank, &l, err), -1);
    assert_non_null(strstr(err, "RANK=4"));
    const char *bad_port[] = {"RANK=0", "WORLD_SIZE=4", "MASTER_ADDR=a", "MASTER_PORT=70000", NULL};
    assert_int_equal(launch(bad_port, &l, err), -1);
    assert_non_null(strstr(err, "MASTER_PORT=70000"));
}

static void slurm(void **state)
{
    (void)state;
    gd_launch l;
    char err[256];
    const char *env[] = {"SLURM_PROCID=2", "SLURM_NTASKS=4", "SLURM_LOCALID=0", "SLURM_STEP_NODELIST=gpu[007-009,012]",
                         NULL};
    assert_int_equal(launch(env, &l, err), 0);
    assert_string_equal(l.launcher, "slurm");
    assert_int_equal(l.rank, 2);
    assert_int_equal(l.world, 4);
    assert_string_equal(l.master_addr, "gpu007");
    assert_int_equal(l.master_port, GD_LAUNCH_DEFAULT_PORT);
    /* A job script's own MASTER_ADDR and MASTER_PORT (exported for torch) win over the node list. */
    const char *exported[] = {"SLURM_PROCID=1",       "SLURM_NTASKS=2",     "SLURM_STEP_NODELIST=gpu[1-2]",
                              "MASTER_ADDR=10.0.0.7", "MASTER_PORT=29800", NULL};
    assert_int_equal(launch(exported, &l, err), 0);
    assert_string_equal(l.master_addr, "10.0.0.7");
    assert_int_equal(l.master_port, 29800);
    const char *none[] = {"PATH=/bin", NULL};
    assert_int_equal(launch(none, &l, err), -1);
    assert_non_null(strstr(err, "srun"));
}

static void slurm_host_lists(void **state)
{
    (void)state;
    char h[64];
    assert_true(gd_slurm_first_host("node01", h, sizeof h));
    assert_string_equal(h, "node01");
    assert_true(gd_slurm_first_host("node01,node02", h, sizeof h));
    assert_string_equal(h, "node01");
    assert_true(gd_slurm_first_host("gpu[07-09,12],cpu1", h, sizeof h));
    assert_string_equal(h, "gpu07");
    assert_true(gd_slurm_first_host("rack[3]-gpu", h, sizeof h));
    assert_string_equal(h, "rack3-gpu");
    assert_false(gd_slurm_first_host("", h, sizeof h));
    assert_false(gd_slurm_first_host("gpu[", h, sizeof h));
    assert_false(gd_slurm_first_host("gpu[a-b]", h, sizeof h));
    assert_false(gd_slurm_first_host(NULL, h, sizeof h));
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(torchrun), cmocka_unit_test(slurm),
                                       cmocka_unit_test(slurm_host_lists)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
