# SPDX-License-Identifier: Apache-2.0
"""gpudoctor's start-up hook for `gpudoctor run --profile` (docs/run.md).

`run --profile` puts the folder of this file first on the job's PYTHONPATH,
so every Python process of the job imports it at start-up (Python's `site`
module imports `sitecustomize`). It first runs the `sitecustomize` that was
there before (the system's or a virtual environment's), then waits: nothing
happens until the job imports torch. Once torch is imported it counts the
job's steps, an optimizer step through torch's global hook (PyTorch 2.x,
torch.optim.optimizer.register_optimizer_step_post_hook; in torch 1.13 the
entry point its profiler calls after every optimizer step,
Optimizer._optimizer_step_code) or else a DataLoader batch, and profiles steps A to B (plus one that the analysis leaves out, as
Holistic Trace Analysis leaves out the last profiler step) with torch.profiler.
The trace goes to GPUDOCTOR_PROFILE_DIR, one file per process (per rank under
torchrun), with a small status file that says what happened and what the
profiler cost. It never changes what the job computes: it adds no random
draws, moves no tensor and catches its own errors. No harm to the job: where
it would get in the job's way (the job starts torch's profiler, one profiler
per thread being torch's rule, or the hook fails) it stops what it runs and
steps aside, saying why in its status file; in an interpreter it was not
written for (Python 2: this file stays Python 2 syntax) or under -S it only
imports the sitecustomize it hides, under that module's own name.

Environment (set by gpudoctor): GPUDOCTOR_PROFILE_DIR, GPUDOCTOR_PROFILE_STEPS
("A:B"), GPUDOCTOR_PROFILE_STEP ("auto", "optimizer" or "batch"; auto takes the
optimizer hook where torch has one), GPUDOCTOR_PROFILE_HOOK=off turns it off.
"""

import os
import sys


_HERE = os.path.dirname(os.path.abspath(__file__))
# What the hook was written for: CPython 3.6 and newer (torch's own floor is
# higher). Anywhere else (a python2 helper of the job inherits PYTHONPATH) it
# only stands in for the sitecustomize it hides.
_WRITTEN_FOR = sys.version_info[0] == 3 and sys.version_info[1] >= 6


def _off_path():
    """The job's sys.path as it would be without the hook (PYTHONPATH, which
    its children inherit, still names the hook's folder)."""
    try:
        sys.path[:] = [p for p in sys.path if not isinstance(p, str) or os.path.abspath(p or ".") != _HERE]
    except Exception:
        pass


def _chain():
    """Imports the sitecustomize this one hides (the next one on sys.path)
    under its own name, as Python would have: the job's `from sitecustomize
    import X` finds it in sys.modules, where the import that runs this file
    takes its result from. Its errors propagate, so that Python's site
    module reports them in its own words; none to hide is Python's own
    ImportError, which site passes over (and `import sitecustomize` fails
    later, as without the hook)."""
    if not _WRITTEN_FOR:  # python2: its import finds the next one, the hook being off sys.path
        del sys.modules["sitecustomize"]
        __import__("sitecustomize")
        return
    import importlib.util

    spec = None
    for finder in sys.meta_path:
        find = getattr(finder, "find_spec", None)
        spec = find("sitecustomize", None) if find else None
        if spec is not None:
            break
    if spec is None or spec.loader is None:
        del sys.modules["sitecustomize"]
        raise ImportError("No module named 'sitecustomize'", name="sitecustomize")
    mod = importlib.util.module_from_spec(spec)
    sys.modules["sitecustomize"] = mod
    try:
        spec.loader.exec_module(mod)
    except BaseException as e:
        # Python's own traceback (for -v): from the hidden file's frame on.
        tb = e.__traceback__
        while tb is not None and tb.tb_frame.f_code.co_filename != spec.origin:
            tb = tb.tb_next
        raise e.with_traceback(tb or e.__traceback__)


