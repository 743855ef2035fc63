#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""node-problem-detector's custom plugin monitor, as NPD runs it, over
examples/kubernetes/node-problem-detector/gpudoctor-monitor.json.

node-problem-detector is not packaged in Debian (and Go is not needed to
build gpudoctor), so its rules are restated here from its source
(kubernetes/node-problem-detector, pkg/custompluginmonitor):
- the config is read as types/config.go's CustomPluginConfig (unknown keys are
  an error here, where Go would drop them silently: a misspelt key is a
  setting NPD never sees), ApplyConfiguration's defaults and duration parsing,
  and Validate: plugin "custom", no rule timeout above the global one, every
  rule's path exists, every permanent rule's condition has a default;
- plugin/plugin.go's run: each rule's path and args executed with the rule's
  timeout (the global one when it is not lower), stdout trimmed and cut to
  max_output_length, exit 0 OK, 1 NonOK, anything else or a timeout Unknown
  (a timeout's message: "Timeout when running plugin ...");
- custom_plugin_monitor.go's generateStatus and toConditionStatus (OK False,
  NonOK True, else Unknown), the initial condition (False), and the metric
  problem_gauge{type=condition, reason=its reason}, 1 when it is True, the
  previous reason cleared (pkg/problemmetrics).
The plugin runs on simulated nodes (--sim added to the rule's arguments, the
built binary for /usr/bin/gpudoctor), and the shipped taint script
(gpudoctor-taint.sh) acts on the conditions through a stand-in kubectl.
Usage: test_npd.py GPUDOCTOR SOURCE_DIR"""
import json
import os
import re
import stat
import subprocess
import sys
import tempfile
import time

binary, src = sys.argv[1], sys.argv[2]
npd_dir = os.path.join(src, "examples/kubernetes/node-problem-detector")
config = json.load(open(os.path.join(npd_dir, "gpudoctor-monitor.json")))


def go_duration(text):
    """time.ParseDuration for the forms NPD's configs use ("1m30s", "45s", "500ms")."""
    units = {"h": 3600.0, "m": 60.0, "s": 1.0, "ms": 1e-3, "us": 1e-6, "µs": 1e-6, "ns": 1e-9}
    parts = re.findall(r"(\d+(?:\.\d*)?)(ms|us|µs|ns|h|m|s)", text)
    assert parts and "".join(a + u for a, u in parts) == text, f"not a Go duration: {text!r}"
    return sum(float(a) * units[u] for a, u in parts)


# types/config.go: the fields NPD reads, and their defaults.
GLOBAL_KEYS = {"invoke_interval", "timeout", "max_output_length", "concurrency",
               "enable_message_change_based_condition_update", "skip_initial_status"}
TOP_KEYS = {"plugin", "pluginConfig", "source", "conditions", "rules", "metricsReporting"}
RULE_KEYS = {"type", "condition", "reason", "path", "args", "timeout", "invoke_interval"}
CONDITION_KEYS = {"type", "reason", "message"}


def apply_configuration(cfg):
    assert set(cfg) <= TOP_KEYS, set(cfg) - TOP_KEYS
    g = dict(cfg.get("pluginConfig", {}))
    assert set(g) <= GLOBAL_KEYS, set(g) - GLOBAL_KEYS
    g["timeout_s"] = go_duration(g.get("timeout", "5s"))
    g["invoke_interval_s"] = go_duration(g.get("invoke_interval", "30s"))
    g.setdefault("max_output_length", 80)
    g.setdefault("concurrency", 3)
    g.setdefault("enable_message_change_based_condition_update", False)
    g.setdefault("skip_initial_status", False)
    for c in cfg["conditions"]:
        assert set(c) <= CONDITION_KEYS, set(c) - CONDITION_KEYS
    for r in cfg["rules"]:
        assert set(r) <= RULE_KEYS, set(r) - RULE_KEYS
        assert r["type"] in ("temporary", "permanent"), r["type"]
        if "timeout" in r:
            r["timeout_s"] = go_duration(r["timeout"])
    cfg.setdefault("metricsReporting", True)
    return g


def validate(cfg, g, path_of):
    """types/config.go's Validate; path_of maps a rule's path to this machine."""
    assert cfg["plugin"] == "custom", 'NPD supports the "custom" plugin only'
    for r in cfg["rules"]:
        assert r.get("timeout_s", 0) <= g["timeout_s"], f"plugin timeout is greater than global timeout: {r}"
        assert os.path.exists(path_of(r["path"])), f"rule path {r['path']!r} does not exist"
    for r in cfg["rules"]:
        if r["type"] == "permanent":
            assert any(c["type"] == r["condition"] for c in cfg["conditions"]), \
                f"Permanent problem {r['condition']} does not have preset default condition."


