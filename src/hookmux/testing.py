"""Test your own checks the way the hosts run them: through the real dispatcher.

    from hookmux import testing

    call = testing.pre_tool_use("Bash", {"command": "git push --force"}, host="copilot")
    result = testing.run_check("mycheck/check.py", call, matcher="^Bash$")
    assert result.context == "..."          # what the model would read ("" when silent)
    assert result.trace[0].endswith("ok, silent")

``run_check`` writes a one-row manifest to a temporary folder and calls the package's
``dispatch.run()`` with it, exactly as the hook process would, but in this process: the
check is imported under the dispatcher's rules, its ``main()`` runs in the dispatcher's
thread with its own stdin/stdout, and only the ``additionalContext`` it prints counts.
``run_manifest`` does the same for a whole manifest (a path or a dict). Each run gets a
fresh ``HOOKMUX_STATE_DIR`` unless you pass ``state_dir`` (pass the same folder twice to
see "once per session" behaviour).

Payload builders — ``pre_tool_use``, ``post_tool_use``, ``post_tool_batch``,
``user_prompt_submit``, ``session_start``, ``stop``, ``subagent_stop`` — return a
``Call``: the event name as the host's command line passes it and the stdin text the host
sends, modelled on the payloads measured with the real binaries (docs/e2e.md). Hosts:

- ``claude``: Claude Code (snake_case, ``hook_event_name``, ``transcript_path``);
- ``copilot``: Copilot CLI's own hooks files (camelCase ``toolName``/``toolArgs``, a
  millisecond ``timestamp``, no event name in the payload: it comes from the command line;
  ``tool_args_as_string=True`` sends ``toolArgs`` as a JSON string, as older versions do);
- ``copilot-claude``: Copilot loading a Claude-format ``.claude/settings.json``
  (snake_case, an ISO ``timestamp``, Copilot's lower-case tool names);
- ``codex``: OpenAI Codex CLI (snake_case, ``turn_id``, ``model``);
- ``gemini``: Gemini CLI (snake_case, its own event and tool names -- ``BeforeTool``,
  ``run_shell_command`` -- an ISO ``timestamp``; ``tool_response`` ``{llmContent, returnDisplay}``).

Tool names are given the Claude Code way (``Bash``, ``Read``, ``Edit``...) and sent in the
host's own spelling.
"""
from __future__ import annotations

import contextlib
import json
import os
import re
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from hookmux import resources, wiring

__all__ = [
    "HOSTS", "Call", "Result", "run_check", "run_manifest", "manifest_for", "dispatcher",
    "pre_tool_use", "post_tool_use", "post_tool_batch", "user_prompt_submit", "session_start",
    "stop", "subagent_stop", "context_of",
]

HOSTS = ("claude", "copilot", "copilot-claude", "codex", "gemini")
SESSION = "hookmux-test-session"
BLOCK_NOTE = "tried to block: the dispatcher only advises"
_EMITTED = re.compile(r" emitted (\d+) chars(?!.*dropped)")


@dataclass(frozen=True)
class Call:
    """One hook call: ``event`` as the command line names it, ``stdin`` as the host sends it."""

    event: str
    stdin: str
    host: str = "claude"

    @property
    def payload(self) -> dict:
        return json.loads(self.stdin)


@dataclass
class Result:
    """What one dispatcher run produced."""

    output: str  #: exactly what the dispatcher prints: one JSON line, or ""
    trace: list[str] = field(default_factory=list)  #: one line per row, in manifest order

    @property
    def json(self) -> dict | None:
        return json.loads(self.output) if self.output.strip() else None

    @property
    def context(self) -> str:
        """The merged ``additionalContext`` the model would read; "" when nothing was emitted."""
        return context_of(self.output)

    @property
    def contexts(self) -> list[str]:
        """Each emitting row's context, in manifest order.

        The dispatcher joins them with a blank line; the trace gives each row's size, so
        contexts that hold blank lines themselves are still told apart (a row that printed
        several context lines counts as one)."""
        context = self.context
        if not context:
            return []
        sizes = [int(m.group(1)) for m in map(_EMITTED.search, self.trace) if m]
        if sum(sizes) + 2 * (len(sizes) - 1) == len(context):
            out, at = [], 0
            for size in sizes:
                out.append(context[at:at + size])
                at += size + 2
            return out
        return context.split("\n\n")

    @property
    def silent(self) -> bool:
        return not self.output.strip()

    @property
    def tried_to_block(self) -> bool:
        return any(BLOCK_NOTE in line for line in self.trace)


