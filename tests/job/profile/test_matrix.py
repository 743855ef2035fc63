# SPDX-License-Identifier: Apache-2.0
"""The no-harm matrix of `run --profile`'s start-up hook (docs/run.md, "No
harm to the job"): real jobs run twice, without the hook and with it (its
folder first on PYTHONPATH and its variables set, as `run --profile` starts
them; through gpudoctor itself where gpudoctor decides), and their exit
code, stdout, stderr and the files they write must be the same. The jobs:
Debian's torch 1.13 (CPU) and the stand-in for torch 2.x's optimizer hook
(test_hook.py) profiling themselves inside and across the hook's steps, a
job with its own sitecustomize that it and its children import from, -S
(seen by gpudoctor, and hidden in a script), -I, os._exit, signals, spawn and
forkserver workers, python2 children. Each case also checks that the hook
did run where it should (or stepped aside, and said why).

usage: test_matrix.py HOOK_DIR GPUDOCTOR
GD_TEST_PYTHON2 names a python2 to use where `python2` on PATH does not run
(a python2 that pyenv holds is found too).
Exit 0 when every case holds; a case that cannot run here says why (SKIP).
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

import test_hook
from test_hook import check, stand_in

STEPS = "2:3"  # the hook profiles steps 2 and 3 (and 4): tiny jobs reach them

# torch 1.13 for real: a tiny model, deterministic, profiling itself from step ON to step OFF
# with the profiler KIND ("kineto": torch.profiler.profile; "autograd": torch.autograd.profiler.profile).
TORCH_JOB = r"""
import sys, torch
on, off, kind = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
torch.manual_seed(0)
model = torch.nn.Linear(4, 2)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x, y = torch.randn(8, 4), torch.randn(8, 2)
prof = None
for step in range(1, 9):
    if step == on:
        prof = torch.profiler.profile() if kind == "kineto" else torch.autograd.profiler.profile()
        prof.__enter__()
    if step == off:
        prof.__exit__(None, None, None)
        events = prof.events() if kind == "kineto" else prof.function_events
        print("own profile:", sum(1 for e in events if e.name == "aten::linear") > 0)
    opt.zero_grad()
    loss = torch.nn.functional.mse_loss(model(x), y)
    loss.backward()
    opt.step()
    print("step", step, "loss %.6f" % loss.item())
torch.save(model.state_dict(), "model.pt")
print("done", file=sys.stderr)
"""

# The stand-in torch 2.x: its optimizer hook, profiling itself.
STANDIN_JOB = r"""
import sys, torch
on, off = int(sys.argv[1]), int(sys.argv[2])
opt = torch.optim.Optimizer()
for step in range(1, 9):
    if step == on:
        prof = torch.profiler.profile()
        prof.start()
    if step == off:
        prof.stop()
    opt.step()
print("stepped", step)
"""

# Its own sitecustomize, imported from by the job and by a child.
SITE = "SHARED = 41\n"
SITE_JOB = r"""
import subprocess, sys
from sitecustomize import SHARED
print(SHARED + 1, sys.modules["sitecustomize"].__name__)
sys.stdout.flush()
subprocess.run([sys.executable, "-c", "from sitecustomize import SHARED; print(SHARED)"], check=True)
"""

# Under -S: what the job sees of its path and of `import sitecustomize`.
NO_SITE_JOB = r"""
import json, os, sys
try:
    import sitecustomize
    site = os.path.basename(os.path.dirname(sitecustomize.__file__))
except ImportError as e:
    site = "ImportError: %s" % e
json.dump({"path": sys.path, "sitecustomize": site, "flags": [sys.flags.no_site, sys.flags.isolated]},
          open("seen.json", "w"))
print(site)
"""

# Ends with os._exit inside the hook's profiled steps (buffered output lost, as without the hook).
EXIT_JOB = r"""
import os, sys, torch
opt = torch.optim.Optimizer()
for step in range(1, 9):
    opt.step()
    print("step", step)
    if step == 3:
        sys.stderr.write("leaving\n")
        os._exit(7)
"""

# A signal inside the profiled steps: SIGTERM's default, SIGINT's KeyboardInterrupt, a handler of its own.
SIGNAL_JOB = r"""
import os, signal, sys, torch
sig = sys.argv[1]
if sig == "USR1":
    signal.signal(signal.SIGUSR1, lambda n, f: print("handled", n))
opt = torch.optim.Optimizer()
for step in range(1, 9):
    opt.step()
    if step == 3:
        print("signalling", sig)
        sys.stdout.flush()
        os.kill(os.getpid(), getattr(signal, "SIG" + sig))
