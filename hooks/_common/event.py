"""One hook call as a value: ``parse()`` reads any host's payload, the renderers write its answer.

    event = parse(stdin_text, argv_event=None, host=None)   # never raises
    read_stdin() -> str                  # the hook's stdin, decoded with replacement
    render_context(event, text) -> str   # one JSON line, or "" when text is empty
    render_deny(event, reason) -> str    # one JSON line; the hook still exits 0

Every hook reads its input here, once, whatever the host and its spelling
(pre-commit's "normalise at the edge"): Claude Code's snake_case payloads,
Copilot CLI's camelCase ones (``toolName``, ``toolArgs`` as an object or a JSON
string, no event name in the payload), Copilot loading a Claude-format settings
file (snake_case with Copilot's lower-case tool names), Codex's, and Gemini CLI's
(snake_case, its own event and tool names: ``BeforeTool``, ``run_shell_command``).

Host and dialect are separate facts: the host is who runs the hook, the dialect
is the output shape it reads (``hosts.DIALECTS``). The dialect is ``copilot``
(flat) when the event is spelled the Copilot way or the payload has Copilot's
camelCase keys and no ``hook_event_name``; otherwise it is nested (``codex`` for
Codex, else ``claude``). ``host`` names the host when the caller knows it;
otherwise it is inferred: Copilot by the flat dialect, by a lower-case Copilot
tool name, or by an ISO ``timestamp`` without ``transcript_path``; Codex by
``turn_id`` or a Codex-only tool name; Gemini by a Gemini-only event or tool name, or
an ISO ``timestamp`` beside ``transcript_path``; Cursor by a key only its payloads carry
(``conversation_id``, ``workspace_roots``, ``cursor_version``; ``hosts.CURSOR_KEYS``) or a
Cursor-only event name, whichever wiring runs the hook (its own hooks.json, or a Claude Code
settings file Cursor loads); opencode and Pi by their plugin event names (``tool.execute.before``,
``tool_call``, ...), which only hookmux's plugin and extension for them send; Qwen Code by an ISO
``timestamp`` beside ``permission_mode`` (``hosts.QWEN_KEYS``: no other host sends both) unless the
event name is Gemini's own; else Claude Code. Qwen's dialect is Claude's nested one; its tool names
are Gemini's. Gemini's dialect nests context as Claude's does and denies flat
(``{"decision": "deny", "reason": R}``). Cursor's is flat: ``{"permission": "deny",
"user_message": R, "agent_message": R}``, ``{"additional_context": T}`` (postToolUse,
sessionStart); its ``beforeShellExecution`` (no tool in the payload) reads as a ``Shell`` call.

JSON goes through the C accelerator the ``json`` package itself uses, without
importing that package (it costs about as much again as the interpreter's
start); output is byte-identical to ``json.dumps`` with its default separators.
Standard library only; import cost is one small module plus ``hosts``.
"""
import sys

from . import hosts as _hosts

try:
    from _json import encode_basestring_ascii as _quote
    from _json import make_encoder as _make_encoder
    from _json import make_scanner as _make_scanner
except ImportError:  # an interpreter without the accelerator
    _make_scanner = None

_CANONICAL_EVENTS = {}
for _host in _hosts.HOSTS:
    _CANONICAL_EVENTS.update(_hosts.EVENTS[_host])
del _host
_COPILOT_EVENTS = _hosts.EVENTS[_hosts.COPILOT]
_COPILOT_TOOLS = _hosts.TOOLS[_hosts.COPILOT]
_CODEX_TOOLS = ("apply_patch",) + tuple(_hosts.TOOLS[_hosts.CODEX])
_FLAT_KEYS = ("toolName", "toolArgs", "sessionId", "toolResult")
_GEMINI_EVENTS = frozenset(_hosts.EVENTS[_hosts.GEMINI]) - frozenset(_hosts.EVENTS[_hosts.CLAUDE]) | frozenset(
    ("BeforeModel", "AfterModel", "BeforeToolSelection"))
_GEMINI_TOOLS = frozenset(_hosts.TOOLS[_hosts.GEMINI]) - frozenset(_COPILOT_TOOLS) - frozenset(("web_fetch",))
_GEMINI_NATIVE_EVENTS = {canonical: native for native, canonical in _hosts.EVENTS[_hosts.GEMINI].items()}
_CURSOR_EVENTS = frozenset(_hosts.EVENTS[_hosts.CURSOR]) - frozenset(_hosts.EVENTS[_hosts.COPILOT])
_PLUGIN_EVENTS = {native: host for host in (_hosts.OPENCODE, _hosts.PI) for native in _hosts.EVENTS[host]}