def context_of(output: str) -> str:
    """The ``additionalContext`` of a hook's output line (nested or flat); "" for none."""
    if not output.strip():
        return ""
    data = json.loads(output)
    nested = data.get("hookSpecificOutput")
    if isinstance(nested, dict) and "additionalContext" in nested:
        return nested["additionalContext"]
    return data.get("additionalContext", "")


# ---------------------------------------------------------------- running


_DISPATCH = None


def dispatcher():
    """The package's own dispatcher module (``dispatch.py``), imported once: the same code
    ``hookmux install`` copies. Its ``run(event, stdin_text, *, manifest, hooks_root, trace)``
    is what ``run_manifest`` calls."""
    global _DISPATCH
    if _DISPATCH is None:
        folder = str(resources.hooks_tree().joinpath(*wiring.DISPATCH_SCRIPT[:-1]))
        if folder not in sys.path:
            sys.path.insert(0, folder)
        import dispatch

        _DISPATCH = dispatch
    return _DISPATCH


@contextlib.contextmanager
def _environment(state_dir, env):
    """HOOKMUX_STATE_DIR (a fresh folder unless given), no manifest layers (a test of one check or
    manifest is not a test of the user's layer: ``env={"HOOKMUX_LAYERS": "1"}`` brings them back) and
    ``env`` set for the run only."""
    with contextlib.ExitStack() as stack:
        if state_dir is None:
            state_dir = stack.enter_context(tempfile.TemporaryDirectory(prefix="hookmux-test-state-"))
        changes = {"HOOKMUX_STATE_DIR": str(state_dir), "HOOKMUX_LAYERS": "0", **(env or {})}
        saved = {key: os.environ.get(key) for key in changes}
        os.environ.update({k: str(v) for k, v in changes.items()})
        try:
            yield
        finally:
            for key, value in saved.items():
                if value is None:
                    os.environ.pop(key, None)
                else:
                    os.environ[key] = value


def run_manifest(manifest, call: Call, *, hooks_root=None, state_dir=None, env=None) -> Result:
    """Run ``call`` through ``dispatch.run()`` with ``manifest`` (a path or a dict)."""
    lines: list[str] = []
    manifest = str(manifest) if isinstance(manifest, os.PathLike) else manifest
    root = str(hooks_root) if hooks_root is not None else None
    with _environment(state_dir, env), _kit_on_path():
        output = dispatcher().run(call.event, call.stdin, manifest=manifest, hooks_root=root,
                                        trace=lines.append)
    return Result(output, lines)


@contextlib.contextmanager
def _kit_on_path():
    """The package's hooks tree last on sys.path, so a check outside a hooks tree still finds
    ``_common`` (a check inside one gets its own tree's, which the dispatcher puts first)."""
    tree = str(resources.hooks_tree())
    added = tree not in sys.path
    if added:
        sys.path.append(tree)
    try:
        yield
    finally:
        if added and tree in sys.path:
            sys.path.remove(tree)


def manifest_for(script, event: str, *, hooks_root, name=None, matcher=None, args=(), timeout=8,
                 **row_fields) -> dict:
    """A one-row manifest for ``script`` (relative to ``hooks_root``)."""
    row = {"name": name or Path(script).with_suffix("").as_posix(), "script": Path(script).as_posix(),
           "args": list(args), "timeout": timeout, **row_fields}
    if matcher is not None:
        row["matcher"] = matcher
    return {"version": 1, "hooks_root": str(hooks_root), "events": {_canonical(event): {"checks": [row]}}}