glob = apply_configuration(config)
validate(config, glob, lambda p: binary if p == "/usr/bin/gpudoctor" else p)
# What NPD's own validation does not catch, and would break it here.
assert config["metricsReporting"] is True
assert all(r["path"] == "/usr/bin/gpudoctor" for r in config["rules"])
assert glob["timeout_s"] < glob["invoke_interval_s"], "a check would still run when the next one starts"
(default,) = config["conditions"]
# A problem condition, as NPD's own (KernelDeadlock, ReadonlyFilesystem): True = a problem.
assert default["type"] == "GPUProblem", default
(rule,) = [r for r in config["rules"] if r["type"] == "permanent"]
assert rule["condition"] == "GPUProblem" and "npd" in rule["args"] and "npd-healthy" not in rule["args"], rule

# An invalid config is refused by this restatement (it is not a rubber stamp).
for broken in ({"plugin": "other"}, {"rules": [dict(rule, condition="GPUHealthy")]},
               {"rules": [dict(rule, timeout="55s")]}, {"rules": [dict(rule, path="/nonexistent/gpudoctor")]},
               {"pluginConfig": dict(config["pluginConfig"], invoke_interval="1 minute")},
               {"pluginConfig": dict(config["pluginConfig"], max_ouput_length=80)}):
    bad = json.loads(json.dumps(config))
    bad.update(json.loads(json.dumps(broken)))
    try:
        validate(bad, apply_configuration(bad), lambda p: binary if p == "/usr/bin/gpudoctor" else p)
    except AssertionError:
        continue
    raise SystemExit(f"an invalid config passed: {broken}")


def run_rule(r, extra, env=None, path=None):
    """plugin.run: status and message of one invocation."""
    limit = r["timeout_s"] if r.get("timeout_s", glob["timeout_s"]) < glob["timeout_s"] else glob["timeout_s"]
    cmd = [path or binary] + r["args"] + extra
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, timeout=limit)
    except subprocess.TimeoutExpired:
        return "Unknown", f'Timeout when running plugin "{r["path"]}": state - signal: killed. output - ""'
    out = p.stdout.decode().strip()[: glob["max_output_length"]]
    return {0: "OK", 1: "NonOK"}.get(p.returncode, "Unknown"), out


def to_condition_status(status):
    return {"OK": "False", "NonOK": "True"}.get(status, "Unknown")


def generate_status(cond, status, message):
    """generateStatus for the permanent rule: the new condition."""
    status = to_condition_status(status)
    if cond["status"] == "True" and status != "True":
        reason, message = default["reason"], default["message"] if status == "False" else message
    elif cond["status"] != "True" and status == "True":
        reason = rule["reason"]
    elif cond["status"] != status:
        reason, message = default["reason"], default["message"] if status == "False" else message
    elif status == "True" and (cond["reason"] != rule["reason"] or (
            glob["enable_message_change_based_condition_update"] and cond["message"] != message)):
        reason = rule["reason"]
    else:
        return dict(cond)
    return {"status": status, "reason": reason, "message": message}


gauges = {}
last_reason = {}


def set_problem_gauge(kind, reason, value):
    """problemmetrics' SetProblemGauge: the type's previous reason is cleared to 0 first."""
    if kind in last_reason:
        gauges[(kind, last_reason[kind])] = 0
    last_reason[kind] = reason
    gauges[(kind, reason)] = 1 if value else 0


def observe(cond, extra, env=None, path=None):
    """One run of the rule: the new condition, and NPD's problem_gauge as it sets it."""
    new = generate_status(cond, *run_rule(rule, extra, env, path))
    set_problem_gauge(default["type"], new["reason"], new["status"] == "True")
    return new


def gauge():
    """problem_gauge{type="GPUProblem"} summed over reasons: 1 on a node with a problem."""
    return sum(v for (t, _), v in gauges.items() if t == default["type"])


def sim(name):
    return ["--sim", os.path.join(src, "examples", name)]


# NPD's initial condition: False (no problem) with the default reason; its gauges 0.
cond = {"status": "False", "reason": default["reason"], "message": default["message"]}
set_problem_gauge(default["type"], rule["reason"], False)  # initializeProblemMetricsOrDie
cond = observe(cond, sim("h100x8-training.json"))
assert cond == {"status": "False", "reason": "NoGPUProblem", "message": default["message"]}, cond
assert gauge() == 0, gauges
cond = observe(cond, sim("h100x8-xid.json"))
assert cond == {"status": "True", "reason": "CriticalGPUFinding", "message": "health.xid GPU 3,4"}, cond
assert gauge() == 1, gauges
# The message follows the findings while the problem lasts.
cond = observe(cond, sim("h100x8-memory-errors.json"))
assert cond["message"] == "health.ecc_uncorrectable GPU 4; health.row_remap GPU 5,6", cond
cond = observe(cond, sim("h100x8-training.json"))
assert cond["status"] == "False" and gauge() == 0, (cond, gauges)
# Warnings are no problem (--fail-on critical).
cond = observe(cond, sim("pcie-h100x8-nvlink-down.json"))
assert cond["status"] == "False", cond
# Could not check: Unknown, with gpudoctor's words, and no problem on the gauge.
with tempfile.TemporaryDirectory() as tmp:
    cond = observe(cond, ["--sim", os.path.join(tmp, "missing.json")])
