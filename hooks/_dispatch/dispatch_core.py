"""The dispatcher itself; ``dispatch.py`` is its entry point.

Reads stdin once, selects the event's manifest rows by a regex on the tool name,
imports each selected script, runs every ``main()`` in its own daemon thread with
its own stdin/stdout, and prints the ``additionalContext`` they emit as ONE JSON
line in the host's dialect. It only advises: never a permission decision, and the
exit status is always 0.

Standard library only; this runs on every tool call.
"""
import io
import os
import re
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
if os.path.dirname(HERE) not in sys.path:
    sys.path.append(os.path.dirname(HERE))  # the hooks tree, for _common
from _common import event as _event  # noqa: E402
from _common import hosts as _hosts  # noqa: E402
from _common import manifest as _manifest  # noqa: E402

# Kept for callers of dispatch.py; the facts live in hooks/_common/hosts.py.
COPILOT_EVENTS = _hosts.EVENTS[_hosts.COPILOT]
COPILOT_TOOLS = _hosts.TOOLS[_hosts.COPILOT]

# Claude Code moves additional context over 10,000 characters to a file.
MAX_CONTEXT_CHARS = 10_000
TRUNCATION_MARK = "\n[hookmux: context truncated]"
# What one check may print before the rest of its output is dropped.
MAX_CAPTURE_CHARS = 1 << 20
# Seconds past the largest timeout before the process watchdog ends the dispatcher.
WATCHDOG_GRACE = 1.0
ALWAYS_ISOLATED = ("_common",)
MODULE_PREFIX = "hookmux-check:"  # ':' cannot appear in an importable module name



# ---------------------------------------------------------------- the API


def run(event, stdin_text, *, manifest=None, hooks_root=None, trace=None):
    """Dispatch one hook event; return exactly what the entry point prints.

    ``manifest`` is a path or an already-loaded dict (default: manifest.json
    beside this file). ``trace`` is a callable taking one line, or None.
    Never raises: any failure of the dispatcher itself yields "".
    """
    emit_trace = trace or _no_trace
    try:
        return _dispatch(event, stdin_text, manifest, hooks_root, emit_trace)
    except BaseException as exc:  # fail open, whatever happened
        emit_trace("dispatcher error: %s" % type(exc).__name__)
        return ""


def _dispatch(event, stdin_text, manifest, hooks_root, trace):
    call = _event.parse(stdin_text, event)
    if not call.name:
        trace("no event: nothing to do")
        return ""
    canonical = call.name
    if canonical in _hosts.STOP_EVENTS and call.stop_hook_active:
        trace("%s: stop_hook_active, no rows run" % canonical)
        return ""

    loaded = _manifest.load(manifest, hooks_root)
    tool_names = call.tool_names()

    row_lines = []  # (index, line): traced in manifest order once all rows are done
    selected = []
    for row in loaded.rows(canonical):
        reason = row.problem or _why_not_selected(row, call.payload, canonical, tool_names)
        if reason:
            row_lines.append((row.index, "%s  skipped: %s" % (row.label(), reason)))
        else:
            selected.append(_Check(row, loaded.hooks_root))

    contexts = _run_checks(selected, stdin_text, row_lines)
    for _, line in sorted(row_lines, key=lambda item: item[0]):
        trace(line)
    return _render(call, contexts)


# ---------------------------------------------------------------- input


def _why_not_selected(row, payload, canonical, tool_names):
    """None when the row runs, else the reason it does not."""
    if row.matcher is None:
        return None
    if payload is None:
        return "payload is not a JSON object"
    if canonical not in _hosts.TOOL_EVENTS:
        return "event has no tool"
    try:
        pattern = re.compile(row.matcher)
    except (re.error, TypeError):
        return "matcher does not compile"
    if any(pattern.search(name) for name in tool_names):
        return None
    return "matcher does not match tool"


# ---------------------------------------------------------------- running checks


