/* SPDX-License-Identifier: Apache-2.0 */
/* gdscenario: loading a good scenario, and the message for each kind of bad one. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gpudoctor/abi/nvml_api.h"
#include "scenario.h"
#include "sim_test_util.h"

/* JSON written as C tokens, so test scenarios need no escaping. */
#define J(...) #__VA_ARGS__

static const char *good = J({
    "description" : "one H100, thermal slowdown",
    "driver_version" : "550.54.15",
    "cuda_driver_version" : 12040,
    "host" : {"sysfs" : "sysfs/", "kernel_log" : "/var/log/dmesg.txt", "numa_nodes" : 2},
    "future_key" : {"anything" : [ 1, 2, 3 ]},
    "gpus" : [ {
        "name" : "NVIDIA H100 80GB HBM3",
        "uuid" : "GPU-5e1d1f3a-0000-0000-0000-000000000003",
        "pci_bus_id" : "00000000:1B:00.0",
        "serial" : "1654922000123",
        "compute_capability" : [ 9, 0 ],
        "memory_total_mib" : 81559,
        "power_limit_w" : 700,
        "power_limit_default_w" : 700,
        "power_limit_min_w" : 200,
        "power_limit_max_w" : 700.5,
        "clocks_max_mhz" : {"sm" : 1980, "mem" : 2619},
        "clocks_default_app_mhz" : {"sm" : 1755, "mem" : 2619},
        "clocks_app_mhz" : {"sm" : 1755},
        "temperature_thresholds_c" : {"shutdown" : 92, "slowdown" : 89, "gpu_max" : 87, "mem_max" : 95},
        "pcie_max" : {"gen" : 5, "width" : 16},
        "persistence_mode" : true,
        "compute_mode" : "exclusive_process",
        "mig_mode" : false,
        "ecc" : {
            "enabled" : true,
            "volatile_uncorrected" : 0,
            "aggregate_uncorrected" : 3,
            "retired_pages" : 2,
            "remapped_rows_pending" : false,
            "remap_failure" : true
        },
        "nvlink" :
            [ {"link" : 0, "active" : true, "remote_pci_bus_id" : "00000000:29:00.0"}, {"link" : 3, "active" : false} ],
        "bandwidth_gbps" : {"h2d_pinned" : 53.0, "d2h_pinned" : 53.5, "h2d_pageable" : 19.0, "d2d" : 2900},
        "gemm_tflops" : {"bf16" : 720, "fp32" : 55},
        "processes" : [ {"pid" : 4242, "name" : "python", "used_mib" : 61000}, {"pid" : 7} ],
        "errors" : {"nvmlDeviceGetFanSpeed" : "NVML_ERROR_NOT_SUPPORTED"},
        "timeline" : [
            {
                "t" : 0,
                "temp_c" : 48,
                "power_w" : 120.5,
                "util_gpu_pct" : 0,
                "fan_pct" : null,
                "event_reasons" : ["gpu_idle"]
            },
            {
                "t" : 10,
                "temp_c" : 86,
                "util_gpu_pct" : 99,
                "event_reasons" : [ "sw_thermal_slowdown", "hw_thermal_slowdown" ],
                "errors" : {"nvmlDeviceGetTemperature" : "NVML_ERROR_GPU_IS_LOST"}
            }
        ]
    } ]
});

