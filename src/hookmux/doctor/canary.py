"""One canary event through one wired hook's exact command line, the way its host runs it.

- the shell: Claude Code ``/bin/sh -c``, Copilot CLI ``bash -c`` (its key is ``bash``), Codex
  ``/bin/bash -c`` (host-contract.md);
- the payload: the host's own shape for that event (Claude Code's snake_case with
  ``transcript_path``; Copilot's camelCase with the event on the command line; Codex's with
  ``turn_id``, sent without a final newline), naming a tool the hook's rows want;
- the environment: the user's, with HOME, the state folders and the project in the sandbox,
  and ``HOOKMUX_TRACE=1`` so the dispatcher says, row by row, what it ran;
- the working directory: the sandbox's project; the timeout: the entry's (capped at ``MAX_WAIT``);
- the plugin's hooks: run as the host that loads them runs them (its shell, its payload, its
  answer rules), with the plugin variables that host sets (``plugins.PluginRoot.env``);
- Cursor (``~/.cursor/hooks.json``, a project's ``.cursor/hooks.json``): ``/bin/sh -c`` and
  Cursor's documented payload (``conversation_id``, ``workspace_roots``, tool ``Shell``): no
  Cursor was run to measure it (docs/e2e.md);
- Gemini CLI (its settings and its extension): ``bash -c`` with ``$GEMINI_PROJECT_DIR`` & co. put
  into the command as Gemini puts them in, the payload compact without a final newline, the
  entry's ``timeout`` in milliseconds (default 60000). Its command lines send stderr to /dev/null,
  so no trace comes back: the proof that the dispatcher ran is the ledger record it writes in the
  sandbox's state folder (``Result.ledger``, its rows by name in ``Result.by_name``).
"""
from __future__ import annotations

import dataclasses
import json
import os
import re
import shlex
import signal
import subprocess
import time
from dataclasses import dataclass, field

from hookmux import resources, testing
from hookmux.doctor.sandbox import CANARY, SESSION, Sandbox
from hookmux.doctor.wirings import CLAUDE, CODEX, COPILOT, CURSOR, GEMINI, PLUGIN, QWEN, Hook

_hosts = resources.runtime("hosts")
SHELLS = {CLAUDE: ["/bin/sh", "-c"], PLUGIN: ["/bin/sh", "-c"], COPILOT: ["bash", "-c"], CODEX: ["/bin/bash", "-c"],
          GEMINI: ["bash", "-c"], CURSOR: ["/bin/sh", "-c"], QWEN: ["bash", "-c"]}
DEFAULT_TIMEOUT = {CLAUDE: 60.0, PLUGIN: 60.0, COPILOT: 30.0, CODEX: 600.0, GEMINI: 60.0, CURSOR: 60.0, QWEN: 60.0}
MAX_WAIT = 30.0
# Gemini puts these into a hook's command (shell-quoted) before it runs it.
GEMINI_COMMAND_VARIABLES = ("GEMINI_PROJECT_DIR", "GEMINI_CWD", "GEMINI_PLANS_DIR", "GEMINI_SESSION_ID",
                            "CLAUDE_PROJECT_DIR")
# The ledger's row codes (hooks/_common/ledger.py) in the trace's words, for Gemini's canaries.
LEDGER_WORDS = {"import-error": "selected, import error", "error": "selected, error (the check raised)",
                "timeout": "selected, timeout", "not-run": "selected, not run", "breaker-open": "skipped: breaker open"}
_TRACE = re.compile(r"^hookmux: \[(\d+)\] (.*?)  (.*)$")


@dataclass
class Result:
    host: str
    shell: list[str]
    payload: dict
    exit: int | None
    ms: float
    stdout: str
    stderr: str
    timed_out: bool = False
    rows: dict[int, str] = field(default_factory=dict)  # row index -> the trace's words for it
    trace: list[str] = field(default_factory=list)
    ledger: list[dict] = field(default_factory=list)  # Gemini: the dispatch records the canary wrote
    by_name: dict[str, str] = field(default_factory=dict)  # Gemini: row name -> words, from the ledger

    def as_dict(self) -> dict:
        return {"host": self.host, "shell": self.shell[0], "tool": self.payload.get("tool_name") or self.payload.get("toolName"),
                "exit": self.exit, "ms": round(self.ms, 1), "timed_out": self.timed_out,
                "stdout": self.stdout[:2000], "stderr": self.stderr[-2000:], "trace": self.trace,
                **({"ledger": self.ledger} if self.host == GEMINI else {})}


