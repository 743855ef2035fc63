/* SPDX-License-Identifier: Apache-2.0 */
/* The --from parsers on small literal captures: what each format's quirks
 * must turn into (and what they must not). Real files: tests/e2e/test_e2e_import.c. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "formats/capture/import.h"
#include "gpudoctor/stack.h"
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
                                "        SW Thermal Slowdown               : 100 us\n"
                                "        HW Thermal Slowdown               : 300 us\n"
                                "        HW Power Braking                  : 700 us\n"
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
    assert_true(last(&f, 0, GD_M_VIOL_THERMAL_NS).v == 300e3); /* the larger of software and hardware */
    assert_true(last(&f, 0, GD_M_VIOL_POWER_BRAKE_NS).v == 700e3);
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

/* The note of f that holds `what`, or NULL. */
static const char *note_with(const gd_facts *f, const char *what)
{
    for (size_t i = 0; i < f->capture_note_count; i++)
        if (strstr(f->capture_notes[i], what))
            return f->capture_notes[i];
    return NULL;
}

/* A dump cut short is read for what it holds; the note says where it ends. */
static void text_truncated(void **state)
{
    (void)state;
    gd_facts f;
    char cut[sizeof text_dump];
    memcpy(cut, text_dump, sizeof text_dump);
    *strstr(cut, "    Processes") = '\0';
    assert_int_equal(parse(GD_IMPORT_SMI_TEXT, cut, &f), 0);
    assert_int_equal(f.gpu_count, 1);
    assert_true(last(&f, 0, GD_M_POWER_W).v == 69.0);
    const char *note = note_with(&f, "GPU 00000000:19:00.0 ends here, before its Processes section");
    assert_non_null(note);
    assert_non_null(strstr(note, "t.txt:"));
    gd_facts_free(&f);
}

/* A paste trimmed by hand ("[...]" lines, seven of eight GPUs left out):
 * what is there is read, a pending remap included, and what was cut is said. */
