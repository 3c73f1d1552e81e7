"""Calibrated silence through the real Claude Code: an advisory the model keeps ignoring goes quiet.

Each ``claude -p`` run is a new session. In each of the first MIN_SAMPLES sessions the
model runs ``git reset --hard``, is advised, and runs it again (ignored). In the next
session the same hazard is silent, while a hazard never advised before still surfaces.
"""
from __future__ import annotations

import json
import subprocess
import sys

from e2e_expect import ADVISORY_PREFIX, matching_rows
from e2e_fixtures import claude_cli, hookmux_installer, sandbox  # noqa: F401 (pytest fixtures)
from hookmux.standin.anthropic import ToolUse

MIN_SAMPLES = 3  # calibrated_silence's default
RESET = "git reset --hard HEAD"
RESET_AGAIN = "git reset --hard HEAD --quiet"
FORCE_PUSH = "git push --force origin main"  # the sandbox repo has no remote: fails at once


def _advisories(seen) -> list[str]:
    return [text for text in seen.extra if text.startswith(ADVISORY_PREFIX)]


def _history(sandbox) -> list[dict]:
    path = sandbox.home / ".local" / "state" / "hookmux" / "calibrated-silence" / "history.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def test_ignored_advisory_goes_quiet_while_a_new_hazard_surfaces(claude_cli, sandbox):
    sandbox.install_claude_user()
    reset, push = {"command": RESET}, {"command": FORCE_PUSH}
    assert [row["id"] for row in matching_rows(sandbox, "Bash", reset)] == ["GIT-RESET-HARD"]
    assert [row["id"] for row in matching_rows(sandbox, "Bash", push)] == ["GIT-FORCE-PUSH-MAIN"]

    for session in range(MIN_SAMPLES):
        run = sandbox.claude(claude_cli, [ToolUse("Bash", reset), ToolUse("Bash", {"command": RESET_AGAIN})],
                             "--allowedTools", "Bash")
        assert run.proc.returncode == 0, run.proc.stderr
        advised = _advisories(run.after(0))
        assert len(advised) == 1 and "GIT-RESET-HARD" in advised[0], (session, run.after(0).extra, run.hook_runs())
        assert _advisories(run.after(1)) == [], "the seen-map keeps a session's repeat quiet"
        assert run.claude_hook_errors() == []
    ignored = [r for r in _history(sandbox) if r["k"] == "reaction" and r["r"] == "ignored"]
    assert [r["key"] for r in ignored] == ["GIT-RESET-HARD"] * MIN_SAMPLES

    run = sandbox.claude(claude_cli, [ToolUse("Bash", reset), ToolUse("Bash", push)], "--allowedTools", "Bash")
    assert run.proc.returncode == 0, run.proc.stderr
    quiet, fresh = run.after(0), run.after(1)
    assert _advisories(quiet) == [], quiet.extra
    assert "HEAD is now at" in quiet.result, "the reset itself still ran"
    advised = _advisories(fresh)
    assert len(advised) == 1 and "GIT-FORCE-PUSH-MAIN" in advised[0] and "GIT-RESET-HARD" not in advised[0]
    assert run.claude_hook_errors() == []
    suppressed = [r for r in _history(sandbox) if r["k"] == "occurrence" and r.get("allow") is False]
    assert [(r["key"], r["why"]) for r in suppressed] == [("GIT-RESET-HARD", "fatigued")]


def test_the_dispatch_ledger_records_every_dispatch(claude_cli, sandbox):
    sandbox.install_claude_user()
    run = sandbox.claude(claude_cli, [ToolUse("Bash", {"command": "echo e2e-ledger"}), ToolUse("Bash", {"command": RESET})],
                         "--allowedTools", "Bash")
    assert run.proc.returncode == 0, run.proc.stderr
    report = json.loads(subprocess.run([sys.executable, "-m", "hookmux.cli", "log", "--json"], env=sandbox.env,
                                       capture_output=True, text=True, check=True).stdout)
    pre = [r for r in report["recent"] if r["event"] == "PreToolUse"]
    assert len(pre) == 2 and all(r["outcome"] == "ok" for r in pre), report["recent"]
    rows = {(r["name"], r["event"]): r for r in report["rows"]}
    assert rows[("contraindication/check", "PreToolUse")]["emitted"] == 1
    assert rows[("contraindication/check", "PreToolUse")]["silent"] == 1
    # Issue 42: the UserPromptSubmit dispatcher sits behind the payload filter, and this run's
    # prompt ("go") holds none of the reactions row's words: no dispatcher started, none recorded.
    assert not any(r["event"] == "UserPromptSubmit" for r in report["recent"]), report["recent"]
    everything = json.dumps(report)
    assert "e2e-ledger" not in everything and "reset" not in everything