def tool_input(tool: str, cwd: str, host: str) -> dict:
    if tool in ("Bash", "PowerShell"):
        return {"command": "echo hookmux-doctor"}
    if tool in ("Edit", "MultiEdit", "Write", "Read", "NotebookEdit", "NotebookRead"):
        return {"file_path": os.path.join(cwd, "doctor.txt"), "old_string": "a", "new_string": "b", "content": "b"}
    if tool == "apply_patch":
        return {"command": "*** Begin Patch\n*** End Patch\n"}
    if tool == "Skill":
        return {"skill": CANARY}
    if tool == "Agent":
        key = {COPILOT: "agent_type", CODEX: "agent_type"}.get(host, "subagent_type")
        return {key: "general-purpose", "prompt": "hookmux doctor canary", "message": "hookmux doctor canary"}
    return {}


def native_tool(host: str, tool: str) -> str:
    """The host's own name for a dispatcher tool name (Codex: an edit is ``apply_patch``)."""
    host = host if host != PLUGIN else CLAUDE
    for raw, canonical in _hosts.TOOLS.get(host, {}).items():
        if canonical == tool:
            return raw
    for native, names in _hosts.TOOL_ALIASES.get(host, {}).items():
        if tool in names:
            return native
    return tool


def payload(hook: Hook, tool: str | None, sandbox: Sandbox, host: str | None = None) -> dict:
    """The canary: the dispatcher's canary names ``tool``; the gate's names the canary agent.
    ``host`` COPILOT for a Claude-format file: what Copilot's loader of it sends (snake_case,
    Copilot's lower-case tool names, an ISO timestamp, no transcript_path)."""
    cwd = str(sandbox.project)
    fmt, event = hook.format, hook.canonical
    if hook.role == "gate":
        return _gate_payload(hook, cwd)
    if hook.role == "danger":
        return _danger_payload(hook, cwd, host)
    if fmt == GEMINI:
        return _gemini_payload(event, tool or "Bash", cwd)
    if fmt == CURSOR:
        return _cursor_payload(hook.event, event, tool or "Bash", cwd)
    if host == COPILOT and fmt != COPILOT:
        tool = tool or "Bash"
        data = {"hook_event_name": event, "session_id": SESSION, "cwd": cwd,
                "timestamp": time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime())}
        if event in _hosts.TOOL_EVENTS:
            data.update(tool_name=native_tool(COPILOT, tool), tool_input=tool_input(tool, cwd, COPILOT))
        return _event_fields(data, event, "prompt", "source")
    tool = tool or "Bash"
    if fmt == COPILOT:
        data = {"sessionId": SESSION, "timestamp": int(time.time() * 1000), "cwd": cwd}
        if event in _hosts.TOOL_EVENTS:
            data.update(toolName=native_tool(COPILOT, tool), toolArgs=tool_input(tool, cwd, COPILOT))
            if event == "PostToolUse":
                data["toolResult"] = {"resultType": "success", "textResultForLlm": "hookmux-doctor"}
        return _event_fields(data, event, "prompt", "source")
    data = {"session_id": SESSION, "transcript_path": os.path.join(cwd, "transcript.jsonl"), "cwd": cwd,
            "hook_event_name": event, "permission_mode": "default"}
    if fmt == CODEX:
        data.update(turn_id="hookmux-doctor-turn", model="hookmux-doctor")
    if fmt == QWEN:  # what Qwen Code 0.24.4 sends: its own event name, an ISO timestamp, its tool names
        data.update(hook_event_name=hook.event, permission_mode="yolo",
                    timestamp=time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime()))
    host = {CODEX: CODEX, QWEN: QWEN}.get(fmt, CLAUDE)
    name = native_tool(host, tool)
    tool = "apply_patch" if name == "apply_patch" else tool
    if event == "PostToolBatch":
        data["tool_calls"] = [{"tool_name": name, "tool_input": tool_input(tool, cwd, host),
                               "tool_use_id": "doctor-1", "tool_response": "hookmux-doctor"}]
    elif event in _hosts.TOOL_EVENTS or event in ("PermissionRequest", "PostToolUseFailure"):
        data.update(tool_name=name, tool_input=tool_input(tool, cwd, host), tool_use_id="doctor-1")
        if event.startswith("PostToolUse"):
            data["tool_response"] = "hookmux-doctor"
    return _event_fields(data, event, "prompt", "source")


def _event_fields(data: dict, event: str, *keys) -> dict:
    if event == "UserPromptSubmit":
        data["prompt"] = "hookmux doctor canary"
    elif event == "SessionStart":
        data["source"] = "startup"
    elif event in _hosts.STOP_EVENTS:
        data.update(stop_hook_active=False, last_assistant_message="")
    return data


