/* SPDX-License-Identifier: Apache-2.0 */
/* Blocks of the text report: two episodes of one GPU are one GPU in the
 * block's place, headline and fix ("GPU 3", never "GPUs 3,3"). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "report/text_group.h"

#include <math.h>
#include <string.h>

static void episodes_of_one_gpu_name_it_once(void **state)
{
    (void)state;
    gd_findings fs = {0};
    gd_finding_add(&fs, "health.gpu_lost", GD_SEV_CRITICAL, 3, NULL, NAN, "nvidia-smi -i 3 -r", "GPU 3 was lost");
    gd_finding_add(&fs, "health.gpu_lost", GD_SEV_CRITICAL, 3, NULL, NAN, "nvidia-smi -i 3 -r", "GPU 3 was lost");
    gd_finding_add(&fs, "health.gpu_lost", GD_SEV_CRITICAL, 5, NULL, NAN, "nvidia-smi -i 5 -r", "GPU 5 was lost");
    size_t twice[] = {0, 1}, three[] = {0, 1, 2};
    char buf[1024];
    gd_text_group_where(&fs, twice, 2, buf, sizeof buf);
    assert_string_equal(buf, "GPU 3");
    gd_text_group_headline(&fs, twice, 2, buf, sizeof buf);
    assert_null(strstr(buf, "3,3"));
    assert_non_null(strstr(buf, "1 GPU (3)"));
    gd_text_group_fix(&fs, twice, 2, buf, sizeof buf);
    assert_null(strstr(buf, "3,3"));
    gd_text_group_headline(&fs, three, 3, buf, sizeof buf);
    assert_non_null(strstr(buf, "2 GPUs (3,5)"));
    gd_text_group_fix(&fs, three, 3, buf, sizeof buf);
    assert_non_null(strstr(buf, "-i 3,5"));
    gd_findings_free(&fs);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(episodes_of_one_gpu_name_it_once),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
