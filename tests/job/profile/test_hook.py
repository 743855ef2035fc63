# SPDX-License-Identifier: Apache-2.0
"""The start-up hook of `run --profile` (scripts/profile-hook/sitecustomize.py)
against a stand-in torch written here: the paths that Debian's torch 1.13
cannot take (the global optimizer step hook of PyTorch 2.x) and the hook's
own rules, without torch installed. Then gpudoctor itself on the stand-in:
an optimizer-step profile joined into its report.

usage: test_hook.py HOOK_DIR GPUDOCTOR
Exit 0 when every case holds (prints "N passed, 0 failed").
"""
import json
import os
import subprocess
import sys
import tempfile

FAKE = {
    "torch/__init__.py": """
__version__ = "2.9.0+standin"
from . import autograd, cuda, optim, profiler, utils
""",
    "torch/cuda/__init__.py": "def is_available():\n    return False\n",
    "torch/optim/__init__.py": "from . import optimizer\nfrom .optimizer import Optimizer\n",
    "torch/optim/optimizer.py": """
_post = []
def register_optimizer_step_post_hook(hook):
    _post.append(hook)
class Optimizer:
    def step(self):
        for h in _post:
            h(self, (), {})
""",
    "torch/autograd/__init__.py": """
from . import profiler
def _profiler_enabled():
    return profiler.ACTIVE[0]
""",
    "torch/autograd/profiler.py": """
import time
EVENTS = []
ACTIVE = [False]
class profile:
    # torch's own rule: one profiler per thread; both torch.profiler.profile
    # and this one prepare their trace here (torch 1.13 and 2.x).
    def _prepare_trace(self):
        if ACTIVE[0]:
            raise RuntimeError("Profiler is already enabled on this thread")
    def _start_trace(self):
        ACTIVE[0] = True
        EVENTS.clear()
    def __enter__(self):
        self._prepare_trace()
        self._start_trace()
        return self
    def __exit__(self, *a):
        ACTIVE[0] = False
class record_function:
    def __init__(self, name):
        self.name = name
    def __enter__(self):
        self.t0 = time.perf_counter()
        return self
    def __exit__(self, *a):
        if ACTIVE[0]:
            EVENTS.append((self.name, self.t0, time.perf_counter()))
""",
    "torch/profiler/__init__.py": """
import json
from torch.autograd import profiler as _p
class ProfilerActivity:
    CPU = "cpu"
    CUDA = "cuda"
class profile:
    def __init__(self, activities=None):
        self.activities = activities
    def start(self):
        self.profiler = _p.profile()
        self.profiler._prepare_trace()
        self.profiler._start_trace()
    def stop(self):
        self.profiler.__exit__(None, None, None)
    def __enter__(self):
        self.start()
        return self
    def __exit__(self, *a):
        self.stop()
    def export_chrome_trace(self, path):
        t0 = min([e[1] for e in _p.EVENTS] or [0])
        ev = [{"name": n, "ph": "X", "ts": int((a - t0) * 1e6), "dur": int((b - a) * 1e6), "tid": 1,
               "pid": "CPU functions", "args": {}} for n, a, b in _p.EVENTS]
        with open(path, "w") as f:
            json.dump(ev, f)
""",
    "torch/utils/__init__.py": "from . import data\n",
    "torch/utils/data/__init__.py": "from . import dataloader\nfrom .dataloader import DataLoader\n",
    "torch/utils/data/dataloader.py": """
class _BaseDataLoaderIter:
    def __init__(self, n):
        self.i, self.n = 0, n
    def __iter__(self):
        return self
    def __next__(self):
        if self.i == self.n:
            raise StopIteration
        self.i += 1
        return self.i
class DataLoader:
    def __init__(self, n):
        self.n = n
    def __iter__(self):
        return _BaseDataLoaderIter(self.n)
""",
}

# torch 1.13's optimizer: no global step hook, but its profiler's entry
# point, called after every step (issue 39: a 1.13 job of 5 optimizer steps
# and no DataLoader "never stepped"); and one of torch 1.12, with neither.
OPTIMIZER_1_13 = """
class Optimizer:
    def _optimizer_step_code(self):
        pass
    def step(self):
        self._optimizer_step_code()
"""
OPTIMIZER_1_12 = """
class Optimizer:
    def step(self):
        pass
"""


