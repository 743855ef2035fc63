#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Every test carries one of the suite's labels (tests/CMakeLists.txt), so
# `ctest -L LABEL` and `make test` / `make test-all` leave none out, and
# PYTHONDONTWRITEBYTECODE=1, so that none writes bytecode into the source
# tree however ctest is run (gd_label_folder).
# Usage: check_labels.sh CTEST BUILD_DIR
set -euo pipefail
"$1" --test-dir "$2" --show-only=json-v1 | python3 -c '
import json, sys
kinds = {"unit", "e2e", "golden", "abi", "sim", "fuzz", "component", "deploy"}
bad = []
for t in json.load(sys.stdin)["tests"]:
    labels, env = set(), set()
    for p in t.get("properties", []):
        if p["name"] == "LABELS":
            labels |= set(p["value"])
        if p["name"] == "ENVIRONMENT":
            env |= set(p["value"])
    if not labels & kinds:
        bad.append("no suite label: %s (tests/CMakeLists.txt)" % t["name"])
    if "PYTHONDONTWRITEBYTECODE=1" not in env:
        bad.append("no PYTHONDONTWRITEBYTECODE=1: %s (gd_label_folder in its folder)" % t["name"])
for line in bad:
    print(line, file=sys.stderr)
sys.exit(1 if bad else 0)
'
