#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Every test carries one of the suite's labels (tests/CMakeLists.txt), so
# `ctest -L LABEL` and `make test` / `make test-all` leave none out.
# Usage: check_labels.sh CTEST BUILD_DIR
set -euo pipefail
"$1" --test-dir "$2" --show-only=json-v1 | python3 -c '
import json, sys
kinds = {"unit", "e2e", "golden", "abi", "sim", "fuzz", "component", "deploy"}
bad = []
for t in json.load(sys.stdin)["tests"]:
    labels = set()
    for p in t.get("properties", []):
        if p["name"] == "LABELS":
            labels |= set(p["value"])
    if not labels & kinds:
        bad.append(t["name"])
for name in bad:
    print("no suite label: %s (tests/CMakeLists.txt)" % name, file=sys.stderr)
sys.exit(1 if bad else 0)
'
