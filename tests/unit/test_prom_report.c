/* SPDX-License-Identifier: Apache-2.0 */
/* The Prometheus exposition: dcgm-exporter's names and labels, findings as
 * gauges that disappear when they clear, escaped label values, counters that
 * accumulate, lost GPUs. Literal facts. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "facts_fixture.h"
#include "gpudoctor/abi/nvml_api.h"
#include "gpudoctor/net.h"
#include "report/prom_report.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static char *render(const gd_facts *f, const gd_findings *fs, const gd_prom_counters *c)
{
    size_t len;
    char *text = gd_prom_render(f, fs, c, &len);
    assert_non_null(text);
    assert_int_equal(strlen(text), len);
    return text;
}

static void dcgm_names_and_labels(void **state)
{
    (void)state;
    gd_facts f;
    fx_facts(&f, 2, 3);
    snprintf(f.host.hostname, sizeof f.host.hostname, "node-7");
    snprintf(f.gpus[1].uuid, sizeof f.gpus[1].uuid, "GPU-1111");
    fx_set(&f, 1, GD_M_TEMP_C, 2, 3, 71);
    fx_set(&f, 1, GD_M_VIOL_POWER_NS, 2, 3, 5e9);
    gd_findings fs = {0};
    char *t = render(&f, &fs, NULL);
    assert_non_null(strstr(t, "# TYPE DCGM_FI_DEV_GPU_TEMP gauge\n"));
    assert_non_null(strstr(t, "DCGM_FI_DEV_GPU_TEMP{gpu=\"1\",UUID=\"GPU-1111\",pci_bus_id=\"00000000:19:00.0\","
                              "device=\"nvidia1\",modelName=\"NVIDIA H100 80GB HBM3\",Hostname=\"node-7\","
                              "DCGM_FI_DRIVER_VERSION=\"550.54.15\"} 71\n"));
    /* NVML's nanoseconds are DCGM's: 5 s of violation is 5e9, not 5e6. */
    const char *viol = strstr(t, "DCGM_FI_DEV_POWER_VIOLATION{gpu=\"1\"");
    assert_non_null(viol);
    assert_true(strncmp(strchr(viol, '}'), "} 5000000000\n", 13) == 0);
    assert_non_null(
        strstr(t, "# HELP DCGM_FI_DEV_POWER_VIOLATION Throttling duration due to power constraints (in ns)."));
    assert_null(strstr(t, "gpudoctor_finding{")); /* no finding, no series */
    assert_non_null(strstr(t, "gpudoctor_build_info{version=\""));
    free(t);
    gd_facts_free(&f);
}

/* Free memory leaves out what the driver reserves; the last Xid of each
 * GPU (0 before any); Hostname from the caller (NODE_NAME). */
static void reserved_xid_and_node_name(void **state)
{
    (void)state;
    gd_facts f;
    fx_facts(&f, 2, 3);
    f.gpus[0].mem_total_mib = gd_val(81559);
    fx_set(&f, 0, GD_M_MEM_USED_MIB, 0, 3, 1000);
    fx_set(&f, 0, GD_M_MEM_RESERVED_MIB, 0, 3, 559);
    gd_event x1 = {.t = 1, .gpu = 1, .kind = GD_EV_XID, .value = 13},
             x2 = {.t = 2, .gpu = 1, .kind = GD_EV_XID, .value = 79};
    assert_int_equal(gd_event_add(&f.events, &x1), 0);
    assert_int_equal(gd_event_add(&f.events, &x2), 0);
    gd_prom_counters c;
    assert_int_equal(gd_prom_counters_init(&c, 2), 0);
    c.hostname = "node-a7";
    gd_findings fs = {0};
    char *t = render(&f, &fs, &c);
    const char *free_line = strstr(t, "DCGM_FI_DEV_FB_FREE{gpu=\"0\"");
    assert_non_null(free_line);
    assert_true(strncmp(strchr(free_line, '}'), "} 80000\n", 8) == 0);
    const char *res = strstr(t, "DCGM_FI_DEV_FB_RESERVED{gpu=\"0\"");
    assert_non_null(res);
    assert_true(strncmp(strchr(res, '}'), "} 559\n", 6) == 0);
    const char *x0 = strstr(t, "DCGM_FI_DEV_XID_ERRORS{gpu=\"0\""), *xl = strstr(t, "DCGM_FI_DEV_XID_ERRORS{gpu=\"1\"");
    assert_non_null(x0);
    assert_non_null(xl);
    assert_true(strncmp(strchr(x0, '}'), "} 0\n", 4) == 0);
    assert_true(strncmp(strchr(xl, '}'), "} 79\n", 5) == 0);
    assert_non_null(strstr(t, "Hostname=\"node-a7\""));
    free(t);
    gd_prom_counters_free(&c);
    gd_facts_free(&f);
}