class _Check:
    """One selected row: its import, its thread and what it produced."""

    def __init__(self, row, root):
        self.index = row.index
        self.label = row.label()
        self.script = row.path
        self.root = root
        self.args = row.args
        self.timeout = row.timeout
        self.isolate = ALWAYS_ISOLATED + row.isolate
        self.emits = row.emits
        self.main = None
        self.stdout = _Capture()
        self.stderr = _Capture()
        self.outcome = "not started"
        self.finished = None

    def load(self):
        """Import the script under a synthetic name; helpers come from its own folder."""
        # importlib.util re-exports these two; importing it costs ~1 ms more per call.
        from importlib._bootstrap import module_from_spec
        from importlib._bootstrap_external import spec_from_file_location

        name = "%s%d:%s" % (MODULE_PREFIX, self.index, self.script)
        for module in list(sys.modules):
            if module.split(".", 1)[0] in self.isolate:
                del sys.modules[module]
        folder = os.path.dirname(self.script)
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
            self.outcome = ("returned %r" % (result,)) if isinstance(result, int) and result else "ok"
        except SystemExit as exc:
            self.outcome = "exit code %s" % (exc.code if isinstance(exc.code, int) else 1)
        except BaseException as exc:
            self.outcome = "error %s" % type(exc).__name__
        finally:
            self.finished = time.monotonic()


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


def _run_checks(checks, stdin_text, row_lines):
    if not checks:
        return []
    _install_thread_streams()
    begin = time.monotonic()
    budget = max(check.timeout for check in checks)
    budget_end = begin + budget
    with _watchdog(budget + WATCHDOG_GRACE):
        return _start_and_collect(checks, stdin_text, budget_end, row_lines)


def _start_and_collect(checks, stdin_text, budget_end, row_lines):
    loaded = _load_all(checks, budget_end, row_lines)
    start = time.monotonic()
    with _STREAMS.installed():
        threads = []
        for check in loaded:
            thread = _THREADING.Thread(target=check.call, args=(stdin_text,), daemon=True)
            thread.start()
            threads.append(thread)
        for check, thread in zip(loaded, threads):
            thread.join(max(0.0, min(start + check.timeout, budget_end) - time.monotonic()))

    contexts = []
    for check in loaded:
        elapsed_ms = ((check.finished or time.monotonic()) - start) * 1000
        head = "%s  selected %.1fms" % (check.label, elapsed_ms)
        if check.finished is None or check.finished - start > check.timeout or check.finished > budget_end:
            row_lines.append((check.index, "%s timeout (output dropped)" % head))
            continue
        found = _contexts_from(check.stdout.getvalue())
        size = sum(map(len, found))
        if found and not check.emits:
            row_lines.append((check.index, "%s %s, emitted %d chars but emits=false: dropped%s"
                              % (head, check.outcome, size, _block_note(check))))
            continue
        contexts.extend(found)
        result = "emitted %d chars" % size if found else "silent"
        row_lines.append((check.index, "%s %s, %s%s" % (head, check.outcome, result, _block_note(check))))
    return contexts


class _watchdog:
    """In the dispatcher process only: end it when a check holds the GIL past the budget.

    A thread stuck in one long C call (a backtracking regex, say) never releases
    the GIL, so the main thread cannot wake from join() to abandon it.
    faulthandler's timer runs in C without the GIL; it exits with status 1, which
    is still sooner than the host's own timeout would end the hook.
    """

    sink_fd = None  # set by main(): where the timer's traceback goes

    def __init__(self, seconds):
        self.seconds = seconds

    def __enter__(self):
        if self.sink_fd is not None:
            import faulthandler

            faulthandler.dump_traceback_later(self.seconds, exit=True, file=self.sink_fd)

    def __exit__(self, *exc):
        if self.sink_fd is not None:
            import faulthandler

            faulthandler.cancel_dump_traceback_later()


