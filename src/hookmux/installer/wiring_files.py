"""The host files hookmux wires: a Claude Code settings file, a Copilot hooks file, Codex's hooks.json,
Gemini's settings.json, Cursor's hooks.json, Qwen Code's settings.json."""
from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from hookmux.installer import codex_hooks, commands, cursor_hooks, entries, gemini_hooks, merge, qwen_hooks

COPILOT_FILE = "hookmux.json"


@dataclass(frozen=True)
class Host:
    name: str
    dialect: merge.Dialect
    wanted: object  # (manifest, target, python) -> list[Entry]

    def trivially_empty(self, data: dict) -> bool:
        """Nothing left but what hookmux itself put in a file it created."""
        rest = dict(data)
        if self.dialect.versioned and rest.get("version") == 1:
            rest.pop("version")
        if rest.get("hooks") == {}:
            rest.pop("hooks")
        return rest == {}


CLAUDE = Host("claude", merge.CLAUDE, entries.claude_entries)
COPILOT = Host("copilot", merge.COPILOT, entries.copilot_entries)
CODEX = Host("codex", merge.CLAUDE, codex_hooks.entries)
GEMINI = Host("gemini", merge.CLAUDE, gemini_hooks.entries)
CURSOR = Host("cursor", merge.CURSOR, cursor_hooks.entries)
QWEN = Host("qwen", merge.CLAUDE, qwen_hooks.entries)
HOSTS = {"claude": CLAUDE, "copilot": COPILOT, "codex": CODEX, "gemini": GEMINI, "cursor": CURSOR, "qwen": QWEN}


def absolute(path: os.PathLike | str) -> Path:
    return Path(os.path.abspath(os.path.expanduser(str(path))))


def copilot_file(folder: os.PathLike | str) -> Path:
    return absolute(folder) / COPILOT_FILE


def same_file_key(mapping: dict, path: os.PathLike | str) -> str | None:
    """The key of ``mapping`` naming the same file as ``path`` (compared by real path)."""
    if str(path) in mapping:
        return str(path)
    real = commands.real(path)
    return next((key for key in mapping if commands.real(key) == real), None)
