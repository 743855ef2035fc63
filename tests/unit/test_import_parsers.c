/* SPDX-License-Identifier: Apache-2.0 */
/* The --from parsers on small literal captures: what each format's quirks
 * must turn into (and what they must not). Real files: tests/e2e/test_e2e_import.c. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <math.h>
#include <string.h>

#include "formats/capture/import.h"
#include "gpudoctor/abi/nvml_api.h"

static char err[1024];

static gd_value last(const gd_facts *f, size_t g, gd_metric m)
{
    return gd_series_at(&f->series, f->series.n - 1, g, m);
}

static int parse(gd_import_kind kind, const char *text, gd_facts *f)
{
    memset(f, 0, sizeof *f);
    err[0] = '\0';
    size_t len = strlen(text);
    switch (kind) {
    case GD_IMPORT_SMI_XML: return gd_import_smi_xml("t.xml", text, len, f, err, sizeof err);
    case GD_IMPORT_SMI_TEXT: return gd_import_smi_text("t.txt", text, len, f, err, sizeof err);
    case GD_IMPORT_SMI_CSV: return gd_import_smi_csv("t.csv", text, len, f, err, sizeof err);
    case GD_IMPORT_DMON: return gd_import_dmon("t.log", text, len, f, err, sizeof err);
    default: return -1;
    }
}

static const char text_dump[] = "==============NVSMI LOG==============\n"
                                "Driver Version                            : 535.161.08\n"
                                "CUDA Version                              : 12.2\n"
                                "Attached GPUs                             : 1\n"
                                "GPU 00000000:19:00.0\n"
                                "    Product Name                          : NVIDIA H100 80GB HBM3\n"
                                "    Clocks Throttle Reasons\n"
                                "        Idle                              : Not Active\n"
                                "        SW Power Cap                      : Not Active\n"
                                "        HW Slowdown                       : Active\n"
                                "            HW Thermal Slowdown           : Not Active\n"
                                "            HW Power Brake Slowdown       : Active\n"
                                "    Clocks Event Reasons Counters\n"
                                "        SW Power Capping                  : 1200 us\n"
                                "        SW Thermal Slowdown               : 0 us\n"
                                "        HW Thermal Slowdown               : 300 us\n"
                                "    FB Memory Usage\n"
                                "        Total                             : 81559 MiB\n"
                                "        Used                              : 0 MiB\n"
                                "    Utilization\n"
                                "        Gpu                               : N/A\n"
                                "    MIG Device\n"
                                "        FB Memory Usage\n"
                                "            Used                          : 77 MiB\n"
                                "    Temperature\n"
                                "        GPU Current Temp                  : 29 C\n"
                                "        GPU Shutdown T.Limit Temp         : -8 C\n"
                                "    GPU Power Readings\n"
                                "        Average Power Draw                : 69.00 W\n"
                                "        Instantaneous Power Draw          : 67.74 W\n"
                                "        Current Power Limit               : 700.00 W\n"
                                "        Requested Power Limit             : 900.00 W\n"
                                "    Processes\n"
                                "        Process ID                        : 11327\n"
                                "            Name                          : python\n"
                                "            Used GPU Memory               : 2566 MiB\n";

static void text_reasons_counters_and_paths(void **state)
{
    (void)state;
    gd_facts f;
    assert_int_equal(parse(GD_IMPORT_SMI_TEXT, text_dump, &f), 0);
    assert_int_equal(f.gpu_count, 1);
    assert_string_equal(f.driver_version, "535.161.08");
    assert_true(f.cuda_driver_version.v == 12020);
    assert_string_equal(f.gpus[0].pci_bus_id, "00000000:19:00.0");
    /* Old spelling read; counters ("SW Power Capping : 1200 us") are not active reasons. */
    gd_value r = last(&f, 0, GD_M_EVENT_REASONS);
    assert_true(gd_ok(r));
    assert_true((unsigned long long)r.v ==
                (nvmlClocksThrottleReasonHwSlowdown | nvmlClocksThrottleReasonHwPowerBrakeSlowdown));
    assert_true(last(&f, 0, GD_M_VIOL_POWER_NS).v == 1200e3);
    assert_true(last(&f, 0, GD_M_VIOL_THERMAL_NS).v == 300e3);
    /* MIG device's own "FB Memory Usage" does not overwrite the GPU's. */
    assert_true(last(&f, 0, GD_M_MEM_USED_MIB).v == 0);
    /* N/A is "not supported", never 0; T.Limit margins are not thresholds:
     * the thresholds the dump lacks are "not reported", never a value. */
    assert_int_equal(last(&f, 0, GD_M_UTIL_GPU_PCT).status, GD_ST_NOT_SUPPORTED);
    assert_int_equal(f.gpus[0].temp_shutdown_c.status, GD_ST_NOT_REPORTED);
    /* Average power wins over instantaneous. */
    assert_true(last(&f, 0, GD_M_POWER_W).v == 69.0);
    /* The enforced limit is "Current", the one asked for "Requested": a platform cap shows between them. */
    assert_true(f.gpus[0].power_limit_w.v == 700.0);
    assert_true(f.gpus[0].power_limit_requested_w.v == 900.0);
    assert_int_equal(f.gpus[0].process_count, 1);
    assert_int_equal(f.gpus[0].processes[0].pid, 11327);
    assert_string_equal(f.gpus[0].processes[0].name, "python");
    assert_true(f.gpus[0].processes[0].used_mib.v == 2566);
    gd_facts_free(&f);
}

