/* SPDX-License-Identifier: Apache-2.0 */
/* The one-line summary (Slurm drain reason, node-problem-detector message):
 * ids in report order with their GPUs, ignored and lower findings left out,
 * whole groups only when the room runs out. Literal findings. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "gpudoctor/report.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static void add(gd_findings *fs, const char *id, gd_severity sev, int gpu)
{
    assert_non_null(gd_finding_add(fs, id, sev, gpu, NULL, NAN, "", "%s", id));
}

static void groups_by_id_with_gpus(void **state)
{
    (void)state;
    gd_findings fs = {0};
    add(&fs, "health.xid", GD_SEV_CRITICAL, 3);
    add(&fs, "health.xid", GD_SEV_CRITICAL, 4);
    add(&fs, "thermal.throttling", GD_SEV_CRITICAL, 5);
    add(&fs, "health.xid", GD_SEV_CRITICAL, 3); /* a second episode: GPU 3 named once */
    add(&fs, "driver.outdated", GD_SEV_CRITICAL, GD_NO_GPU);
    add(&fs, "thermal.hot", GD_SEV_WARNING, 1);
    char line[256];
    size_t n = gd_report_summary_line(line, sizeof line, &fs, GD_SEV_CRITICAL);
    assert_string_equal(line, "health.xid GPU 3,4; thermal.throttling GPU 5; driver.outdated");
    assert_int_equal(n, strlen(line));
    gd_report_summary_line(line, sizeof line, &fs, GD_SEV_WARNING);
    assert_non_null(strstr(line, "thermal.hot GPU 1"));
    for (size_t i = 0; i < fs.n; i++)
        fs.v[i].ignored = true;
    gd_report_summary_line(line, sizeof line, &fs, GD_SEV_INFO);
    assert_string_equal(line, "");
    gd_findings_free(&fs);
}

static void whole_groups_within_the_room(void **state)
{
    (void)state;
    gd_findings fs = {0};
    char id[48];
    for (int i = 0; i < 40; i++) {
        snprintf(id, sizeof id, "health.check_%02d", i);
        add(&fs, id, GD_SEV_CRITICAL, i % 8);
    }
    char line[120];
    size_t n = gd_report_summary_line(line, sizeof line, &fs, GD_SEV_CRITICAL);
    assert_true(n < sizeof line);
    assert_int_equal(n, strlen(line));
    assert_non_null(strstr(line, "health.check_00 GPU 0; "));
    const char *more = strstr(line, "; +");
    assert_non_null(more);
    assert_non_null(strstr(more, " more"));
    /* every group before "+N more" is whole: "ID GPU n" */
    assert_true(more[-1] >= '0' && more[-1] <= '7');
    char tiny[4];
    assert_true(gd_report_summary_line(tiny, sizeof tiny, &fs, GD_SEV_CRITICAL) < sizeof tiny);
    gd_findings_free(&fs);
}

/* A finding of no GPU with a short subject in its evidence names it: a
 * drain reason says which port is dead ("mlx5_3 port 1 Down"). */
static void a_dead_port_is_named(void **state)
{
    (void)state;
    gd_findings fs = {0};
    static const char *const ports[] = {"mlx5_3 port 1 Down", "mlx5_11 port 1 Disabled"};
    for (size_t i = 0; i < 2; i++) {
        json_t *ev = json_object();
        json_object_set_new(ev, "summary", json_string(ports[i]));
        assert_non_null(gd_finding_add(&fs, "net.port_down", GD_SEV_CRITICAL, GD_NO_GPU, ev, NAN, "", "x"));
    }
    add(&fs, "health.xid", GD_SEV_CRITICAL, 2);
    char line[256];
    gd_report_summary_line(line, sizeof line, &fs, GD_SEV_CRITICAL);
    assert_string_equal(line, "net.port_down mlx5_3 port 1 Down, mlx5_11 port 1 Disabled; health.xid GPU 2");
    gd_findings_free(&fs);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_dead_port_is_named),
        cmocka_unit_test(groups_by_id_with_gpus),
        cmocka_unit_test(whole_groups_within_the_room),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
