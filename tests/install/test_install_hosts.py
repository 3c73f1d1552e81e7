"""The wired commands work when a host runs them exactly as written; the Copilot file."""
from __future__ import annotations

import json
import subprocess

import pytest

from install_helpers import Home, hookmux_commands

BASH = {"session_id": "s", "transcript_path": "/tmp/t.jsonl", "cwd": "/tmp", "hook_event_name": "PreToolUse",
        "tool_name": "Bash", "tool_input": {"command": "ls"}, "tool_use_id": "t1"}
# Copilot's loader of Claude-format settings (lower-case "skill"); Claude Code's own "Skill"
# never reaches the gate's PreToolUse entry.
SKILL = {"session_id": "s", "timestamp": "2026-01-01T00:00:00.000Z", "cwd": "/tmp", "hook_event_name": "PreToolUse",
         "tool_name": "skill", "tool_input": {"skill": "prompt-writer"}}
AGENT = "---\nname: prompt-writer\ndescription: writes prompts\n---\nWrite prompts.\n"
BATCH = {"session_id": "s", "hook_event_name": "PostToolBatch", "tool_calls": [
    {"tool_name": "Skill", "tool_input": {"skill": "prompt-writer"}, "tool_use_id": "t3",
     "tool_response": "<tool_use_error>Unknown skill: prompt-writer</tool_use_error>"}]}
STOP = {"session_id": "s", "hook_event_name": "Stop", "stop_hook_active": False}
COPILOT_BASH = {"sessionId": "s", "timestamp": 1, "cwd": "/tmp", "toolName": "bash", "toolArgs": {"command": "ls"}}
COPILOT_SKILL = {"sessionId": "s", "timestamp": 1, "cwd": "/tmp", "toolName": "skill",
                 "toolArgs": {"skill": "prompt-writer"}}


def run_as_host(command: str, payload: dict, env: dict) -> subprocess.CompletedProcess:
    return subprocess.run(["sh", "-c", command], input=json.dumps(payload).encode(), capture_output=True,
                          env=env, timeout=60)


def add_agent(h) -> None:
    """The gate redirects only to agents the calling host has (Claude Code's and Copilot's folders)."""
    for path in (h.claude / "agents" / "prompt-writer.md", h.home / ".copilot" / "agents" / "prompt-writer.agent.md"):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(AGENT)


@pytest.fixture
def h(tmp_path):
    return Home(tmp_path)


def _commands(h, path, key="command"):
    return {(event, "gate" if "skill_redirect.py" in cmd else "danger" if "danger_gate.py" in cmd else "dispatch"): cmd
            for event, cmd in hookmux_commands(json.loads(path.read_text()), key)}


def test_the_wired_claude_commands_run_as_written(h):
    add_agent(h)
    h.write_settings()
    h.install()
    cmds = _commands(h, h.settings)
    assert set(cmds) == {("PreToolUse", "dispatch"), ("PreToolUse", "gate"), ("Stop", "dispatch"),
                         ("PostToolBatch", "gate"), ("PreToolUse", "danger")}
    out = run_as_host(cmds["PreToolUse", "danger"], BASH, h.env)
    assert (out.returncode, out.stdout, out.stderr) == (0, b"", b"")  # a harmless shell call passes

    out = run_as_host(cmds["PreToolUse", "dispatch"], BASH, h.env)
    assert out.returncode == 0
    assert json.loads(out.stdout)["hookSpecificOutput"]["additionalContext"] == "sample saw Bash"

    out = run_as_host(cmds["PreToolUse", "gate"], SKILL, h.env)
    assert out.returncode == 0
    deny = json.loads(out.stdout)["hookSpecificOutput"]
    assert deny["permissionDecision"] == "deny" and "prompt-writer" in deny["permissionDecisionReason"]

    out = run_as_host(cmds["PostToolBatch", "gate"], BATCH, h.env)
    assert out.returncode == 0
    assert "prompt-writer" in json.loads(out.stdout)["hookSpecificOutput"]["additionalContext"]

    out = run_as_host(cmds["Stop", "dispatch"], STOP, h.env)
    assert out.returncode == 0 and json.loads(out.stdout)["hookSpecificOutput"]["hookEventName"] == "Stop"


def test_a_target_path_with_spaces_and_quotes_is_quoted(tmp_path):
    h = Home(tmp_path)
    add_agent(h)
    h.target = h.home / "my hooks" / "it's here"
    h.settings = h.home / "project dir" / ".claude" / "settings.json"
    h.install()
    cmds = _commands(h, h.settings)
    assert all(str(h.target) not in cmd for cmd in cmds.values())  # only in quoted form
    out = run_as_host(cmds["PreToolUse", "dispatch"], BASH, h.env)
    assert out.returncode == 0 and b"sample saw Bash" in out.stdout
    out = run_as_host(cmds["PreToolUse", "gate"], SKILL, h.env)
    assert out.returncode == 0 and b'"deny"' in out.stdout
    h.uninstall()
    assert not h.target.exists() and not h.settings.exists()