static void text_truncated(void **state)
{
    (void)state;
    gd_facts f;
    char cut[sizeof text_dump];
    memcpy(cut, text_dump, sizeof text_dump);
    *strstr(cut, "    Processes") = '\0';
    assert_int_equal(parse(GD_IMPORT_SMI_TEXT, cut, &f), -1);
    assert_non_null(strstr(err, "truncated"));
    gd_facts_free(&f);
}

static const char xml_dump[] =
    "<?xml version=\"1.0\" ?>\n<!DOCTYPE nvidia_smi_log SYSTEM \"nvsmi_device_v10.dtd\">\n"
    "<nvidia_smi_log><driver_version>430.26</driver_version><cuda_version>Not Found</cuda_version>\n"
    "<gpu id=\"00001580:00:00.0\"><product_name>Tesla K80</product_name>\n"
    "<clocks_throttle_reasons>\n"
    "<clocks_throttle_reason_gpu_idle>Not Active</clocks_throttle_reason_gpu_idle>\n"
    "<clocks_throttle_reason_sw_thermal_slowdown>Active</clocks_throttle_reason_sw_thermal_slowdown>\n"
    "<clocks_throttle_reason_hw_thermal_slowdown>N/A</clocks_throttle_reason_hw_thermal_slowdown>\n"
    "</clocks_throttle_reasons>\n"
    "<ecc_errors><volatile><sram_uncorrectable>2</sram_uncorrectable><dram_uncorrectable>3</dram_uncorrectable>"
    "</volatile></ecc_errors>\n"
    "<fan_speed>N/A</fan_speed><temperature><gpu_temp>64 C</gpu_temp></temperature>\n"
    "<remapped_rows>N/A</remapped_rows></gpu></nvidia_smi_log>\n";

static void xml_old_schema(void **state)
{
    (void)state;
    gd_facts f;
    assert_int_equal(parse(GD_IMPORT_SMI_XML, xml_dump, &f), 0);
    assert_int_equal(f.gpu_count, 1);
    assert_string_equal(f.gpus[0].name, "Tesla K80");
    assert_string_equal(f.gpus[0].pci_bus_id, "00001580:00:00.0");
    assert_int_equal(f.cuda_driver_version.status, GD_ST_NOT_SUPPORTED);
    assert_true(last(&f, 0, GD_M_EVENT_REASONS).v == nvmlClocksThrottleReasonSwThermalSlowdown);
    assert_true(last(&f, 0, GD_M_TEMP_C).v == 64);
    assert_int_equal(last(&f, 0, GD_M_FAN_PCT).status, GD_ST_NOT_SUPPORTED);
    assert_true(f.gpus[0].ecc_volatile_uncorrected.v == 5); /* SRAM + DRAM */
    assert_int_equal(f.gpus[0].remap_pending.status, GD_ST_NOT_REPORTED); /* not in the dump at all */
    gd_facts_free(&f);
}

