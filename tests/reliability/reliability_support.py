"""Shared pieces of the reliability suites: sandboxes, host payloads, output shapes, tallies.

Every case a suite checks goes through ``case(suite)``. With HOOKMUX_RELIABILITY_TALLY=FILE
set, each case appends one JSON line (suite, held) to FILE; reliability_table.py turns
those lines into the README's Reliability table.
"""
from __future__ import annotations

import contextlib
import importlib.util
import json
import os
import sys
import textwrap
from pathlib import Path

from hookmux_testing import DISPATCH, GATE, HOOKS, PYTHON, REPO, hermetic_env, run_hook

sys.path.insert(0, str(HOOKS / "_dispatch"))
import dispatch  # noqa: E402  (the repo's dispatcher, never a live one)

TALLY_ENV = "HOOKMUX_RELIABILITY_TALLY"
FUZZ_ENV = "HOOKMUX_FUZZ_EXAMPLES"

CLAUDE_EVENTS = ("PreToolUse", "PostToolUse", "PostToolBatch", "SessionStart", "Stop", "SubagentStop",
                 "UserPromptSubmit")
COPILOT_EVENTS = tuple(dispatch.COPILOT_EVENTS)
MAX_CONTEXT_CHARS = 10_000


# ------------------------------------------------------------------ tallies


@contextlib.contextmanager
def case(suite: str):
    """One checked case: counted as run, and as held when the block finishes."""
    try:
        yield
    except BaseException:
        _record(suite, False)
        raise
    _record(suite, True)


def _record(suite: str, held: bool) -> None:
    path = os.environ.get(TALLY_ENV)
    if path:
        with open(path, "a", encoding="utf-8") as handle:
            handle.write(json.dumps({"suite": suite, "held": held}) + "\n")


def fuzz_examples(default: int) -> int:
    """HOOKMUX_FUZZ_EXAMPLES=N runs every property N times (the long run); else ``default``."""
    value = os.environ.get(FUZZ_ENV, "").strip()
    return int(value) if value.isdigit() and int(value) > 0 else default


# ------------------------------------------------------------------ sandboxes


def write_script(root: Path, script: str, body: str) -> str:
    path = root / script
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(body))
    return script


EMITTER = '''
import json, sys
def main():
    sys.stdin.read()
    print(json.dumps({"additionalContext": %r}))
'''


def emitter(root: Path, script: str, text: str) -> str:
    return write_script(root, script, EMITTER % text)


def manifest_for(root: Path, rows_by_event: dict[str, list[dict]]) -> dict:
    events = {}
    for event, rows in rows_by_event.items():
        events[event] = {"checks": [{"name": row.get("name", row["script"].removesuffix(".py")), **row}
                                    for row in rows]}
    return {"version": 1, "hooks_root": str(root), "events": events}


def write_json(path: Path, data) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data))
    return path


def shipped_manifest() -> dict:
    return json.loads((HOOKS / "_dispatch" / "manifest.json").read_text())


# ------------------------------------------------------------------ host payloads (see shared/host-contract.md)

SESSION = "rel-session-0001"

CLAUDE_PRE_BASH = {
    "session_id": SESSION, "transcript_path": "/tmp/rel/transcript.jsonl", "cwd": "/tmp/rel",
    "prompt_id": "p1", "permission_mode": "default", "effort": {"level": "medium"},
    "hook_event_name": "PreToolUse", "tool_name": "Bash",
    "tool_input": {"command": "git push --force origin main", "description": "Push"}, "tool_use_id": "toolu_01",
}
CLAUDE_PRE_SKILL = {**CLAUDE_PRE_BASH, "tool_name": "Skill", "tool_input": {"skill": "prompt-writer", "args": "x"}}
CLAUDE_POST_BASH = {**CLAUDE_PRE_BASH, "hook_event_name": "PostToolUse", "tool_response": {"stdout": "ok"}}
CLAUDE_BATCH = {
    "session_id": SESSION, "transcript_path": "/tmp/rel/transcript.jsonl", "cwd": "/tmp/rel",
    "hook_event_name": "PostToolBatch",
    "tool_calls": [
        {"tool_name": "Skill", "tool_input": {"skill": "architect"}, "tool_use_id": "toolu_02",
         "tool_response": "<tool_use_error>Unknown skill: architect</tool_use_error>"},
        {"tool_name": "Bash", "tool_input": {"command": "rm -rf ~"}, "tool_use_id": "toolu_03",
         "tool_response": "done"},
    ],
}
CLAUDE_STOP = {
    "session_id": SESSION, "transcript_path": "/tmp/rel/transcript.jsonl", "cwd": "/tmp/rel",
    "hook_event_name": "Stop", "stop_hook_active": False, "last_assistant_message": "done",
    "background_tasks": [], "session_crons": [],
}
CLAUDE_SESSION_START = {"session_id": SESSION, "transcript_path": "/tmp/rel/t.jsonl", "cwd": "/tmp/rel",
                        "hook_event_name": "SessionStart", "source": "startup"}
