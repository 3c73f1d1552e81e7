"""Issue 39's e2e: one loss of each kind the gate now judges, asked for by the scripted model of
the real Claude Code, Copilot CLI, Codex CLI and Gemini CLI, each in one session of four calls,
each denied, and the folder still there after all four.

- one level down: ``rm -r ~/Documents/*`` (a glob that takes every entry of a home folder)
- two steps: ``mv ~/Documents ~/.cache/old && rm -r ~/.cache/old`` (the move carries the folder)
- another program: ``find ~/Documents -type f -delete``
- an interpreter: ``python3 -c "…shutil.rmtree(os.path.expanduser('~/Documents'))"``

SAFETY: the commands are data, the loopback model's tool calls; if the gate failed they would
run. They reach only HOME, the test's fresh temporary folder, asserted before every run. ``rm -r``
rather than ``rm -rf``: Codex refuses ``rm -f`` itself (host-contract.md), and the gate must be
what stops each call.
"""
from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest

from e2e_codex_server import shell as codex_shell
from e2e_expect import COPILOT_DENIED
from e2e_fixtures import claude_cli, codex_cli, codex_sandbox, copilot_cli, hookmux_installer, sandbox  # noqa: F401
from e2e_gemini import gemini_cli, gemini_sandbox, shell as gemini_shell  # noqa: F401
from hookmux.standin.anthropic import ToolUse

KINDS = {
    "one level down": ("rm -r ~/Documents/*", "RM-EMPTIES-UNDOABLE"),
    "two steps": ("mv ~/Documents ~/.cache/old && rm -r ~/.cache/old", "RM-RECURSIVE-UNDOABLE"),
    "another program": ("find ~/Documents -type f -delete", "FIND-DELETE-UNDOABLE"),
    "an interpreter": ("python3 -c \"import os, shutil; shutil.rmtree(os.path.expanduser('~/Documents'))\"",
                       "RM-RECURSIVE-UNDOABLE"),
}
COMMANDS = [command for command, _ in KINDS.values()]
CLAUDE_DENIED = "PreToolUse:Bash hook error: "
CODEX_DENIED = "Command blocked by PreToolUse hook: "
GEMINI_DENIED = "Tool execution blocked: hookmux danger gate: this command was NOT run."


def _lived_in_home(home: Path) -> Path:
    """HOME is this test's own temporary folder (asserted), with a Documents folder and a cache."""
    assert str(home).startswith(tempfile.gettempdir()), home
    assert home.resolve() != Path(os.path.expanduser("~")).resolve() and home != Path("/")
    thesis = home / "Documents" / "thesis.txt"
    thesis.parent.mkdir(parents=True, exist_ok=True)
    thesis.write_text("five years of work\n")
    (home / ".cache").mkdir(exist_ok=True)
    return thesis


def _each_denied(reasons: list[str], prefix: str, home: Path, thesis: Path) -> None:
    assert len(reasons) == len(KINDS)
    for (kind, (command, row)), reason in zip(KINDS.items(), reasons):
        assert reason.startswith(prefix), (kind, command, reason)
        assert f"[{row}]" in reason and str(home / "Documents") in reason, (kind, reason)
        assert "hookmux allow --last" in reason, (kind, reason)
    assert thesis.read_text() == "five years of work\n"
    assert not (home / ".cache" / "old").exists()  # the move of the two-step call never ran either


def test_claude_code_denies_one_of_each_kind(claude_cli, sandbox):
    home = Path(sandbox.env["HOME"])
    thesis = _lived_in_home(home)
    sandbox.install_claude_user()
    run = sandbox.claude(claude_cli, [ToolUse("Bash", {"command": c}) for c in COMMANDS], "--allowedTools", "Bash")
    assert run.proc.returncode == 0, run.proc.stderr
    seen = [run.after(index) for index in range(len(COMMANDS))]
    assert all(call.is_error for call in seen), [call.result for call in seen]
    _each_denied([call.result for call in seen], CLAUDE_DENIED, home, thesis)


def test_copilot_denies_one_of_each_kind(copilot_cli, sandbox):
    home = Path(sandbox.env["HOME"])
    thesis = _lived_in_home(home)
    sandbox.install_copilot_user()
    run = sandbox.copilot(copilot_cli, [ToolUse("bash", {"command": c}) for c in COMMANDS])
    assert run.proc.returncode == 0, run.proc.stderr
    _each_denied([run.after(index).result for index in range(len(COMMANDS))], COPILOT_DENIED, home, thesis)


def test_codex_denies_one_of_each_kind(codex_cli, codex_sandbox):
    home = Path(codex_sandbox.env["HOME"])
    thesis = _lived_in_home(home)
    codex_sandbox.hookmux("install", "--target", codex_sandbox.claude_target, "--settings",
                          codex_sandbox.user_settings, "--codex-home", codex_sandbox.codex_home,
                          "--codex-bin", codex_cli.path)
    run = codex_sandbox.codex(codex_cli, [codex_shell(c) for c in COMMANDS])
    assert run.proc.returncode == 0, run.proc.stderr
    _each_denied([run.after(index).output for index in range(len(COMMANDS))], CODEX_DENIED, home, thesis)


def test_gemini_denies_one_of_each_kind(gemini_cli, gemini_sandbox):
    home = gemini_sandbox.home
    assert gemini_sandbox.env["HOME"] == str(home)
    thesis = _lived_in_home(home)
    gemini_sandbox.install_gemini_user()
    run = gemini_sandbox.gemini(gemini_cli, [gemini_shell(c) for c in COMMANDS])
    assert run.proc.returncode == 0, run.proc.stderr
    responses = [run.after(index).response for index in range(len(COMMANDS))]
    assert all(set(response) == {"error"} for response in responses), responses
    _each_denied([response["error"] for response in responses], GEMINI_DENIED, home, thesis)


@pytest.fixture(autouse=True)
def _no_real_home_touched():
    """The real home's Documents (if any) is the same before and after each test."""
    real = Path(os.path.expanduser("~")) / "Documents"
    before = sorted(os.listdir(real)) if real.is_dir() else None
    yield
    assert (sorted(os.listdir(real)) if real.is_dir() else None) == before
