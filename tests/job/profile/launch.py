# SPDX-License-Identifier: Apache-2.0
"""Starts N ranks of a script as torchrun does: one process each, with RANK,
LOCAL_RANK, WORLD_SIZE, MASTER_ADDR and MASTER_PORT set (Debian's torch 1.13
torchrun fails on Python 3.11 before it starts a worker). Exits with the
first non-zero exit code of a rank.
usage: launch.py N PORT SCRIPT [ARGS...]"""
import os
import subprocess
import sys


def main():
    n, port, script = int(sys.argv[1]), sys.argv[2], sys.argv[3:]
    procs = []
    for rank in range(n):
        env = dict(os.environ, RANK=str(rank), LOCAL_RANK=str(rank), WORLD_SIZE=str(n),
                   MASTER_ADDR="127.0.0.1", MASTER_PORT=port)
        procs.append(subprocess.Popen([sys.executable] + script, env=env))
    codes = [p.wait() for p in procs]
    sys.exit(next((c for c in codes if c), 0))


main()
