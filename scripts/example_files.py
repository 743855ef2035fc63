# SPDX-License-Identifier: Apache-2.0
"""Reading and writing the example scenarios and fixture files under
examples/, for the scripts that generate them (gen-pcie-examples.py,
gen-net-examples.py)."""
import json
import os

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "examples")


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def load(name):
    with open(os.path.join(ROOT, name)) as f:
        return json.load(f)


def save(name, sc):
    with open(os.path.join(ROOT, name), "w") as f:
        json.dump(sc, f, indent=1)
        f.write("\n")
