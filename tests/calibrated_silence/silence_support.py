"""Helpers for the calibrated-silence tests: the module loaded by path, payloads, the ledger."""
from __future__ import annotations

import json
import os
from importlib.util import module_from_spec, spec_from_file_location
from pathlib import Path

from hookmux_testing import HOOKS

FOLDER = HOOKS / "calibrated-silence"
MODULE = FOLDER / "calibrated_silence.py"
REACTIONS = FOLDER / "reactions.py"
TYPE = "contraindication"


def load(path: Path = MODULE, name: str = "hookmux_test_calibrated_silence"):
    spec = spec_from_file_location(name, path)
    module = module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def history(state: Path) -> list[dict]:
    path = state / "calibrated-silence" / "history.jsonl"
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines()]


def reactions(state: Path, reaction: str | None = None) -> list[dict]:
    return [r for r in history(state) if r["k"] == "reaction" and reaction in (None, r["r"])]


def bash_payload(command: str, session: str = "s-1", **extra) -> str:
    payload = {"session_id": session, "hook_event_name": "PreToolUse", "tool_name": "Bash",
               "tool_input": {"command": command, "description": "run it"}, "cwd": "/tmp"}
    payload.update(extra)
    return json.dumps(payload)


def prompt_payload(prompt: str, session: str = "s-1") -> str:
    return json.dumps({"session_id": session, "hook_event_name": "UserPromptSubmit", "prompt": prompt, "cwd": "/tmp"})


def set_state(monkeypatch, tmp_path: Path) -> Path:
    for key in list(os.environ):
        if key.startswith("HOOKMUX_"):
            monkeypatch.delenv(key)
    state = tmp_path / "state"
    monkeypatch.setenv("HOOKMUX_STATE_DIR", str(state))
    return state
