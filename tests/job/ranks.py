#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""A stand-in for torchrun in gpudoctor's tests (Debian's torchrun of torch
1.13 fails to start ranks on Python 3.11): like torch.distributed.run's
agent it starts --nproc-per-node copies of a Python script as its children,
each with RANK, LOCAL_RANK and WORLD_SIZE set, and waits for them. The tests
call it through a link named torchrun, the name gpudoctor knows launchers by."""
import os
import subprocess
import sys


def main():
    args = sys.argv[1:]
    nproc = 1
    if args and args[0].startswith("--nproc-per-node="):
        nproc = int(args.pop(0).split("=", 1)[1])
    procs = []
    for rank in range(nproc):
        env = dict(os.environ, RANK=str(rank), LOCAL_RANK=str(rank), WORLD_SIZE=str(nproc))
        procs.append(subprocess.Popen([sys.executable, "-u"] + args, env=env))
    sys.exit(max(p.wait() for p in procs))


if __name__ == "__main__":
    main()
