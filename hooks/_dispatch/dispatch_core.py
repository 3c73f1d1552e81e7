"""The dispatcher's engine; ``dispatch.py`` is its entry point.

    run(event, stdin_text, *, manifest=None, hooks_root=None, trace=None, runner=None) -> str
    dispatch(call, manifest, stdin_text, runner=None) -> [Outcome]

``dispatch()`` selects the event's manifest rows by a regex on the tool name, has
a runner run the selected ones (``dispatch_runner``: the Runner interface) and
returns one ``Outcome`` per row, in manifest order, selected or not. ``run()``
wraps it the way pluggy wraps a hook call: parse the payload
(``_common/event.py``), load the manifest (``_common/manifest.py``) with the user's
and a trusted project's layers over it (``_common/layers.py``), dispatch,
hand the outcomes to the trace (``dispatch_trace``) when tracing, and render the
``additionalContext`` of the rows that emitted as ONE JSON line in the host's
dialect. It only advises: never a permission decision. The process around it —
fds, argv, watchdog, exit status 0 — is ``dispatch_transport``.

Standard library only; this runs on every tool call.
"""
import os
import sys

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


class Outcome:
    """What became of one manifest row in one dispatch: the engine's return value, per row."""

    __slots__ = ("row", "selected", "why_not", "ran", "kind", "detail", "elapsed_ms", "output", "contexts", "used")

    def __init__(self, row):
        #: The manifest row (``_common.manifest.Row``): ``index``, ``name``, ``label()``, ...
        self.row = row
        #: Whether the row was handed to the runner; if not, ``why_not`` says why.
        self.selected = False
        self.why_not = None
        #: Set by the runner (see dispatch_runner): started?, ok/exit/error/timeout, its words, time, stdout.
        self.ran = False
        self.kind = None
        self.detail = None
        self.elapsed_ms = None
        self.output = ""
        #: The additionalContext strings found in ``output`` (after a timeout: none).
        self.contexts = []
        #: Whether ``contexts`` went into the answer; False when dropped (``emits: false``).
        self.used = False

    @property
    def name(self):
        return self.row.name


# ---------------------------------------------------------------- the API


def run(event, stdin_text, *, manifest=None, hooks_root=None, trace=None, runner=None, observe=None, host=None,
        breaker=False):
    """Dispatch one hook event; return exactly what the entry point prints.

    ``manifest`` is a path, an already-parsed dict or a loaded Manifest (default: manifest.json
    beside this file). ``trace`` is a callable taking one line, or None.
    ``runner`` defaults to a ``ThreadRunner`` without a watchdog. ``observe``,
    when given, is called once with ``(call, outcomes, failure)`` at the end (the
    transport's terminal ledger; ``failure`` is None or ``"dispatcher-error"``). ``host``
    (``--host``) names the host when the command line says it (Codex: strict output).
    ``breaker``: skip rows whose circuit breaker is open and count failures
    (``_common/breaker.py``; the transports turn it on, in-process callers get none).
    Never raises: any failure of the dispatcher itself yields "".
    """
    emit_trace = trace or _no_trace
    call = outcomes = failure = None
    try:
        if trace is not None:
            import dispatch_trace  # now: a check may empty sys.path while it runs
        call = _event.parse(stdin_text, event, host)
        reason = _why_nothing_runs(call)
        if reason:
            emit_trace(reason)
            return ""
        loaded = _manifest.with_layers(_manifest.load(manifest, hooks_root), call.cwd)
        for severity, message in loaded.problems:
            emit_trace("layer %s: %s" % (severity, message))
        outcomes = dispatch(call, loaded, stdin_text, runner, breaker)
        if trace is not None:
            for line in dispatch_trace.lines(outcomes):
                trace(line)
        return render(call, outcomes)
    except BaseException as exc:  # fail open, whatever happened
        emit_trace("dispatcher error: %s" % type(exc).__name__)
        failure = "dispatcher-error"
        return ""
    finally:
        if observe is not None:
            try:
                observe(call, outcomes, failure)
            except Exception:
                pass


def dispatch(call, manifest, stdin_text, runner=None, breaker=False):
    """One Outcome per row of ``call``'s event in ``manifest``, after running the selected ones
    (with ``breaker``, the selected ones whose circuit breaker is not open)."""
    tool_names = call.tool_names()
    outcomes, deferred = _event_outcomes(call, manifest)
    jobs = []
    for outcome in outcomes:
        row = outcome.row
        outcome.why_not = row.problem or deferred.get(id(outcome)) or _why_not_selected(row, call, tool_names)
        if outcome.why_not is None:
            outcome.selected = True
            jobs.append(outcome)
    if jobs:
        held = _breaker(manifest.hooks_root) if breaker else None
        if held is not None:
            jobs = held.admit(jobs)
        if runner is None:
            from dispatch_runner import ThreadRunner

            runner = ThreadRunner()
        if jobs:
            runner.run(jobs, stdin_text, manifest.hooks_root)
        conclude(jobs)
        if held is not None:
            held.record(jobs)
    return outcomes


