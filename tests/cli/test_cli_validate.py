"""hookmux validate: every problem names its exact place; exit 1 on any error."""
from __future__ import annotations

import json
import subprocess

import pytest
from hookmux_testing import PYTHON, REPO


def validate(*args: str):
    return subprocess.run([PYTHON, "-m", "hookmux.cli", "validate", *args], capture_output=True, text=True, cwd=REPO)


def write(tmp_path, rows, event="PreToolUse", **event_fields):
    (tmp_path / "a").mkdir(exist_ok=True)
    (tmp_path / "a" / "check.py").write_text("def main():\n    pass\n")
    data = {"version": 1, "hooks_root": ".", "events": {event: {"checks": rows, **event_fields}}}
    path = tmp_path / "manifest.json"
    path.write_text(json.dumps(data, indent=2))
    return path


def test_shipped_manifest_is_valid():
    result = validate()
    assert result.returncode == 0, result.stdout
    assert "ok" in result.stdout


def test_valid_manifest_with_relative_hooks_root(tmp_path):
    result = validate(str(write(tmp_path, [{"name": "a", "script": "a/check.py", "matcher": "^Bash$"}])))
    assert result.returncode == 0, result.stdout


@pytest.mark.parametrize("row, expected", [
    ({"name": "a", "script": "a/check.py", "matcher": "Bash("}, "events.PreToolUse.checks[0](name='a').matcher: does not compile"),
    ({"name": "a", "script": "b/check.py"}, "events.PreToolUse.checks[0](name='a').script: b/check.py not found under"),
    ({"name": "a", "script": "a/check.py", "timeout": "8"}, "events.PreToolUse.checks[0](name='a').timeout: '8' should be a number"),
    ({"name": "a", "script": "a/check.py", "colour": 1}, "events.PreToolUse.checks[0](name='a'): unknown field 'colour' (allowed: args, emits, isolate, matcher, name, script, side_effect, slow, timeout)"),
    ({"name": "a", "script": "../x.py"}, "events.PreToolUse.checks[0](name='a').script: '../x.py' is not allowed: a script is a path to a .py file, relative to hooks_root or absolute, with no '..'"),
    ({"script": "a/check.py"}, "events.PreToolUse.checks[0]: 'name' is required"),
    ({"name": "a", "script": "a/check.py", "isolate": ["not-a-module"]}, "events.PreToolUse.checks[0](name='a').isolate[0]: 'not-a-module' is not allowed: each entry is a top-level module name"),
    ({"name": "a", "script": "a/check.py", "matcher": "^Read$"}, "events.PreToolUse.checks[0](name='a').matcher: '^Read$' matches no known tool that the event's settings_matcher lets through"),
    ({"name": "a", "script": "a/check.py", "timeout": 10}, "events.PreToolUse.checks[0](name='a').timeout: 10 s is not below the event's settings_timeout 10 s"),
])
def test_errors_name_the_place(tmp_path, row, expected):
    path = write(tmp_path, [row], settings_matcher="Bash", settings_timeout=10)
    result = validate(str(path))
    assert result.returncode == 1
    assert f"error: {path}: {expected}" in result.stdout
    assert "^(?!" not in result.stdout  # no raw schema regex
    assert all(line.startswith(("error: " + str(path), "warning: " + str(path), str(path))) for line in result.stdout.splitlines())


def test_matcher_on_an_event_without_tool_is_an_error(tmp_path):
    result = validate(str(write(tmp_path, [{"name": "a", "script": "a/check.py", "matcher": "Bash"}], event="SessionStart")))
    assert result.returncode == 1
    assert "events.SessionStart.checks[0](name='a').matcher: SessionStart carries no tool name" in result.stdout


def test_unknown_event_is_an_error(tmp_path):
    result = validate(str(write(tmp_path, [{"name": "a", "script": "a/check.py"}], event="PreToolUse2")))
    assert result.returncode == 1
    assert "events: 'PreToolUse2' is not one of PreToolUse, PostToolUse" in result.stdout


def test_repeated_name_is_an_error(tmp_path):
    rows = [{"name": "a", "script": "a/check.py"}, {"name": "a", "script": "a/check.py"}]
    result = validate(str(write(tmp_path, rows)))
    assert "events.PreToolUse.checks[1](name='a').name: 'a' repeats checks[0]" in result.stdout


def test_unanchored_matcher_that_catches_other_tools_warns(tmp_path):
    result = validate(str(write(tmp_path, [{"name": "a", "script": "a/check.py", "matcher": "Edit"}])))
    assert result.returncode == 0
    assert "events.PreToolUse.checks[0](name='a').matcher: unanchored 'Edit' also catches MultiEdit, NotebookEdit" in result.stdout


def test_slow_row_on_pre_tool_use_warns(tmp_path):
    result = validate(str(write(tmp_path, [{"name": "a", "script": "a/check.py", "slow": True}])))
    assert result.returncode == 0
    assert "events.PreToolUse.checks[0](name='a').slow" in result.stdout


def test_malformed_json_names_file_and_line(tmp_path):
    path = tmp_path / "manifest.json"
    path.write_text('{\n  "version": 1,\n  "events": {,}\n}\n')
    result = validate(str(path))
    assert result.returncode == 1
    assert f"error: {path}:3:" in result.stdout


def test_missing_hooks_root_folder(tmp_path):
    path = write(tmp_path, [{"name": "a", "script": "a/check.py"}])
    data = json.loads(path.read_text())
    data["hooks_root"] = str(tmp_path / "gone")
    path.write_text(json.dumps(data))
    result = validate(str(path))
    assert result.returncode == 1 and f"error: {path}: hooks_root:" in result.stdout


def test_settings_matcher_that_misses_copilots_lower_case_names_warns(tmp_path):
    result = validate(str(write(tmp_path, [{"name": "a", "script": "a/check.py"}], settings_matcher="Bash")))
    assert result.returncode == 0
    assert "events.PreToolUse.settings_matcher: 'Bash' misses Copilot's bash" in result.stdout
    result = validate(str(write(tmp_path, [{"name": "a", "script": "a/check.py"}], settings_matcher="Bash|bash")))
    assert "warning:" not in result.stdout


def test_absolute_hooks_root_with_a_dollar_is_used_as_written(tmp_path):
    """An installer-written absolute hooks_root is never expanded: a HOME named a$b must work (issue 20, item 7)."""
    folder = tmp_path / "a$HOME_b"
    folder.mkdir()
    path = write(folder, [{"name": "a", "script": "a/check.py"}])
    data = json.loads(path.read_text())
    data["hooks_root"] = str(folder)
    path.write_text(json.dumps(data))
    result = validate(str(path))
    assert result.returncode == 0, result.stdout
