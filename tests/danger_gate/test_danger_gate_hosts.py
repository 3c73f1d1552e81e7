"""Each host's own deny form, at exit 0; anything that is no PreToolUse shell call is untouched."""
from __future__ import annotations

import json

import pytest

from gate_support import ARGS, World, denial, payload, DANGER_GATE
from hookmux_testing import run_hook

HOSTS = ["claude", "copilot", "copilot-claude", "codex"]


@pytest.mark.parametrize("host", HOSTS)
def test_each_host_gets_its_own_deny(tmp_path, host):
    world = World(tmp_path)
    result = world.gate("rm -rf ~/Documents", host=host)
    reason = denial(result, host)
    assert reason and "Documents" in reason


@pytest.mark.parametrize("host", HOSTS)
def test_a_harmless_call_prints_nothing(tmp_path, host):
    world = World(tmp_path)
    assert denial(world.gate("ls -la", host=host), host) is None


@pytest.mark.parametrize("host", HOSTS)
def test_git_state_on_each_host(tmp_path, host):
    world = World(tmp_path)
    assert denial(world.gate("git reset --hard", cwd=world.repo("changed"), host=host), host) is not None
    assert denial(world.gate("git reset --hard", cwd=world.repo("clean"), host=host), host) is None


def test_copilot_tool_args_as_a_json_string(tmp_path):
    world = World(tmp_path)
    data = json.dumps({"sessionId": "s", "timestamp": 1, "cwd": str(world.repo()), "toolName": "bash",
                       "toolArgs": json.dumps({"command": "rm -rf ~/Documents"})})
    assert denial(run_hook(DANGER_GATE, ["preToolUse"], data, world.env), "copilot") is not None


@pytest.mark.parametrize("change", [
    {"hook_event_name": "PostToolUse", "tool_response": "x"},
    {"tool_name": "Read"},
    {"tool_name": "Write", "tool_input": {"file_path": "/x", "content": "rm -rf ~/Documents"}},
    {"tool_name": "Skill", "tool_input": {"skill": "rm -rf ~/Documents"}},
])
def test_not_a_pre_tool_use_shell_call(tmp_path, change):
    world = World(tmp_path)
    data = json.loads(payload("claude", "rm -rf ~/Documents", world.repo()))
    data.update(change)
    assert denial(run_hook(DANGER_GATE, ["PreToolUse"], json.dumps(data), world.env)) is None


def test_gemini_shell_tool_name_is_read(tmp_path):
    """Issue 33 adds the Gemini host; the gate already takes its shell tool's name."""
    world = World(tmp_path)
    data = {"session_id": "s", "cwd": str(world.repo()), "hook_event_name": "PreToolUse",
            "tool_name": "run_shell_command", "tool_input": {"command": "rm -rf ~/Documents"}}
    assert run_hook(DANGER_GATE, ["PreToolUse"], json.dumps(data), world.env).stdout != b""


def test_hookmux_try_shows_the_gates_verdict(tmp_path):
    import subprocess
    import sys

    world = World(tmp_path)
    path = tmp_path / "payload.json"
    path.write_text(payload("claude", "rm -rf ~/Documents", world.repo()))
    out = subprocess.run([sys.executable, "-m", "hookmux.cli", "try", "PreToolUse", str(path)], env=world.env,
                         capture_output=True, text=True, timeout=60).stdout
    shown = out.split("== danger gate: exit 0\n", 1)[1]
    assert '"permissionDecision": "deny"' in shown and "Documents" in shown
