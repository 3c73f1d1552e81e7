"""Runners: how the engine's selected rows are run. Today one, ``ThreadRunner``.

The Runner interface is the whole contract between the engine (``dispatch_core``)
and a runner; a new runner (one process per check, say) is one class with one
method::

    class Runner:
        def run(self, jobs, stdin_text, hooks_root):
            # Run every job's check on stdin_text and fill in its result; return
            # when each job has finished or its time is up. Never raise for a check.

``jobs`` are the engine's ``Outcome`` records of the selected rows, in manifest
order; ``job.row`` is the manifest row with its defaults applied (``path``,
``args``, ``timeout``, ``isolate``; see hooks/_common/manifest.py). A runner sets
on each job:

- ``ran``: True once the check's ``main()`` was started;
- ``kind``: ``"ok"``; ``"exit"`` (``sys.exit(n)``, or ``main()`` returned a
  non-zero int); ``"error"`` (an exception, or the script could not be imported);
  ``"timeout"`` (not done within ``row.timeout`` of the shared start, or the
  imports ran out of time);
- ``detail``: the trace's words for it: ``ok``, ``returned 3``, ``exit code 2``,
  ``error KeyError``, ``import error ImportError``, ``import timed out``;
- ``elapsed_ms``: from the shared start to the check's end (None if it never ran);
- ``output``: what the check printed on its stdout ("" after a timeout).

The engine turns ``output`` into contexts and applies ``emits``. Timeouts count
from one shared start; a runner waits no longer than the largest selected
timeout. A resident server is a transport (a socket instead of the process's
fds, see ``dispatch_transport``) and reuses a runner unchanged.

``ThreadRunner`` imports each script into this process (under a synthetic module
name) and runs every ``main()`` in its own thread (one that never delays the
exit), with its own stdin and a bounded stdout. ``guard(seconds)``, when given, is a context manager factory
armed around the run with the budget plus ``WATCHDOG_GRACE``: the process
transport passes its watchdog, in-process callers (tests, ``run()``) pass none.
"""
import _thread
import io
import os
import sys
import time

# What one check may print before the rest of its output is dropped.
MAX_CAPTURE_CHARS = 1 << 20
# Seconds past the largest timeout given to the guard.
WATCHDOG_GRACE = 1.0
ALWAYS_ISOLATED = ("_common",)
# Standard modules a check's own file of the same name never shadows (see _keep_stdlib).
GUARDED_STDLIB = ("json",)
MODULE_PREFIX = "hookmux-check:"  # ':' cannot appear in an importable module name
#: Packages of ALWAYS_ISOLATED loaded where no check has run yet (in a warm pool's standby,
#: by its manager): the first check to load takes them as a fresh import would give them.
PRISTINE = set()


class ThreadRunner:
    """Every selected check in this process, one thread each."""

    def __init__(self, guard=None, report=None):
        self.guard = guard
        #: Called with each job as soon as its result is known (the isolated worker streams them).
        self.report = report

    def run(self, jobs, stdin_text, hooks_root):
        if not jobs:
            return
        prepare()
        checks = [Check(job, hooks_root, self.report) for job in jobs]
        budget = max(check.timeout for check in checks)
        budget_end = time.monotonic() + budget
        if self.guard is None:
            _start_and_collect(checks, stdin_text, budget_end)
            return
        with self.guard(budget + WATCHDOG_GRACE):
            _start_and_collect(checks, stdin_text, budget_end)


