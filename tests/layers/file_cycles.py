#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""No two source files call each other, directly or round a longer circle:
dependencies between the files of the layer libraries run one way, so a
file can be read (and moved) knowing only what it calls.
Usage: file_cycles.py BUILD_SRC_DIR  (its libgd_*.a and the command line's
objects; prints each circle, exit 1)"""
import glob
import os
import subprocess
import sys


def main():
    defs, uses = {}, {}
    inputs = [(os.path.basename(lib)[len("libgd_"):-len(".a")], lib)
              for lib in sorted(glob.glob(os.path.join(sys.argv[1], "libgd_*.a")))]
    inputs += [("cli", o) for o in sorted(glob.glob(os.path.join(sys.argv[1], "CMakeFiles/gpudoctor.dir/cli/*.o")))]
    for layer, path in inputs:
        out = subprocess.run(["nm", "-A", path], capture_output=True, text=True, check=True).stdout
        for line in out.splitlines():
            if path.endswith(".a"):
                _, member, rest = line.split(":", 2)  # LIB:MEMBER:VALUE TYPE NAME
            else:
                member, rest = os.path.basename(path), line.split(":", 1)[1]  # OBJ:VALUE TYPE NAME
            node = "%s/%s" % (layer, member[:-len(".o")] if member.endswith(".o") else member)
            parts = rest.split()
            defs.setdefault(node, set())
            uses.setdefault(node, set())
            if len(parts) == 3 and parts[1] in "TDBR":
                defs[node].add(parts[2])
            elif len(parts) == 2 and parts[0] == "U":
                uses[node].add(parts[1])
    owner = {s: n for n, ds in defs.items() for s in ds}
    graph = {n: {owner[s] for s in u if s in owner and owner[s] != n} for n, u in uses.items()}
    # Tarjan's strongly connected components: a component of two or more files is a circle.
    index, low, stack, on, circles = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                circles.append(sorted(comp))

    sys.setrecursionlimit(100000)
    for v in sorted(graph):
        if v not in index:
            visit(v)
    for c in circles:
        edges = ["%s -> %s" % (a, b) for a in c for b in sorted(graph[a]) if b in c]
        print("file circle: %s" % "; ".join(edges), file=sys.stderr)
    return 1 if circles else 0


sys.exit(main())
