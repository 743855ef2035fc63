/* SPDX-License-Identifier: Apache-2.0 */
/* p2p.unsupported, p2p.slow_pair and p2p.sys_route (src/checks/p2p.c): NVML's
 * P2P status, and bench p2p's copies against their paths and their peers. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "facts_fixture.h"
#include "gpudoctor/bench.h"
#include "gpudoctor/pcie.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static void unsupported_severity(void **state)
{
    (void)state;
    gd_facts f;
    fx_facts(&f, 3, 1);
    gd_findings fs;
    fx_run(&f, "p2p.unsupported", &fs);
    assert_int_equal(fs.n, 0);
    assert_int_equal(fs.nskips, 1); /* not read: not checked, never "ok" */
    gd_findings_free(&fs);
    f.p2p_status = calloc(9, sizeof *f.p2p_status);
    for (int i = 0; i < 3; i++)
        f.p2p_status[i * 3 + i] = -1;
    assert_int_equal(fx_run_count(&f, "p2p.unsupported"), 0);
    /* A registry key switched off GPU 2's: a fault to fix; a chipset without P2P: how it is built. */
    f.p2p_status[0 * 3 + 2] = f.p2p_status[2 * 3 + 0] = 4;
    f.p2p_status[1 * 3 + 2] = f.p2p_status[2 * 3 + 1] = 4;
    f.p2p_status[0 * 3 + 1] = f.p2p_status[1 * 3 + 0] = 1;
    fx_run(&f, "p2p.unsupported", &fs);
    assert_int_equal(fs.n, 2);
    for (size_t i = 0; i < fs.n; i++) {
        json_t *pairs = json_object_get(fs.v[i].evidence, "pairs");
        bool regkey = fs.v[i].severity == GD_SEV_WARNING;
        assert_int_equal(json_array_size(pairs), regkey ? 2 : 1);
        assert_true(regkey || fs.v[i].severity == GD_SEV_INFO);
        assert_non_null(strstr(fs.v[i].fix, regkey ? "NVreg_RegistryDwords" : "GeForce"));
        assert_true(isnan(fs.v[i].impact_pct)); /* no figures: no cost claimed */
    }
    gd_findings_free(&fs);
    gd_facts_free(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(unsupported_severity),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