def _gemini_payload(event: str, tool: str, cwd: str) -> dict:
    """Gemini's payload for the canonical ``event`` (``hookmux.testing``'s, measured with the binary)."""
    where = {"session_id": SESSION, "cwd": cwd, "host": GEMINI}
    if event == "PreToolUse":
        call = testing.pre_tool_use(tool, tool_input(tool, cwd, GEMINI), **where)
    elif event == "PostToolUse":
        call = testing.post_tool_use(tool, tool_input(tool, cwd, GEMINI), "hookmux-doctor", **where)
    elif event == "UserPromptSubmit":
        call = testing.user_prompt_submit("hookmux doctor canary", **where)
    elif event == "SessionStart":
        call = testing.session_start(**where)
    elif event == "Stop":
        call = testing.stop(**where)
    else:
        native = {canonical: name for name, canonical in _hosts.EVENTS[GEMINI].items()}.get(event, event)
        return {"session_id": SESSION, "transcript_path": os.path.join(cwd, "t.jsonl"), "cwd": cwd,
                "hook_event_name": native, "timestamp": time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime())}
    data = call.payload
    data["transcript_path"] = os.path.join(cwd, "t.jsonl")
    return data


def _cursor_base(native: str, cwd: str) -> dict:
    """What every Cursor hook receives (cursor.com/docs/agent/hooks, "Input (all hooks)")."""
    return {"conversation_id": SESSION, "generation_id": "hookmux-doctor", "model": "hookmux-doctor",
            "hook_event_name": native, "cursor_version": "hookmux-doctor", "workspace_roots": [cwd],
            "user_email": None, "transcript_path": None}


def _cursor_payload(native: str, event: str, tool: str, cwd: str) -> dict:
    data = _cursor_base(native, cwd)
    if event in _hosts.TOOL_EVENTS:
        data.update(tool_name=native_tool(CURSOR, tool), tool_input=tool_input(tool, cwd, CURSOR),
                    tool_use_id="doctor-1", cwd=cwd)
        if event == "PostToolUse":
            data.update(tool_output="hookmux-doctor", duration=1)
    elif event == "UserPromptSubmit":
        data.update(prompt="hookmux doctor canary", attachments=[])
    elif event == "SessionStart":
        data.update(session_id=SESSION, is_background_agent=False, composer_mode="agent")
    elif event in _hosts.STOP_EVENTS:
        data.update(status="completed", loop_count=0)
    return data


def gemini_command(command: str, cwd: str, env: dict) -> str:
    """The command as Gemini runs it: ``$GEMINI_PROJECT_DIR`` & co. replaced by their values, quoted."""
    for name in GEMINI_COMMAND_VARIABLES:
        command = command.replace("$" + name, shlex.quote(env.get(name, cwd)))
    return command


def _danger_payload(hook: Hook, cwd: str, host: str | None) -> dict:
    """The danger gate's canary: a recursive delete of the doctor's own sandbox project (the
    whole project), which the gate denies. It is data on the gate's stdin: nothing runs it."""
    command = f"rm -r -f {shlex.quote(cwd)}"
    if hook.format == GEMINI:
        return {"session_id": SESSION, "transcript_path": os.path.join(cwd, "t.jsonl"), "cwd": cwd,
                "hook_event_name": hook.event, "timestamp": time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime()),
                "tool_name": "run_shell_command", "tool_input": {"command": command, "description": "hookmux doctor"}}
    if hook.format == COPILOT:
        return {"sessionId": SESSION, "timestamp": int(time.time() * 1000), "cwd": cwd,
                "toolName": "bash", "toolArgs": {"command": command}}
    if hook.format == CURSOR:
        return {**_cursor_base(hook.event, cwd), "tool_name": "Shell", "tool_use_id": "doctor-1", "cwd": cwd,
                "tool_input": {"command": command, "working_directory": cwd}}
    base = {"session_id": SESSION, "cwd": cwd, "hook_event_name": hook.canonical, "tool_input": {"command": command}}
    if hook.format == QWEN:
        return {**base, "transcript_path": os.path.join(cwd, "t.jsonl"), "hook_event_name": hook.event,
                "timestamp": time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime()), "permission_mode": "yolo",
                "tool_name": "run_shell_command", "tool_use_id": "doctor-1"}
    if hook.format == CODEX:
        return {**base, "transcript_path": os.path.join(cwd, "t.jsonl"), "turn_id": "hookmux-doctor-turn",
                "model": "hookmux-doctor", "permission_mode": "default", "tool_name": "Bash", "tool_use_id": "doctor-1"}
    if host == COPILOT:  # Copilot's loader of a Claude-format file: snake_case, lower-case tool names
        return {**base, "timestamp": time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime()), "tool_name": "bash"}
    return {**base, "transcript_path": os.path.join(cwd, "t.jsonl"), "tool_name": "Bash", "tool_use_id": "doctor-1"}


