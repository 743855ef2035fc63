#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""node-problem-detector's custom plugin monitor, as NPD runs it, over
examples/kubernetes/node-problem-detector/gpudoctor-monitor.json: each
rule's path and args executed with the rule's timeout, stdout trimmed and cut
to max_output_length, the exit code read as NPD does (0 OK, 1 NonOK, other
or timeout Unknown) and turned into the condition's status as NPD's
toConditionStatus does (OK False, NonOK True, Unknown Unknown), with its
reason and message rules. The plugin runs on simulated nodes (--sim added to
the rule's arguments, the built binary for /usr/bin/gpudoctor).
Usage: test_npd.py GPUDOCTOR SOURCE_DIR"""
import json
import os
import subprocess
import sys
import tempfile

binary, src = sys.argv[1], sys.argv[2]
config = json.load(open(os.path.join(src, "examples/kubernetes/node-problem-detector/gpudoctor-monitor.json")))
glob = config["pluginConfig"]
assert config["plugin"] == "custom"
(cond_default,) = [c for c in config["conditions"] if c["type"] == "GPUHealthy"]
permanent = [r for r in config["rules"] if r["type"] == "permanent"]
temporary = [r for r in config["rules"] if r["type"] == "temporary"]
assert [r["condition"] for r in permanent] == ["GPUHealthy"], permanent
assert all(r["path"] == "/usr/bin/gpudoctor" for r in config["rules"])


def seconds(text):
    assert text.endswith("s"), text
    return float(text[:-1])


def run_rule(rule, extra, env=None):
    """NPD's plugin.run: status and message of one invocation."""
    cmd = [binary] + rule["args"] + extra
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
                           timeout=seconds(rule.get("timeout", glob["timeout"])))
    except subprocess.TimeoutExpired:
        return "Unknown", "timeout"
    out = p.stdout.decode().strip()[: glob["max_output_length"]]
    return {0: "OK", 1: "NonOK"}.get(p.returncode, "Unknown"), out


def to_condition_status(status):
    return {"OK": "False", "NonOK": "True"}.get(status, "Unknown")


def condition_after(extra, cond):
    """NPD's generateStatus for the permanent rule: the new condition."""
    (rule,) = permanent
    status, message = run_rule(rule, extra)
    status = to_condition_status(status)
    if cond["status"] == "True" and status != "True":
        reason = cond_default["reason"]
        message = cond_default["message"] if status == "False" else message
    elif cond["status"] != "True" and status == "True":
        reason = rule["reason"]
    elif cond["status"] != status:
        reason = cond_default["reason"]
        message = cond_default["message"] if status == "False" else message
    else:
        return dict(cond)
    return {"status": status, "reason": reason, "message": message}


def sim(name):
    return ["--sim", os.path.join(src, "examples", name)]


# NPD's initial condition: False, with the default reason and message.
cond = {"status": "False", "reason": cond_default["reason"], "message": cond_default["message"]}
cond = condition_after(sim("h100x8-training.json"), cond)
assert cond == {"status": "True", "reason": "GPUsHealthy", "message": "no problem found"}, cond
cond = condition_after(sim("h100x8-xid.json"), cond)
assert cond["status"] == "False" and cond["reason"] == "GPUProblemOrNotChecked", cond
cond = condition_after(sim("h100x8-training.json"), cond)
assert cond["status"] == "True", cond
with tempfile.TemporaryDirectory() as tmp:
    cond = condition_after(["--sim", os.path.join(tmp, "missing.json")], cond)
assert cond["status"] == "Unknown", cond

# The temporary rule: an event whose message names the findings, only on a problem.
(event,) = temporary
assert run_rule(event, sim("h100x8-xid.json")) == ("NonOK", "health.xid GPU 3,4")
assert run_rule(event, sim("h100x8-training.json"))[0] == "OK"
assert run_rule(event, sim("h100x8-memory-errors.json")) == (
    "NonOK", "health.ecc_uncorrectable GPU 4; health.row_remap GPU 5,6")
# Warnings do not turn GPUHealthy false (--fail-on critical).
assert run_rule(permanent[0], sim("pcie-h100x8-nvlink-down.json"))[0] == "NonOK"
# A CPU node (no NVIDIA GPU on its PCI bus, no driver): unknown, never a problem;
# a GPU node whose driver does not load: a problem (driver.missing).
with tempfile.TemporaryDirectory() as tmp:
    os.makedirs(os.path.join(tmp, "bus/pci/devices"))
    env = dict(os.environ, GPUDOCTOR_NVML_LIBRARY="/nonexistent/libnvidia-ml.so.1", GPUDOCTOR_SYS_ROOT=tmp)
    assert run_rule(permanent[0], [], env) == ("Unknown", "no NVIDIA GPU on this machine")
    assert run_rule(event, [], env) == ("Unknown", "no NVIDIA GPU on this machine")
    env["GPUDOCTOR_SYS_ROOT"] = os.path.join(src, "examples/sysfs/hgx-h100x8")
    assert run_rule(event, [], env) == ("NonOK", "driver.missing")
print("ok: GPUHealthy true on a healthy node, false on a critical one, unknown when it cannot check or has no GPU")
