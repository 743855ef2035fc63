#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Says why each skipped test was skipped, from ctest's JUnit file.

ctest reports a test that exits 77 as Skipped but never shows its output;
`make test` runs this after each suite. Every skip must say why: a skipped
test that printed nothing fails this script (exit 1).
Usage: skip_reasons.py JUNIT.xml
"""
import sys
import xml.etree.ElementTree as ET


def reason(text):
    """The test's own words: its output less cmocka's framing lines."""
    lines = [l.strip() for l in (text or "").splitlines()]
    lines = [l for l in lines if l and not l.startswith("[")]
    return lines[-3:]


def main():
    try:
        root = ET.parse(sys.argv[1]).getroot()
    except (OSError, ET.ParseError, IndexError) as e:
        print(f"skip_reasons: cannot read ctest's JUnit file: {e}", file=sys.stderr)
        return 2
    silent = []
    for case in root.iter("testcase"):
        if case.find("skipped") is None:
            continue
        why = reason(case.findtext("system-out"))
        if not why:
            silent.append(case.get("name"))
            print(f"Skipped {case.get('name')}: IT PRINTED NO REASON")
            continue
        print(f"Skipped {case.get('name')}: {why[0]}")
        for more in why[1:]:
            print(f"    {more}")
    if silent:
        print(f"skip_reasons: {len(silent)} skipped test(s) printed no reason: {' '.join(silent)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