class Check:
    """One selected row in this process: its import (``load()``), its run (``call(stdin_text)``)
    and what it produced; ``report(job)`` is called when the result is known. hookmux serve's
    warm workers run checks through it too."""

    def __init__(self, job, root, report=None):
        row = job.row
        self.job = job
        self.report = report
        self.started = None
        self.index = row.index
        self.script = row.path
        self.root = root
        self.args = row.args
        self.timeout = row.timeout
        self.isolate = ALWAYS_ISOLATED + row.isolate
        self.main = None
        self.stdout = _Capture()
        self.stderr = _Capture()
        self.load_error = None
        self.kind = self.detail = None
        self.finished = None

    def load(self):
        """Import the script under a synthetic name; helpers come from its own folder."""
        # The interpreter's own import machinery, already loaded: importlib.util
        # costs ~1 ms to import and the importlib package ~0.2 ms.
        try:
            from _frozen_importlib import module_from_spec
            from _frozen_importlib_external import spec_from_file_location
        except ImportError:  # not CPython
            from importlib._bootstrap import module_from_spec
            from importlib._bootstrap_external import spec_from_file_location

        name = "%s%d:%s" % (MODULE_PREFIX, self.index, self.script)
        for module in list(sys.modules):
            top = module.split(".", 1)[0]
            if top in self.isolate and top not in PRISTINE:
                del sys.modules[module]
        PRISTINE.clear()
        folder = os.path.dirname(self.script)
        _keep_stdlib(folder, self.root)
        saved_modules = dict(sys.modules)
        saved_path = list(sys.path)
        sys.path[:0] = [folder, self.root]
        try:
            spec = spec_from_file_location(name, self.script)
            if spec is None:
                raise ImportError("not a Python file")
            module = module_from_spec(spec)
            sys.modules[name] = module
            try:
                spec.loader.exec_module(module)
            except ModuleNotFoundError:
                if not _enable_site():
                    raise
                spec.loader.exec_module(module)
        finally:
            # Whatever the script did to sys.path and sys.modules at import time,
            # the next script is imported into the same state.
            sys.path = saved_path + [entry for entry in _SITE_PATHS if entry not in saved_path]
            for known, loaded in saved_modules.items():
                sys.modules.setdefault(known, loaded)
            _forget_helpers(saved_modules, folder)
        main = getattr(module, "main", None)
        if not callable(main):
            raise AttributeError("no main()")
        self.main = main

    def call(self, stdin_text):
        stdin = io.TextIOWrapper(io.BytesIO(stdin_text.encode("utf-8", "surrogatepass")), encoding="utf-8")
        _STREAMS.bind(stdin, self.stdout, self.stderr)
        try:
            result = self.main(self.args) if _takes_argument(self.main) else self.main()
            if isinstance(result, int) and result:
                self.kind, self.detail = "exit", "returned %r" % (result,)
            else:
                self.kind, self.detail = "ok", "ok"
        except SystemExit as exc:
            self.kind, self.detail = "exit", "exit code %s" % (exc.code if isinstance(exc.code, int) else 1)
        except BaseException as exc:
            self.kind, self.detail = "error", "error %s" % type(exc).__name__
        finally:
            self.finished = time.monotonic()
            if self.report is not None:
                job = self.job
                job.ran, job.kind, job.detail = True, self.kind, self.detail
                job.elapsed_ms = (self.finished - self.started) * 1000
                job.output = self.stdout.getvalue()
                self.report(job)

    def record(self, start, budget_end):
        """Its result onto its job: not finished by its timeout (from ``start``) or by
        ``budget_end`` is a timeout, whatever it printed."""
        job, finished = self.job, self.finished
        job.ran = True
        job.elapsed_ms = ((finished or time.monotonic()) - start) * 1000
        if finished is None or finished - start > self.timeout or finished > budget_end:
            job.kind, job.detail = "timeout", "timeout"
            return
        job.kind, job.detail = self.kind, self.detail
        job.output = self.stdout.getvalue()


def _keep_stdlib(*folders):
    """Import the standard library's module first where a check's folder (or the root) has a
    file or package of that name, so that it cannot stand in for it (``json/json.py``)."""
    for name in GUARDED_STDLIB:
        if name in sys.modules:
            continue
        for folder in folders:
            path = os.path.join(folder, name)
            if os.path.exists(path + ".py") or os.path.isdir(path):
                __import__(name)
                break


def _forget_helpers(before, folder):
    """Drop the modules a script imported from its own folder: the script keeps
    its references, and the next check's same-named helper is imported afresh."""
    prefix = folder + os.sep
    for name in set(sys.modules).difference(before):
        path = getattr(sys.modules.get(name), "__file__", None) or ""
        if path.startswith(prefix) and not name.startswith(MODULE_PREFIX):
            del sys.modules[name]


def _takes_argument(function):
    code = getattr(function, "__code__", None)
    if code is None:
        return False
    positional = code.co_argcount - (1 if getattr(function, "__self__", None) is not None else 0)
    return positional >= 1 or bool(code.co_flags & 0x04)  # 0x04: *args


_SITE_PATHS = []


def _enable_site():
    """Load site-packages once, for a check that needs a third-party module under -S."""
    if not sys.flags.no_site or "site" in sys.modules:
        return False
    import site

    before = list(sys.path)
    site.main()
    _SITE_PATHS.extend(entry for entry in sys.path if entry not in before)
    return True


def _start_and_collect(checks, stdin_text, budget_end):
    loaded = _load_all(checks, budget_end)
    start = time.monotonic()
    with _STREAMS.installed():
        threads = []
        for check in loaded:
            check.started = start
            threads.append(_start_thread(check.call, stdin_text))
        for check, thread in zip(loaded, threads):
            _join(thread, min(start + check.timeout, budget_end))

    for check in loaded:
        check.record(start, budget_end)