/* dcgm-exporter's pod, namespace and container: on every DCGM series of the
 * GPU a pod holds, escaped, absent on the others and on gpudoctor's own. */
static void pod_labels_on_held_gpus_only(void **state)
{
    (void)state;
    gd_facts f;
    fx_facts(&f, 3, 3);
    gd_prom_counters c;
    assert_int_equal(gd_prom_counters_init(&c, 3), 0);
    static gd_prom_pod pods[3 * GD_PROM_POD_SLOTS]; /* each GPU's slot 0, then its MIG devices' */
    pods[1 * GD_PROM_POD_SLOTS] = (gd_prom_pod){"train\"er", "ml", "py\\torch"};
    pods[2 * GD_PROM_POD_SLOTS] = (gd_prom_pod){"", "x", "y"};
    gd_prom_pod *held = &pods[1 * GD_PROM_POD_SLOTS];
    c.pods = pods;
    gd_findings fs = {0};
    char *t = render(&f, &fs, &c);
    const char *want = ",pod=\"train\\\"er\",namespace=\"ml\",container=\"py\\\\torch\"} ";
    size_t on = 0, dcgm1 = 0;
    for (const char *l = t; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
        const char *end = strchr(l, '\n');
        size_t n = end ? (size_t)(end - l) : strlen(l);
        char line[2048];
        snprintf(line, sizeof line, "%.*s", (int)n, l);
        bool has = strstr(line, "pod=") != NULL;
        if (strncmp(line, "DCGM_FI_", 8) == 0 && strstr(line, "{gpu=\"1\"")) {
            dcgm1++;
            assert_non_null(strstr(line, want));
        }
        on += has;
    }
    assert_true(dcgm1 > 5);
    assert_int_equal(on, dcgm1);
    free(t);
    /* The longest names, every character escaped, fit whole: never cut. */
    memset(held->pod, 'p', sizeof held->pod - 1);
    held->pod[sizeof held->pod - 1] = '\0';
    memset(held->namespace_, '"', sizeof held->namespace_ - 1);
    held->namespace_[sizeof held->namespace_ - 1] = '\0';
    memset(held->container, '\\', sizeof held->container - 1);
    held->container[sizeof held->container - 1] = '\0';
    t = render(&f, &fs, &c);
    char whole[2 * sizeof held->container + 32];
    snprintf(whole, sizeof whole, ",container=\"");
    for (size_t i = 0; i + 1 < sizeof held->container; i++)
        strcat(whole, "\\\\");
    strcat(whole, "\"}");
    assert_non_null(strstr(t, whole));
    free(t);
    gd_prom_counters_free(&c);
    gd_facts_free(&f);
}