print("survived")
"""

# spawn and forkserver workers: each a fresh Python that runs the hook and steps.
WORKERS_JOB = r"""
import multiprocessing as mp, sys

def work(n):
    import torch
    opt = torch.optim.Optimizer()
    for _ in range(6):
        opt.step()
    return n * n

if __name__ == "__main__":
    with mp.get_context(sys.argv[1]).Pool(2) as pool:
        print(sys.argv[1], pool.map(work, range(4)))
"""

# A Python 3 job that starts a python2 helper (which inherits PYTHONPATH).
PY2_PARENT = r"""
import subprocess, sys, torch
opt = torch.optim.Optimizer()
for step in range(1, 6):
    opt.step()
p = subprocess.run([sys.argv[1], "-c", "import sys, json; from sitecustomize import SHARED; "
                    "print(sys.version_info[0], SHARED, json.dumps([1]))"], capture_output=True, text=True)
print(p.returncode, p.stdout.strip(), p.stderr.strip())
"""

skipped = 0


def skip(name, why):
    global skipped
    skipped += 1
    print("SKIP %s: %s" % (name, why))


def runs(argv):
    try:
        return subprocess.run(argv + ["-c", "pass"], capture_output=True, timeout=30).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


def torch_python():
    for c in (sys.executable, "/usr/bin/python3", "python3"):
        try:
            if subprocess.run([c, "-c", "import torch"], capture_output=True, timeout=60).returncode == 0:
                return c
        except (OSError, subprocess.TimeoutExpired):
            pass
    return None


def pyenv_python2():
    """A python2 that pyenv holds but does not put on PATH, or None."""
    try:
        bare = subprocess.run(["pyenv", "versions", "--bare"], capture_output=True, text=True, timeout=30).stdout
        v = next((x for x in bare.split() if x.startswith("2.")), None)
        if v is None:
            return None
        return subprocess.run(["pyenv", "which", "python2"], env=dict(os.environ, PYENV_VERSION=v),
                              capture_output=True, text=True, timeout=30).stdout.strip() or None
    except (OSError, subprocess.TimeoutExpired):
        return None


def python2():
    for c in (os.environ.get("GD_TEST_PYTHON2"), "python2", "python2.7", pyenv_python2()):
        if c and runs([c]):
            return c
    return None


class Matrix:
    def __init__(self, tmp, hook_dir, gpudoctor):
        self.tmp, self.hook_dir, self.gpudoctor = tmp, os.path.abspath(hook_dir), os.path.abspath(gpudoctor)
        self.n = 0

    def fresh(self, name):
        self.n += 1
        d = os.path.join(self.tmp, "%02d-%s" % (self.n, name))
        os.makedirs(d)
        return d

    def one(self, argv, pythonpath, hooked, via_gpudoctor=False):
        """(exit code, stdout, stderr, the files the job wrote), and the hook's notes."""
        cwd, out = self.fresh("cwd"), self.fresh("profile")
        env = {k: v for k, v in os.environ.items() if not k.startswith("GPUDOCTOR_") and k != "PYTHONPATH"}
        env["PYTHONDONTWRITEBYTECODE"] = "1"
        if pythonpath:
            env["PYTHONPATH"] = pythonpath
        if hooked and via_gpudoctor:
            argv = [self.gpudoctor, "run", "--json", "--profile-dir", out, "--profile-steps", STEPS, "--"] + argv
        elif hooked:
            env.update(PYTHONPATH=self.hook_dir + (":" + pythonpath if pythonpath else ""), GPUDOCTOR_PROFILE_DIR=out,
                       GPUDOCTOR_PROFILE_STEPS=STEPS)
        p = subprocess.run(argv, env=env, cwd=cwd, capture_output=True, timeout=120)
        files = {}
        for f in sorted(os.listdir(cwd)):
            with open(os.path.join(cwd, f), "rb") as fh:
                files[f] = fh.read()
        notes = []
        for f in sorted(os.listdir(out)):
            if f.startswith("hook-") and f.endswith(".status"):
                with open(os.path.join(out, f)) as fh:
                    notes.append(json.load(fh))
        return (p.returncode, p.stdout, p.stderr, files), notes, p

    def same(self, name, argv, pythonpath, notes_want=None, via_gpudoctor=False):
        """The job with and without the hook; notes_want(notes) says whether the hook did its part."""
        plain, _, _ = self.one(argv, pythonpath, False)
        hooked, notes, p = self.one(argv, pythonpath, True, via_gpudoctor)
        if via_gpudoctor:  # its stdout holds gpudoctor's report: the exit code (the job's) and files compared
            hooked, plain = (hooked[0], hooked[3]), (plain[0], plain[3])
        check("%s: identical with and without the hook" % name, plain == hooked,
              "\n  without: %r\n  with:    %r" % (plain, hooked))
        if notes_want is not None:
            check("%s: the hook's part" % name, notes_want(notes), notes)
        return notes


