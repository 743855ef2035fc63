#!/usr/bin/env bash
# Every source and script file carries "SPDX-License-Identifier: Apache-2.0"
# (scripts/spdx.sh --check over the repository), and scripts/spdx.sh puts it
# in each file's comment syntax, after a shebang, #compdef or coding line,
# keeps the mode, leaves data alone and changes nothing the second time.
# Usage: test_spdx.sh SOURCE_DIR
set -euo pipefail
src=$1
spdx=$src/scripts/spdx.sh
tmp=$(mktemp -d) && trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# A small tree, no git: each kind of file.
mkdir -p "$tmp/t/src" "$tmp/t/scripts/completion" "$tmp/t/tests/fixtures" "$tmp/t/examples/kubernetes" "$tmp/t/data"
printf 'int x;\n' >"$tmp/t/src/a.c"
printf '#pragma once\n' >"$tmp/t/src/a.h"
printf '#!/bin/sh\necho hi\n' >"$tmp/t/scripts/run" && chmod 755 "$tmp/t/scripts/run"
printf '#compdef gpudoctor\n_gpudoctor() { :; }\n' >"$tmp/t/scripts/completion/_gpudoctor"
printf '#!/usr/bin/env python3\n# -*- coding: utf-8 -*-\nprint(1)\n' >"$tmp/t/scripts/p.py"
printf 'project(x)\n' >"$tmp/t/CMakeLists.txt"
printf '.TH X 8\n' >"$tmp/t/scripts/x.8"
printf '.version 7.0\n' >"$tmp/t/data/k.ptx"
printf 'kind: Pod\n' >"$tmp/t/examples/kubernetes/p.yaml"
printf '{"a": 1}\n' >"$tmp/t/data/d.json"
printf '#!/bin/sh\n' >"$tmp/t/tests/fixtures/f.sh"
printf '{}\n' >"$tmp/t/examples/s.json"
printf '# SPDX-License-Identifier: Apache-2.0\nall:\n' >"$tmp/t/Makefile"
cp -r "$tmp/t" "$tmp/orig"

bash "$spdx" --check "$tmp/t" >"$tmp/missing" 2>/dev/null && fail "--check passed a tree without the lines"
[ "$(wc -l <"$tmp/missing")" = 9 ] || fail "--check lists $(wc -l <"$tmp/missing") files, not 9: $(cat "$tmp/missing")"
bash "$spdx" "$tmp/t" >/dev/null 2>&1 || fail "spdx.sh failed"
line() { sed -n "${2}p" "$tmp/t/$1"; }
[ "$(line src/a.c 1)" = "/* SPDX-License-Identifier: Apache-2.0 */" ] || fail "C: $(line src/a.c 1)"
[ "$(line src/a.h 1)" = "/* SPDX-License-Identifier: Apache-2.0 */" ] || fail "header"
[ "$(line scripts/run 1)" = "#!/bin/sh" ] && [ "$(line scripts/run 2)" = "# SPDX-License-Identifier: Apache-2.0" ] ||
    fail "shebang script: $(head -2 "$tmp/t/scripts/run")"
[ -x "$tmp/t/scripts/run" ] || fail "the script lost its mode"
[ "$(line scripts/completion/_gpudoctor 1)" = "#compdef gpudoctor" ] || fail "zsh: #compdef is not first"
[ "$(line scripts/p.py 2)" = "# -*- coding: utf-8 -*-" ] && [ "$(line scripts/p.py 3)" = "# SPDX-License-Identifier: Apache-2.0" ] ||
    fail "python: $(head -3 "$tmp/t/scripts/p.py")"
[ "$(line CMakeLists.txt 1)" = "# SPDX-License-Identifier: Apache-2.0" ] || fail "CMake"
[ "$(line scripts/x.8 1)" = '.\" SPDX-License-Identifier: Apache-2.0' ] || fail "roff: $(line scripts/x.8 1)"
[ "$(line data/k.ptx 1)" = "// SPDX-License-Identifier: Apache-2.0" ] || fail "PTX"
[ "$(line examples/kubernetes/p.yaml 1)" = "# SPDX-License-Identifier: Apache-2.0" ] || fail "YAML"
for f in data/d.json tests/fixtures/f.sh examples/s.json Makefile; do
    cmp -s "$tmp/t/$f" "$tmp/orig/$f" || fail "$f was changed"
done
bash "$spdx" --check "$tmp/t" >/dev/null 2>&1 || fail "--check fails after spdx.sh"
cp -r "$tmp/t" "$tmp/once"
bash "$spdx" "$tmp/t" >/dev/null 2>&1
diff -r "$tmp/once" "$tmp/t" >/dev/null || fail "a second run changed files"

# The repository itself.
bash "$spdx" --check "$src" || fail "source files without the SPDX line (run scripts/spdx.sh)"
echo "ok: every source file carries the SPDX line; spdx.sh adds it in each syntax"