static void findings_come_and_go(void **state)
{
    (void)state;
    gd_facts f;
    fx_facts(&f, 1, 3);
    gd_findings fs = {0};
    gd_finding_add(&fs, "thermal.throttling", GD_SEV_CRITICAL, 0, NULL, 31.5, "cool it", "GPU 0 throttles");
    gd_finding_add(&fs, "driver.missing", GD_SEV_WARNING, GD_NO_GPU, NULL, NAN, "install", "no driver");
    char *t = render(&f, &fs, NULL);
    assert_non_null(strstr(t, "gpudoctor_finding{id=\"thermal.throttling\",severity=\"critical\",gpu=\"0\"} 1\n"));
    assert_non_null(strstr(t, "gpudoctor_finding{id=\"driver.missing\",severity=\"warning\",gpu=\"\"} 1\n"));
    assert_non_null(strstr(t, "gpudoctor_impact_ratio{id=\"thermal.throttling\",gpu=\"0\"} 0.315\n"));
    assert_null(strstr(t, "gpudoctor_impact_ratio{id=\"driver.missing\"")); /* no impact known */
    free(t);
    gd_findings_free(&fs);
    gd_findings cleared = {0};
    t = render(&f, &cleared, NULL);
    assert_null(strstr(t, "thermal.throttling"));
    free(t);
    gd_facts_free(&f);
}

/* Counts the occurrences of needle in t. */
static size_t count_of(const char *t, const char *needle)
{
    size_t n = 0;
    for (const char *p = strstr(t, needle); p; p = strstr(p + 1, needle))
        n++;
    return n;
}

/* A GPU lost twice and a driver that stopped twice are two episodes each:
 * one series per label set, the larger impact; promtool accepts the page. */
static void repeated_episodes_are_one_series(void **state)
{
    (void)state;
    gd_facts f;
    fx_facts(&f, 2, 3);
    gd_findings fs = {0};
    gd_finding_add(&fs, "health.gpu_lost", GD_SEV_CRITICAL, 1, NULL, 10, "reseat it", "GPU 1 fell off the bus");
    gd_finding_add(&fs, "driver.stopped", GD_SEV_CRITICAL, GD_NO_GPU, NULL, NAN, "restart", "driver stopped");
    gd_finding_add(&fs, "health.gpu_lost", GD_SEV_CRITICAL, 1, NULL, 40, "reseat it", "GPU 1 fell off the bus");
    gd_finding_add(&fs, "driver.stopped", GD_SEV_CRITICAL, GD_NO_GPU, NULL, NAN, "restart", "driver stopped");
    gd_finding_add(&fs, "health.gpu_lost", GD_SEV_CRITICAL, 0, NULL, 5, "reseat it", "GPU 0 fell off the bus");
    char *t = render(&f, &fs, NULL);
    assert_int_equal(count_of(t, "gpudoctor_finding{id=\"health.gpu_lost\",severity=\"critical\",gpu=\"1\"} 1\n"), 1);
    assert_int_equal(count_of(t, "gpudoctor_finding{id=\"health.gpu_lost\",severity=\"critical\",gpu=\"0\"} 1\n"), 1);
    assert_int_equal(count_of(t, "gpudoctor_finding{id=\"driver.stopped\",severity=\"critical\",gpu=\"\"} 1\n"), 1);
    assert_int_equal(count_of(t, "gpudoctor_impact_ratio{id=\"health.gpu_lost\",gpu=\"1\"}"), 1);
    assert_non_null(strstr(t, "gpudoctor_impact_ratio{id=\"health.gpu_lost\",gpu=\"1\"} 0.4\n"));
    /* Every sample on the page is its own series (Debian's promtool 2.42
     * parses duplicates without a word, so they are counted here), and
     * promtool, where installed, parses the page (1: it could not). */
    for (const char *line = t; *line; line = strchr(line, '\n') + 1) {
        size_t key = strcspn(line, " \n");
        if (line[0] != '#' && key > 0) {
            char series[512];
            snprintf(series, sizeof series, "\n%.*s ", (int)(key < 500 ? key : 500), line);
            assert_int_equal(count_of(t, series) + (strncmp(t, series + 1, strlen(series) - 1) == 0), 1);
        }
        if (!strchr(line, '\n'))
            break;
    }
    if (system("command -v promtool >/dev/null 2>&1") == 0) {
        char path[] = "/tmp/gd_prom_XXXXXX";
        int fd = mkstemp(path);
        assert_true(fd >= 0);
        FILE *o = fdopen(fd, "w");
        assert_non_null(o);
        fputs(t, o);
        fclose(o);
        char cmd[128];
        snprintf(cmd, sizeof cmd, "promtool check metrics < %s >/dev/null 2>&1", path);
        int lint = system(cmd);
        unlink(path);
        assert_true(WIFEXITED(lint) && WEXITSTATUS(lint) != 1);
    }
    free(t);
    gd_findings_free(&fs);
    gd_facts_free(&f);
}