static void xml_hostile(void **state)
{
    (void)state;
    gd_facts f;
    static const char laughs[] = "<?xml version=\"1.0\"?><!DOCTYPE nvidia_smi_log [<!ENTITY a \"aaaa\">"
                                 "<!ENTITY b \"&a;&a;&a;&a;&a;&a;\">]><nvidia_smi_log>&b;</nvidia_smi_log>";
    assert_int_equal(parse(GD_IMPORT_SMI_XML, laughs, &f), -1);
    assert_non_null(strstr(err, "entities"));
    gd_facts_free(&f);
    static const char cut[] = "<nvidia_smi_log><gpu id=\"0000:01:00.0\"><product_name>X</product";
    assert_int_equal(parse(GD_IMPORT_SMI_XML, cut, &f), -1);
    assert_non_null(strstr(err, "malformed or truncated"));
    gd_facts_free(&f);
    static const char huge[] = "<nvidia_smi_log><gpu id=\"0000:01:00.0\"><fb_memory_usage><total>"
                               "1e300 MiB</total></fb_memory_usage></gpu></nvidia_smi_log>";
    assert_int_equal(parse(GD_IMPORT_SMI_XML, huge, &f), -1);
    assert_non_null(strstr(err, "out of range"));
    gd_facts_free(&f);
    static const char other[] = "<html><body>hi</body></html>";
    assert_int_equal(parse(GD_IMPORT_SMI_XML, other, &f), -1);
    assert_non_null(strstr(err, "not an nvidia-smi log"));
    gd_facts_free(&f);
}

static void csv_series(void **state)
{
    (void)state;
    gd_facts f;
    static const char csv[] =
        "timestamp, index, pci.bus_id, name, temperature.gpu, power.draw [W], memory.used [MiB], "
        "clocks_throttle_reasons.active, fan.speed [%], utilization.gpu [%]\n"
        "2024/01/01 10:00:00.000, 0, 00000000:01:00.0, NVIDIA A100, 40, 100.50 W, 1000 MiB, 0x0000000000000004, [N/A], "
        "90 %\n"
        "2024/01/01 10:00:00.000, 1, 00000000:41:00.0, NVIDIA A100, 41, 101.00 W, 1001 MiB, 0x0000000000000000, [Not "
        "Supported], 91 %\n"
        "2024/01/01 10:00:02.500, 0, 00000000:01:00.0, NVIDIA A100, 42, [Unknown Error], 1002 MiB, 0x0000000000000001, "
        "-, 0 %\n"
        "2024/01/01 10:00:02.500, 1, 00000000:41:00.0, NVIDIA A100, 43, 103.00 W, 1003 MiB, 0x0, 0, 92 %\n";
    assert_int_equal(parse(GD_IMPORT_SMI_CSV, csv, &f), 0);
    assert_int_equal(f.gpu_count, 2);
    assert_int_equal(f.series.n, 2);
    assert_true(fabs(gd_series_t(&f.series, 1) - 2.5) < 1e-6);
    assert_false(f.capture_untimed);
    assert_int_equal(f.gpus[1].index, 1);
    assert_true(gd_series_at(&f.series, 0, 0, GD_M_EVENT_REASONS).v == nvmlClocksThrottleReasonSwPowerCap);
    assert_true(gd_series_at(&f.series, 0, 0, GD_M_POWER_W).v == 100.5);
    assert_int_equal(gd_series_at(&f.series, 0, 1, GD_M_FAN_PCT).status, GD_ST_NOT_SUPPORTED);
    assert_int_equal(gd_series_at(&f.series, 1, 0, GD_M_POWER_W).status, GD_ST_ERROR);
    assert_int_equal(gd_series_at(&f.series, 1, 0, GD_M_FAN_PCT).status, GD_ST_NOT_SUPPORTED);
    assert_true(gd_series_at(&f.series, 1, 1, GD_M_MEM_USED_MIB).v == 1003);
    gd_facts_free(&f);
    /* A cut row is refused, not half-read. */
    static const char cut[] = "name, temperature.gpu, power.draw [W]\nTesla T4, 40, 20 W\nTesla T4, 41\n";
    assert_int_equal(parse(GD_IMPORT_SMI_CSV, cut, &f), -1);
    assert_non_null(strstr(err, ":3:"));
    gd_facts_free(&f);
}

