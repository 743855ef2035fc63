#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# No merge-conflict markers in any tracked file: a conflict resolved by
# hand inside a comment still compiles, so the build never sees it.
# Usage: test_merge_markers.sh SOURCE_DIR
set -euo pipefail
src=$1
cd "$src"
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    files() { git ls-files -z; }
else
    files() { find . -path ./build\* -prune -o -type f -print0; }
fi
# A marker is seven of <, = or > alone at the start of a line (=======
# alone), the way git writes them; Markdown setext rules are longer or shorter.
found=$(files | xargs -0 grep -nIE '^(<{7} |>{7} |={7}$)' 2>/dev/null || true)
if [ -n "$found" ]; then
    echo "FAIL: merge-conflict markers:" >&2
    echo "$found" >&2
    exit 1
fi
echo "ok: no merge-conflict markers in $(files | tr -cd '\0' | wc -c) files"