static void test_good_scenario(void **state)
{
    (void)state;
    char err[512] = "";
    gd_scenario *sc = gd_scenario_load_buffer(good, strlen(good), "dir/x.json", err, sizeof err);
    assert_non_null(sc);
    assert_string_equal(err, "");
    assert_string_equal(sc->description, "one H100, thermal slowdown");
    assert_string_equal(sc->driver_version, "550.54.15");
    assert_true(sc->cuda_driver_version.present);
    assert_int_equal(sc->cuda_driver_version.value, 12040);
    assert_true(sc->timescale == 1.0);
    assert_string_equal(sc->host.sysfs, "dir/sysfs/");
    assert_string_equal(sc->host.kernel_log, "/var/log/dmesg.txt");
    assert_int_equal(sc->host.numa_nodes.value, 2);
    assert_int_equal(sc->gpu_count, 1);

    const gd_scenario_gpu *g = &sc->gpus[0];
    assert_string_equal(g->name, "NVIDIA H100 80GB HBM3");
    assert_string_equal(g->pci_bus_id, "00000000:1B:00.0");
    assert_null(g->vbios_version);
    assert_true(g->has_compute_capability);
    assert_int_equal(g->compute_capability[0], 9);
    assert_int_equal(g->memory_total_mib.value, 81559);
    assert_true(g->power_limit_max_w.value == 700.5);
    assert_true(g->clocks_app_mhz.sm.present);
    assert_false(g->clocks_app_mhz.mem.present); /* absent is not zero */
    assert_int_equal(g->temperature_thresholds_c.gpu_max.value, 87);
    assert_int_equal(g->pcie_max.width.value, 16);
    assert_true(g->persistence_mode.present && g->persistence_mode.value);
    assert_true(g->has_compute_mode);
    assert_int_equal(g->compute_mode, GD_SCENARIO_COMPUTE_EXCLUSIVE_PROCESS);
    assert_true(g->mig_mode.present && !g->mig_mode.value);
    assert_int_equal(g->ecc.aggregate_uncorrected.value, 3);
    assert_true(g->ecc.remap_failure.value);
    assert_int_equal(g->nvlink_count, 2);
    assert_int_equal(g->nvlink[1].link, 3);
    assert_null(g->nvlink[1].remote_pci_bus_id);
    assert_true(g->bandwidth_gbps.d2d.value == 2900);
    assert_false(g->bandwidth_gbps.d2h_pageable.present);
    assert_false(g->gemm_tflops.fp16.present);
    assert_int_equal(g->process_count, 2);
    assert_int_equal(g->processes[0].pid, 4242);
    assert_null(g->processes[1].name);
    assert_false(g->processes[1].used_mib.present);
    assert_int_equal(g->errors.count, 2);
    assert_true(g->errors.items[0].always);
    assert_false(g->errors.items[1].always);
    assert_true(g->errors.items[1].from_t == 10);
    assert_int_equal(g->point_count, 2);
    assert_int_equal(g->points[1].event_reasons,
                     nvmlClocksThrottleReasonSwThermalSlowdown | nvmlClocksThrottleReasonHwThermalSlowdown);
    assert_int_equal(g->points[0].field[GD_SCENARIO_FAN_PCT].status, GD_SCENARIO_NULL);
    assert_int_equal(g->points[0].field[GD_SCENARIO_MEM_TEMP_C].status, GD_SCENARIO_ABSENT);
    gd_scenario_free(sc);
}

/* A minimal document with the problem spliced in. */
static void expect_error(const char *json, const char *message)
{
    char err[1024] = "";
    gd_scenario *sc = gd_scenario_load_buffer(json, strlen(json), "examples/x.json", err, sizeof err);
    if (sc) {
        gd_scenario_free(sc);
        fail_msg("accepted, expected: %s", message);
    }
    if (strstr(err, message) == NULL)
        fail_msg("message\n  %s\ndoes not contain\n  %s", err, message);
}

static void test_syntax_errors(void **state)
{
    (void)state;
    expect_error("{\n  \"gpus\": [\n  }", "examples/x.json: line 3 column 3: JSON syntax error: ");
    expect_error(J({"gpus" : [], "gpus" : []}), "examples/x.json: line 1 column ");
    expect_error(J({"gpus" : [], "gpus" : []}), "duplicate");
    expect_error("", "examples/x.json: line 1 column 0: JSON syntax error");
    expect_error("[1, 2]", "examples/x.json: top level: expected an object");
    expect_error("{}", "examples/x.json: gpus: missing");
}

