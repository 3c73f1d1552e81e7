"""``hookmux log`` and ``hookmux status`` show a circuit breaker the installed dispatcher opened."""
from __future__ import annotations

import json
import subprocess
import sys
import time

import pytest
from install_helpers import Home, make_source

CRASH = "def main():\n    raise RuntimeError('boom')\n"
PAYLOAD = json.dumps({"session_id": "s", "hook_event_name": "PreToolUse", "tool_name": "Bash",
                      "tool_input": {"command": "ls"}})


def add_crashing_row(manifest):
    manifest["events"]["PreToolUse"]["checks"].append(
        {"name": "crash/check", "script": "crash/check.py", "timeout": 5, "matcher": "^Bash$"})


@pytest.fixture
def h(tmp_path):
    h = Home(tmp_path)
    (tmp_path / "crashing").mkdir()
    h.source = make_source(tmp_path / "crashing", add_crashing_row)
    (h.source / "crash").mkdir()
    (h.source / "crash" / "check.py").write_text(CRASH)
    h.write_settings()
    h.install()
    return h


def dispatch(h, **extra):
    result = subprocess.run([sys.executable, "-S", str(h.target / "_dispatch" / "dispatch.py"), "PreToolUse"],
                            input=PAYLOAD.encode(), capture_output=True, env={**h.env, **extra}, timeout=60)
    assert result.returncode == 0


def test_log_and_status_show_an_open_breaker(h):
    status = h.hookmux("status", "--target", str(h.target), "--settings", str(h.settings))
    assert status.returncode == 0, status.stdout
    assert "circuit breaker" not in status.stdout
    for _ in range(4):
        dispatch(h)

    log = h.hookmux("log", "--json", check=True)
    report = json.loads(log.stdout)
    (entry,) = report["breakers"]
    assert (entry["name"], entry["event"], entry["failures"], entry["open"]) == ("crash/check", "PreToolUse", 3, True)
    assert entry["hooks_root"] == str(h.target)
    crash = next(row for row in report["rows"] if row["name"] == "crash/check")
    assert (crash["runs"], crash["error"], crash["breaker-open"]) == (3, 3, 1)
    text = h.hookmux("log", check=True).stdout
    assert "PreToolUse [1] crash/check" in text and "OPEN: skipped for" in text

    status = h.hookmux("status", "--target", str(h.target), "--settings", str(h.settings))
    assert status.returncode == 1
    assert "OPEN: skipped for" in status.stdout
    assert "problem:   circuit breaker open for PreToolUse [1] crash/check" in status.stdout
    assert "an edit of its script re-arms it" in status.stdout
    report = json.loads(h.hookmux("status", "--target", str(h.target), "--settings", str(h.settings), "--json").stdout)
    assert [b["name"] for b in report["breakers"]] == ["crash/check"]

    # Fixed: the edit re-arms it, and status says so (the breaker's line goes with the next success).
    (h.target / "crash" / "check.py").write_text("def main():\n    pass\n")
    status = h.hookmux("status", "--target", str(h.target), "--settings", str(h.settings))
    assert "circuit breaker open" not in status.stdout and "re-armed" in status.stdout
    dispatch(h)
    assert json.loads(h.hookmux("log", "--json", check=True).stdout)["breakers"] == []


def test_after_the_cool_down_log_says_the_next_call_tries_again(h):
    for _ in range(3):
        dispatch(h, HOOKMUX_BREAKER_COOLDOWN="1")
    assert "OPEN: skipped for" in h.hookmux("log", check=True).stdout
    time.sleep(1.2)
    text = h.hookmux("log", check=True).stdout
    assert "cool-down over: the next call runs it once more (3 failures in a row)" in text
    status = h.hookmux("status", "--target", str(h.target), "--settings", str(h.settings))
    assert status.returncode == 0 and "cool-down over" in status.stdout