def _load_all(checks, budget_end, row_lines):
    """Import the selected scripts one after another, within the time budget.

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
                check.outcome = "import error %s" % type(exc).__name__
                row_lines.append((check.index, "%s  selected, not run: %s" % (check.label, check.outcome)))

    with _STREAMS.installed():
        loader = _THREADING.Thread(target=load_serially, daemon=True)
        loader.start()
        loader.join(max(0.0, budget_end - time.monotonic()))
    loaded = list(loaded)
    if loader.is_alive():
        for check in checks:
            if check.outcome == "not started" and check not in loaded:
                row_lines.append((check.index, "%s  selected, not run: import timed out" % check.label))
    return loaded


# ---------------------------------------------------------------- per-thread streams


class _Capture(io.StringIO):
    """A check's stdout or stderr: bounded, and closing it does not lose it.

    It takes what standalone hooks do to a real stdout: ``.buffer.write(bytes)``
    and ``.reconfigure(encoding=...)``.
    """

    encoding = "utf-8"

    def __init__(self):
        super().__init__()
        self.buffer = _BytesInto(self)

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
        self._local = _THREADING.local()
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
_THREADING = None


def _install_thread_streams():
    """threading is imported only once a row is selected: most tool calls select none."""
    global _STREAMS, _THREADING
    if _STREAMS is None:
        # Loaded before any check, as when the dispatcher itself used it: a check's
        # own json.py beside it then cannot stand in for the standard library's.
        import json  # noqa: F401
        import threading

        _THREADING = threading
        _STREAMS = _Streams()


# ---------------------------------------------------------------- output


BLOCK_NOTE = ", tried to block: the dispatcher only advises"


def _block_note(check):
    """A row that exits 2 or prints a block loses it here, never silently: say so in the trace."""
    if check.outcome in ("exit code 2", "returned 2"):
        return BLOCK_NOTE
    for line in check.stdout.getvalue().splitlines():
        line = line.strip()
        if not line.startswith("{"):
            continue
        try:
            obj = _event.loads(line)
        except (ValueError, RecursionError):
            continue
        if not isinstance(obj, dict):
            continue
        nested = obj.get("hookSpecificOutput")
        for part in (obj, nested if isinstance(nested, dict) else {}):
            if "permissionDecision" in part or part.get("decision") == "block" or part.get("continue") is False:
                return BLOCK_NOTE
    return ""


def _contexts_from(stdout_text):
    contexts = []
    for line in stdout_text.splitlines():
        line = line.strip()
        if not line.startswith("{"):
            continue
        try:
            obj = _event.loads(line)
        except (ValueError, RecursionError):
            continue
        if not isinstance(obj, dict):
            continue
        context = obj.get("additionalContext")
        nested = obj.get("hookSpecificOutput")
        if context is None and isinstance(nested, dict):
            context = nested.get("additionalContext")
        if isinstance(context, str) and context.strip():
            contexts.append(context)
    return contexts


def _render(call, contexts):
    if not contexts:
        return ""
    context = "\n\n".join(contexts)
    if len(context) > MAX_CONTEXT_CHARS:
        context = context[: MAX_CONTEXT_CHARS - len(TRUNCATION_MARK)] + TRUNCATION_MARK
    return _event.render_context(call, context)


def _no_trace(line):
    pass


# ---------------------------------------------------------------- entry point


def _parse_argv(argv):
    options = {"manifest": None, "hooks_root": None, "trace": False, "event": None}
    args = iter(argv)
    for arg in args:
        if arg == "--trace":
            options["trace"] = True
        elif arg in ("--manifest", "--hooks-root"):
            options[arg[2:].replace("-", "_")] = next(args, None)
        elif arg.startswith(("--manifest=", "--hooks-root=")):
            key, _, value = arg[2:].partition("=")
            options[key.replace("-", "_")] = value
        elif not arg.startswith("-") and options["event"] is None:
            options["event"] = arg
    return options


def main(argv=None):
    # Our own output goes to private copies of fds 1 and 2; the fds themselves
    # go to /dev/null, so a check writing there (os.write, a child process)
    # cannot corrupt the one JSON line the host reads, and a child process a
    # check leaves running does not hold the host's pipes open.
    real_out = real_err = None
    try:
        real_out = os.fdopen(os.dup(1), "w", encoding="utf-8")
        real_err = os.fdopen(os.dup(2), "w", encoding="utf-8", errors="replace")
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 1)
        os.dup2(devnull, 2)
        _watchdog.sink_fd = devnull

        options = _parse_argv(sys.argv[1:] if argv is None else argv)
        tracing = options["trace"] or os.environ.get("HOOKMUX_TRACE") == "1"

        def trace(line):
            real_err.write("hookmux: %s\n" % line)
            real_err.flush()

        try:
            stdin_bytes = sys.stdin.buffer.read()
        except (AttributeError, OSError, ValueError):
            stdin_bytes = b""
        output = run(
            options["event"],
            stdin_bytes.decode("utf-8", errors="replace"),
            manifest=options["manifest"],
            hooks_root=options["hooks_root"],
            trace=trace if tracing else None,
        )
        real_out.write(output)
        real_out.flush()
    except BaseException:
        pass
    # Abandoned daemon threads and threads a check started must not hold the
    # host's tool call: leave now, skipping interpreter shutdown.
    os._exit(0)

