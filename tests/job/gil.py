# SPDX-License-Identifier: Apache-2.0
"""Python threads that share the interpreter's lock: N threads run a pure
Python loop each for --seconds, so the process takes turns on one core
whatever the CPUs it may use (gpudoctor's input.gil_contention)."""
import argparse
import sys
import threading
import time


def spin(until):
    acc = 0
    while time.monotonic() < until:
        for k in range(10000):
            acc = (acc + k) % 65521
    return acc


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--threads", type=int, default=3)
    ap.add_argument("--seconds", type=float, default=4.0)
    a = ap.parse_args()
    sys.setswitchinterval(0.005)
    until = time.monotonic() + a.seconds
    threads = [threading.Thread(target=spin, args=(until,)) for _ in range(a.threads)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()


if __name__ == "__main__":
    main()