def stand_in(root, optimizer_py=None):
    """The stand-in torch under root, with another optimizer.py if given."""
    for rel, text in FAKE.items():
        if rel == "torch/optim/optimizer.py" and optimizer_py is not None:
            text = optimizer_py
        os.makedirs(os.path.dirname(os.path.join(root, rel)), exist_ok=True)
        with open(os.path.join(root, rel), "w") as f:
            f.write(text)


# A training loop over the stand-in: `steps` optimizer steps of `batches` batches.
JOB = """
import time, torch, sys
steps = int(sys.argv[1])
opt = torch.optim.Optimizer()
for i, b in enumerate(torch.utils.data.DataLoader(steps)):
    with torch.autograd.profiler.record_function("enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__"):
        time.sleep(0.002)
    time.sleep(0.001)
    opt.step()
print("trained", steps, file=sys.stderr)
"""

# A job that runs torch.profiler itself from step `on` to step `off`.
OWN_PROFILER = """
import torch
opt = torch.optim.Optimizer()
prof = None
for step in range(1, 13):
    if step == %d:
        prof = torch.profiler.profile()
        prof.start()
    if step == %d:
        prof.stop()
    opt.step()
print("profiled")
"""

passed = failed = 0


def check(name, ok, detail=""):
    global passed, failed
    if ok:
        passed += 1
        print("ok   %s" % name)
    else:
        failed += 1
        print("FAIL %s %s" % (name, detail))


def run_job(hook_dir, fake, out, steps, env_extra=None, code=JOB):
    env = {k: v for k, v in os.environ.items() if not k.startswith("GPUDOCTOR_")}
    env.update(PYTHONPATH=hook_dir + ":" + fake, GPUDOCTOR_PROFILE_DIR=out, GPUDOCTOR_PROFILE_STEPS="3:5")
    env.update(env_extra or {})
    p = subprocess.run([sys.executable, "-c", code, str(steps)], env=env, capture_output=True, text=True, timeout=120)
    statuses = [json.load(open(os.path.join(out, f))) for f in sorted(os.listdir(out)) if f.endswith(".status")]
    return p, statuses


def trace_steps(out, st):
    ev = json.load(open(os.path.join(out, st["trace"])))
    return sorted(int(e["name"].split("#")[1]) for e in ev if e["name"].startswith("ProfilerStep#"))


