#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The Kubernetes example (examples/kubernetes/gpudoctor-exporter.yaml) is
# valid YAML (yamllint), a DaemonSet whose scrape annotations, container
# port and probes agree, and the exporter started with the container's own
# arguments (on loopback, a simulated node) answers the probe and scrape paths.
# Usage: test_exporter_kubernetes.sh GPUDOCTOR EXAMPLES_DIR
set -eu
. "$(dirname "$0")/lib.sh"
bin=$1
examples=$2
manifest=$examples/kubernetes/gpudoctor-exporter.yaml
need yamllint
need python3
python3 -c 'import yaml' 2>/dev/null || need python3-yaml-module

yamllint -d '{extends: default, rules: {line-length: {max: 120}, document-start: disable}}' "$manifest" ||
    fail "yamllint: $manifest"

# What the manifest says: the exporter's arguments, then the paths to fetch.
python3 - "$manifest" >"$tmp/plan" <<'PY'
import sys, yaml
docs = [d for d in yaml.safe_load_all(open(sys.argv[1])) if d]
ds = [d for d in docs if d.get("kind") == "DaemonSet"]
assert len(ds) == 1, "one DaemonSet"
ds = ds[0]
assert ds["apiVersion"] == "apps/v1", ds["apiVersion"]
tpl = ds["spec"]["template"]
assert ds["spec"]["selector"]["matchLabels"].items() <= tpl["metadata"]["labels"].items(), "selector matches the pods"
ann = tpl["metadata"]["annotations"]
assert ann["prometheus.io/scrape"] == "true"
c = tpl["spec"]["containers"][0]
args = c["args"]
assert args[0] == "export", args
listen = args[args.index("--listen") + 1]
port = int(listen.rsplit(":", 1)[1])
assert port == int(ann["prometheus.io/port"]), "annotation port = --listen port"
ports = {p["name"]: p["containerPort"] for p in c["ports"]}
assert ports["metrics"] == port, "containerPort = --listen port"
for probe in ("livenessProbe", "readinessProbe"):
    g = c[probe]["httpGet"]
    assert g["port"] in ("metrics", port), probe
# Liveness is the exporter's own (/healthz), never the GPUs' state: a node
# without a driver would restart the pod in a loop (test_exporter_probes.sh).
assert c["livenessProbe"]["httpGet"]["path"] == "/healthz", c["livenessProbe"]
assert c["readinessProbe"]["httpGet"]["path"] == "/readyz", c["readinessProbe"]
sc = c["securityContext"]
assert sc["readOnlyRootFilesystem"] and not sc["allowPrivilegeEscalation"] and not sc.get("privileged", False)
tol = tpl["spec"]["tolerations"]
assert any(t.get("key") == "nvidia.com/gpu" for t in tol), "tolerates the GPU taint"
svc = [d for d in docs if d.get("kind") == "Service"]
assert svc and svc[0]["spec"]["selector"].items() <= tpl["metadata"]["labels"].items(), "the Service selects the pods"
# The exporter's arguments less --listen, then the paths.
rest = [a for i, a in enumerate(args[1:]) if a != "--listen" and args[i] != "--listen"]
print(" ".join(rest))
print(ann["prometheus.io/path"])
print(c["livenessProbe"]["httpGet"]["path"])
print(c["readinessProbe"]["httpGet"]["path"])
PY
[ -s "$tmp/plan" ] || fail "the manifest's checks failed"
args=$(sed -n 1p "$tmp/plan")
# shellcheck disable=SC2086
start_exporter "$bin" "$examples/h100x8-training.json" $args
for path in $(sed -n '2,$p' "$tmp/plan"); do
    body=$(fetch "http://127.0.0.1:$port$path") || fail "GET $path"
    case $path in
    /metrics) echo "$body" | grep -q '^DCGM_FI_DEV_GPU_TEMP{' || fail "$path has no DCGM_FI_DEV_GPU_TEMP" ;;
    esac
done
echo "ok: the manifest is valid and its paths answer"
