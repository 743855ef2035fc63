/* SPDX-License-Identifier: Apache-2.0 */
/* Evidence sources (src/checks/source.c): live and simulated runs cite
 * what they read; captures cite the file and the field. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "checks/source.h"
#include "gpudoctor/pcie.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SLOT(member) ((offsetof(gd_gpu, member) - offsetof(gd_gpu, cc_major)) / sizeof(gd_value))

static const char limits[] = "nvml:nvmlDeviceGetEnforcedPowerLimit,nvmlDeviceGetPowerManagementDefaultLimit";

static void captured(gd_facts *f)
{
    memset(f, 0, sizeof *f);
    f->captured = true;
    snprintf(f->source, sizeof f->source, "capture:a.xml,b.log");
    f->capture_file_count = 2;
    snprintf(f->capture_files[0], sizeof f->capture_files[0], "/tmp/x/a.xml");
    snprintf(f->capture_files[1], sizeof f->capture_files[1], "b.log");
    f->gpu_count = 1;
    f->gpus = calloc(1, sizeof *f->gpus);
    f->gpus[0].origin[SLOT(power_limit_w)] = (gd_origin){"enforced_power_limit", 0};
    f->gpus[0].origin[SLOT(power_limit_default_w)] = (gd_origin){"default_power_limit", 0};
    f->gpus[0].metric_origin[GD_M_TEMP_C] = (gd_origin){"gtemp", 1};
    f->gpus[0].metric_origin[GD_M_SM_CLOCK_MHZ] = (gd_origin){"pclk", 1};
}

static void live_and_simulated_cite_what_they_read(void **state)
{
    (void)state;
    gd_facts f;
    memset(&f, 0, sizeof f);
    char buf[512];
    gd_source_text(&f, 0, limits, buf, sizeof buf);
    assert_string_equal(buf, limits);
    f.simulated = true;
    snprintf(f.source, sizeof f.source, "sim:examples/x.json");
    gd_source_text(&f, 0, "nvml:nvmlDeviceGetTemperature;sysfs:max_link_speed", buf, sizeof buf);
    assert_string_equal(buf, "nvml:nvmlDeviceGetTemperature;sysfs:max_link_speed");
}

static void captures_cite_file_and_field(void **state)
{
    (void)state;
    gd_facts f;
    captured(&f);
    char buf[512];
    gd_source_text(&f, 0, limits, buf, sizeof buf);
    assert_string_equal(buf, "capture:a.xml:<enforced_power_limit>,<default_power_limit>");
    /* Calls with an argument, two files, a call the capture did not answer. */
    gd_source_text(&f, 0,
                   "nvml:nvmlDeviceGetTemperature,nvmlDeviceGetClockInfo(SM),nvmlDeviceGetEnforcedPowerLimit,"
                   "nvmlDeviceGetPcieReplayCounter",
                   buf, sizeof buf);
    assert_string_equal(buf, "capture:b.log:<gtemp>,<pclk>; capture:a.xml:<enforced_power_limit>");
    /* Nothing of it in the capture: the capture as a whole, never nvml. */
    gd_source_text(&f, 0, "nvml:nvmlDeviceGetPcieReplayCounter", buf, sizeof buf);
    assert_string_equal(buf, "capture:a.xml,b.log");
    /* sysfs is not read from a capture: without lspci it is not cited; other parts stay. */
    gd_source_text(&f, 0, "nvml:nvmlDeviceGetTemperature;sysfs:max_link_speed;environment: x", buf, sizeof buf);
    assert_string_equal(buf, "capture:b.log:<gtemp>; environment: x");
    /* What no machine reading gives stays as it is. */
    gd_source_text(&f, 0, "kernel log: dmesg.txt", buf, sizeof buf);
    assert_string_equal(buf, "kernel log: dmesg.txt");
    free(f.gpus);
}

static void captured_links_cite_the_lspci_file(void **state)
{
    (void)state;
    gd_facts f;
    captured(&f);
    f.pcie = calloc(1, sizeof *f.pcie);
    snprintf(f.pcie->source, sizeof f.pcie->source, "lspci:/data/node7-lspci.txt, topo:t.txt");
    char buf[512];
    gd_source_text(&f, 0, "lspci:UESta,CESta", buf, sizeof buf);
    assert_string_equal(buf, "capture:node7-lspci.txt:<UESta>,<CESta>");
    gd_source_text(&f, 0, "nvml:nvmlDeviceGetTemperature;sysfs:max_link_speed,max_link_width", buf, sizeof buf);
    assert_string_equal(buf, "capture:b.log:<gtemp>; capture:node7-lspci.txt:<max_link_speed>,<max_link_width>");
    gd_facts_free(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(live_and_simulated_cite_what_they_read),
        cmocka_unit_test(captures_cite_file_and_field),
        cmocka_unit_test(captured_links_cite_the_lspci_file),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