static void label_values_are_escaped(void **state)
{
    (void)state;
    char buf[64];
    gd_prom_label_value(buf, sizeof buf, "a\"b\\c\nd");
    assert_string_equal(buf, "a\\\"b\\\\c\\nd");
    gd_prom_label_value(buf, 4, "ab\"c"); /* never cut inside an escape */
    assert_string_equal(buf, "ab");
    gd_facts f;
    fx_facts(&f, 1, 2);
    snprintf(f.gpus[0].name, sizeof f.gpus[0].name, "evil\"} 1\nDCGM_FAKE{x=\"");
    gd_findings fs = {0};
    char *t = render(&f, &fs, NULL);
    assert_null(strstr(t, "\nDCGM_FAKE"));
    assert_non_null(strstr(t, "modelName=\"evil\\\"} 1\\nDCGM_FAKE{x=\\\"\""));
    free(t);
    gd_facts_free(&f);
}

static void clock_event_seconds_accumulate(void **state)
{
    (void)state;
    gd_facts f;
    fx_facts(&f, 1, 5); /* samples 1 s apart */
    fx_set(&f, 0, GD_M_EVENT_REASONS, 0, 5, (double)nvmlClocksThrottleReasonSwPowerCap);
    fx_set(&f, 0, GD_M_EVENT_REASONS, 3, 5,
           (double)(nvmlClocksThrottleReasonSwPowerCap | nvmlClocksThrottleReasonHwThermalSlowdown));
    gd_prom_counters c;
    assert_int_equal(gd_prom_counters_init(&c, 1), 0);
    for (size_t i = 0; i < 5; i++)
        gd_prom_counters_add(&c, &f, i);
    gd_findings fs = {0};
    char *t = render(&f, &fs, &c);
    assert_non_null(strstr(t, "reason=\"sw_power_cap\"} 4\n")); /* four intervals after the first sample */
    assert_non_null(strstr(t, "reason=\"hw_thermal_slowdown\"} 2\n"));
    assert_non_null(strstr(t, "reason=\"gpu_idle\"} 0\n"));
    free(t);
    gd_prom_counters_free(&c);
    gd_facts_free(&f);
}

static void a_lost_gpu_is_reported_not_measured(void **state)
{
    (void)state;
    gd_facts f;
    fx_facts(&f, 2, 3);
    f.gpus[1].lost = true;
    gd_findings fs = {0};
    char *t = render(&f, &fs, NULL);
    assert_null(strstr(t, "DCGM_FI_DEV_GPU_TEMP{gpu=\"1\""));
    assert_non_null(strstr(t, "DCGM_FI_DEV_GPU_TEMP{gpu=\"0\""));
    assert_non_null(strstr(t, "gpudoctor_gpu_lost{gpu=\"1\","));
    assert_non_null(strstr(strstr(t, "gpudoctor_gpu_lost{gpu=\"1\","), "} 1\n"));
    free(t);
    gd_facts_free(&f);
}

/* A GPU in MIG mode gives its series once per MIG device with GPU_I_PROFILE
 * and GPU_I_ID, its memory the instance's (no reserve); job ids give one
 * copy each (hpc_job), an instance's own file before its GPU's. */