def run_check(script, call: Call, *, matcher=None, args=(), timeout=8, hooks_root=None, name=None,
              state_dir=None, env=None, **row_fields) -> Result:
    """Run one check script through the dispatcher, as the only row of a temporary manifest.

    ``script`` is a path; relative paths are taken from ``hooks_root`` (default: the folder
    holding the script's own folder, i.e. the hooks tree when the check is
    ``<tree>/NAME/check.py``). Other keyword arguments become fields of the row
    (``emits=False``, ``isolate=[...]``).
    """
    script = Path(script)
    if hooks_root is None:
        script = script.resolve()
        hooks_root = script.parent.parent
    root = Path(hooks_root).resolve()
    rel = script.resolve().relative_to(root) if script.is_absolute() else script
    data = manifest_for(rel, call.event, hooks_root=root, name=name, matcher=matcher, args=args,
                        timeout=timeout, **row_fields)
    with tempfile.TemporaryDirectory(prefix="hookmux-test-manifest-") as folder:
        path = Path(folder) / "manifest.json"
        path.write_text(json.dumps(data, indent=2))
        return run_manifest(path, call, state_dir=state_dir, env=env)


# ---------------------------------------------------------------- payloads


_hosts = resources.runtime("hosts")
_COPILOT_EVENTS = {canonical: native for native, canonical in _hosts.EVENTS[_hosts.COPILOT].items()}
_NATIVE_TOOLS = {"claude": {}, "codex": {v: k for k, v in _hosts.TOOLS[_hosts.CODEX].items()},
                 "copilot": {v: k for k, v in _hosts.TOOLS[_hosts.COPILOT].items()}}
_NATIVE_TOOLS["copilot-claude"] = _NATIVE_TOOLS["copilot"]
_NATIVE_TOOLS["gemini"] = {v: k for k, v in _hosts.TOOLS[_hosts.GEMINI].items()}
_GEMINI_EVENTS = {canonical: native for native, canonical in _hosts.EVENTS[_hosts.GEMINI].items()}
_TIMESTAMP_MS = 1_764_500_000_000


def _canonical(event: str) -> str:
    return _hosts.EVENTS[_hosts.COPILOT].get(event) or _hosts.EVENTS[_hosts.GEMINI].get(event, event)


def _check_host(host: str) -> None:
    if host not in HOSTS:
        raise ValueError(f"host {host!r}: one of {', '.join(HOSTS)}")


def _base(event: str, host: str, session_id: str, cwd: str | None) -> tuple[str, dict]:
    """The command-line event name and the fields every payload of this host carries."""
    _check_host(host)
    cwd = cwd or os.getcwd()
    if host == "copilot":
        native = _COPILOT_EVENTS.get(event)
        if native is None:
            raise ValueError(f"Copilot CLI has no {event} hook")
        return native, {"sessionId": session_id, "timestamp": _TIMESTAMP_MS, "cwd": cwd}
    if host == "copilot-claude":
        return event, {"hook_event_name": event, "session_id": session_id,
                       "timestamp": "2026-11-30T10:00:00.000Z", "cwd": cwd}
    if host == "gemini":
        native = _GEMINI_EVENTS.get(event)
        if native is None:
            raise ValueError(f"Gemini CLI has no {event} hook")
        return native, {"session_id": session_id, "transcript_path": f"/tmp/{session_id}.jsonl", "cwd": cwd,
                        "hook_event_name": native, "timestamp": "2026-12-01T08:43:12.367Z"}
    common = {"session_id": session_id, "transcript_path": f"/tmp/{session_id}.jsonl", "cwd": cwd,
              "hook_event_name": event}
    if host == "codex":
        common.update(model="gpt-5", permission_mode="default", turn_id="turn-1")
    else:
        common.update(permission_mode="default")
    return event, common


def _call(event: str, host: str, fields: dict, session_id: str, cwd: str | None, extra: dict) -> Call:
    native, payload = _base(event, host, session_id, cwd)
    payload.update(fields)
    payload.update(extra)
    return Call(native, json.dumps(payload), host)