assert cond["status"] == "Unknown" and cond["reason"] == "NoGPUProblem", cond
assert gauge() == 0
# A CPU node (no NVIDIA GPU on its PCI bus, no driver): Unknown, never a problem;
# a GPU node whose driver does not load: a problem (driver.missing).
with tempfile.TemporaryDirectory() as tmp:
    os.makedirs(os.path.join(tmp, "bus/pci/devices"))
    env = dict(os.environ, GPUDOCTOR_NVML_LIBRARY="/nonexistent/libnvidia-ml.so.1", GPUDOCTOR_SYS_ROOT=tmp)
    assert run_rule(rule, [], env) == ("Unknown", "no NVIDIA GPU on this machine")
    env["GPUDOCTOR_SYS_ROOT"] = os.path.join(src, "examples/sysfs/hgx-h100x8")
    cpu = {"status": "False", "reason": default["reason"], "message": default["message"]}
    sick = observe(cpu, [], env)
    assert sick == {"status": "True", "reason": "CriticalGPUFinding", "message": "driver.missing"}, sick

# A driver that hangs: NPD kills the plugin at the rule's timeout (shortened
# here), and the condition turns Unknown with NPD's timeout message.
with tempfile.TemporaryDirectory() as tmp:
    hang = os.path.join(tmp, "gpudoctor-hangs")
    with open(hang, "w") as f:
        f.write("#!/bin/sh\nexec sleep 600\n")
    os.chmod(hang, 0o755)
    saved = rule["timeout_s"], glob["timeout_s"]
    rule["timeout_s"], glob["timeout_s"] = 1, 2
    hung = observe({"status": "False", "reason": default["reason"], "message": default["message"]}, [], path=hang)
    rule["timeout_s"], glob["timeout_s"] = saved
assert hung["status"] == "Unknown" and hung["message"].startswith("Timeout when running plugin"), hung

# The taint script acts on these conditions: True taints, a timeout's
# Unknown taints once it has lasted the grace, other Unknowns are left,
# False lifts the taint. A stand-in kubectl lists the nodes and records.
with tempfile.TemporaryDirectory() as tmp:
    now = time.time()
    iso = lambda t: time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(t))
    nodes = [("xid", sick["status"], iso(now - 60), "driver.missing"),
             ("fine", "False", iso(now - 60), default["message"]),
             ("hung-long", hung["status"], iso(now - 900), hung["message"]),
             ("hung-now", hung["status"], iso(now - 30), hung["message"]),
             ("cpu", "Unknown", iso(now - 900), "no NVIDIA GPU on this machine")]
    with open(os.path.join(tmp, "nodes.tsv"), "w") as f:
        f.writelines("\t".join(n) + "\n" for n in nodes)
    kubectl = os.path.join(tmp, "kubectl")
    with open(kubectl, "w") as f:
        f.write(f'#!/bin/sh\ncase "$1" in get) cat "{tmp}/nodes.tsv" ;; *) echo "$*" >>"{tmp}/calls" ;; esac\n')
    os.chmod(kubectl, os.stat(kubectl).st_mode | stat.S_IXUSR)
    out = subprocess.run(["sh", os.path.join(npd_dir, "gpudoctor-taint.sh")], stdout=subprocess.PIPE,
                         env=dict(os.environ, PATH=tmp + ":" + os.environ["PATH"]), check=True).stdout.decode()
    calls = open(os.path.join(tmp, "calls")).read().splitlines()
    assert calls == ["taint nodes --overwrite xid gpudoctor.io/gpu-unhealthy=true:NoSchedule",
                     "taint nodes fine gpudoctor.io/gpu-unhealthy:NoSchedule-",
                     "taint nodes --overwrite hung-long gpudoctor.io/gpu-unhealthy=true:NoSchedule"], (calls, out)
    assert "hung-now: wait" in out and "cpu: keep: not checked: no NVIDIA GPU" in out, out
print("ok: NPD's validation passes; GPUProblem false with gauge 0 on a healthy node, true with gauge 1 and the "
      "findings on a sick one, Unknown on a hang (tainted after the grace) or when it cannot check (left)")