class Event:
    """One hook call, normalised. Strings are "" and containers empty when the payload lacks them."""

    __slots__ = (
        "host", "dialect", "name", "native_name", "session_id", "tool_name", "native_tool_name",
        "tool_input", "tool_response", "tool_calls", "cwd", "prompt", "stop_hook_active", "source",
        "payload", "payload_event", "ok",
    )

    def __init__(self):
        #: ``claude``, ``copilot``, ``codex`` or ``gemini``: who runs the hook.
        self.host = _hosts.CLAUDE
        #: ``claude`` (nested), ``copilot`` (flat), ``codex`` (nested, strict) or ``gemini``
        #: (nested context, flat deny): the output shape.
        self.dialect = _hosts.CLAUDE
        #: The canonical (Claude Code) event name; an unknown name is kept as it came.
        self.name = ""
        #: The event name as the command line or the payload spelled it.
        self.native_name = ""
        self.session_id = ""
        #: Canonical tool name (Copilot's ``bash`` -> ``Bash``); "" when there is none.
        self.tool_name = ""
        self.native_tool_name = ""
        #: The tool's arguments as a dict (Copilot's JSON-string ``toolArgs`` parsed); {} otherwise.
        self.tool_input = {}
        #: ``tool_response`` or Copilot's ``toolResult``, as sent; None when absent.
        self.tool_response = None
        #: PostToolBatch: the ``tool_calls`` items that are objects, as sent.
        self.tool_calls = []
        self.cwd = ""
        self.prompt = ""
        #: True only when the payload says exactly ``true``.
        self.stop_hook_active = False
        #: SessionStart's ``source`` (``startup``, ``resume``, ...).
        self.source = ""
        #: The payload dict, or None when stdin was not a JSON object.
        self.payload = None
        #: The payload's own ``hook_event_name`` ("" without one): Cursor running a Claude Code
        #: settings file names Claude's event on the command line and its own here.
        self.payload_event = ""
        #: True when stdin was a JSON object and an event name was found.
        self.ok = False

    def tool_names(self):
        """Canonical names of the tools this call is about: one, or PostToolBatch's calls; [] for others."""
        if self.payload is None or self.name not in _hosts.TOOL_EVENTS:
            return []
        if self.name != "PostToolBatch":
            aliases = _hosts.TOOL_ALIASES.get(self.host, {}).get(self.tool_name, ())
            return [self.tool_name, *aliases] if self.tool_name else []
        tools = _hosts.TOOLS.get(self.host, {})
        names = [call.get("tool_name") for call in self.tool_calls]
        return [tools.get(name, name) for name in names if isinstance(name, str)]

    def __repr__(self):
        return "Event(host=%r, dialect=%r, name=%r, tool_name=%r, ok=%r)" % (
            self.host, self.dialect, self.name, self.tool_name, self.ok)


def parse(stdin_text, argv_event=None, host=None):
    """The Event for this stdin and command-line event name. Never raises."""
    event = Event()
    try:
        _fill(event, stdin_text, argv_event, host)
    except Exception:
        pass
    return event


def read_stdin():
    """The hook's stdin as text: bytes decoded as UTF-8 with replacement (a host may cut a
    payload mid-character), or the text of a stand-in stream that has no bytes."""
    try:
        data = sys.stdin.buffer.read()
    except AttributeError:
        return sys.stdin.read()
    return data.decode("utf-8", "replace")


def loads(text):
    """Parse one JSON document (str, or UTF-8 bytes); ValueError if it is not one."""
    if _make_scanner is None:
        import json

        return json.loads(text)
    if isinstance(text, bytes):
        text = text.decode("utf-8")
    elif not isinstance(text, str):
        raise TypeError("JSON text must be str or bytes")
    start = len(text) - len(text.lstrip(_WHITESPACE))
    try:
        value, end = _scan(text, start)
    except (StopIteration, SystemError):
        # SystemError: before 3.12 the accelerator cannot build its JSONDecodeError
        # unless json.decoder was imported already.
        raise ValueError("not JSON") from None
    if text[end:].strip(_WHITESPACE):
        raise ValueError("extra data after JSON")
    return value