def _tool(host: str, tool: str) -> str:
    return _NATIVE_TOOLS[host].get(tool, tool)


def _tool_fields(host: str, tool: str, tool_input: dict, as_string: bool) -> dict:
    if host == "copilot":
        return {"toolName": _tool(host, tool), "toolArgs": json.dumps(tool_input) if as_string else tool_input}
    fields = {"tool_name": _tool(host, tool), "tool_input": tool_input}
    if host in ("claude", "codex"):
        fields["tool_use_id"] = "toolu_hookmux_test"
    return fields


def pre_tool_use(tool: str, tool_input: dict | None = None, *, host: str = "claude", session_id: str = SESSION,
                 cwd: str | None = None, tool_args_as_string: bool = False, **extra) -> Call:
    """A PreToolUse (Copilot: preToolUse) call for ``tool`` (Claude Code's name) with ``tool_input``."""
    fields = _tool_fields(host, tool, dict(tool_input or {}), tool_args_as_string)
    return _call("PreToolUse", host, fields, session_id, cwd, extra)


def post_tool_use(tool: str, tool_input: dict | None = None, response="", *, host: str = "claude",
                  session_id: str = SESSION, cwd: str | None = None, tool_args_as_string: bool = False,
                  **extra) -> Call:
    """A PostToolUse call; ``response`` is the tool's result (text, or a dict on Claude Code)."""
    fields = _tool_fields(host, tool, dict(tool_input or {}), tool_args_as_string)
    if host == "copilot":
        fields["toolResult"] = {"resultType": "success", "textResultForLlm": str(response)}
    elif host == "gemini":
        fields["tool_response"] = {"llmContent": str(response), "returnDisplay": str(response)}
    else:
        fields["tool_response"] = response
    return _call("PostToolUse", host, fields, session_id, cwd, extra)


def post_tool_batch(calls: list[tuple], *, host: str = "claude", session_id: str = SESSION,
                    cwd: str | None = None, **extra) -> Call:
    """Claude Code's PostToolBatch: ``calls`` are (tool, tool_input, response) tuples."""
    if host != "claude":
        raise ValueError("only Claude Code sends PostToolBatch")
    items = [{"tool_name": tool, "tool_input": tool_input, "tool_use_id": f"toolu_hookmux_test_{i}",
              "tool_response": response} for i, (tool, tool_input, response) in enumerate(calls)]
    return _call("PostToolBatch", host, {"tool_calls": items}, session_id, cwd, extra)


def user_prompt_submit(prompt: str, *, host: str = "claude", session_id: str = SESSION, cwd: str | None = None,
                       **extra) -> Call:
    return _call("UserPromptSubmit", host, {"prompt": prompt}, session_id, cwd, extra)


def session_start(source: str = "startup", *, host: str = "claude", session_id: str = SESSION,
                  cwd: str | None = None, **extra) -> Call:
    return _call("SessionStart", host, {"source": source}, session_id, cwd, extra)


def stop(stop_hook_active: bool = False, *, host: str = "claude", session_id: str = SESSION,
         cwd: str | None = None, last_assistant_message: str = "Done.", **extra) -> Call:
    """A Stop call (Copilot: agentStop). Claude Code re-prompts on every Stop that adds context:
    a Stop check must be silent when ``stop_hook_active`` is true (the dispatcher ensures it)."""
    fields = {} if host == "copilot" else {"stop_hook_active": stop_hook_active,
                                             "last_assistant_message": last_assistant_message}
    if host == "gemini":  # AfterAgent (measured, Gemini CLI 0.61.0)
        fields = {"prompt": "", "prompt_response": last_assistant_message, "stop_hook_active": stop_hook_active}
    return _call("Stop", host, fields, session_id, cwd, extra)


def subagent_stop(stop_hook_active: bool = False, *, host: str = "claude", session_id: str = SESSION,
                  cwd: str | None = None, **extra) -> Call:
    fields = {} if host == "copilot" else {"stop_hook_active": stop_hook_active}
    return _call("SubagentStop", host, fields, session_id, cwd, extra)