static void mig_devices_and_hpc_jobs(void **state)
{
    (void)state;
    gd_facts f;
    fx_facts(&f, 2, 3);
    fx_set(&f, 0, GD_M_TEMP_C, 0, 3, 55);
    fx_set(&f, 0, GD_M_MEM_USED_MIB, 0, 3, 50000);
    fx_set(&f, 0, GD_M_MEM_RESERVED_MIB, 0, 3, 500);
    fx_set(&f, 1, GD_M_MEM_USED_MIB, 0, 3, 1000);
    fx_set(&f, 1, GD_M_MEM_RESERVED_MIB, 0, 3, 500);
    gd_gpu *g = &f.gpus[0];
    g->mig_device_count = 2;
    g->mig_devices[0] = (gd_mig_device){
        .gpu_instance_id = 1, .profile = "3g.40gb", .mem_total_mib = gd_val(40192), .mem_used_mib = gd_val(30000)};
    g->mig_devices[1] = (gd_mig_device){
        .gpu_instance_id = 13, .profile = "1g.10gb", .mem_total_mib = gd_val(9856), .mem_used_mib = gd_val(0)};
    gd_gpu_jobs jobs[] = {
        {.gpu = 0, .gpu_instance = 13, .n = 1, .id = {"77"}},
        {.gpu = 0, .gpu_instance = -1, .n = 1, .id = {"70"}},
        {.gpu = 1, .gpu_instance = -1, .n = 2, .id = {"81", "82"}},
    };
    gd_prom_counters c;
    assert_int_equal(gd_prom_counters_init(&c, 2), 0);
    c.jobs = jobs;
    c.job_count = 3;
    gd_findings fs = {0};
    char *t = render(&f, &fs, &c);
    const char *mig1 = "modelName=\"NVIDIA H100 80GB HBM3\",GPU_I_PROFILE=\"3g.40gb\",GPU_I_ID=\"1\",Hostname=";
    const char *mig13 = "GPU_I_PROFILE=\"1g.10gb\",GPU_I_ID=\"13\",Hostname=";
    /* Every series of GPU 0 twice (one per instance), none without GPU_I_ID. */
    const char *temp = strstr(t, "DCGM_FI_DEV_GPU_TEMP{gpu=\"0\"");
    assert_non_null(temp);
    assert_non_null(strstr(temp, mig1));
    assert_true(strstr(temp, mig1) < strstr(temp, "\n"));
    size_t gpu0_temps = 0;
    for (const char *p = t; (p = strstr(p, "DCGM_FI_DEV_GPU_TEMP{gpu=\"0\"")); p++)
        gpu0_temps++;
    assert_int_equal(gpu0_temps, 2);
    /* Memory per instance: used, free = total - used; no reserve line. */
    const char *used = strstr(t, "DCGM_FI_DEV_FB_USED{gpu=\"0\"");
    assert_non_null(used);
    assert_non_null(strstr(used, "GPU_I_ID=\"1\""));
    assert_true(strncmp(strchr(used, '}'), "} 30000\n", 8) == 0);
    const char *free13 = strstr(t, "DCGM_FI_DEV_FB_FREE{gpu=\"0\"");
    free13 = strstr(free13 + 1, "DCGM_FI_DEV_FB_FREE{gpu=\"0\"");
    assert_non_null(free13);
    assert_non_null(strstr(free13, mig13));
    assert_true(strncmp(strchr(free13, '}'), "} 9856\n", 7) == 0);
    assert_null(strstr(t, "DCGM_FI_DEV_FB_RESERVED{gpu=\"0\""));
    assert_non_null(strstr(t, "DCGM_FI_DEV_FB_RESERVED{gpu=\"1\""));
    /* Jobs: instance 13 has its own file; instance 1 takes the GPU's; GPU 1 has two. */
    assert_non_null(strstr(t, "GPU_I_ID=\"13\",Hostname=\"\",DCGM_FI_DRIVER_VERSION=\"550.54.15\",hpc_job=\"77\"}"));
    assert_non_null(strstr(t, "GPU_I_ID=\"1\",Hostname=\"\",DCGM_FI_DRIVER_VERSION=\"550.54.15\",hpc_job=\"70\"}"));
    assert_non_null(strstr(t, "DCGM_FI_DEV_FB_USED{gpu=\"1\""));
    const char *u1 = strstr(t, "DCGM_FI_DEV_FB_USED{gpu=\"1\"");
    assert_non_null(strstr(u1, "hpc_job=\"81\"} 1000\n"));
    assert_non_null(strstr(u1, "hpc_job=\"82\"} 1000\n"));
    /* gpudoctor's own series stay one per GPU. */
    size_t lost0 = 0;
    for (const char *p = t; (p = strstr(p, "gpudoctor_gpu_lost{gpu=\"0\"")); p++)
        lost0++;
    assert_int_equal(lost0, 1);
    free(t);
    gd_prom_counters_free(&c);
    gd_facts_free(&f);
}

