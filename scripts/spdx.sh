#!/usr/bin/env bash
# Puts "SPDX-License-Identifier: Apache-2.0" (LICENSE) at the top of every
# source and script file that lacks it, in the file's comment syntax: after a
# shebang, a zsh #compdef line or a Python coding line, which must stay first.
#   spdx.sh [DIR]           add the line where it is missing (default: the repository)
#   spdx.sh --check [DIR]   list the files that lack it; exit 1 if any does
# Which files: C sources and headers, CMake, shell, Python, PTX, YAML, systemd
# units, man pages, Makefiles, NHC checks and configs, and any file that starts
# with "#!"; not data (JSON, captures, fixtures, fuzz corpora, golden
# outputs, examples' machine trees), nor docs, nor debian/ metadata.
set -euo pipefail
check=0
if [ "${1:-}" = --check ]; then
    check=1
    shift
fi
dir=$(cd "${1:-$(dirname "${BASH_SOURCE[0]}")/..}" && pwd)

list_files() {
    if git -C "$dir" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
        git -C "$dir" ls-files --cached --others --exclude-standard
    else
        (cd "$dir" && find . -path ./.git -prune -o \( -path './build' -o -path './build-*' \) -prune -o -type f -print |
            sed 's|^\./||')
    fi
}

list_files | sort -u | python3 -c '
import os, re, sys
check, root = sys.argv[1] == "1", sys.argv[2]
TAG = "SPDX-License-Identifier: Apache-2.0"
HASH, SLASH, C, ROFF = "# ", "// ", "/* ", ".\\\" "
by_ext = {".c": C, ".h": C, ".inc": C, ".cmake": HASH, ".sh": HASH, ".bash": HASH, ".py": HASH,
          ".nhc": HASH, ".yml": HASH, ".yaml": HASH, ".service": HASH, ".conf": HASH, ".install": HASH,
          ".ptx": SLASH, ".1": ROFF, ".8": ROFF}
by_name = {"CMakeLists.txt": HASH, "Makefile": HASH}
# Data and metadata, whatever their names: never touched.
skip = re.compile(r"^(tests/fuzz/corpus/|tests/fixtures/|tests/golden/(?!.*\.sh$)|examples/(?!kubernetes/)|"
                  r"debian/(changelog|control|copyright|source/)|LICENSE$|\.git)")

def style(path, first):
    if skip.match(path):
        return None
    base = os.path.basename(path)
    if base in by_name:
        return by_name[base]
    ext = os.path.splitext(base)[1]
    if ext in by_ext:
        return by_ext[ext]
    if first.startswith(b"#!") or first.startswith(b"#compdef"):
        return HASH
    if path.startswith("scripts/default/"):
        return HASH
    return None

missing = []
for path in sys.stdin.read().split("\n"):
    full = os.path.join(root, path)
    if not path or not os.path.isfile(full) or os.path.islink(full):
        continue
    data = open(full, "rb").read()
    if b"\0" in data[:4096]:
        continue
    lines = data.split(b"\n")
    kind = style(path, lines[0])
    if kind is None or TAG.encode() in b"\n".join(lines[:6]):
        continue
    missing.append(path)
    if check:
        continue
    at = 0
    if lines[0].startswith(b"#!") or lines[0].startswith(b"#compdef"):
        at = 1
    if path.endswith(".py") and len(lines) > at and re.match(rb"^#.*coding[:=]", lines[at]):
        at += 1
    line = kind + TAG + (" */" if kind == C else "")
    lines.insert(at, line.encode())
    mode = os.stat(full).st_mode
    with open(full, "wb") as f:
        f.write(b"\n".join(lines))
    os.chmod(full, mode)
for m in missing:
    print(m)
if check and missing:
    print("spdx: %d file(s) lack \"%s\" (scripts/spdx.sh adds it)" % (len(missing), TAG), file=sys.stderr)
    sys.exit(1)
if not check:
    print("spdx: added the line to %d file(s)" % len(missing), file=sys.stderr)
' "$check" "$dir"