def _gate_payload(hook: Hook, cwd: str) -> dict:
    if hook.format == COPILOT:
        return {"sessionId": SESSION, "timestamp": int(time.time() * 1000), "cwd": cwd,
                "toolName": "skill", "toolArgs": {"skill": CANARY}}
    base = {"session_id": SESSION, "cwd": cwd, "hook_event_name": hook.canonical}
    if hook.format == CODEX:
        return {**base, "transcript_path": os.path.join(cwd, "t.jsonl"), "turn_id": "hookmux-doctor-turn",
                "model": "hookmux-doctor", "permission_mode": "default", "tool_name": "spawn_agent",
                "tool_input": {"agent_type": CANARY, "message": "hookmux doctor canary"}, "tool_use_id": "doctor-1"}
    if hook.canonical == "PostToolBatch":
        return {**base, "transcript_path": os.path.join(cwd, "t.jsonl"), "tool_calls": [{
            "tool_name": "Skill", "tool_input": {"skill": CANARY}, "tool_use_id": "doctor-1",
            "tool_response": f"<tool_use_error>Unknown skill: {CANARY}</tool_use_error>"}]}
    # The gate's PreToolUse entry in a Claude-format file is for Copilot, which loads a project's
    # .claude/settings.json and sends its skill tool there as "skill": its payload, then.
    return {**base, "timestamp": time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime()),
            "tool_name": "skill", "tool_input": {"skill": CANARY}}


def run(hook: Hook, tool: str | None, sandbox: Sandbox, as_host: str | None = None) -> Result:
    """``as_host``: the host running the file when it is not the file's own (Copilot loading a
    project's Claude-format settings; the plugin's file: the host that loads it): its shell and
    its payload."""
    env = None
    if hook.format == PLUGIN:
        as_host = as_host or CLAUDE
        item = hook.plugin[as_host]
        data_dir = str(sandbox.root / "plugin-data" / as_host)
        env = {**sandbox.env(CLAUDE if as_host == COPILOT else as_host),
               **item.env(data_dir, str(sandbox.user_project or sandbox.project))}
        hook = dataclasses.replace(hook, format=CODEX if as_host == CODEX else CLAUDE)
        as_host = None if as_host == CLAUDE else as_host
    host = hook.format
    shell = SHELLS[as_host or host]
    data = payload(hook, tool, sandbox, as_host)
    text = json.dumps(data, separators=(",", ":")) if host in (CODEX, GEMINI) else json.dumps(data) + "\n"
    timeout = hook.timeout / 1000 if host == GEMINI and hook.timeout else hook.timeout  # Gemini: milliseconds
    timeout = min(timeout or DEFAULT_TIMEOUT[as_host or host], MAX_WAIT)
    env = env or sandbox.env(host)
    command = gemini_command(hook.command, str(sandbox.project), env) if host == GEMINI else hook.command
    ledger = resources.runtime("ledger")
    ledger_file = os.path.join(env["HOOKMUX_STATE_DIR"], *ledger.DISPATCH_FILE)
    before = len(_records(ledger, ledger_file)) if host == GEMINI else 0
    started = time.monotonic()
    process = subprocess.Popen([*shell, command], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, env=env, cwd=str(sandbox.project),
                               start_new_session=True)
    timed_out = False
    try:
        out, err = process.communicate(text.encode(), timeout=timeout)
    except subprocess.TimeoutExpired:
        timed_out = True
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except OSError:
            pass
        out, err = process.communicate()
    result = Result(as_host or host, shell, data, None if timed_out else process.returncode, (time.monotonic() - started) * 1000,
                    out.decode("utf-8", "replace"), err.decode("utf-8", "replace"), timed_out)
    for line in result.stderr.splitlines():
        if line.startswith("hookmux: "):
            result.trace.append(line)
        found = _TRACE.match(line)
        if found:
            result.rows[int(found.group(1))] = found.group(3)
    if host == GEMINI:
        result.ledger = _records(ledger, ledger_file)[before:]
        for record in result.ledger:
            for name, code, ms in record.get("rows") or ():
                result.by_name[name] = LEDGER_WORDS.get(code, f"selected {ms}ms ok, {code}")
    return result


def _records(ledger, path: str) -> list[dict]:
    try:
        return ledger.read_records(path)
    except OSError:
        return []