static void dmon_series(void **state)
{
    (void)state;
    gd_facts f;
    static const char log[] = "# gpu    pwr  gtemp  mtemp     sm    mem   mclk   pclk  rxpci  txpci\n"
                              "# Idx      W      C      C      %      %    MHz    MHz   MB/s   MB/s\n"
                              "    0    631     63     57    100     10   2619   1980     12      3\n"
                              "    1    295     37      -      -      -   3201   1980      -      -\n"
                              "# gpu    pwr  gtemp  mtemp     sm    mem   mclk   pclk  rxpci  txpci\n"
                              "# Idx      W      C      C      %      %    MHz    MHz   MB/s   MB/s\n"
                              "    0    634     64     58    100      9   2619   1980     10      2\n"
                              "    1    296     38      -      -      -   3201   1980      -      -\n";
    assert_int_equal(parse(GD_IMPORT_DMON, log, &f), 0);
    assert_int_equal(f.gpu_count, 2);
    assert_int_equal(f.series.n, 2);
    assert_true(f.capture_untimed);
    assert_true(gd_series_t(&f.series, 1) == 1.0);
    assert_true(gd_series_at(&f.series, 1, 0, GD_M_POWER_W).v == 634);
    assert_true(gd_series_at(&f.series, 0, 0, GD_M_PCIE_RX_KBPS).v == 12000);
    assert_int_equal(gd_series_at(&f.series, 1, 1, GD_M_UTIL_GPU_PCT).status, GD_ST_NOT_SUPPORTED);
    assert_int_equal(gd_series_at(&f.series, 1, 1, GD_M_MEM_USED_MIB).status, GD_ST_UNREAD);
    gd_facts_free(&f);
    static const char timed[] = "#Date       Time        gpu    pwr  gtemp\n"
                                "#YYYYMMDD   HH:MM:SS    Idx      W      C\n"
                                " 20240101   23:59:59      0     50     30\n"
                                " 20240102   00:00:04      0     51     31\n";
    assert_int_equal(parse(GD_IMPORT_DMON, timed, &f), 0);
    assert_false(f.capture_untimed);
    assert_true(gd_series_t(&f.series, 1) == 5.0);
    gd_facts_free(&f);
}

