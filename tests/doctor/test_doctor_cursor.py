"""``hookmux status`` and ``hookmux doctor`` say when Cursor would run hookmux twice: a ``~/.cursor``
folder, and hookmux wired both in ``~/.claude/settings.json`` (which Cursor runs too with its
third-party hooks option, on by default: cursor.com/docs/reference/third-party-hooks) and in
``~/.cursor/hooks.json``. One warning line naming both files; status's exit code stays 0."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from hookmux_testing import hermetic_env

WARNING = "Cursor runs hookmux twice"


class Home:
    def __init__(self, tmp_path: Path):
        self.env = hermetic_env(tmp_path)
        self.home = Path(self.env["HOME"])
        self.project = tmp_path / "project"
        self.project.mkdir()
        self.claude = self.home / ".claude" / "settings.json"
        self.cursor = self.home / ".cursor" / "hooks.json"

    def hookmux(self, *args):
        return subprocess.run([sys.executable, "-m", "hookmux.cli", *args], capture_output=True, text=True,
                              env=self.env, cwd=str(self.project), timeout=300)


def _warnings(out: str) -> list[str]:
    return [line for line in out.splitlines() if WARNING in line]


@pytest.fixture
def both(tmp_path):
    home = Home(tmp_path)
    result = home.hookmux("install", "--cursor")
    assert result.returncode == 0, result.stderr
    return home


def test_status_warns_once_naming_both_files(both):
    result = both.hookmux("status", "--cursor")
    assert result.returncode == 0, result.stdout
    lines = _warnings(result.stdout)
    assert len(lines) == 1 and lines[0].startswith("warning:   ")
    assert str(both.claude) in lines[0] and str(both.cursor) in lines[0]
    report = json.loads(both.hookmux("status", "--json").stdout)
    assert str(both.cursor) in report["cursor_twice"]


def test_doctor_warns_naming_both_files(both):
    result = both.hookmux("doctor")
    lines = _warnings(result.stdout)
    assert len(lines) == 1 and lines[0].startswith("warning: ")
    assert str(both.claude) in lines[0] and str(both.cursor) in lines[0]
    report = json.loads(both.hookmux("doctor", "--json").stdout)
    assert [w for w in report["warnings"] if WARNING in w["problem"]]


@pytest.mark.parametrize("change", ["no cursor folder entries", "claude only", "cursor entries taken out"])
def test_no_warning_unless_both_wirings_would_run(tmp_path, change):
    home = Home(tmp_path)
    if change == "claude only":  # Cursor is there, but only the Claude Code wiring
        assert home.hookmux("install").returncode == 0
        home.cursor.parent.mkdir()
    elif change == "no cursor folder entries":  # ~/.cursor exists with the user's own hooks only
        home.cursor.parent.mkdir()
        home.cursor.write_text(json.dumps({"version": 1, "hooks": {"stop": [{"command": "./audit.sh"}]}}))
        assert home.hookmux("install").returncode == 0
    else:
        assert home.hookmux("install", "--cursor").returncode == 0
        data = json.loads(home.cursor.read_text())
        data["hooks"] = {}
        home.cursor.write_text(json.dumps(data))
    assert _warnings(home.hookmux("status").stdout) == []
    assert _warnings(home.hookmux("doctor").stdout) == []


# ---------------------------------------------------------------- the canary through ~/.cursor/hooks.json


def test_doctor_runs_a_canary_through_each_cursor_entry_as_cursor_runs_it(both):
    report = json.loads(both.hookmux("doctor", "--json").stdout)
    wiring = next(w for w in report["wirings"] if w["file"] == str(both.cursor))
    assert (wiring["format"], wiring["loaded_by"]) == ("cursor", ["cursor"])
    assert sorted((h["event"], h["role"]) for h in wiring["hooks"]) == [
        ("beforeSubmitPrompt", "dispatch"), ("postToolUse", "dispatch"), ("preToolUse", "danger"),
        ("preToolUse", "dispatch")]
    for hook in wiring["hooks"]:
        for run in hook["canary"]:
            assert run["fired"] and run["accepted"] and run["shell"] == "/bin/sh", (hook["event"], run)
    danger = next(h for h in wiring["hooks"] if h["role"] == "danger")["canary"][0]
    assert danger["tool"] == "Shell" and json.loads(danger["stdout"])["permission"] == "deny"
    assert report["ok"], report["problems"]


@pytest.mark.parametrize("event, stdout, wrong", [
    ("PreToolUse", '{"permission": "deny", "user_message": "r", "agent_message": "r"}', None),
    ("PostToolUse", '{"additional_context": "advice"}', None),
    ("PreToolUse", '{"additional_context": "advice"}', "no additional_context on PreToolUse"),
    ("PreToolUse", '{"hookSpecificOutput": {"permissionDecision": "deny"}}', "reads no keys hookSpecificOutput"),
])
def test_cursors_answer_rules(event, stdout, wrong):
    from hookmux.doctor import answers

    found = answers.problems("cursor", event, 0, stdout)
    assert (found == []) if wrong is None else any(wrong in line for line in found), found