class _Hook:
    KEEP_UNPROFILED = 5  # steps timed before and after the profiled ones, for the overhead

    def __init__(self, out_dir, first, last, mode):
        self.dir = out_dir
        self.first, self.last = first, last
        self.mode_wanted = mode
        self.pid = os.getpid()
        self.status = {
            "pid": self.pid,
            "ppid": os.getppid(),
            "argv": sys.argv[:8] if hasattr(sys, "argv") else [],
            "rank": _int_env("RANK"),
            "local_rank": _int_env("LOCAL_RANK"),
            "world_size": _int_env("WORLD_SIZE"),
            "torch": None,
            "tensorflow": False,
            "mode": None,
            "step_asked": mode,
            "optimizer_hook": None,
            "steps": 0,
            "profiled_first": first,
            "profiled_last": last,
            "trace": None,
            "error": None,
            "stepped_aside": None,
        }
        self.step = 0
        self.prev = None  # perf_counter at the last step boundary
        self.durs = {}  # step number -> seconds, around the profiled steps
        self.walls = []  # [step, unix start, seconds] of the profiled steps
        self.prof = None
        self.rec = None
        self.done = False
        self.export_s = None
        self.optimizer = None  # the optimizer whose steps count (the first that steps)
        self.own_start = False  # the hook itself starting its profiler

    # -- on import -------------------------------------------------------
    def torch_imported(self, torch):
        try:
            self.status["torch"] = str(getattr(torch, "__version__", "?"))
            post = getattr(getattr(torch.optim, "optimizer", None), "register_optimizer_step_post_hook", None)
            if self.mode_wanted != "batch" and post is not None:
                post(self._on_optimizer_step)
                self.status["mode"] = "optimizer"
                self.status["optimizer_hook"] = "register_optimizer_step_post_hook"
            elif self.mode_wanted != "batch" and self._patch_step_code(torch):
                self.status["mode"] = "optimizer"
                self.status["optimizer_hook"] = "_optimizer_step_code"
            elif self.mode_wanted == "optimizer":
                self.status["error"] = "this torch (%s) has no global optimizer step hook" % self.status["torch"]
            else:
                self._patch_dataloader(torch)
                self.status["mode"] = "batch"
            self._watch_job_profilers(torch)
        except Exception as e:
            self.status["error"] = "setting up: %r" % (e,)
        self.save_status()

    def _patch_dataloader(self, torch):
        import torch.utils.data.dataloader as dl

        cls = dl._BaseDataLoaderIter
        orig = cls.__next__
        hook = self

        def __next__(it):
            hook.boundary()
            return orig(it)

        __next__.__wrapped__ = orig
        cls.__next__ = __next__

    def _patch_step_code(self, torch):
        """torch 1.13 has no global step hook, but every optimizer's step()
        (wrapped by Optimizer._hook_for_profile) calls the empty
        Optimizer._optimizer_step_code after it: the entry point its profiler
        uses, here a step boundary. False where torch has none (< 1.13)."""
        cls = getattr(getattr(torch, "optim", None), "Optimizer", None)  # 1.13 deletes torch.optim.optimizer
        orig = getattr(cls, "_optimizer_step_code", None)
        if orig is None:
            return False
        hook = self

        def _optimizer_step_code(optimizer):
            hook._on_optimizer_step(optimizer, (), {})  # boundary() catches its own errors
            return orig(optimizer)

        _optimizer_step_code.__wrapped__ = orig
        cls._optimizer_step_code = _optimizer_step_code
        return True

    def _watch_job_profilers(self, torch):
        """Every way a job starts torch's profiler passes here first: torch
        allows one profiler per thread, so the hook's gives way before the
        job's starts (torch.profiler.profile and autograd's profile prepare
        their trace in profile._prepare_trace; the legacy profiler, emit_nvtx
        and emit_itt start in __enter__)."""
        auto = getattr(torch.autograd, "profiler", None)
        legacy = sys.modules.get("torch.autograd.profiler_legacy")
        hook = self
        for owner, name in ((getattr(auto, "profile", None), "_prepare_trace"),
                            (getattr(legacy, "profile", None), "__enter__"),
                            (getattr(auto, "emit_nvtx", None), "__enter__"),
                            (getattr(auto, "emit_itt", None), "__enter__")):
            orig = getattr(owner, "__dict__", {}).get(name)
            if orig is not None:
                setattr(owner, name, _before(orig, "%s.%s.%s" % (owner.__module__, owner.__qualname__, name), hook))

    def job_profiles(self, what):
        """The job starts a profiler: the hook's, if running, stops first."""
        if self.prof is None:
            return  # before or after the hook's steps: the hook is not in the way
        self.step_aside("the job started its own profiler (%s) at step %d, inside the profiled steps %d-%d: "
                        "torch allows one profiler per thread, so the hook stopped its own and profiled nothing"
                        % (what, self.step, self.first, self.last))

    def step_aside(self, why):
        """Stops whatever the hook runs, never raising: the job goes on as without it."""
        rec, prof = self.rec, self.prof
        self.rec = self.prof = None
        self.done = True
        try:
            if self.status["stepped_aside"] is None:
                self.status["stepped_aside"] = why
            if rec is not None:
                rec.__exit__(None, None, None)
        except Exception:
            pass
        try:
            if prof is not None:
                prof.stop()
        except Exception:
            pass
        self.save_status()

    def _on_optimizer_step(self, optimizer, args, kwargs):
        if self.optimizer is None:
            self.optimizer = optimizer
        if optimizer is self.optimizer:
            self.boundary()

    # -- steps -----------------------------------------------------------
    def boundary(self):
        """The end of one step and the start of the next."""
        if os.getpid() != self.pid:  # a fork (a DataLoader or forkserver worker): the parent's profile, not its
            return
        if self.done and self.step > self.last + 2 + self.KEEP_UNPROFILED:
            self.step += 1  # the rest of the job: counted, nothing more
            self.status["steps"] = self.step
            return
        try:
            import time

            now = time.perf_counter()
            if self.prev is not None and self.first - self.KEEP_UNPROFILED <= self.step:
                self.durs[self.step] = now - self.prev
                if self.first <= self.step <= self.last + 1 and self.walls and self.walls[-1][0] == self.step:
                    self.walls[-1][2] = now - self.prev
            self.step += 1
            self.status["steps"] = self.step
            if self.step == self.first and self.prof is None and not self.done:
                self._start()
            elif self.prof is not None:
                self._advance()
            if self.prof is not None and self.first <= self.step <= self.last + 1:
                self.walls.append([self.step, time.time(), None])
            if self.done and self.step == self.last + 2 + self.KEEP_UNPROFILED:
                self.save_status()
            self.prev = time.perf_counter()  # the export's time is not the next step's
        except Exception as e:
            self.status["error"] = "profiling step %d: %r" % (self.step, e)
            self.step_aside("the hook failed at step %d (%r): it stopped its profiler and profiled nothing more"
                            % (self.step, e))

    def _start(self):
        import torch
        from torch.profiler import ProfilerActivity, profile

        enabled = getattr(torch.autograd, "_profiler_enabled", None)
        if enabled is not None and enabled():
            self.step_aside("the job's own profiler was running at step %d, where the hook's would start: "
                            "torch allows one profiler per thread, so the hook profiled nothing" % self.step)
            return
        acts = [ProfilerActivity.CPU]
        if torch.cuda.is_available():
            acts.append(ProfilerActivity.CUDA)
        # No schedule: the hook marks the steps itself, the same in every torch
        # version (1.13's schedule numbers its first two steps alike).
        prof = profile(activities=acts)
        self.own_start = True
        try:
            prof.start()
        finally:
            self.own_start = False
        self.prof = prof
        self._mark()

    def _mark(self):
        from torch.autograd import profiler

        self.rec = profiler.record_function("ProfilerStep#%d" % self.step)
        self.rec.__enter__()

    def _advance(self):
        """The profiler at a step boundary: the next step marked, or the end."""
        self.rec.__exit__(None, None, None)
        self.rec = None
        if self.step <= self.last + 1:  # one more step: the analysis leaves the last one out
            self._mark()
            return
        self.prof.stop()
        self._save(self.prof)

    def _save(self, prof):
        import time

        t = time.perf_counter()
        rank = self.status["rank"]
        name = "rank%d-pid%d.pt.trace.json" % (rank if rank is not None else 0, self.pid)
        path = os.path.join(self.dir, name)
        prof.export_chrome_trace(path + ".part")
        os.replace(path + ".part", path)
        self.export_s = time.perf_counter() - t
        self.status["trace"] = name
        self.prof = None
        self.done = True
        self.save_status()

    # -- the status file ---------------------------------------------------
    def save_status(self):
        if os.getpid() != self.pid:  # a fork would write over its parent's note
            return
        try:
            import json

            s = dict(self.status)
            before = [d for n, d in self.durs.items() if n < self.first]
            inside = [d for n, d in self.durs.items() if self.first <= n <= self.last]
            after = [d for n, d in self.durs.items() if n > self.last + 1]
            s["step_s_unprofiled"] = _median(before + after)
            s["step_s_profiled"] = _median(inside)
            s["unprofiled_steps"] = len(before + after)
            s["export_s"] = self.export_s
            s["profiled_steps"] = [w for w in self.walls if w[2] is not None]
            path = os.path.join(self.dir, "hook-%d.status" % self.pid)
            with open(path + ".part", "w") as f:
                json.dump(s, f)
            os.replace(path + ".part", path)
        except Exception:
            pass

    def at_exit(self):
        if os.getpid() != self.pid:  # a forked DataLoader worker
            return
        if self.prof is not None:  # the job ended inside the profiled steps: keep what there is
            try:
                self.status["error"] = "the job ended after step %d, inside the profiled steps" % self.step
                if self.rec is not None:
                    self.rec.__exit__(None, None, None)
                self.prof.stop()
                self._save(self.prof)
            except Exception as e:
                self.status["error"] = "saving the trace at exit: %r" % (e,)
                self.step_aside("the hook failed saving its trace at exit (%r)" % (e,))
        self.save_status()


