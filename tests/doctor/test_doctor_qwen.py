"""``hookmux doctor`` reads Qwen Code's ``~/.qwen/settings.json`` (always, as it reads ``~/.cursor``)
and runs a canary through each hookmux entry as Qwen runs it (bash, Qwen's payload, measured with
0.24.4): the gate denies in Claude's nested form, the dispatcher answers in the event's own name."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from hookmux_testing import hermetic_env


@pytest.fixture
def home(tmp_path):
    env = hermetic_env(tmp_path)
    project = tmp_path / "project"
    project.mkdir()

    def hookmux(*args):
        return subprocess.run([sys.executable, "-m", "hookmux.cli", *args], capture_output=True, text=True,
                              env=env, cwd=str(project), timeout=300)

    hookmux.qwen = Path(env["HOME"]) / ".qwen" / "settings.json"
    result = hookmux("install", "--qwen")
    assert result.returncode == 0, result.stderr
    return hookmux


def test_doctor_runs_a_canary_through_each_qwen_entry_as_qwen_runs_it(home):
    report = json.loads(home("doctor", "--json").stdout)
    wiring = next(w for w in report["wirings"] if w["file"] == str(home.qwen))
    assert (wiring["format"], wiring["loaded_by"]) == ("qwen", ["qwen"])
    wired = sorted((h["event"], h["role"]) for h in wiring["hooks"])
    assert ("PreToolUse", "danger") in wired and ("PostToolUse", "dispatch") in wired
    assert ("PostToolUseFailure", "dispatch") in wired
    for hook in wiring["hooks"]:
        for run in hook["canary"]:
            assert run["fired"] and run["accepted"] and run["shell"] == "bash", (hook["event"], run)
    danger = next(h for h in wiring["hooks"] if h["role"] == "danger")["canary"][0]
    assert json.loads(danger["stdout"])["hookSpecificOutput"]["permissionDecision"] == "deny"
    assert report["ok"], report["problems"]


def test_doctor_says_which_host_loads_the_qwen_file(home):
    result = home("doctor")
    assert result.returncode == 0, result.stdout
    assert f"{home.qwen} (qwen, loaded by qwen)" in result.stdout
    gate = [line for line in result.stdout.splitlines() if line.strip().startswith("PreToolUse") and "danger" in line
            and "run_shell_command" in line]
    assert gate and "answer accepted (bash -c, exit 0" in gate[-1], result.stdout


@pytest.mark.parametrize("event, stdout, wrong", [
    ("PreToolUse", '{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny",'
                   ' "permissionDecisionReason": "r"}}', None),
    ("PostToolUseFailure", '{"hookSpecificOutput": {"hookEventName": "PostToolUseFailure", "additionalContext": "a"}}',
     None),
    ("PostToolUseFailure", '{"hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": "a"}}',
     "naming hookEventName 'PostToolUseFailure'"),
    ("PreToolUse", '{"hookSpecificOutput": {"hookEventName": "PreToolUse", "additionalContext": "a"}}',
     "Qwen drops it"),
])
def test_qwens_answer_rules(event, stdout, wrong):
    from hookmux.doctor import answers

    found = answers.problems("qwen", event, 0, stdout)
    assert (found == []) if wrong is None else any(wrong in line for line in found), found
