"""The danger gate as a host runs it: payloads per host, a throwaway HOME and repositories."""
from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

from hookmux_testing import HOOKS, hermetic_env, run_hook

from hookmux import dangers

DANGER_GATE = HOOKS / "danger-gate" / "danger_gate.py"
CASES = Path(__file__).with_name("danger_gate_cases.json")


def payload(host: str, command: str, cwd: os.PathLike | str) -> str:
    """The PreToolUse payload each host sends for a shell call (host-contract.md)."""
    cwd = str(cwd)
    if host == "claude":
        return json.dumps({"session_id": "s1", "transcript_path": "/t.jsonl", "cwd": cwd, "permission_mode": "default",
                           "hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": command},
                           "tool_use_id": "toolu_1"})
    if host == "copilot":
        return json.dumps({"sessionId": "s1", "timestamp": 1, "cwd": cwd, "toolName": "bash",
                           "toolArgs": {"command": command, "description": "x"}})
    if host == "copilot-claude":  # Copilot loading a Claude-format .claude/settings.json
        return json.dumps({"hook_event_name": "PreToolUse", "session_id": "s1", "timestamp": "2026-01-01T00:00:00Z",
                           "cwd": cwd, "tool_name": "bash", "tool_input": {"command": command}})
    if host == "codex":
        return json.dumps({"session_id": "s1", "transcript_path": None, "cwd": cwd, "hook_event_name": "PreToolUse",
                           "model": "gpt-4.1", "permission_mode": "bypassPermissions", "turn_id": "t1",
                           "tool_name": "Bash", "tool_input": {"command": command}, "tool_use_id": "call_1"})
    raise ValueError(host)


#: The command line arguments each host's wiring passes.
ARGS = {"claude": ["PreToolUse"], "copilot": ["preToolUse"], "copilot-claude": ["PreToolUse"],
        "codex": ["--host", "codex", "PreToolUse"]}


class World:
    """HOME (with Documents, .ssh, .cache) and one repository per state, all under tmp_path."""

    def __init__(self, tmp_path: Path, **env: str) -> None:
        self.env = hermetic_env(tmp_path, GIT_CONFIG_NOSYSTEM="1", **env)
        self.home = Path(self.env["HOME"])
        assert str(self.home).startswith(tempfile.gettempdir()) and self.home != Path.home()
        for name in ("Documents", ".ssh", ".cache"):
            (self.home / name).mkdir(parents=True, exist_ok=True)
        self.env["GIT_CONFIG_GLOBAL"] = os.devnull
        self.root = tmp_path
        self._repos: dict[str, Path] = {}
        self.plain = tmp_path / "plain"
        self.plain.mkdir(exist_ok=True)

    def repo(self, state: str = "clean") -> Path:
        if state not in self._repos:
            self._repos[state] = dangers.make_repo(self.root / f"repo-{state}", state, self.env)
        return self._repos[state]

    def gate(self, command: str, cwd: os.PathLike | str | None = None, host: str = "claude", args=None):
        return run_hook(DANGER_GATE, ARGS[host] if args is None else args,
                        payload(host, command, cwd or self.repo()), self.env)


def denial(result, host: str = "claude") -> str | None:
    """The deny reason in the host's form, None when the gate let the call through (asserting
    it exited 0, wrote nothing to stderr, and printed one JSON line or nothing)."""
    assert result.returncode == 0 and result.stderr == b"", result
    if not result.stdout:
        return None
    lines = result.stdout.decode().splitlines()
    assert len(lines) == 1, result.stdout
    out = json.loads(lines[0])
    if host == "copilot":
        assert set(out) == {"permissionDecision", "permissionDecisionReason"} and out["permissionDecision"] == "deny"
        return out["permissionDecisionReason"]
    assert set(out) == {"hookSpecificOutput"}, out
    inner = out["hookSpecificOutput"]
    assert inner["hookEventName"] == "PreToolUse" and inner["permissionDecision"] == "deny"
    assert set(inner) == {"hookEventName", "permissionDecision", "permissionDecisionReason"}
    return inner["permissionDecisionReason"]


def cases() -> dict:
    return json.loads(CASES.read_text())