/* NVLink: error counters summed over the links that give them, the
 * bandwidth as DCGM's "MB/s" (KiB/s / 1000); absent, never 0, for a GPU
 * whose links give nothing (MIG, PCIe) and before the second read. */
static void nvlink_counters_sum_links(void **state)
{
    (void)state;
    gd_facts f;
    fx_facts(&f, 3, 3);
    f.gpus[0].nvlink_count = 2;
    f.gpus[0].nvlink[0].crc_flit_errors = gd_val(150);
    f.gpus[0].nvlink[1].crc_flit_errors = gd_val(400);
    f.gpus[0].nvlink[1].replay_errors = gd_val(12);
    f.gpus[0].nvlink[0].replay_errors = gd_missing(GD_ST_NOT_SUPPORTED);
    f.gpus[0].nvlink_data_kibps = gd_val(7.8e6);
    f.gpus[1].nvlink_count = 1; /* MIG: nothing read */
    f.gpus[1].nvlink[0].crc_flit_errors = gd_missing(GD_ST_NOT_SUPPORTED);
    f.gpus[1].nvlink_data_kibps = gd_missing(GD_ST_UNREAD);
    gd_findings fs = {0};
    char *t = render(&f, &fs, NULL);
    const char *flit = strstr(t, "DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_TOTAL{gpu=\"0\"");
    assert_non_null(flit);
    assert_true(strncmp(strchr(flit, '}'), "} 550\n", 6) == 0);
    const char *replay = strstr(t, "DCGM_FI_DEV_NVLINK_REPLAY_ERROR_COUNT_TOTAL{gpu=\"0\"");
    assert_non_null(replay);
    assert_true(strncmp(strchr(replay, '}'), "} 12\n", 5) == 0);
    const char *bw = strstr(t, "DCGM_FI_DEV_NVLINK_BANDWIDTH_TOTAL{gpu=\"0\"");
    assert_non_null(bw);
    assert_true(strncmp(strchr(bw, '}'), "} 7800\n", 7) == 0);
    assert_non_null(strstr(t, "# TYPE DCGM_FI_DEV_NVLINK_BANDWIDTH_TOTAL counter\n"));
    assert_null(strstr(t, "DCGM_FI_DEV_NVLINK_CRC_DATA_ERROR_COUNT_TOTAL{")); /* no link gives it */
    assert_null(strstr(t, "DCGM_FI_DEV_NVLINK_RECOVERY_ERROR_COUNT_TOTAL{"));
    for (const char *line = t; line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL)
        if (strncmp(line, "DCGM_FI_DEV_NVLINK_", 19) == 0) /* GPU 0's series only */
            assert_true(strncmp(strchr(line, '{'), "{gpu=\"0\"", 8) == 0);
    f.gpus[0].lost = true; /* a lost GPU's counters stop */
    free(t);
    t = render(&f, &fs, NULL);
    assert_null(strstr(t, "DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_TOTAL{"));
    assert_null(strstr(t, "DCGM_FI_DEV_NVLINK_BANDWIDTH_TOTAL{"));
    free(t);
    gd_facts_free(&f);
}

