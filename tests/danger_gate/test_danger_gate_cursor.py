"""The danger gate on Cursor: its own hooks.json (preToolUse, beforeShellExecution) and a Claude Code
settings file Cursor runs (the command line says PreToolUse, the payload is Cursor's).

No Cursor binary is run (its CLI talks only to Cursor's servers): the payloads are built from
Cursor's documentation (cursor.com/docs/agent/hooks, "Input (all hooks)", "preToolUse",
"beforeShellExecution"; cursor.com/docs/reference/third-party-hooks). The deny Cursor reads is
``{"permission": "deny", "user_message": R, "agent_message": R}`` at exit 0. Hazardous commands
here are data handed to the gate on stdin, never run.
"""
from __future__ import annotations

import json

import pytest

from gate_support import DANGER_GATE, World
from hookmux_testing import run_hook

#: What every Cursor hook receives (the common schema), for one conversation.
BASE = {"conversation_id": "c0ffee-1", "generation_id": "gen-1", "model": "claude-sonnet-4",
        "cursor_version": "2.1.0", "user_email": None, "transcript_path": None}

#: (command-line arguments, how the payload spells the call): the three ways a shell call reaches the gate.
WIRINGS = {
    "cursor-preToolUse": (["preToolUse"], "preToolUse"),
    "cursor-beforeShellExecution": (["beforeShellExecution"], "beforeShellExecution"),
    "claude-settings-in-cursor": (["PreToolUse"], "preToolUse"),
}


def cursor_payload(event: str, command: str, cwd) -> str:
    cwd = str(cwd)
    data = dict(BASE, hook_event_name=event, workspace_roots=[cwd])
    if event == "beforeShellExecution":
        data.update(command=command, cwd=cwd, sandbox=False)
    else:
        data.update(tool_name="Shell", tool_input={"command": command, "working_directory": cwd},
                    tool_use_id="tool-1", cwd=cwd, agent_message="Running it")
    return json.dumps(data)


def gate(world: World, wiring: str, command: str, cwd):
    args, event = WIRINGS[wiring]
    return run_hook(DANGER_GATE, args, cursor_payload(event, command, cwd), world.env)


def cursor_denial(result) -> str | None:
    """The reason of Cursor's deny (the exact form: one line, three keys), None for no output."""
    assert result.returncode == 0 and result.stderr == b"", result
    if not result.stdout:
        return None
    text = result.stdout.decode()
    assert text.endswith("\n") and text.count("\n") == 1, text
    out = json.loads(text)
    assert list(out) == ["permission", "user_message", "agent_message"] and out["permission"] == "deny", out
    assert out["user_message"] == out["agent_message"]
    return out["agent_message"]


@pytest.mark.parametrize("wiring", sorted(WIRINGS))
def test_reset_hard_over_uncommitted_changes_is_denied_in_cursors_form(tmp_path, wiring):
    world = World(tmp_path)
    reason = cursor_denial(gate(world, wiring, "git reset --hard", world.repo("changed")))
    assert reason and reason.startswith("hookmux danger gate: this command was NOT run.") and "hookmux allow" in reason


@pytest.mark.parametrize("wiring", sorted(WIRINGS))
def test_reset_hard_in_a_clean_repository_passes(tmp_path, wiring):
    world = World(tmp_path)
    assert gate(world, wiring, "git reset --hard", world.repo("clean")).stdout == b""


@pytest.mark.parametrize("wiring", sorted(WIRINGS))
def test_a_harmless_ls_prints_nothing(tmp_path, wiring):
    world = World(tmp_path)
    result = gate(world, wiring, "ls -la", world.repo("changed"))
    assert (result.returncode, result.stdout, result.stderr) == (0, b"", b"")


@pytest.mark.parametrize("wiring", sorted(WIRINGS))
def test_removing_the_home_folders_documents_is_denied(tmp_path, wiring):
    world = World(tmp_path)
    reason = cursor_denial(gate(world, wiring, "rm -rf ~/Documents", world.plain))
    assert reason and "Documents" in reason


def test_without_cwd_the_first_workspace_root_is_the_folder(tmp_path):
    """preToolUse's payload carries ``cwd``; an event without one is judged in workspace_roots[0]."""
    world = World(tmp_path)
    data = json.loads(cursor_payload("beforeShellExecution", "git reset --hard", world.repo("changed")))
    del data["cwd"]
    assert cursor_denial(run_hook(DANGER_GATE, ["beforeShellExecution"], json.dumps(data), world.env))


def test_writing_cursors_own_hooks_file_is_the_guards_ground(tmp_path):
    """~/.cursor/hooks.json is where hookmux is wired into Cursor: a Write there is denied, built in."""
    world = World(tmp_path)
    target = world.home / ".cursor" / "hooks.json"
    data = dict(BASE, hook_event_name="preToolUse", workspace_roots=[str(world.plain)], cwd=str(world.plain),
                tool_name="Write", tool_input={"file_path": str(target), "content": "{}"}, tool_use_id="t2")
    reason = cursor_denial(run_hook(DANGER_GATE, ["preToolUse"], json.dumps(data), world.env))
    assert reason and "GUARD-OWN-GROUND" in reason


@pytest.mark.parametrize("event, fields", [
    ("afterShellExecution", {"command": "git reset --hard", "output": "HEAD is now at 1", "duration": 10}),
    ("postToolUse", {"tool_name": "Shell", "tool_input": {"command": "git reset --hard"}, "tool_output": "{}"}),
    ("beforeReadFile", {"file_path": "/x/notes.txt", "content": "git reset --hard"}),
    ("beforeSubmitPrompt", {"prompt": "git reset --hard", "attachments": []}),
])
def test_what_is_no_call_before_it_runs_is_untouched(tmp_path, event, fields):
    world = World(tmp_path)
    cwd = str(world.repo("changed"))
    data = dict(BASE, hook_event_name=event, workspace_roots=[cwd], cwd=cwd, **fields)
    result = run_hook(DANGER_GATE, [event], json.dumps(data), world.env)
    assert (result.returncode, result.stdout, result.stderr) == (0, b"", b"")