static void test_type_errors(void **state)
{
    (void)state;
    expect_error(J({"gpus" : [ {}, {}, {"timeline" : [ {"t" : 0}, {"t" : 1}, {"t" : 2}, {"t" : "3"} ]} ]}),
                 "examples/x.json: gpus[2].timeline[3].t: expected a number");
    expect_error(J({"gpus" : [ {"timeline" : [ {"temp_c" : 3} ]} ]}),
                 "examples/x.json: gpus[0].timeline[0]: missing \"t\"");
    expect_error(J({"gpus" : [ {"name" : 3} ]}), "examples/x.json: gpus[0].name: expected a string, got a number");
    expect_error(J({"gpus" : [ {"memory_total_mib" : 1.5} ]}),
                 "gpus[0].memory_total_mib: expected an integer, got 1.5");
    expect_error(J({"gpus" : [ {"persistence_mode" : 1} ]}), "gpus[0].persistence_mode: expected true or false");
    expect_error(J({"gpus" : [ {"clocks_max_mhz" : {"sm" : "fast"}} ]}),
                 "gpus[0].clocks_max_mhz.sm: expected an integer, got a string");
    expect_error(J({"gpus" : [ {"ecc" : []} ]}), "gpus[0].ecc: expected an object, got an array");
    expect_error(J({"gpus" : {}}), "examples/x.json: gpus: expected an array, got an object");
    expect_error(J({"gpus" : [3]}), "examples/x.json: gpus[0]: expected an object");
    expect_error(J({"gpus" : [ {"compute_capability" : [9]} ]}), "gpus[0].compute_capability: expected [major, minor]");
    expect_error(J({"gpus" : [ {"timeline" : [ {"t" : 0, "event_reasons" : "gpu_idle"} ]} ]}),
                 "gpus[0].timeline[0].event_reasons: expected an array");
    expect_error(J({"gpus" : [ {"processes" : [ {"name" : "x"} ]} ]}), "gpus[0].processes[0]: missing \"pid\"");
    expect_error(J({"gpus" : [ {"nvlink" : [ {"link" : 1}, {"link" : 1} ]} ]}),
                 "gpus[0].nvlink[1]: link 1 is listed twice");
    expect_error(J({"host" : {"sysfs" : false}, "gpus" : []}), "examples/x.json: host.sysfs: expected a string");
}

static void test_value_errors(void **state)
{
    (void)state;
    expect_error(J({"gpus" : [ {"timeline" : [ {"t" : 0, "event_reasons" : ["foo"]} ]} ]}),
                 "examples/x.json: gpus[0].timeline[0].event_reasons[0]: unknown reason \"foo\" (known: gpu_idle, "
                 "applications_clocks_setting, sw_power_cap,");
    expect_error(J({"gpus" : [ {"timeline" : [ {"t" : 10}, {"t" : 5} ]} ]}),
                 "examples/x.json: gpus[0].timeline: t values must increase (5 after 10)");
    expect_error(J({"gpus" : [ {"timeline" : [ {"t" : 1}, {"t" : 1} ]} ]}), "t values must increase (1 after 1)");
    expect_error(J({"gpus" : [ {"timeline" : [ {"t" : -1} ]} ]}), "gpus[0].timeline[0].t: must be >= 0 (got -1)");
    expect_error(J({"gpus" : [ {"timeline" : [ {"t" : 0, "util_gpu_pct" : 101} ]} ]}),
                 "gpus[0].timeline[0].util_gpu_pct: must be between 0 and 100 (got 101)");
    expect_error(J({"gpus" : [ {"timeline" : [ {"t" : 0, "mem_used_mib" : -4} ]} ]}),
                 "gpus[0].timeline[0].mem_used_mib: must be between 0 and");
    expect_error(J({"gpus" : [ {"memory_total_mib" : -1} ]}), "gpus[0].memory_total_mib: must be between 0 and");
    expect_error(J({"timescale" : 0, "gpus" : []}), "examples/x.json: timescale: must be a positive number (got 0)");
    expect_error(J({"timescale" : -2, "gpus" : []}), "timescale: must be a positive number (got -2)");
    expect_error(J({"gpus" : [ {"errors" : {"nvmlDeviceGetName" : "NVML_ERROR_NOPE"}} ]}),
                 "gpus[0].errors.nvmlDeviceGetName: unknown NVML return code \"NVML_ERROR_NOPE\"");
    expect_error(J({"gpus" : [ {"timeline" : [ {"t" : 0, "errors" : {"nvmlDeviceGetName" : 15}} ]} ]}),
                 "gpus[0].timeline[0].errors.nvmlDeviceGetName: expected an NVML return code name");
    expect_error(J({"gpus" : [ {"compute_mode" : "shared"} ]}),
                 "gpus[0].compute_mode: unknown compute mode \"shared\" (known: default,");
    expect_error(J({"gpus" : [ {"pci_bus_id" : "1B:00"} ]}), "gpus[0].pci_bus_id: expected a PCI bus id like");
    expect_error(J({"gpus" : [ {"nvlink" : [ {"link" : 0, "remote_pci_bus_id" : "0000:1B:00.0x"} ]} ]}),
                 "gpus[0].nvlink[0].remote_pci_bus_id: expected a PCI bus id");
    expect_error(J({"gpus" : [ {"nvlink" : [ {"link" : 36} ]} ]}), "gpus[0].nvlink[0].link: must be between 0 and 35");
    /* NVLink error counters, data rates and their events. */
    expect_error(J({"gpus" : [ {"nvlink" : [ {"link" : 0, "error_counters" : {"crc_flit" : -1}} ]} ]}),
                 "gpus[0].nvlink[0].error_counters.crc_flit: must be between 0 and");
    expect_error(J({"gpus" : [ {"nvlink" : [ {"link" : 0, "error_counters" : [0]} ]} ]}),
                 "gpus[0].nvlink[0].error_counters: expected an object");
    expect_error(J({"gpus" : [ {"nvlink" : [ {"link" : 0, "data_tx_kibps" : "fast"} ]} ]}),
                 "gpus[0].nvlink[0].data_tx_kibps: expected a number");
    expect_error(
        J({
            "gpus" : [ {"nvlink" : [ {"link" : 0} ], "events" : [ {"t" : 5, "nvlink" : {"link" : 2, "replay" : 1}} ]} ]
        }),
        "gpus[0].events[0].nvlink: link 2 is not in this GPU's \"nvlink\" list");
    expect_error(J({"gpus" : [ {"nvlink" : [ {"link" : 0} ], "events" : [ {"t" : 5, "nvlink" : {"replay" : 1}} ]} ]}),
                 "gpus[0].events[0].nvlink: missing \"link\"");
    expect_error(J({"gpus" : [ {"nvlink" : [ {"link" : 0} ], "events" : [ {"t" : 5, "nvlink" : {"link" : 0}} ]} ]}),
                 "gpus[0].events[0].nvlink: an NVLink event says nothing");
    expect_error(
        J({
            "gpus" :
                [ {"nvlink" : [ {"link" : 0} ], "events" : [ {"t" : 5, "nvlink" : {"link" : 0, "crc_data" : -3}} ]} ]
        }),
        "gpus[0].events[0].nvlink.crc_data: must be between 0 and");
    expect_error(J({"gpus" : [ {"fabric" : {"status" : 0}} ]}), "gpus[0].fabric: missing \"state\"");
    expect_error(J({"gpus" : [ {"fabric" : {"state" : "done"}} ]}), "gpus[0].fabric: \"state\": \"done\" is none of");
    expect_error(J({"gpus" : [ {"fabric" : {"state" : 3}} ]}), "gpus[0].fabric.state: expected a string");
    expect_error(J({"gpus" : [ {"fabric" : {"state" : "completed", "status" : -1}} ]}),
                 "gpus[0].fabric.status: must be between 0 and 999");
    expect_error(J({"gpus" : [ {"fabric" : "completed"} ]}), "gpus[0].fabric: expected an object");
}