def test_copilot_file_is_created_runs_and_is_removed(h):
    add_agent(h)
    h.write_settings()
    other = h.copilot_dir / "team.json"
    h.copilot_dir.mkdir(parents=True)
    other.write_text('{"version": 1, "hooks": {"preToolUse": [{"type": "command", "bash": "true"}]}}\n')
    h.install("--copilot-hooks-dir", str(h.copilot_dir))
    path = h.copilot_dir / "hookmux.json"
    data = json.loads(path.read_text())
    assert data["version"] == 1 and set(data["hooks"]) == {"preToolUse", "agentStop"}
    for entries in data["hooks"].values():
        for entry in entries:
            assert entry["type"] == "command" and entry["timeoutSec"] == 10 and "command" not in entry
    gate = [e for e in data["hooks"]["preToolUse"] if "skill_redirect.py" in e["bash"]]
    dispatch = [e for e in data["hooks"]["preToolUse"] if "dispatch.py" in e["bash"]]
    assert len(gate) == 1 and gate[0]["matcher"] == "skill|task" and gate[0]["bash"].endswith(" preToolUse || true")
    assert len(dispatch) == 1 and "matcher" not in dispatch[0]  # settings_matcher "*"
    assert data["hooks"]["agentStop"][0]["bash"].endswith("dispatch.py agentStop || true")

    out = run_as_host(dispatch[0]["bash"], COPILOT_BASH, h.env)
    assert out.returncode == 0 and json.loads(out.stdout) == {"additionalContext": "sample saw bash"}
    out = run_as_host(gate[0]["bash"], COPILOT_SKILL, h.env)
    deny = json.loads(out.stdout)
    assert deny["permissionDecision"] == "deny" and "task" in deny["permissionDecisionReason"]

    h.uninstall("--copilot-hooks-dir", str(h.copilot_dir))
    assert not path.exists()
    assert other.read_text().startswith('{"version": 1')


def test_uninstall_finds_the_copilot_file_from_the_record(h):
    h.install("--copilot-hooks-dir", str(h.copilot_dir))
    h.uninstall()  # no --copilot-hooks-dir: the record knows
    assert not (h.copilot_dir / "hookmux.json").exists()
    assert not (h.home / ".copilot").exists()  # folders hookmux created are gone too


def test_user_entries_in_the_copilot_file_survive(h):
    h.install("--copilot-hooks-dir", str(h.copilot_dir))
    path = h.copilot_dir / "hookmux.json"
    data = json.loads(path.read_text())
    data["hooks"]["postToolUse"] = [{"type": "command", "bash": "echo mine", "timeoutSec": 3}]
    path.write_text(json.dumps(data, indent=2) + "\n")
    h.install("--copilot-hooks-dir", str(h.copilot_dir))
    assert json.loads(path.read_text())["hooks"]["postToolUse"] == data["hooks"]["postToolUse"]
    h.uninstall("--copilot-hooks-dir", str(h.copilot_dir))
    assert json.loads(path.read_text()) == {"version": 1, "hooks": {
        "postToolUse": [{"type": "command", "bash": "echo mine", "timeoutSec": 3}]}}


def test_copilot_matcher_follows_a_narrow_settings_matcher(tmp_path):
    from hookmux.matchers import copilot_matcher

    assert copilot_matcher("*") is None and copilot_matcher(None) is None
    matcher = copilot_matcher("^(Bash|Edit)$")
    import re

    for name in ("bash", "edit", "Bash", "Edit"):
        assert re.fullmatch(matcher, name), name
    for name in ("view", "skill", "NotebookEdit", "grep"):
        assert not re.fullmatch(matcher, name), name


def test_the_shipped_tree_installs_validates_and_runs(h):
    """No --source: the package's own hooks tree, its real manifest and checks."""
    h.write_settings()
    h.install("--copilot-hooks-dir", str(h.copilot_dir), source=False)
    status = h.hookmux("status", "--target", str(h.target), "--settings", str(h.settings),
                       "--copilot-hooks-dir", str(h.copilot_dir))
    assert status.returncode == 0, status.stdout
    cmds = _commands(h, h.settings)
    for (event, role), command in cmds.items():
        payload = {"PreToolUse": SKILL if role == "gate" else BASH, "PostToolBatch": BATCH}.get(event, STOP)
        out = run_as_host(command, payload, h.env)
        assert out.returncode == 0, (event, role, out)
        assert b"Traceback" not in out.stderr
        for line in out.stdout.decode().splitlines():
            json.loads(line)


def test_a_shim_interpreter_is_resolved_to_the_real_one(h, tmp_path):
    import os
    import sys

    shim = tmp_path / ".pyenv" / "shims" / "python3"
    shim.parent.mkdir(parents=True)
    shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" "$@"\n')
    shim.chmod(0o755)
    h.install("--python", str(shim))
    from hookmux.wiring import split_prefilter

    python = {split_prefilter(cmd)[1].split(" -S ")[0] for cmd in _commands(h, h.settings).values()}
    assert python == {os.path.realpath(sys.executable)} or python == {sys.executable}