static void detection(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        gd_import_kind kind;
    } cases[] = {
        {"\xef\xbb\xbf<?xml version=\"1.0\"?>\n<nvidia_smi_log>", GD_IMPORT_SMI_XML},
        {"<?xml version=\"1.0\"?><svg/>", GD_IMPORT_UNKNOWN},
        {"\n==============NVSMI LOG==============\n", GD_IMPORT_SMI_TEXT},
        {"Driver Version : 1\nGPU 00000000:01:00.0\n    Product Name : X\n", GD_IMPORT_SMI_TEXT},
        {"# gpu   pwr gtemp\n# Idx W C\n 0 1 2\n", GD_IMPORT_DMON},
        {"#Date Time gpu pwr\n", GD_IMPORT_DMON},
        {"name, temperature.gpu\nT4, 40\n", GD_IMPORT_SMI_CSV},
        {"00:00.0 Host bridge: Intel Corporation 440FX\n\tSubsystem: x\n", GD_IMPORT_LSPCI},
        {"0000:1b:00.0 3D controller: NVIDIA Corporation Device 2330\n", GD_IMPORT_LSPCI},
        {"# nvidia-smi topo -m\n\tGPU0\tGPU1\tCPU Affinity\tNUMA Affinity\n", GD_IMPORT_TOPO},
        {"\t\033[4mGPU0\tCPU Affinity\tNUMA Affinity\033[0m\n", GD_IMPORT_TOPO},
        {"[    0.000000] Linux version 5.15.0\n[    2.8] pcieport 0000:37:01.0: AER: enabled\n", GD_IMPORT_KERNEL_LOG},
        {"[Tue Apr 23 07:58:39 2024] Linux version 5.15.0\n", GD_IMPORT_KERNEL_LOG},
        {"-- Logs begin at Tue 2024-04-23 07:58:39 UTC, end at Tue 2024-04-23 11:02:11 UTC. --\n"
         "Apr 23 07:58:39 node7 kernel: Linux version 5.15.0\n",
         GD_IMPORT_KERNEL_LOG},
        {"-- No entries --\n", GD_IMPORT_KERNEL_LOG},
        {"2024-04-23T07:58:39+0000 node7 kernel: Linux version 5.15.0\n", GD_IMPORT_KERNEL_LOG},
        {"Apr 23 07:58:39 node7 sshd[812]: Accepted publickey\n", GD_IMPORT_UNKNOWN}, /* syslog, not the kernel's */
        {"[main] note\n", GD_IMPORT_UNKNOWN},
        {"hello, world\n", GD_IMPORT_UNKNOWN},
        {"", GD_IMPORT_UNKNOWN},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        assert_int_equal(gd_import_detect(cases[i].text, strlen(cases[i].text)), cases[i].kind);
    static const char binary[] = "GPU0\0Affinity";
    assert_int_equal(gd_import_detect(binary, sizeof binary), GD_IMPORT_UNKNOWN);
}

static void merge_by_bus_id_and_index(void **state)
{
    (void)state;
    gd_facts f = {0};
    assert_int_equal(gd_import_buffer("a.xml", xml_dump, strlen(xml_dump), &f, err, sizeof err), 0);
    static const char log[] = "# gpu pwr gtemp\n# Idx W C\n 0 100 60\n 0 110 61\n 0 120 62\n";
    assert_int_equal(gd_import_buffer("b.log", log, strlen(log), &f, err, sizeof err), 0);
    assert_int_equal(f.gpu_count, 1);
    assert_int_equal(f.series.n, 3);
    assert_string_equal(f.gpus[0].name, "Tesla K80");
    /* The snapshot fills what the log lacks, at the end of the window. */
    assert_true(last(&f, 0, GD_M_TEMP_C).v == 62);
    assert_true(last(&f, 0, GD_M_EVENT_REASONS).v == nvmlClocksThrottleReasonSwThermalSlowdown);
    assert_int_equal(gd_series_at(&f.series, 0, 0, GD_M_EVENT_REASONS).status, GD_ST_UNREAD);
    assert_non_null(strstr(f.capture_formats, "nvidia-smi dmon"));
    /* Another GPU by bus id joins, not merges. */
    static const char other[] = "name, pci.bus_id, temperature.gpu\nTesla K80, 0000:99:00.0, 50\n";
    assert_int_equal(gd_import_buffer("c.csv", other, strlen(other), &f, err, sizeof err), 0);
    assert_int_equal(f.gpu_count, 2);
    assert_string_equal(f.gpus[1].pci_bus_id, "00000000:99:00.0");
    assert_true(last(&f, 1, GD_M_TEMP_C).v == 50);
    gd_facts_free(&f);
}

/* Each reading remembers the key it was read under: the XML element, the
 * text label path, the CSV column, the dmon column, and the file. */