static void text_trimmed_by_hand(void **state)
{
    (void)state;
    static const char trimmed[] = "Driver Version                            : 510.73.08\n"
                                  "Attached GPUs                             : 8\n"
                                  "GPU 00000000:10:1C.0\n"
                                  "    Product Name                          : NVIDIA A100-SXM4-80GB\n"
                                  "    [...]\n"
                                  "    Remapped Rows\n"
                                  "        Correctable Error                 : 1\n"
                                  "        Pending                           : Yes\n"
                                  "[...]\n";
    gd_facts f;
    assert_int_equal(parse(GD_IMPORT_SMI_TEXT, trimmed, &f), 0);
    assert_int_equal(f.gpu_count, 1);
    assert_true(gd_ok(f.gpus[0].remap_pending) && f.gpus[0].remap_pending.v == 1);
    assert_int_equal(f.gpus[0].temp_slowdown_c.status, GD_ST_NOT_REPORTED); /* cut, never a value */
    assert_non_null(note_with(&f, "t.txt:5: 2 '[...]' lines"));
    assert_non_null(note_with(&f, "t.txt:8: GPU 00000000:10:1C.0 ends here"));
    assert_non_null(note_with(&f, "8 GPUs attached, 1 shown"));
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

/* A terminal paste: the prompt and command line before (and between) each
 * format's output are skipped, and counted in a note. */
static void shell_lines_before_each_format(void **state)
{
    (void)state;
    char text_paste[sizeof text_dump + 64], xml_paste[sizeof xml_dump + 64];
    snprintf(text_paste, sizeof text_paste, "user@gpu01:~$ nvidia-smi -q\n%s", text_dump);
    snprintf(xml_paste, sizeof xml_paste, "$ nvidia-smi -q -x\n%sroot@gpu01:~# \n", xml_dump);
    const struct {
        const char *name, *text;
        size_t skipped;
    } pastes[] = {
        {"a.csv",
         "$ nvidia-smi --query-gpu=name,temperature.gpu --format=csv -l 1\nname, temperature.gpu\nT4, 40\n"
         "^C\n$ nvidia-smi --query-gpu=name,temperature.gpu --format=csv\nname, temperature.gpu\nT4, 41\n",
         3},
        {"b.log", "# nvidia-smi dmon -c 1\n# gpu   pwr gtemp\n# Idx     W     C\n    0    60    40\n", 1},
        {"c.txt",
         "$ sonata@coyote2:~$ sudo lspci -vvv -s 01:00.0\n[sudo] password for sonata:\n"
         "01:00.0 VGA compatible controller: NVIDIA Corporation AD102GL\n        LnkSta: Speed 2.5GT/s, Width x16\n",
         2},
        {"d.txt",
         "$ nvidia-smi topo -m\n\tGPU0\tGPU1\tCPU Affinity\tNUMA Affinity\nGPU0\t X \tSYS\t0-31\t0\n"
         "GPU1\tSYS\t X \t32-63\t1\n",
         1},
        {"e.log",
         "root@node1:~# dmesg -T | grep NVRM\n[Fri Apr  5 21:29:39 2024] NVRM: Xid (PCI:0000:a1:00): 79, pid=1, "
         "GPU has fallen off the bus.\nroot@node1:~# journalctl -k | grep NVRM\n"
         "Apr 05 21:29:40 node1 kernel: NVRM: Xid (PCI:0000:a1:00): 79, pid=1, GPU has fallen off the bus.\n",
         2},
        {"f.txt", text_paste, 1},
        {"g.xml", xml_paste, 2},
    };
    for (size_t i = 0; i < sizeof pastes / sizeof pastes[0]; i++) {
        gd_facts f = {0};
        if (gd_import_buffer(pastes[i].name, pastes[i].text, strlen(pastes[i].text), &f, err, sizeof err) != 0)
            fail_msg("%s: refused: %s", pastes[i].name, err);
        char want[64];
        snprintf(want, sizeof want, "%s:1: %zu shell line%s skipped", pastes[i].name, pastes[i].skipped,
                 pastes[i].skipped == 1 ? "" : "s");
        if (!note_with(&f, want))
            fail_msg("%s: no note '%s' (%zu notes)", pastes[i].name, want, f.capture_note_count);
        gd_facts_free(&f);
    }
    /* Both runs of the CSV paste are read: two samples. */
    gd_facts f = {0};
    assert_int_equal(gd_import_buffer("a.csv", pastes[0].text, strlen(pastes[0].text), &f, err, sizeof err), 0);
    assert_int_equal(f.series.n, 2);
    gd_facts_free(&f);
}

/* A kernel log's line is read whatever its timestamp: a month in another
 * language, or a prefix of no known style before the driver's message; how
 * many times were not read as dates is said. */
static void kernel_log_times_not_read(void **state)
{
    (void)state;
    static const char zh[] = "11\xe6\x9c\x88 16 04:38:20 gpu07 kernel: NVRM: loading NVIDIA UNIX x86_64\n"
                             "11\xe6\x9c\x88 16 04:38:21 gpu07 kernel: NVRM: Xid (PCI:0000:03:00): 62, pid=3119\n";
    static const char odd[] = "2024/04/05 21:29:39 gpu07 NVRM: Xid (PCI:0000:a1:00): 79, pid=1, GPU has fallen off "
                              "the bus.\n";
    gd_facts f = {0};
    assert_int_equal(gd_import_buffer("zh.log", zh, strlen(zh), &f, err, sizeof err), 0);
    assert_int_equal(f.stack->xid_group_count, 1);
    assert_string_equal(f.stack->xid_groups[0].first_seen, "11\xe6\x9c\x88 16 04:38:21");
    assert_non_null(note_with(&f, "zh.log: the times of 2 lines not read as a date (the first: '11\xe6\x9c\x88 16 "
                                  "04:38:20'"));
    gd_facts_free(&f);
    memset(&f, 0, sizeof f);
    assert_int_equal(gd_import_buffer("odd.log", odd, strlen(odd), &f, err, sizeof err), 0);
    assert_int_equal(f.stack->xid_group_count, 1);
    assert_int_equal(f.stack->xid_groups[0].xid, 79);
    assert_non_null(note_with(&f, "odd.log: the time of 1 line not read as a date (the first: '2024/04/05 21:29:39 "
                                  "gpu07'"));
    gd_facts_free(&f);
}

/* What is no format is refused with its line and the formats expected. */
static void undetected_says_line_and_formats(void **state)
{
    (void)state;
    static const char notes[] = "\n$ cat notes.txt\n\nthe GPU is slow, please help\n";
    gd_facts f = {0};
    assert_int_equal(gd_import_buffer("n.txt", notes, strlen(notes), &f, err, sizeof err), -1);
    assert_non_null(strstr(err, "n.txt:4: 'the GPU is slow, please help' begins none of the formats"));
    gd_facts_free(&f);
    char why[256];
    gd_import_undetected("e.txt", "", 0, why, sizeof why);
    assert_string_equal(why, "e.txt: an empty file");
    gd_import_undetected("x.xml", "<?xml version=\"1.0\"?><svg/>", 26, why, sizeof why);
    assert_non_null(strstr(why, "without nvidia-smi's root element"));
    assert_non_null(strstr(gd_import_formats_help, "lspci -vv           3b:00.0 3D controller"));
}

/* JSON that gpudoctor reads elsewhere is named, with the command that reads
 * it: a scenario given to --from is a simulated machine (--sim), a check
 * report is fleet's, a profiler trace is trace's (issue 39). */
static void undetected_json_says_what_it_is(void **state)
{
    (void)state;
    char why[512];
    static const char scenario[] = "{\"description\": \"8x H100\", \"driver_version\": \"550.54.15\",\n"
                                   " \"gpus\": [{\"name\": \"NVIDIA H100\", \"timeline\": [{\"t\": 0}]}]}\n";
    gd_import_undetected("demo.json", scenario, strlen(scenario), why, sizeof why);
    assert_non_null(strstr(why, "demo.json: a gpudoctor scenario (a simulated machine), not a capture"));
    assert_non_null(strstr(why, "--sim demo.json"));
    static const char report[] = "{\"schema_version\": 1, \"tool\": {\"name\": \"gpudoctor\"}, \"gpus\": [],"
                                 " \"findings\": []}";
    gd_import_undetected("node1.json", report, strlen(report), why, sizeof why);
    assert_non_null(strstr(why, "node1.json: a gpudoctor report"));
    assert_non_null(strstr(why, "gpudoctor fleet"));
    static const char trace[] = "{\"traceEvents\": [{\"ph\": \"X\"}]}";
    gd_import_undetected("t.json", trace, strlen(trace), why, sizeof why);
    assert_non_null(strstr(why, "t.json: a profiler trace"));
    assert_non_null(strstr(why, "gpudoctor trace t.json"));
    static const char other[] = "{\"a\": 1}";
    gd_import_undetected("o.json", other, strlen(other), why, sizeof why);
    assert_non_null(strstr(why, "JSON that is not a gpudoctor recording"));
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
        cmocka_unit_test(text_trimmed_by_hand),
        cmocka_unit_test(xml_old_schema),
        cmocka_unit_test(xml_hostile),
        cmocka_unit_test(csv_series),
        cmocka_unit_test(dmon_series),
        cmocka_unit_test(detection),
        cmocka_unit_test(merge_by_bus_id_and_index),
        cmocka_unit_test(readings_remember_their_key),
        cmocka_unit_test(merge_refuses_two_machines),
        cmocka_unit_test(shell_lines_before_each_format),
        cmocka_unit_test(undetected_says_line_and_formats),
        cmocka_unit_test(undetected_json_says_what_it_is),
        cmocka_unit_test(kernel_log_times_not_read),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
