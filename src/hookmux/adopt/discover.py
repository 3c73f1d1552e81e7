"""The user's command hook entries in a Claude Code settings file and in Copilot hook files.

Each entry keeps where it sits (event, group and hook index) and its exact JSON value, so it
can be taken out and put back exactly. hookmux's own entries are recognised through the
installer (``merge.find_any``) and reported apart: they are the dispatcher and the gate.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from hookmux.installer import commands as hookmux_commands
from hookmux.installer import jsonfile
from hookmux.installer.wiring_files import COPILOT_FILE, Host

# Host defaults when an entry sets no timeout (seconds).
DEFAULT_TIMEOUTS = {"claude": 60, "copilot": 30}


@dataclass
class Entry:
    file: Path
    host: Host
    event: str  #: the host's event key
    group_index: int | None  #: Claude: index of the matcher group in the event's list
    hook_index: int  #: index in the group's hooks (Claude) or the event's list (Copilot)
    matcher: str | None  #: the host's matcher, in the host's semantics
    hook: dict  #: the entry's exact JSON value
    hookmux_role: str | None = None  #: "dispatch"/"gate" for hookmux's own entries

    @property
    def command(self):
        return self.hook.get(self.host.dialect.command_key)

    @property
    def timeout(self) -> float:
        value = self.hook.get(self.host.dialect.timeout_key)
        if isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0:
            return value
        return DEFAULT_TIMEOUTS[self.host.name]

    @property
    def where(self) -> str:
        group = f"[{self.group_index}].hooks" if self.group_index is not None else ""
        return f"{self.file}: hooks.{self.event}{group}[{self.hook_index}]"


def entries(path: Path, host: Host) -> list[Entry]:
    data = jsonfile.load(path).data
    return entries_of(data, path, host)


def entries_of(data: dict, path: Path, host: Host) -> list[Entry]:
    out: list[Entry] = []
    hooks = data.get("hooks")
    if not isinstance(hooks, dict):
        return out
    for event, items in hooks.items():
        if not isinstance(items, list):
            continue
        if host.dialect.grouped:
            for gi, group in enumerate(items):
                if not isinstance(group, dict) or not isinstance(group.get("hooks"), list):
                    continue
                matcher = group.get("matcher")
                for hi, hook in enumerate(group["hooks"]):
                    if isinstance(hook, dict):
                        out.append(_entry(path, host, event, gi, hi, matcher, hook))
        else:
            for hi, hook in enumerate(items):
                if isinstance(hook, dict):
                    out.append(_entry(path, host, event, None, hi, hook.get("matcher"), hook))
    return out


def _entry(path, host, event, gi, hi, matcher, hook) -> Entry:
    parsed = hookmux_commands.parse(hook.get(host.dialect.command_key))
    return Entry(path, host, event, gi, hi, matcher if isinstance(matcher, str) else None, hook,
                 parsed.role if parsed else None)


def copilot_files(folder: Path) -> list[Path]:
    """The Copilot hook files in ``folder`` other than hookmux's own."""
    try:
        names = sorted(os.listdir(folder))
    except OSError:
        return []
    return [folder / n for n in names if n.endswith(".json") and n != COPILOT_FILE and (folder / n).is_file()]


def project_dir_of(settings: Path) -> Path | None:
    """The project a ``<project>/.claude/settings[.local].json`` belongs to; None for user settings."""
    settings = Path(os.path.abspath(settings))
    if settings.parent.name != ".claude":
        return None
    project = settings.parent.parent
    if project == Path(os.path.expanduser("~")):
        return None
    return project


def copilot_base(folder: Path) -> Path | None:
    """Relative commands in ``<repo>/.github/hooks`` run from the repo; in ~/.copilot/hooks from
    wherever the session is."""
    folder = Path(os.path.abspath(folder))
    if folder.name == "hooks" and folder.parent.name == ".github":
        return folder.parent.parent
    return None
