"""How well the guard is protected from the agent it guards: the level in force, and what is still open.

    managed_paths(root="") -> ManagedPaths        # where a managed install goes (Claude Code's managed settings)
    untouchable(path) -> reason or ""             # why a process of the user could change path ("" = it cannot)
    level(root="") -> {"level", "settings", "why", "open"}

Two levels (docs/danger-gate.md, "Protection levels"):

- ``user``: hookmux runs as the user. The danger gate denies the agent's tool calls that would change
  its own ground, but any other process of the user (a script the agent wrote and ran, a program
  writing on its own) can still change the hooks tree and the settings that wire it.
- ``managed``: Claude Code's managed settings (``/etc/claude-code/managed-settings.json``, which no
  user or project setting can override, ``disableAllHooks`` included) wire a hooks tree and an
  interpreter that only root can change. A process of the user cannot remove or edit them.
"""
from __future__ import annotations

import json
import os
import shlex
from dataclasses import dataclass
from pathlib import Path

#: Claude Code's managed settings on Linux (macOS: /Library/Application Support/ClaudeCode/).
MANAGED_SETTINGS = ("etc", "claude-code", "managed-settings.json")
#: Where ``install --managed`` puts the hooks tree.
MANAGED_TARGET = ("opt", "hookmux", "hooks")
#: The interpreter a managed install wires: the system's, which only root can replace.
MANAGED_PYTHON = "/usr/bin/python3"
GATE_SCRIPT = "danger_gate.py"


@dataclass(frozen=True)
class ManagedPaths:
    settings: Path
    target: Path


def managed_paths(root: str = "") -> ManagedPaths:
    base = Path(root or "/")
    return ManagedPaths(base.joinpath(*MANAGED_SETTINGS), base.joinpath(*MANAGED_TARGET))


def untouchable(path: os.PathLike | str) -> str:
    """Why a process of a non-root user could change ``path`` (or what it names), or "" when only
    root can: ``path`` and every folder above it owned by root and writable by no one else."""
    given = Path(os.path.abspath(path))
    current = Path(os.path.realpath(given))
    chain = [current, *current.parents] + ([given.parent, *given.parent.parents] if given != current else [])
    for part in dict.fromkeys(chain):
        try:
            info = os.lstat(part)
        except OSError as exc:
            return f"{part}: {exc.strerror or exc}"
        if info.st_uid != 0:
            return f"{part} is owned by uid {info.st_uid}, not root"
        if info.st_mode & 0o022 and not (info.st_mode & 0o1000 and part != current):
            return f"{part} is writable by group or others (mode {info.st_mode & 0o7777:o})"
    return ""


def untouchable_tree(folder: os.PathLike | str) -> str:
    """``untouchable`` for ``folder`` and everything in it."""
    reason = untouchable(folder)
    if reason:
        return reason
    for dirpath, dirnames, filenames in os.walk(folder):
        for name in dirnames + filenames:
            path = os.path.join(dirpath, name)
            info = os.lstat(path)
            if info.st_uid != 0 or info.st_mode & 0o022:
                return f"{path} can be changed by a user (owner uid {info.st_uid}, mode {info.st_mode & 0o7777:o})"
    return ""


def _gate_commands(settings: Path) -> list[list[str]]:
    try:
        data = json.loads(settings.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    out = []
    for groups in ((data.get("hooks") or {}) if isinstance(data, dict) else {}).values():
        for group in groups if isinstance(groups, list) else []:
            for hook in (group.get("hooks") or []) if isinstance(group, dict) else []:
                command = hook.get("command") if isinstance(hook, dict) else None
                if isinstance(command, str) and GATE_SCRIPT in command:
                    try:
                        out.append(shlex.split(command))
                    except ValueError:
                        continue
    return out


def level(root: str = "") -> dict:
    """The protection level in force for Claude Code, why, and what is still open."""
    paths = managed_paths(root)
    report = {"level": "user", "settings": str(paths.settings), "why": "", "open": []}
    commands = _gate_commands(paths.settings)
    if not commands:
        report["why"] = f"no danger gate in {paths.settings}"
    for words in commands:
        python = words[0]
        script = next((w for w in words if w.endswith(GATE_SCRIPT)), "")
        tree = Path(script).parent.parent if script else None
        reason = untouchable(paths.settings) or untouchable(python) or (
            untouchable_tree(tree) if tree else "no script")
        if not reason:
            report.update(level="managed", why=f"{paths.settings} wires {tree}, which only root can change")
            report["open"] = ["allowances and their signing key stay in the user's state folder: a process of "
                              "the user that reads the key can sign one (hookmux allow's terminal check is the "
                              "user's own)",
                              "Copilot, Codex and Gemini wirings stay the user's (no managed form wired here)"]
            return report
        report["why"] = f"{paths.settings} wires the gate, but {reason}"
    report["open"] = [
        "a process of the user outside the agent's tool calls (a script it wrote and ran, a program writing on "
        "its own) can change the hooks tree and the settings that wire it; the gate denies only the tool calls "
        "it reads",
        "for a real boundary: sudo hookmux install --managed",
    ]
    return report


def render(report: dict) -> str:
    lines = [f"protection: {report['level']} ({report['why']})"]
    lines += [f"  still open: {item}" for item in report["open"]]
    return "\n".join(lines) + "\n"