def main():
    hook_dir, gpudoctor = sys.argv[1], sys.argv[2]
    with tempfile.TemporaryDirectory() as tmp:
        fake = os.path.join(tmp, "fake")
        stand_in(fake)
        marker = os.path.join(tmp, "chained")
        with open(os.path.join(fake, "sitecustomize.py"), "w") as f:
            f.write("open(%r, 'w').write('ran')\n" % marker)

        def fresh(name):
            d = os.path.join(tmp, name)
            os.makedirs(d)
            return d

        # 1. torch 2.x: a step is an optimizer step; steps 3..5 and one more are marked.
        out = fresh("optimizer")
        p, st = run_job(hook_dir, fake, out, 15)
        check("optimizer: the job ran", p.returncode == 0 and "trained 15" in p.stderr, p.stderr)
        check("optimizer: one status", len(st) == 1, st)
        s = st[0] if st else {}
        check("optimizer: mode", s.get("mode") == "optimizer", s)
        check("optimizer: steps counted", s.get("steps") == 15, s)
        check("optimizer: torch version", s.get("torch") == "2.9.0+standin", s)
        check("optimizer: trace written", bool(s.get("trace")) and os.path.exists(os.path.join(out, s["trace"])), s)
        if s.get("trace"):
            check("optimizer: steps 3..6 in the trace", trace_steps(out, s) == [3, 4, 5, 6], trace_steps(out, s))
        check("optimizer: profiled steps timed", [w[0] for w in s.get("profiled_steps", [])] == [3, 4, 5, 6], s)
        check("optimizer: overhead measured", s.get("step_s_unprofiled") and s.get("step_s_profiled"), s)
        check("chained: the hidden sitecustomize ran", os.path.exists(marker))

        # 1b. torch 1.13: optimizer steps through its profiler's entry; torch 1.12: DataLoader batches.
        fake_113 = os.path.join(tmp, "fake113")
        stand_in(fake_113, OPTIMIZER_1_13)
        out = fresh("optimizer113")
        p, st = run_job(hook_dir, fake_113, out, 15)
        s = st[0] if st else {}
        check("1.13: mode", s.get("mode") == "optimizer" and s.get("optimizer_hook") == "_optimizer_step_code", s)
        check("1.13: steps counted", s.get("steps") == 15, s)
        check("1.13: job unchanged", p.returncode == 0 and "trained 15" in p.stderr, p.stderr)
        fake_112 = os.path.join(tmp, "fake112")
        stand_in(fake_112, OPTIMIZER_1_12)
        out = fresh("batch112")
        p, st = run_job(hook_dir, fake_112, out, 12)
        s = st[0] if st else {}
        check("1.12: mode", s.get("mode") == "batch" and s.get("optimizer_hook") is None, s)
        check("1.12: step asked", s.get("step_asked") == "auto", s)

        # 2. The switch: DataLoader batches even where the optimizer hook exists.
        out = fresh("batch")
        p, st = run_job(hook_dir, fake, out, 12, {"GPUDOCTOR_PROFILE_STEP": "batch"})
        s = st[0] if st else {}
        check("batch: mode", s.get("mode") == "batch", s)
        # A step runs from one batch fetch to the next: the fetch that ends the epoch closes the 12th.
        check("batch: steps counted", s.get("steps") == 13, s)
        if s.get("trace"):
            check("batch: steps 3..6 in the trace", trace_steps(out, s) == [3, 4, 5, 6], trace_steps(out, s))

        # 3. Ranks: RANK names the trace and the status.
        out = fresh("rank")
        p, st = run_job(hook_dir, fake, out, 10, {"RANK": "1", "WORLD_SIZE": "2"})
        s = st[0] if st else {}
        check("rank: in the status", s.get("rank") == 1 and s.get("world_size") == 2, s)
        check("rank: in the trace's name", (s.get("trace") or "").startswith("rank1-"), s)

        # 4. A job that ends inside the profiled steps: the trace is kept, the status says so.
        out = fresh("short")
        p, st = run_job(hook_dir, fake, out, 4)
        s = st[0] if st else {}
        check("short: job unchanged", p.returncode == 0 and "trained 4" in p.stderr, p.stderr)
        check("short: trace kept", bool(s.get("trace")), s)
        check("short: said", "inside the profiled steps" in (s.get("error") or ""), s)

        # 5. Never steps; no torch; the hook turned off.
        out = fresh("nostep")
        p, st = run_job(hook_dir, fake, out, 0, code="import torch")
        s = st[0] if st else {}
        check("never steps: torch seen, no step", s.get("torch") and s.get("steps") == 0 and not s.get("trace"), s)
        out = fresh("notorch")
        p, st = run_job(hook_dir, fake, out, 0, code="print('hello')")
        check("no torch: status without torch", len(st) == 1 and st[0].get("torch") is None, st)
        check("no torch: output unchanged", p.stdout == "hello\n", p.stdout)
        out = fresh("off")
        p, st = run_job(hook_dir, fake, out, 8, {"GPUDOCTOR_PROFILE_HOOK": "off"})
        check("off: nothing written", st == [] and os.listdir(out) == [], os.listdir(out))
        check("off: the job ran", "trained 8" in p.stderr, p.stderr)

        # 6. The hook's folder is not left on the job's sys.path; the job's sitecustomize keeps its name.
        out = fresh("syspath")
        p, st = run_job(hook_dir, fake, out, 0, code="import sys; print(sys.modules['sitecustomize'].__file__)")
        check("sitecustomize: the job's", p.stdout.strip() == os.path.join(fake, "sitecustomize.py"), p.stdout)
        p, st = run_job(hook_dir, fake, out, 0, code="import os, sys; print(%r in [os.path.abspath(x) for x in sys.path])"
                        % os.path.abspath(hook_dir))
        check("sys.path: the hook's folder left out", p.stdout.strip() == "False", p.stdout)

        # 8. The job profiles itself inside the hook's steps (3..5), or across them: the job runs as
        # without the hook, and the hook says it stepped aside and why.
        for name, on, off in (("inside", 4, 6), ("across", 1, 8)):
            out = fresh("own-" + name)
            p, st = run_job(hook_dir, fake, out, 12, code=OWN_PROFILER % (on, off))
            s = st[0] if st else {}
            check("own profiler %s: the job ran" % name, p.returncode == 0 and p.stdout == "profiled\n" and
                  p.stderr == "", p.stdout + p.stderr)
            check("own profiler %s: stepped aside" % name, "profiler" in (s.get("stepped_aside") or ""), s)
            check("own profiler %s: no trace" % name, not s.get("trace"), s)
        out = fresh("own-after")
        p, st = run_job(hook_dir, fake, out, 12, code=OWN_PROFILER % (8, 9))
        s = st[0] if st else {}
        check("own profiler after the steps: both ran", p.returncode == 0 and s.get("trace") and
              not s.get("stepped_aside"), (p.stderr, s))

        # 9. An interpreter the hook was not written for (a python2 helper inherits PYTHONPATH):
        # simulated here (python3 claiming 2.7), nothing installed, the hidden sitecustomize run.
        out = fresh("py2sim")
        env = {k: v for k, v in os.environ.items() if not k.startswith("GPUDOCTOR_")}
        env.update(GPUDOCTOR_PROFILE_DIR=out)
        sim = ("import sys; sys.version_info = (2, 7, 18, 'final', 0); n = len(sys.meta_path); "
               "sys.path[:0] = [%r, %r]; import sitecustomize; "
               "print(sitecustomize.__file__, len(sys.meta_path) == n, %r in sys.path)"
               % (hook_dir, fake, hook_dir))
        os.remove(marker)
        p = subprocess.run([sys.executable, "-S", "-c", sim], env=env, capture_output=True, text=True, timeout=60)
        check("python2 (simulated): only the hidden sitecustomize ran",
              p.stdout == "%s True False\n" % os.path.join(fake, "sitecustomize.py") and os.path.exists(marker)
              and os.listdir(out) == [], p.stdout + p.stderr + str(os.listdir(out)))

        # 9b. A fork that imports torch and steps (a forkserver's worker) writes nothing over its
        # parent's note; the parent's note stays its own.
        out = fresh("fork")
        fork = ("import os, sys\npid = os.fork()\nif pid == 0:\n    import torch\n    opt = torch.optim.Optimizer()\n"
                "    for _ in range(8): opt.step()\n    os._exit(0)\nos.waitpid(pid, 0)\nprint(os.listdir(%r))\n" % out)
        p, st = run_job(hook_dir, fake, out, 0, code=fork)
        check("fork: nothing written by the fork", p.stdout == "[]\n", (p.stdout, p.stderr))
        check("fork: the parent's note only", len(st) == 1 and st[0].get("torch") is None and st[0].get("steps") == 0,
              st)

        # 10. A job's sitecustomize that raises: reported as Python reports it.
        bad = os.path.join(tmp, "bad")
        os.makedirs(bad)
        with open(os.path.join(bad, "sitecustomize.py"), "w") as f:
            f.write("X = 1\nraise ValueError('the job\\'s own')\n")
        env = {k: v for k, v in os.environ.items() if not k.startswith("GPUDOCTOR_")}
        code = "import sys; print('sitecustomize' in sys.modules)"
        plain = subprocess.run([sys.executable, "-c", code], env=dict(env, PYTHONPATH=bad), capture_output=True,
                               text=True, timeout=60)
        out = fresh("badsite")
        hooked = subprocess.run([sys.executable, "-c", code], env=dict(env, PYTHONPATH=hook_dir + ":" + bad,
                                GPUDOCTOR_PROFILE_DIR=out), capture_output=True, text=True, timeout=60)
        check("raising sitecustomize: as Python says it", (plain.returncode, plain.stdout, plain.stderr) ==
              (hooked.returncode, hooked.stdout, hooked.stderr), (plain.stderr, hooked.stderr))

        # 7. gpudoctor on the stand-in: an optimizer-step profile in the joined report.
        if os.access(gpudoctor, os.X_OK):
            env = {k: v for k, v in os.environ.items() if not k.startswith("GPUDOCTOR_")}
            env["PYTHONPATH"] = fake
            p = subprocess.run([gpudoctor, "run", "--json", "--profile-steps", "3:5", "--", sys.executable, "-c", JOB,
                                "15"], env=env, capture_output=True, text=True, timeout=300)
            try:
                rep = json.loads(p.stdout)["profile"]
            except (ValueError, KeyError):
                rep = {}
            procs = rep.get("processes") or [{}]
            check("gpudoctor: profiled by optimizer steps", rep.get("profiled") and procs[0].get("step") == "optimizer",
                  p.stdout[-2000:] + p.stderr[-2000:])
            ranks = (rep.get("trace") or {}).get("ranks") or [{}]
            check("gpudoctor: steps 3..5 analyzed", [s["step"] for s in ranks[0].get("per_step", [])] == [3, 4, 5],
                  ranks[0].get("per_step"))
            causes = rep.get("causes") or [{}]
            check("gpudoctor: the DataLoader first", causes[0].get("cause") == "dataloader", causes)
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
