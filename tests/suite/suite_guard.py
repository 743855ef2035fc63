# SPDX-License-Identifier: Apache-2.0
"""Runs a test suite (make test's ctest) and checks that it cleaned up after
itself: no process it started outlives it, and no __pycache__ was written
into the source tree.

usage: suite_guard.py SOURCE_DIR -- COMMAND [ARG...]

The guard makes itself the child subreaper of everything the command starts
(prctl PR_SET_CHILD_SUBREAPER): a daemon that a test started and left
running, however it detached (double fork, setsid, runc, another user), is
re-parented to the guard when its parent ends, so the guard sees it when
the command has ended. Each one is named, ended (SIGTERM, then SIGKILL) and
fails the run. Python writes no bytecode under the guard
(PYTHONDONTWRITEBYTECODE); a __pycache__ written into the source tree all
the same is named and fails the run.

Exit: the command's status, or 1 when it passed but left a process or a
__pycache__ behind."""
import ctypes
import os
import signal
import subprocess
import sys
import time

PR_SET_CHILD_SUBREAPER = 36  # linux/prctl.h
GRACE_SECONDS = 2.0  # for a process that is ending as the suite ends
TERM_SECONDS = 5.0


def children_of(pid):
    """The pids whose parent is pid (from /proc/*/stat)."""
    kids = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % name, "rb") as f:
                stat = f.read()
        except OSError:
            continue
        # pid (comm) state ppid ...: comm may hold spaces and parentheses.
        fields = stat[stat.rindex(b")") + 2:].split()
        if int(fields[1]) == pid and fields[0] != b"Z":
            kids.append(int(name))
    return kids


def describe(pid):
    try:
        with open("/proc/%d/cmdline" % pid, "rb") as f:
            cmd = f.read().replace(b"\0", b" ").decode(errors="replace").strip()
        uid = os.stat("/proc/%d" % pid).st_uid
    except OSError:
        return "%d (gone)" % pid
    return "%d (uid %d): %s" % (pid, uid, cmd[:300])


def reap():
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def leftovers(me):
    """Our children after a grace period for the ones that are ending."""
    deadline = time.monotonic() + GRACE_SECONDS
    while True:
        reap()
        kids = children_of(me)
        if not kids or time.monotonic() >= deadline:
            return kids
        time.sleep(0.1)


def end_all(me):
    """SIGTERM, then SIGKILL, until no child of ours is left (an ended
    process's own children come to us in turn)."""
    for sig, wait in ((signal.SIGTERM, TERM_SECONDS), (signal.SIGKILL, TERM_SECONDS)):
        deadline = time.monotonic() + wait
        while time.monotonic() < deadline:
            reap()
            kids = children_of(me)
            if not kids:
                return True
            for pid in kids:
                try:
                    os.kill(pid, sig)
                except ProcessLookupError:
                    pass
            time.sleep(0.2)
    reap()
    return not children_of(me)


def new_pycache(source_dir, since):
    """__pycache__ folders of the source tree (not its build folders) that
    got a file at or after `since`."""
    found = []
    for root, dirs, files in os.walk(source_dir):
        dirs[:] = [d for d in dirs if d != ".git" and not d.startswith("build")]
        if os.path.basename(root) != "__pycache__":
            continue
        if any(os.stat(os.path.join(root, f)).st_mtime >= since for f in files):
            found.append(root)
    return found


def main(argv):
    if len(argv) < 4 or argv[2] != "--":
        sys.stderr.write(__doc__)
        return 2
    source_dir, command = argv[1], argv[3:]
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
        print("suite_guard: prctl(PR_SET_CHILD_SUBREAPER): %s" % os.strerror(ctypes.get_errno()), file=sys.stderr)
        return 1
    since = time.time() - 1  # file times have coarser steps than this clock
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    rc = subprocess.call(command, env=env)
    bad = False
    me = os.getpid()
    left = leftovers(me)
    if left:
        bad = True
        print("suite_guard: %d process(es) started by the tests outlived them (ended now):" % len(left))
        for pid in left:
            print("  " + describe(pid))
        if not end_all(me):
            print("suite_guard: some could not be ended: " + ", ".join(describe(p) for p in children_of(me)))
    caches = new_pycache(source_dir, since)
    if caches:
        bad = True
        print("suite_guard: the tests wrote Python bytecode into the source tree:")
        for c in caches:
            print("  " + c)
    if rc == 0 and bad:
        return 1
    return rc


if __name__ == "__main__":
    sys.exit(main(sys.argv))