static void readings_remember_their_key(void **state)
{
    (void)state;
    gd_facts f;
    assert_int_equal(parse(GD_IMPORT_SMI_XML, xml_dump, &f), 0);
    assert_string_equal(f.capture_files[0], "t.xml");
    assert_string_equal(f.gpus[0].metric_origin[GD_M_TEMP_C].key, "gpu_temp");
    gd_facts_free(&f);
    assert_int_equal(parse(GD_IMPORT_SMI_TEXT, text_dump, &f), 0);
    assert_string_equal(f.gpus[0].metric_origin[GD_M_TEMP_C].key, "Temperature/GPU Current Temp");
    assert_string_equal(f.gpus[0].metric_origin[GD_M_POWER_W].key,
                        "GPU Power Readings/Average Power Draw"); /* the winner */
    assert_string_equal(
        f.gpus[0].origin[(offsetof(gd_gpu, power_limit_w) - offsetof(gd_gpu, cc_major)) / sizeof(gd_value)].key,
        "GPU Power Readings/Current Power Limit");
    gd_facts_free(&f);
    static const char csv[] = "name, temperature.gpu, power.draw [W]\nTesla T4, 40, 20 W\n";
    assert_int_equal(parse(GD_IMPORT_SMI_CSV, csv, &f), 0);
    assert_string_equal(f.gpus[0].metric_origin[GD_M_TEMP_C].key, "temperature.gpu");
    gd_facts_free(&f);
    /* Merged: the longer log leads the series, so its keys are cited. */
    f = (gd_facts){0};
    assert_int_equal(gd_import_buffer("dir/a.xml", xml_dump, strlen(xml_dump), &f, err, sizeof err), 0);
    static const char log[] = "# gpu pwr gtemp\n# Idx W C\n 0 100 60\n 0 110 61\n";
    assert_int_equal(gd_import_buffer("b.log", log, strlen(log), &f, err, sizeof err), 0);
    assert_int_equal(f.capture_file_count, 2);
    assert_string_equal(f.capture_files[1], "b.log");
    gd_origin t = f.gpus[0].metric_origin[GD_M_TEMP_C], r = f.gpus[0].metric_origin[GD_M_EVENT_REASONS];
    assert_string_equal(t.key, "gtemp");
    assert_int_equal(t.file, 1);
    assert_int_equal(r.file, 0);
    assert_int_equal(f.gpus[0].capture_file, 0);
    gd_facts_free(&f);
}

/* Files of two machines: refused, naming both files and what differs. */
static void merge_refuses_two_machines(void **state)
{
    (void)state;
    gd_facts f = {0};
    static const char a[] = "driver_version, name, uuid, pci.bus_id\n550.54.15, Tesla T4, GPU-a, 00000000:01:00.0\n";
    static const char b[] = "driver_version, name, uuid, pci.bus_id\n535.129.03, Tesla T4, GPU-a, 00000000:01:00.0\n";
    static const char c[] = "driver_version, name, uuid, pci.bus_id\n550.54.15, Tesla T4, GPU-c, 00000000:01:00.0\n";
    static const char d[] = "driver_version, name, uuid, pci.bus_id\n550.54.15, Tesla T4, GPU-a, 00000000:01:00.0\n";
    assert_int_equal(gd_import_buffer("a.csv", a, strlen(a), &f, err, sizeof err), 0);
    assert_int_equal(gd_import_buffer("b.csv", b, strlen(b), &f, err, sizeof err), -1);
    assert_non_null(strstr(err, "a.csv and b.csv"));
    assert_non_null(strstr(err, "driver 550.54.15 and driver 535.129.03"));
    assert_int_equal(gd_import_buffer("c.csv", c, strlen(c), &f, err, sizeof err), -1);
    assert_non_null(strstr(err, "bus id 00000000:01:00.0 is GPU-a in the first and GPU-c in the second"));
    assert_int_equal(gd_import_buffer("d.csv", d, strlen(d), &f, err, sizeof err), 0); /* a later sample */
    assert_int_equal(f.gpu_count, 1);
    gd_facts_free(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(text_reasons_counters_and_paths),
        cmocka_unit_test(text_truncated),
        cmocka_unit_test(xml_old_schema),
        cmocka_unit_test(xml_hostile),
        cmocka_unit_test(csv_series),
        cmocka_unit_test(dmon_series),
        cmocka_unit_test(detection),
        cmocka_unit_test(merge_by_bus_id_and_index),
        cmocka_unit_test(readings_remember_their_key),
        cmocka_unit_test(merge_refuses_two_machines),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
