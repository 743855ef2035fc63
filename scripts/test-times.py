#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The per-test timing table of make test's two suites, from ctest's JUnit
output (--output-junit): Markdown on stdout, slowest first.
Usage: test-times.py PLAIN_JUNIT [ASAN_JUNIT]"""
import sys
import xml.etree.ElementTree as ET


def times(path):
    try:
        root = ET.parse(path).getroot()
    except (OSError, ET.ParseError) as e:
        print("test-times: %s: %s" % (path, e), file=sys.stderr)
        return {}, None
    out = {}
    for case in root.iter("testcase"):
        out[case.get("name")] = (float(case.get("time", "0")), case.get("status", "run"))
    suite = root if root.tag == "testsuite" else root.find("testsuite")
    return out, suite.get("timestamp") if suite is not None else None


def main():
    plain, when = times(sys.argv[1])
    asan, _ = times(sys.argv[2]) if len(sys.argv) > 2 else ({}, None)
    names = sorted(set(plain) | set(asan), key=lambda n: -max(plain.get(n, (0,))[0], asan.get(n, (0,))[0]))
    print("# Test times\n")
    print("Written by `make test-times` from the last `make test` (ctest's JUnit output%s), slowest first;"
          " seconds of wall time with two tests at a time (`-j2`) on the development machine (2 cores)."
          % (", " + when if when else ""))
    print("\n| test | plain (s) | ASan (s) |\n|---|---:|---:|")
    for n in names:
        cell = lambda d: "%.2f%s" % (d[n][0], "" if d[n][1] in ("run", "passed") else " (%s)" % d[n][1]) if n in d else "-"
        print("| %s | %s | %s |" % (n, cell(plain), cell(asan)))
    print("\n| total | %.0f | %.0f |" % (sum(v[0] for v in plain.values()), sum(v[0] for v in asan.values())))


main()