def _breaker(hooks_root):
    """The circuit breaker of this tree for one dispatch (None when off or unusable); loaded
    only once a row is selected, and before any check runs."""
    try:
        from _common import breaker

        return breaker.load(hooks_root)
    except Exception:
        return None


def _event_outcomes(call, manifest):
    """The outcomes of this event's rows, and why-nots for rows deferred to after the call.

    On a host whose model never reads advice before a call (``hosts.ADVICE_AFTER``: Gemini),
    the advising rows of the before-event run on the after-event instead, behind its own rows.
    """
    before_after = _hosts.ADVICE_AFTER.get(call.host)
    outcomes = [Outcome(row) for row in manifest.rows(call.name)]
    if before_after is None or call.name not in before_after:
        return outcomes, {}
    before, after = before_after
    if call.name == after:
        return outcomes + [Outcome(row) for row in manifest.rows(before) if row.emits], {}
    why = "%s: advice runs on %s, after the call" % (call.host, after)
    return outcomes, {id(outcome): why for outcome in outcomes if outcome.row.emits}


def conclude(jobs):
    """Each run job's contexts (none after a timeout), and whether they go into the answer."""
    for job in jobs:
        job.contexts = contexts_from(job.output) if job.ran and job.kind != "timeout" else []
        job.used = bool(job.contexts) and job.row.emits


def render(call, outcomes):
    """The answer: the used contexts in manifest order, joined and capped, as one JSON line (or "")."""
    contexts = [context for outcome in outcomes if outcome.used for context in outcome.contexts]
    if not contexts:
        return ""
    context = "\n\n".join(contexts)
    if len(context) > MAX_CONTEXT_CHARS:
        context = context[: MAX_CONTEXT_CHARS - len(TRUNCATION_MARK)] + TRUNCATION_MARK
    return _event.render_context(call, context)


# ---------------------------------------------------------------- selecting


def _why_nothing_runs(call):
    if not call.name:
        return "no event: nothing to do"
    if call.name in _hosts.STOP_EVENTS and call.stop_hook_active:
        return "%s: stop_hook_active, no rows run" % call.name
    return None


def _why_not_selected(row, call, tool_names):
    """None when the row runs, else the reason it does not."""
    if row.matcher is None:
        return None
    if call.payload is None:
        return "payload is not a JSON object"
    if call.name not in _hosts.TOOL_EVENTS:
        return "event has no tool"
    found = matches(row.matcher, tool_names)
    if found is None:
        return "matcher does not compile"
    return None if found else "matcher does not match tool"


_NAME_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")


def matches(matcher, names):
    """Whether ``re.search(matcher, name)`` finds any of ``names``; None when it does not compile.

    The usual matchers (``Bash|Edit``, ``^Bash$``, ``^(Bash|PowerShell)$``) are decided
    without the ``re`` module, whose import costs more than the rest of a call that
    selects nothing; any other pattern goes to ``re``.
    """
    literal = _literal(matcher) if isinstance(matcher, str) else None
    if literal is not None:
        alternatives, anchored = literal
        if anchored:  # '$' also matches before a final newline
            return any(name in alternatives or (name[-1:] == "\n" and name[:-1] in alternatives) for name in names)
        return any(alternative in name for name in names for alternative in alternatives)
    import re

    try:
        pattern = re.compile(matcher)
    except (re.error, TypeError):
        return None
    return any(pattern.search(name) for name in names)


def _literal(matcher):
    """(plain names, anchored) for ``A|B``, ``^A$``, ``^(A|B)$`` or ``^(?:A|B)$``; else None."""
    body, anchored = matcher, False
    if len(body) > 2 and body[0] == "^" and body[-1] == "$":
        body, anchored = body[1:-1], True
        if body.startswith("(?:") and body.endswith(")"):
            body = body[3:-1]
        elif body.startswith("(") and body.endswith(")"):
            body = body[1:-1]
        elif "|" in body:  # ^A|B$ is (^A)|(B$)
            return None
    alternatives = body.split("|")
    if not all(alternative and _NAME_CHARS.issuperset(alternative) for alternative in alternatives):
        return None
    return alternatives, anchored


# ---------------------------------------------------------------- output


def contexts_from(stdout_text):
    """The additionalContext of every stdout line that is a JSON object carrying one (top level or
    nested; Cursor's ``additional_context`` too: a check renders in the host's dialect)."""
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
        context = obj.get("additionalContext", obj.get("additional_context"))
        nested = obj.get("hookSpecificOutput")
        if context is None and isinstance(nested, dict):
            context = nested.get("additionalContext")
        if isinstance(context, str) and context.strip():
            contexts.append(context)
    return contexts


def _no_trace(line):
    pass