def dumps(obj):
    """``json.dumps(obj)``, byte for byte (no cycle check: for values read from JSON and their like)."""
    if _make_scanner is None:
        import json

        return json.dumps(obj)
    return "".join(_encode(obj, 0))


def _not_serializable(value):
    raise TypeError("%s is not JSON serializable" % type(value).__name__)


def render_context(event, text):
    """Text for the model, in the event's dialect: one JSON line, or "" when ``text`` is empty."""
    if not text:
        return ""
    if event.dialect == _hosts.COPILOT:
        return dumps({"additionalContext": text}) + "\n"
    if event.dialect == _hosts.CURSOR:
        if event.name not in _hosts.CONTEXT_EVENTS[_hosts.CURSOR] or (
                event.payload_event and event.payload_event not in _hosts.CURSOR_CONTEXT_EVENTS):
            return ""  # afterShellExecution, afterFileEdit, beforeSubmitPrompt: no output read
        return dumps({"additional_context": text}) + "\n"
    if event.name not in _hosts.CONTEXT_EVENTS.get(event.dialect, (event.name,)):
        return ""  # this host would reject (or drop) the output
    name = _GEMINI_NATIVE_EVENTS.get(event.name, event.name) if event.dialect == _hosts.GEMINI else event.name
    if event.dialect == _hosts.QWEN and event.native_name in _hosts.READ_AS[_hosts.QWEN]:
        name = event.native_name  # Qwen reads only the answer naming the event it ran
    return dumps({"hookSpecificOutput": {"hookEventName": name, "additionalContext": text}}) + "\n"


def render_ask(event, reason):
    """Claude Code's PreToolUse ``ask`` with ``reason``: the host's own prompt to the person at
    the terminal (docs/e2e.md, "permissionDecision ask, by mode"). Only for a Claude Code call
    whose session is attended; everywhere else an ask is a deny or goes to a program."""
    return dumps({"hookSpecificOutput": {
        "hookEventName": "PreToolUse",
        "permissionDecision": "ask",
        "permissionDecisionReason": reason,
    }}) + "\n"


def render_deny(event, reason):
    """A PreToolUse deny with ``reason``, in the event's dialect: one JSON line, read at exit 0."""
    flat = _hosts.FLAT_DENY.get(event.dialect)
    if flat is not None:
        answer = {flat[0]: "deny"}
        for key in flat[1:]:
            answer[key] = reason
        return dumps(answer) + "\n"
    return dumps({"hookSpecificOutput": {
        "hookEventName": event.name or "PreToolUse",
        "permissionDecision": "deny",
        "permissionDecisionReason": reason,
    }}) + "\n"


# ---------------------------------------------------------------- reading


def _fill(event, stdin_text, argv_event, host):
    try:
        payload = loads(stdin_text)
    except (ValueError, TypeError, RecursionError):
        payload = None
    if not isinstance(payload, dict):
        payload = None
    event.payload = payload
    payload = payload or {}

    in_payload = payload.get("hook_event_name")
    event.payload_event = in_payload if isinstance(in_payload, str) else ""
    native = argv_event if isinstance(argv_event, str) and argv_event else in_payload
    event.native_name = native if isinstance(native, str) else ""
    event.name = _CANONICAL_EVENTS.get(event.native_name, event.native_name)
    event.ok = event.payload is not None and bool(event.name)

    flat = event.native_name in _COPILOT_EVENTS or (
        "hook_event_name" not in payload and any(key in payload for key in _FLAT_KEYS))
    native_tool = payload["tool_name"] if "tool_name" in payload else payload.get("toolName")
    cursor_tool = _hosts.CURSOR_EVENT_TOOLS.get(event.payload_event) or _hosts.CURSOR_EVENT_TOOLS.get(event.native_name)
    if cursor_tool is not None and native_tool is None:
        native_tool = cursor_tool[0]
    event.native_tool_name = native_tool if isinstance(native_tool, str) else ""
    event.host = host if host in _hosts.HOSTS else _infer_host(
        payload, flat, event.native_name or event.payload_event, event.native_tool_name, event.payload_event)
    if event.host == _hosts.CURSOR:
        flat = False  # Cursor's camelCase event names are its own, not Copilot's
    if flat:
        event.dialect = _hosts.COPILOT
    elif event.host in (_hosts.CODEX, _hosts.GEMINI, _hosts.CURSOR, _hosts.QWEN):
        event.dialect = event.host
    else:
        event.dialect = _hosts.CLAUDE
    event.tool_name = _hosts.TOOLS[event.host].get(event.native_tool_name, event.native_tool_name)
    read_as = _hosts.READ_AS.get(event.host)
    if read_as:
        event.name = read_as.get(event.native_name, event.name)
    if event.payload is not None:
        _fill_fields(event, payload)
        if event.host == _hosts.CURSOR:
            _fill_cursor(event, payload, cursor_tool)
        keys = _hosts.INPUT_KEYS.get(event.host)
        if keys:
            for native_key, key in keys.items():
                if native_key in event.tool_input and key not in event.tool_input:
                    event.tool_input[key] = event.tool_input[native_key]