static void test_limits(void **state)
{
    (void)state;
    size_t cap = 64 * 16 + 64;
    char *many = malloc(cap);
    strcpy(many, "{\"gpus\": [{}");
    for (int i = 1; i < GD_SCENARIO_MAX_GPUS + 1; i++)
        strcat(many, ", {}");
    strcat(many, "]}");
    expect_error(many, "examples/x.json: gpus: 65 GPUs, more than the limit of 64");
    free(many);

    size_t n = GD_SCENARIO_MAX_POINTS + 1;
    char *big = malloc(n * 24 + 64), *w = big;
    w += sprintf(w, "{\"gpus\": [{\"timeline\": [");
    for (size_t i = 0; i < n; i++)
        w += sprintf(w, "%s{\"t\": %zu}", i ? "," : "", i);
    strcpy(w, "]}]}");
    expect_error(big, "gpus[0].timeline: 100001 points, more than the limit of 100000");
    free(big);
}

static void test_files(void **state)
{
    (void)state;
    char err[512];
    char *dir = simt_mkdtemp();
    assert_non_null(dir);

    char *missing = NULL;
    assert_true(asprintf(&missing, "%s/none.json", dir) > 0);
    assert_null(gd_scenario_load(missing, err, sizeof err));
    char want[600];
    snprintf(want, sizeof want, "%s: cannot open: No such file or directory", missing);
    assert_string_equal(err, want);
    free(missing);

    char *path = simt_write(dir, "s.json", J({"host" : {"kernel_log" : "dmesg.txt"}, "gpus" : []}));
    gd_scenario *sc = gd_scenario_load(path, err, sizeof err);
    assert_non_null(sc);
    snprintf(want, sizeof want, "%s/dmesg.txt", dir);
    assert_string_equal(sc->host.kernel_log, want);
    assert_null(sc->host.sysfs);
    gd_scenario_free(sc);
    free(path);

    /* Over the size cap: refused before parsing (a sparse file reads fast). */
    char *huge = simt_write(dir, "huge.json", "");
    assert_int_equal(truncate(huge, (off_t)GD_SCENARIO_MAX_FILE_BYTES + 1), 0);
    assert_null(gd_scenario_load(huge, err, sizeof err));
    assert_non_null(strstr(err, "larger than the 64 MiB limit"));
    free(huge);

    assert_null(gd_scenario_load(dir, err, sizeof err));
    assert_non_null(strstr(err, "a directory: a scenario must be a regular file"));
    /* A FIFO is refused at once, never waited on in open(). */
    char fifo[1024];
    snprintf(fifo, sizeof fifo, "%s/scenario.fifo", dir);
    assert_int_equal(mkfifo(fifo, 0600), 0);
    assert_null(gd_scenario_load(fifo, err, sizeof err));
    assert_non_null(strstr(err, "a pipe or FIFO"));
    simt_rmtree(dir);
}