def _load_all(checks, budget_end):
    """Import the selected scripts one after another, within the time budget; return the loaded ones.

    The imports run in a helper thread so that a script hanging at import time is
    abandoned like a hanging main().
    """
    loaded = []

    def load_serially():
        for check in checks:
            try:
                check.load()
                loaded.append(check)
            except BaseException as exc:
                check.load_error = "import error %s" % type(exc).__name__

    with _STREAMS.installed():
        _join(_start_thread(load_serially), budget_end)
    loaded = list(loaded)  # an abandoned loader may still append: what is not in by now does not run
    for check in checks:
        if check in loaded:
            continue
        error = check.load_error
        check.job.kind, check.job.detail = ("error", error) if error else ("timeout", "import timed out")
        if check.report is not None:
            check.report(check.job)
    return loaded


# ---------------------------------------------------------------- threads
# The low-level _thread module is built in; threading costs 1-3 ms to import
# (more in a forked worker, where each page it touches is copied).


def _start_thread(function, *args):
    """Run ``function(*args)`` in a new thread, which never delays the process's exit;
    returns a lock released when it returns."""
    done = _thread.allocate_lock()
    done.acquire()

    def body():
        try:
            function(*args)
        except BaseException:
            pass
        finally:
            done.release()

    _thread.start_new_thread(body, ())
    return done


def _join(done, deadline):
    """Wait for a ``_start_thread`` thread until ``deadline`` (monotonic) at most."""
    remaining = deadline - time.monotonic()
    if remaining > 0:
        done.acquire(True, remaining)


# ---------------------------------------------------------------- per-thread streams


class _Capture(io.StringIO):
    """A check's stdout or stderr: bounded, and closing it does not lose it.

    It takes what standalone hooks do to a real stdout: ``.buffer.write(bytes)``
    and ``.reconfigure(encoding=...)``.
    """

    encoding = "utf-8"

    @property
    def buffer(self):
        return _BytesInto(self)  # made on use: an attribute would be a reference cycle per capture

    def write(self, text):
        room = MAX_CAPTURE_CHARS - self.tell()
        if room > 0 and isinstance(text, str):
            super().write(text[:room])
        return len(text) if isinstance(text, str) else 0

    def reconfigure(self, **options):
        pass

    def close(self):
        pass


class _BytesInto:
    def __init__(self, capture):
        self._capture = capture

    def write(self, data):
        self._capture.write(bytes(data).decode("utf-8", "replace"))
        return len(data)

    def flush(self):
        pass


class _Null(io.StringIO):
    def write(self, text):
        return len(text) if isinstance(text, str) else 0

    def close(self):
        pass


class _ThreadStream:
    """Stands in for sys.stdin/stdout/stderr and forwards to the calling thread's own."""

    def __init__(self, streams, slot):
        self._streams = streams
        self._slot = slot

    def __getattr__(self, name):
        return getattr(self._streams.current(self._slot), name)

    def __iter__(self):
        return iter(self._streams.current(self._slot))


class _Streams:
    """Thread-local stdin/stdout/stderr. Threads a check starts itself get a sink."""

    def __init__(self):
        self._local = _thread._local()
        self._depth = 0
        self._saved = None

    def bind(self, stdin, stdout, stderr):
        self._local.streams = (stdin, stdout, stderr)

    def current(self, slot):
        streams = getattr(self._local, "streams", None)
        if streams is None:
            return io.StringIO("") if slot == 0 else _Null()
        return streams[slot]

    def installed(self):
        return _Installed(self)


class _Installed:
    def __init__(self, streams):
        self.streams = streams

    def __enter__(self):
        streams = self.streams
        if streams._depth == 0:
            streams._saved = (sys.stdin, sys.stdout, sys.stderr)
            sys.stdin, sys.stdout, sys.stderr = (_ThreadStream(streams, slot) for slot in range(3))
        streams._depth += 1

    def __exit__(self, *exc):
        streams = self.streams
        streams._depth -= 1
        if streams._depth == 0:
            sys.stdin, sys.stdout, sys.stderr = streams._saved


_STREAMS = None


def prepare():
    """Once per process, when a row is first selected (most tool calls select none); the
    isolated runner calls it before it forks, so that the worker starts with it done.
    Returns the thread-local streams (``.installed()``: sys.std* forward to each thread's own)."""
    global _STREAMS
    if _STREAMS is None:
        _STREAMS = _Streams()
    return _STREAMS