def _infer_host(payload, flat, native_event, native_tool, payload_event=""):
    plugin_host = _PLUGIN_EVENTS.get(native_event) or _PLUGIN_EVENTS.get(payload_event)
    if plugin_host is not None:
        return plugin_host
    if any(key in payload for key in _hosts.CURSOR_KEYS) or payload_event in _CURSOR_EVENTS or (
            native_event in _CURSOR_EVENTS):  # a name only Cursor has, from the payload or argv
        return _hosts.CURSOR
    if native_event in _GEMINI_EVENTS:
        return _hosts.GEMINI
    if isinstance(payload.get(_hosts.QWEN_KEYS[0]), str) and _hosts.QWEN_KEYS[1] in payload:
        return _hosts.QWEN
    if native_tool in _GEMINI_TOOLS:
        return _hosts.GEMINI
    if flat or native_tool in _COPILOT_TOOLS:
        return _hosts.COPILOT
    if "turn_id" in payload or native_tool in _CODEX_TOOLS:
        return _hosts.CODEX
    if isinstance(payload.get("timestamp"), str):  # Claude Code and Codex send none
        return _hosts.GEMINI if "transcript_path" in payload else _hosts.COPILOT
    return _hosts.CLAUDE


def _fill_fields(event, payload):
    event.session_id = _first_string(payload, "session_id", "sessionId")
    event.tool_input = _tool_input(payload["tool_input"] if "tool_input" in payload else payload.get("toolArgs"))
    response = payload["tool_response"] if "tool_response" in payload else payload.get("toolResult")
    event.tool_response = response
    calls = payload.get("tool_calls")
    event.tool_calls = [call for call in calls if isinstance(call, dict)] if isinstance(calls, list) else []
    event.cwd = _first_string(payload, "cwd")
    event.prompt = _first_string(payload, "prompt")
    event.source = _first_string(payload, "source")
    event.stop_hook_active = payload.get("stop_hook_active") is True


def _fill_cursor(event, payload, cursor_tool):
    """Cursor's spellings: the conversation is the session, the first workspace root the cwd
    when the event sends none, and the shell and file events' one argument the tool's input."""
    event.session_id = _first_string(payload, "conversation_id", "session_id")
    if not event.cwd:
        roots = payload.get("workspace_roots")
        if isinstance(roots, list) and roots and isinstance(roots[0], str):
            event.cwd = roots[0]
    if not event.cwd and isinstance(event.tool_input.get("working_directory"), str):
        event.cwd = event.tool_input["working_directory"]
    if cursor_tool is not None and not event.tool_input:
        value = payload.get(cursor_tool[1])
        if isinstance(value, str):
            event.tool_input = {cursor_tool[1]: value}
    if event.tool_response is None and event.name == "PostToolUse":
        for key in ("tool_output", "output"):
            if key in payload:
                event.tool_response = payload[key]
                break


def _first_string(payload, *keys):
    for key in keys:
        value = payload.get(key)
        if isinstance(value, str) and value:
            return value
    return ""


def _tool_input(value):
    if isinstance(value, str):
        try:
            value = loads(value)
        except (ValueError, RecursionError):
            return {}
    return value if isinstance(value, dict) else {}


if _make_scanner is not None:

    class _Context:
        strict = True
        object_hook = None
        object_pairs_hook = None
        parse_float = float
        parse_int = int
        parse_constant = float
        memo = {}

    _scan = _make_scanner(_Context())
    # json.dumps's defaults: ensure_ascii, ", " and ": ", no sort, no skipping, NaN allowed
    _encode = _make_encoder(None, _not_serializable, _quote, None, ": ", ", ", False, False, True)
    _WHITESPACE = " \t\n\r"