def stepped_aside(notes):
    return any("profiler" in (n.get("stepped_aside") or "") and not n.get("trace") for n in notes)


def profiled(notes):
    return any(n.get("trace") for n in notes) and not any(n.get("stepped_aside") for n in notes)


def ran(count):
    return lambda notes: len(notes) == count and not any(n.get("stepped_aside") for n in notes)


def main():
    hook_dir, gpudoctor = sys.argv[1], sys.argv[2]
    py = sys.executable
    with tempfile.TemporaryDirectory() as tmp:
        m = Matrix(tmp, hook_dir, gpudoctor)
        fake = os.path.join(tmp, "standin")
        stand_in(fake)
        site = os.path.join(tmp, "site")
        os.makedirs(site)
        with open(os.path.join(site, "sitecustomize.py"), "w") as f:
            f.write(SITE)
        both = fake + ":" + site

        # Debian's torch 1.13 profiling itself inside (3-5) and across (1-6) the hook's steps (2-4).
        tp = torch_python()
        if tp is None:
            skip("torch 1.13", "no python3 here imports torch (Debian's python3-torch)")
        else:
            for kind in ("kineto", "autograd"):
                m.same("torch %s profiler inside the steps" % kind, [tp, "-c", TORCH_JOB, "3", "5", kind], "",
                       stepped_aside)
            m.same("torch profiler across the steps", [tp, "-c", TORCH_JOB, "1", "6", "kineto"], "", stepped_aside)
            m.same("torch profiler after the steps", [tp, "-c", TORCH_JOB, "6", "8", "kineto"], "", profiled)

        # The stand-in for torch 2.x's optimizer hook, the same.
        m.same("torch 2.x stand-in: profiler inside", [py, "-c", STANDIN_JOB, "3", "5"], fake, stepped_aside)
        m.same("torch 2.x stand-in: profiler across", [py, "-c", STANDIN_JOB, "1", "6"], fake, stepped_aside)

        # A sitecustomize of its own, imported from by the job and its child.
        m.same("own sitecustomize", [py, "-c", SITE_JOB], site, ran(2))

        # -S seen by gpudoctor (PYTHONPATH left alone), -S hidden in a script (the hook then only
        # stands in for the job's sitecustomize), -I (PYTHONPATH ignored).
        m.same("-S", [py, "-S", "-c", NO_SITE_JOB], site, ran(0), via_gpudoctor=True)
        script = os.path.join(tmp, "nosite.sh")
        with open(script, "w") as f:
            f.write('#!/bin/sh\nexec "$@"\n')
        m.same("-S inside a script", ["sh", script, py, "-S", "-c", NO_SITE_JOB], site, ran(0))
        m.same("-I", [py, "-I", "-c", NO_SITE_JOB], site, ran(0))

        # os._exit and signals inside the profiled steps.
        m.same("os._exit", [py, "-c", EXIT_JOB], both)
        for sig in ("TERM", "INT", "USR1"):
            m.same("SIG%s" % sig, [py, "-c", SIGNAL_JOB, sig], both)

        # spawn and forkserver workers: the hook ran in the new processes (a spawned worker counts
        # its steps; forkserver's workers are forks of a server that ran it).
        jobfile = os.path.join(tmp, "workers.py")
        with open(jobfile, "w") as f:
            f.write(WORKERS_JOB)
        for method in ("spawn", "forkserver"):
            m.same("%s workers" % method, [py, jobfile, method], both,
                   lambda notes, method=method: len(notes) >= 2 and (method != "spawn" or any(
                       n.get("steps") and n["pid"] != notes[0]["pid"] for n in notes)))

        # python2: as the job, and as a Python 3 job's helper.
        p2 = python2()
        if p2 is None:
            skip("python2", "no python2 runs here (set GD_TEST_PYTHON2 to one): the simulated check of "
                 "test_hook.py stands in")
        else:
            m.same("python2 job", [p2, "-c", "from sitecustomize import SHARED; import json; print(SHARED)"], site,
                   ran(0))
            m.same("python2 helper", [py, "-c", PY2_PARENT, shutil.which(p2) or p2], both, ran(1))
    print("%d passed, %d failed, %d skipped" % (test_hook.passed, test_hook.failed, skipped))
    return 1 if test_hook.failed else 0


if __name__ == "__main__":
    sys.exit(main())