/* Process names by pid across GPUs: pids in no order, some shared, some unnamed. */
static void test_process_names(void **state)
{
    (void)state;
    json_t *gpus = json_array();
    for (int g = 0; g < 4; g++) {
        json_t *procs = json_array();
        for (unsigned i = 0; i < 500; i++) {
            unsigned pid = (i * 7919u + (unsigned)g * 131u) % 3001u + 2; /* shuffled; GPUs overlap */
            json_t *p = json_pack("{s:I}", "pid", (json_int_t)pid);
            if (pid % 5)
                json_object_set_new(p, "name", json_sprintf("p%u-g%d", pid, g));
            json_array_append_new(procs, p);
        }
        json_array_append_new(gpus, json_pack("{s:s, s:o}", "name", "x", "processes", procs));
    }
    json_t *root = json_pack("{s:o}", "gpus", gpus);
    char *text = json_dumps(root, 0);
    json_decref(root);
    char err[256];
    gd_scenario *sc = gd_scenario_load_buffer(text, strlen(text), "x.json", err, sizeof err);
    free(text);
    assert_non_null(sc);
    for (unsigned pid = 0; pid < 3010; pid++) {
        const char *want = NULL; /* what a walk of every list in order finds (as the lookup did) */
        for (size_t g = 0; g < sc->gpu_count && !want; g++)
            for (size_t i = 0; i < sc->gpus[g].process_count && !want; i++)
                if (sc->gpus[g].processes[i].pid == pid && sc->gpus[g].processes[i].name)
                    want = sc->gpus[g].processes[i].name;
        const char *got = gd_scenario_process_name(sc, pid);
        if (want)
            assert_string_equal(got, want);
        else
            assert_null(got);
    }
    gd_scenario_free(sc);
}

/* An empty event list is no events (it handed qsort a NULL array: UBSan, found by fuzz_scenario). */
static void test_empty_events(void **state)
{
    (void)state;
    const char *text = J({"gpus" : [ {"name" : "x", "events" : []} ]});
    char err[256] = "";
    gd_scenario *sc = gd_scenario_load_buffer(text, strlen(text), "x.json", err, sizeof err);
    if (!sc)
        fail_msg("%s", err);
    assert_int_equal(sc->gpus[0].event_count, 0);
    gd_scenario_free(sc);
}

