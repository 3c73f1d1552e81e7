"""Fail open: whatever goes wrong, the gate is silent and exits 0 (Copilot denies on a crashing preToolUse)."""
from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from hookmux_testing import GATE, PYTHON, hermetic_env, run_hook

# Copilot's Claude-format PreToolUse naming a built-in Copilot agent: denied with no folder at all.
REDIRECTING = json.dumps({"hook_event_name": "PreToolUse", "tool_name": "skill", "tool_input": {"skill": "code-review"}})

BROKEN_INPUTS = [
    b"skill",
    b'{"tool_name":"Skill","tool_input":{"skill":"prompt-writer"}',
    b'{"tool_name":"Skill","tool_input":{"skill":"prompt-writer"}} {"extra": 1}',
    b"[]",
    b"null",
    b'"skill"',
    b"123",
    b'{"hook_event_name":"PreToolUse","tool_name":"Skill","tool_input":{"skill":"prompt-writer\xff"}}',
    b'{"hook_event_name":"PreToolUse","tool_name":"Skill","tool_input":{"skill":"prompt-writer\\ud800"}}',
    b'{"hook_event_name":"PreToolUse","tool_name":"Skill","tool_input":["skill","prompt-writer"]}',
    b'{"hook_event_name":"PreToolUse","tool_name":"Skill","tool_input":"{\\"skill\\":\\"prompt-writer\\"}"}',
    b'{"hook_event_name":7,"tool_name":"Skill","tool_input":{"skill":"prompt-writer"}}',
    b'{"toolName":"skill","toolArgs":"{not json: skill"}',
    b'{"toolName":"skill","toolArgs":"[\\"prompt-writer\\"]"}',
    b'{"toolName":"skill","toolArgs":null}',
    b'{"toolName":["skill"],"toolArgs":{"skill":"prompt-writer"}}',
    b"[" * 200000 + b'"skill"' + b"]" * 200000,
    b'{"a":' * 100000 + b'"skill"' + b"}" * 100000,
    b"",
    b"\x00\xff\xfe skill \x1b[31m",
]


@pytest.mark.parametrize("data", BROKEN_INPUTS, ids=lambda data: repr(data[:60]))
@pytest.mark.parametrize("event", ["PreToolUse", "preToolUse", "PostToolBatch"])
def test_broken_input_is_silent(tmp_path, data, event):
    env = hermetic_env(tmp_path, HOOKMUX_SKILLS_PATH=str(tmp_path / "none"))
    result = run_hook(GATE, [event], data, env)
    assert (result.returncode, result.stdout, result.stderr) == (0, b"", b"")


def test_payload_without_a_skill_is_silent_whatever_its_size(tmp_path):
    env = hermetic_env(tmp_path)
    payload = json.dumps({"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": "x" * 5_000_000}})
    result = run_hook(GATE, ["PreToolUse"], payload, env)
    assert (result.returncode, result.stdout, result.stderr) == (0, b"", b"")


def copied_gate(tmp_path: Path) -> Path:
    target = tmp_path / "skill-redirect"
    shutil.copytree(GATE.parent, target, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(GATE.parent.parent / "_common", tmp_path / "_common", ignore=shutil.ignore_patterns("__pycache__"))
    return target / GATE.name


@pytest.mark.parametrize("failure", [
    'raise RuntimeError("boom")',
    "raise KeyboardInterrupt",
    "raise SystemExit(3)",
    "raise MemoryError",
    "import os; os.kill(os.getpid(), 0); raise OSError(5, 'I/O error')",
])
@pytest.mark.parametrize("module", ["skill_scan.py", "agent_scan.py", "folder_walk.py", "places.py", "runtime.py",
                                    "known_agents.py", "redirect_core.py"])
def test_an_internal_failure_is_silent(tmp_path, module, failure):
    gate = copied_gate(tmp_path)
    env = hermetic_env(tmp_path, HOOKMUX_SKILLS_PATH=str(tmp_path / "none"))
    assert b'"deny"' in run_hook(gate, ["PreToolUse"], REDIRECTING, env).stdout  # the copy works before it is broken
    (gate.parent / module).write_text(failure + "\n")
    result = run_hook(gate, ["PreToolUse"], REDIRECTING, env)
    assert (result.returncode, result.stdout, result.stderr) == (0, b"", b"")


def test_a_missing_runtime_is_silent(tmp_path):
    gate = copied_gate(tmp_path)
    shutil.rmtree(tmp_path / "_common")
    env = hermetic_env(tmp_path, HOOKMUX_SKILLS_PATH=str(tmp_path / "none"))
    result = run_hook(gate, ["PreToolUse"], REDIRECTING, env)
    assert (result.returncode, result.stdout, result.stderr) == (0, b"", b"")


def test_a_missing_registry_is_silent(tmp_path):
    gate = copied_gate(tmp_path)
    (gate.parent / "known_agents.py").unlink()
    env = hermetic_env(tmp_path, HOOKMUX_SKILLS_PATH=str(tmp_path / "none"))
    result = run_hook(gate, ["PreToolUse"], REDIRECTING, env)
    assert (result.returncode, result.stdout, result.stderr) == (0, b"", b"")


def shell_run(tmp_path, redirections):
    env = hermetic_env(tmp_path, HOOKMUX_SKILLS_PATH=str(tmp_path / "none"))
    command = f'{redirections}; exec "$0" -S "$1" PreToolUse'
    return subprocess.run(["sh", "-c", command, PYTHON, str(GATE)], input=REDIRECTING.encode(),
                          capture_output=True, env=env, timeout=60)


def test_closed_stdin_is_silent(tmp_path):
    result = shell_run(tmp_path, "exec 0<&-")
    assert (result.returncode, result.stdout, result.stderr) == (0, b"", b"")


def test_closed_stdout_is_silent(tmp_path):
    result = shell_run(tmp_path, "exec 1>&-")
    assert (result.returncode, result.stderr) == (0, b"")