/* The RDMA NICs' ports beside the GPUs: state, phys state, rate and error
 * counters, one series per label set (a device two sources named is one);
 * none on a node without RDMA NICs. */
static void nic_ports_beside_the_gpus(void **state)
{
    (void)state;
    gd_facts f;
    fx_facts(&f, 1, 1);
    gd_findings fs = {0};
    char *t = render(&f, &fs, NULL); /* no network facts */
    assert_null(strstr(t, "gpudoctor_nic_port"));
    free(t);
    f.net = calloc(1, sizeof *f.net);
    assert_non_null(f.net);
    f.net->devices_read = true; /* an Ethernet-only node: no series either */
    t = render(&f, &fs, NULL);
    assert_null(strstr(t, "gpudoctor_nic_port"));
    free(t);
    f.net->dev_count = 3;
    for (size_t d = 0; d < 3; d++) {
        gd_net_dev *x = &f.net->devs[d];
        snprintf(x->name, sizeof x->name, "%s", d == 1 ? "mlx5_3" : "mlx5_0"); /* devs[2] repeats mlx5_0 */
        x->port_count = 1;
        gd_net_port *p = &x->ports[0];
        p->port = 1;
        p->state = d == 1 ? GD_PORT_DOWN : GD_PORT_ACTIVE;
        p->phys = d == 1 ? GD_PORT_PHYS_POLLING : GD_PORT_PHYS_LINKUP;
        p->link_layer = GD_LINK_INFINIBAND;
        p->rate_gbps = gd_val(d == 1 ? 100 : 400);
        for (int c = 0; c < GD_PC_COUNT; c++)
            p->counters_last[c] = c == GD_PC_SYMBOL_ERROR ? gd_val(1234) : gd_missing(GD_ST_NOT_SUPPORTED);
    }
    t = render(&f, &fs, NULL);
    assert_non_null(strstr(t, "# TYPE gpudoctor_nic_port_state gauge\n"));
    assert_non_null(strstr(t, "gpudoctor_nic_port_state{device=\"mlx5_0\",port=\"1\",link_layer=\"InfiniBand\"} 4\n"));
    assert_non_null(strstr(t, "gpudoctor_nic_port_state{device=\"mlx5_3\",port=\"1\",link_layer=\"InfiniBand\"} 1\n"));
    assert_non_null(
        strstr(t, "gpudoctor_nic_port_phys_state{device=\"mlx5_3\",port=\"1\",link_layer=\"InfiniBand\"} 2\n"));
    assert_non_null(
        strstr(t, "gpudoctor_nic_port_rate_gbps{device=\"mlx5_3\",port=\"1\",link_layer=\"InfiniBand\"} 100\n"));
    assert_non_null(strstr(t, "# TYPE gpudoctor_nic_port_errors_total counter\n"));
    assert_non_null(strstr(t, "gpudoctor_nic_port_errors_total{device=\"mlx5_0\",port=\"1\",link_layer=\"InfiniBand\","
                              "counter=\"symbol_error\"} 1234\n"));
    assert_null(strstr(t, "counter=\"link_downed\"")); /* not reported: no series */
    size_t states = 0;
    for (const char *q = t; (q = strstr(q, "gpudoctor_nic_port_state{device=\"mlx5_0\"")); q++)
        states++;
    assert_int_equal(states, 1);
    free(t);
    gd_facts_free(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(dcgm_names_and_labels),          cmocka_unit_test(reserved_xid_and_node_name),
        cmocka_unit_test(findings_come_and_go),           cmocka_unit_test(repeated_episodes_are_one_series),
        cmocka_unit_test(pod_labels_on_held_gpus_only),   cmocka_unit_test(label_values_are_escaped),
        cmocka_unit_test(clock_event_seconds_accumulate), cmocka_unit_test(a_lost_gpu_is_reported_not_measured),
        cmocka_unit_test(mig_devices_and_hpc_jobs),       cmocka_unit_test(nvlink_counters_sum_links),
        cmocka_unit_test(nic_ports_beside_the_gpus),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