/* "nics" and "network": the training network of the simulated node. */
static void test_network(void **state)
{
    (void)state;
    const char *text = J({
        "gpus" : [],
        "nics" : [ {
            "name" : "mlx5_0",
            "bdf" : "0000:19:00.0",
            "numa_node" : 0,
            "ca_type" : "MT4129",
            "ports" : [ {
                "port" : 1,
                "state" : "active",
                "phys_state" : "linkup",
                "rate_gbps" : 400,
                "link_layer" : "ethernet",
                "counters" : {"symbol_error" : 5},
                "counters_per_s" : {"symbol_error" : 2, "link_downed" : 0.5},
                "gids" : [ {"index" : 3, "gid" : "::ffff:10.0.0.1", "type" : "RoCE v2", "netdev" : "eth2"} ]
            } ]
        } ],
        "network" : {
            "interfaces" : [ {"name" : "lo", "up" : true}, {"name" : "docker0", "bridge" : true, "up" : false} ],
            "peermem" : "none",
            "acs" : [ {"bdf" : "0000:17:01.0", "src_valid" : true, "req_redir" : true}, {"bdf" : "0000:17:02.0"} ]
        }
    });
    char err[512] = "";
    gd_scenario *sc = gd_scenario_load_buffer(text, strlen(text), "x.json", err, sizeof err);
    if (!sc)
        fail_msg("%s", err);
    assert_true(sc->net.has_nics);
    assert_int_equal(sc->net.nic_count, 1);
    const gd_scenario_nic_port *p = &sc->net.nics[0].ports[0];
    assert_int_equal(p->state, 4);
    assert_int_equal(p->phys_state, 5);
    assert_int_equal(p->link_layer, 2);
    assert_float_equal(p->rate_gbps.value, 400, 0);
    double v = 0;
    assert_true(gd_scenario_nic_counter_at(p, 2, 10, &v)); /* symbol_error: 5 + 2 x 10 */
    assert_float_equal(v, 25, 1e-9);
    assert_true(gd_scenario_nic_counter_at(p, 0, 10, &v)); /* link_downed grows from 0 */
    assert_float_equal(v, 5, 1e-9);
    assert_false(gd_scenario_nic_counter_at(p, 3, 10, &v)); /* port_rcv_errors: not given */
    assert_int_equal(p->gid_count, 1);
    assert_string_equal(p->gids[0].type, "RoCE v2");
    assert_int_equal(sc->net.iface_count, 2);
    assert_true(sc->net.ifaces[0].loopback);
    assert_true(sc->net.ifaces[1].bridge && sc->net.ifaces[1].virtual_dev);
    assert_int_equal(sc->net.peermem, GD_SCENARIO_PEERMEM_NONE);
    assert_int_equal(sc->net.acs_count, 2);
    assert_true(sc->net.acs[0].src_valid && sc->net.acs[0].req_redir && !sc->net.acs[0].trans_blk);
    /* A bit not named is off (it once read the parser's stack: ACS "on" at every healthy switch). */
    const gd_scenario_acs *off = &sc->net.acs[1];
    assert_false(off->src_valid || off->trans_blk || off->req_redir || off->cmplt_redir || off->upstream_fwd ||
                 off->egress_ctrl || off->direct_trans);
    gd_scenario_free(sc);

    expect_error(J({"gpus" : [], "nics" : {}}), "nics: expected an array");
    expect_error(J({"gpus" : [], "nics" : [ {"ports" : [ {"port" : 1} ]} ]}), "nics[0]: a NIC needs");
    expect_error(J({"gpus" : [], "nics" : [ {"name" : "m"} ]}), "nics[0].ports: a NIC needs at least one port");
    expect_error(J({"gpus" : [], "nics" : [ {"name" : "m", "ports" : [ {"port" : 1, "state" : "up"} ]} ]}),
                 "nics[0].ports[0].state: unknown value \"up\" (known: down, init, armed, active, active_defer)");
    expect_error(J({"gpus" : [], "nics" : [ {"name" : "m", "bdf" : "19:00.0", "ports" : [ {"port" : 1} ]} ]}),
                 "nics[0].bdf: \"19:00.0\" is not a PCI address");
    expect_error(J({"gpus" : [], "nics" : [ {"name" : "m", "ports" : [ {"port" : 1, "counters" : {"crc" : 1}} ]} ]}),
                 "nics[0].ports[0].counters.crc: unknown counter");
    expect_error(J({"gpus" : [], "nics" : [ {"name" : "m", "ports" : [ {"port" : 1}, {"port" : 1} ]} ]}),
                 "port 1 is listed twice");
    expect_error(J({"gpus" : [], "nics" : [ {"name" : "m", "ports" : [ {"port" : 1, "gids" : [ {"index" : 0} ]} ]} ]}),
                 "a GID needs");
    expect_error(J({"gpus" : [], "network" : {"peermem" : "yes"}}), "network.peermem: unknown value");
    expect_error(J({"gpus" : [], "network" : {"acs" : [ {"src_valid" : true} ]}}), "network.acs[0].bdf: missing");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_good_scenario), cmocka_unit_test(test_syntax_errors), cmocka_unit_test(test_type_errors),
        cmocka_unit_test(test_value_errors),  cmocka_unit_test(test_limits),        cmocka_unit_test(test_files),
        cmocka_unit_test(test_process_names), cmocka_unit_test(test_network),       cmocka_unit_test(test_empty_events),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
