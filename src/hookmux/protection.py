"""How well the guard is protected from the agent it guards: the level in force, and what is still open.

    managed_paths(root="") -> ManagedPaths        # where a managed install goes (Claude Code's managed settings,
                                                  # Codex's requirements.toml, Copilot's policy hook file)
    untouchable(path) -> reason or ""             # why a process of the user could change path ("" = it cannot)
    level(root="") -> {"level", "settings", "why", "open"}

Two levels (docs/danger-gate.md, "Protection levels"):

- ``user``: hookmux runs as the user. The danger gate denies the agent's tool calls that would change
  its own ground, but any other process of the user (a script the agent wrote and ran, a program
  writing on its own) can still change the hooks tree and the settings that wire it.
- ``managed``: Claude Code's managed settings (``/etc/claude-code/managed-settings.json``, which no
  user or project setting can override, ``disableAllHooks`` included) wire a hooks tree and an
  interpreter that only root can change. A process of the user cannot remove or edit them.

Codex is judged the same way on its own line (``report["codex"]``): ``managed`` when
``/etc/codex/requirements.toml`` (the administrator's requirements, ``install --managed --codex``)
wires the gate in a tree only root can change. So is Copilot CLI (``report["copilot"]``): ``managed``
when hookmux's policy hook file (``/etc/github-copilot/policy.d/hookmux.json``, ``install --managed
--copilot``) does. Copilot loads policy hooks before all others, ``disableAllHooks`` cannot turn them
off and a user cannot disable them (Copilot CLI 1.0.102).
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
#: Copilot CLI's machine-wide policy hooks: every ``*.json`` of this folder (Linux); hookmux's is its own file.
COPILOT_POLICY = ("etc", "github-copilot", "policy.d", "hookmux.json")


@dataclass(frozen=True)
class ManagedPaths:
    settings: Path
    target: Path
    codex_requirements: Path
    copilot_policy: Path


def managed_paths(root: str = "") -> ManagedPaths:
    from hookmux.installer import codex_requirements

    base = Path(root or "/")
    return ManagedPaths(base.joinpath(*MANAGED_SETTINGS), base.joinpath(*MANAGED_TARGET),
                        base.joinpath(*codex_requirements.FILE), base.joinpath(*COPILOT_POLICY))


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
                    out.append(command)
    return _words(out)


def copilot_gate_commands(policy: Path) -> list[str]:
    """The danger gate's commands in a Copilot hooks file (``hooks.preToolUse[].bash``)."""
    try:
        data = json.loads(policy.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    hooks = data.get("hooks") if isinstance(data, dict) else None
    entries = hooks.get("preToolUse") if isinstance(hooks, dict) else None
    if not isinstance(entries, list):
        return []
    return [entry["bash"] for entry in entries
            if isinstance(entry, dict) and isinstance(entry.get("bash"), str) and GATE_SCRIPT in entry["bash"]]


def _codex_gate_commands(requirements: Path) -> list[list[str]]:
    from hookmux.installer import codex_requirements

    try:
        text = requirements.read_text(encoding="utf-8")
    except (OSError, ValueError):
        return []
    return _words(codex_requirements.gate_commands(text, GATE_SCRIPT))


def _words(commands: list[str]) -> list[list[str]]:
    out = []
    for command in commands:
        try:
            out.append(shlex.split(command))
        except ValueError:
            continue
    return out


def _judge(path: Path, commands: list[list[str]]) -> tuple[str, str]:
    """("managed", why) when ``path`` wires the gate in a tree only root can change, else ("user", why)."""
    if not commands:
        return "user", f"no danger gate in {path}"
    why = ""
    for words in commands:
        python = words[0]
        script = next((w for w in words if w.endswith(GATE_SCRIPT)), "")
        tree = Path(script).parent.parent if script else None
        reason = untouchable(path) or untouchable(python) or (untouchable_tree(tree) if tree else "no script")
        if not reason:
            return "managed", f"{path} wires {tree}, which only root can change"
        why = f"{path} wires the gate, but {reason}"
    return "user", why


def level(root: str = "") -> dict:
    """The protection level in force for Claude Code (and, in ``codex``, for Codex), why, and what
    is still open."""
    paths = managed_paths(root)
    claude, why = _judge(paths.settings, _gate_commands(paths.settings))
    codex, codex_why = _judge(paths.codex_requirements, _codex_gate_commands(paths.codex_requirements))
    copilot, copilot_why = _judge(paths.copilot_policy, _words(copilot_gate_commands(paths.copilot_policy)))
    report = {"level": claude, "settings": str(paths.settings), "why": why, "open": [],
              "codex": {"level": codex, "requirements": str(paths.codex_requirements), "why": codex_why},
              "copilot": {"level": copilot, "policy": str(paths.copilot_policy), "why": copilot_why}}
    if claude == "managed":
        user_hosts = [name for name, level in (("Copilot", copilot), ("Codex", codex), ("Gemini", "user"))
                      if level != "managed"]
        user_hosts = ", ".join(user_hosts[:-1]) + " and " + user_hosts[-1] if len(user_hosts) > 1 else user_hosts[0]
        report["open"] = ["allowances and their signing key stay in the user's state folder: a process of "
                          "the user that reads the key can sign one (hookmux allow's terminal check is the "
                          "user's own)",
                          f"{user_hosts} wirings stay the user's (no managed form wired here)"]
    else:
        report["open"] = [
            "a process of the user outside the agent's tool calls (a script it wrote and ran, a program writing on "
            "its own) can change the hooks tree and the settings that wire it; the gate denies only the tool calls "
            "it reads",
            "for a real boundary: sudo hookmux install --managed",
        ]
    if codex == "managed":
        report["open"].append("Codex: a user's `[features] hooks = false` in ~/.codex/config.toml may turn off every "
                              "hook, managed ones too (Codex's docs let requirements.toml force hooks off, not on; "
                              "not measured here)")
    return report


def render(report: dict) -> str:
    lines = [f"protection: {report['level']} ({report['why']})"]
    codex = report.get("codex")
    if codex and (codex["level"] == "managed" or os.path.exists(codex["requirements"])):
        lines.append(f"protection (Codex): {codex['level']} ({codex['why']})")
    copilot = report.get("copilot")
    if copilot and (copilot["level"] == "managed" or os.path.exists(copilot["policy"])):
        lines.append(f"protection (Copilot): {copilot['level']} ({copilot['why']})")
    lines += [f"  still open: {item}" for item in report["open"]]
    return "\n".join(lines) + "\n"