def _before(orig, what, hook):
    """orig, after telling the hook that the job starts a profiler (the file
    stays Python 2 syntax: no keyword-only arguments)."""

    def starts(this, *a, **kw):
        if not hook.own_start:
            hook.job_profiles(what)
        return orig(this, *a, **kw)

    starts.__wrapped__ = orig
    return starts


def _int_env(name):
    try:
        return int(os.environ[name])
    except (KeyError, ValueError):
        return None


def _median(v):
    if not v:
        return None
    v = sorted(v)
    n = len(v)
    return v[n // 2] if n % 2 else (v[n // 2 - 1] + v[n // 2]) / 2


class _Finder:
    """A meta path finder that sees torch (and TensorFlow) being imported."""

    def __init__(self, hook):
        self.hook = hook

    def find_spec(self, name, path=None, target=None):
        if name not in ("torch", "tensorflow"):
            return None
        if name == "tensorflow":
            self.hook.status["tensorflow"] = True
            self.hook.save_status()
            return None
        try:
            sys.meta_path.remove(self)
        except ValueError:
            return None
        spec = None
        for finder in sys.meta_path:  # a finder's error is the job's, as without the hook
            find = getattr(finder, "find_spec", None)
            spec = find(name, path, target) if find else None
            if spec is not None:
                break
        if spec is None or spec.loader is None or not hasattr(spec.loader, "exec_module"):
            return spec
        loader, hook = spec.loader, self.hook
        orig = loader.exec_module

        def exec_module(module):
            orig(module)
            hook.torch_imported(module)

        loader.exec_module = exec_module
        return spec


def _note_failure(e):
    try:
        import json

        path = os.path.join(os.environ["GPUDOCTOR_PROFILE_DIR"], "hook-%d.status" % os.getpid())
        with open(path, "w") as f:
            json.dump({"pid": os.getpid(), "error": "not installed: %r" % (e,),
                       "stepped_aside": "the hook could not install itself (%r)" % (e,)}, f)
    except Exception:
        pass


def _install():
    if os.environ.get("GPUDOCTOR_PROFILE_HOOK", "").lower() in ("off", "0", "no"):
        return
    out_dir = os.environ.get("GPUDOCTOR_PROFILE_DIR")
    if not out_dir or not os.path.isdir(out_dir):
        return
    try:
        a, b = (int(x) for x in os.environ.get("GPUDOCTOR_PROFILE_STEPS", "10:14").split(":"))
    except ValueError:
        a, b = 10, 14
    mode = os.environ.get("GPUDOCTOR_PROFILE_STEP", "auto")
    hook = _Hook(out_dir, max(a, 1), max(a, b, 1), mode)
    import atexit

    atexit.register(hook.at_exit)
    if "torch" in sys.modules:
        hook.torch_imported(sys.modules["torch"])
    else:
        sys.meta_path.insert(0, _Finder(hook))


_off_path()
if _WRITTEN_FOR and not sys.flags.no_site:  # under -S only an explicit import runs this: no profiling
    try:
        _install()
    except Exception as _e:  # said in the note, never on the job's stderr
        _note_failure(_e)
_chain()