COPILOT_PRE_BASH = {"sessionId": SESSION, "timestamp": 1764470000000, "cwd": "/tmp/rel",
                    "toolName": "bash", "toolArgs": {"command": "git reset --hard HEAD~3"}}
COPILOT_PRE_SKILL = {**COPILOT_PRE_BASH, "toolName": "skill", "toolArgs": {"skill": "builder"}}
COPILOT_PRE_SKILL_STRING_ARGS = {**COPILOT_PRE_BASH, "toolName": "skill", "toolArgs": '{"skill": "guide"}'}
COPILOT_POST_BASH = {**COPILOT_PRE_BASH, "toolName": "bash",
                     "toolResult": {"resultType": "success", "textResultForLlm": "ok"}}
COPILOT_CLAUDE_FORMAT_SKILL = {"hook_event_name": "PreToolUse", "session_id": SESSION,
                               "timestamp": "2026-11-30T03:00:00Z", "cwd": "/tmp/rel",
                               "tool_name": "skill", "tool_input": {"skill": "prompt-writer"}}

# (payload, the event a host passes on the command line, or None when it passes none)
REAL_PAYLOADS = (
    (CLAUDE_PRE_BASH, "PreToolUse"), (CLAUDE_PRE_SKILL, "PreToolUse"), (CLAUDE_POST_BASH, "PostToolUse"),
    (CLAUDE_BATCH, "PostToolBatch"), (CLAUDE_STOP, "Stop"), (CLAUDE_SESSION_START, "SessionStart"),
    (COPILOT_PRE_BASH, "preToolUse"), (COPILOT_PRE_SKILL, "preToolUse"),
    (COPILOT_PRE_SKILL_STRING_ARGS, "preToolUse"), (COPILOT_POST_BASH, "postToolUse"),
    (COPILOT_CLAUDE_FORMAT_SKILL, "PreToolUse"), (CLAUDE_PRE_BASH, None), (CLAUDE_BATCH, None),
)


# ------------------------------------------------------------------ output shapes


def expected_event(argv_event: str | None, stdin: bytes | str) -> str | None:
    """The event the dispatcher acts on: argv first, else the payload's hook_event_name."""
    if argv_event:
        return argv_event
    try:
        payload = json.loads(stdin)
    except (ValueError, TypeError, RecursionError):
        return None
    event = payload.get("hook_event_name") if isinstance(payload, dict) else None
    return event if isinstance(event, str) and event else None


COPILOT_PAYLOAD_KEYS = ("toolName", "toolArgs", "sessionId", "toolResult")


def copilot_flat(event: str | None, payload) -> bool:
    """Copilot's flat dialect: a camelCase event, or Copilot's own payload (camelCase keys, no hook_event_name)."""
    if event in dispatch.COPILOT_EVENTS:
        return True
    return isinstance(payload, dict) and "hook_event_name" not in payload and any(
        key in payload for key in COPILOT_PAYLOAD_KEYS)


def assert_dispatcher_output(stdout: str | bytes, event: str | None, payload=None) -> str | None:
    """stdout is empty or exactly one JSON line in the host's dialect; returns the context."""
    text = stdout.decode("utf-8") if isinstance(stdout, bytes) else stdout
    assert "Traceback" not in text
    if text == "":
        return None
    assert event is not None, text
    assert text.endswith("\n") and text.count("\n") == 1, text
    data = json.loads(text)
    if copilot_flat(event, payload):
        assert set(data) == {"additionalContext"}, data
        context = data["additionalContext"]
    else:
        assert set(data) == {"hookSpecificOutput"}, data
        nested = data["hookSpecificOutput"]
        assert set(nested) == {"hookEventName", "additionalContext"}, nested
        assert nested["hookEventName"] == event
        context = nested["additionalContext"]
    assert isinstance(context, str) and context.strip()
    assert len(context) <= MAX_CONTEXT_CHARS
    return context


def dump_tree(*roots: Path) -> dict[str, bytes]:
    """Every regular file below the roots, by path."""
    files = {}
    for root in roots:
        if root.exists():
            for path in root.rglob("*"):
                if path.is_file() and not path.is_symlink():
                    files[str(path)] = path.read_bytes()
    return files
