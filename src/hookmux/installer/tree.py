"""What the installed hooks tree should hold, and how to get there without touching the
user's other files.

A file hookmux would write that is already there and is not hookmux's (not in the install
record, different content) is moved aside to ``<name>.legacy`` and put back on uninstall,
like pre-commit does with a foreign git hook. An installed file the user has edited since is
backed up (``<name>.hookmux-backup-<time>``) before it is replaced, and kept on uninstall.
"""
from __future__ import annotations

import json
import os
import stat
from dataclasses import dataclass, field
from pathlib import Path

from hookmux import resources
from hookmux.installer.record import Record, sha256

MANIFEST = "_dispatch/manifest.json"
AGENTS = "skill-redirect/known_agents.py"
SKIP_DIRS = {"__pycache__"}
SKIP_SUFFIXES = (".pyc", ".pyo")
LEGACY_SUFFIX = ".legacy"
# The plugin's hook wiring (hookmux.plugin) sits at the root of the tree; a settings install
# does not copy it (a hooks.json of the user's in the target stays theirs).
PLUGIN_ONLY = {"hooks.json"}


@dataclass
class Wanted:
    data: bytes
    mode: int


def installed_manifest(text: bytes, target: str) -> bytes:
    manifest = json.loads(text)
    manifest["hooks_root"] = target
    return (json.dumps(manifest, indent=2, ensure_ascii=False) + "\n").encode()


def agents_module(agents_dirs: list[str]) -> bytes:
    from hookmux import agents_registry

    names = set(agents_registry.shipped_names()) | set(agents_registry.collect_names([Path(d) for d in agents_dirs]))
    text = agents_registry.render_module(sorted(names))
    return text.encode() if isinstance(text, str) else text


def wanted_files(target: str, agents_dirs: list[str], source: Path | None = None) -> dict[str, Wanted]:
    """rel path -> content and mode, for the package's tree installed at ``target``."""
    source = source or resources.hooks_tree()
    out: dict[str, Wanted] = {}
    for folder, dirs, files in os.walk(source):
        dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS)
        for name in sorted(files):
            if name.endswith(SKIP_SUFFIXES):
                continue
            path = Path(folder) / name
            rel = path.relative_to(source).as_posix()
            if rel in PLUGIN_ONLY:
                continue
            out[rel] = Wanted(path.read_bytes(), stat.S_IMODE(path.stat().st_mode) | 0o600)
    if MANIFEST in out:
        out[MANIFEST].data = installed_manifest(out[MANIFEST].data, target)
    if agents_dirs:
        mode = out[AGENTS].mode if AGENTS in out else 0o644
        out[AGENTS] = Wanted(agents_module(agents_dirs), mode)
    return out


@dataclass
class TreePlan:
    writes: dict[str, Wanted] = field(default_factory=dict)  # rel -> content to write
    legacy: dict[str, str] = field(default_factory=dict)  # the new record's legacy map
    moves: dict[str, str] = field(default_factory=dict)  # rel -> rel.legacy, moved before the write
    backups: list[str] = field(default_factory=list)  # edited installed files backed up first
    deletes: list[str] = field(default_factory=list)  # installed earlier, no longer shipped
    new_dirs: list[str] = field(default_factory=list)
    files: dict[str, str] = field(default_factory=dict)  # the new record's files
    fresh: list[str] = field(default_factory=list)  # files that do not exist yet
    errors: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def changes(self) -> bool:
        return bool(self.writes or self.moves or self.deletes)


def read_regular(path: Path) -> bytes | None:
    try:
        if path.is_symlink() or not path.is_file():
            return None
        return path.read_bytes()
    except OSError:
        return None


def plan(target: Path, wanted: dict[str, Wanted], record: Record | None, merged=frozenset()) -> TreePlan:
    """``merged``: files whose wanted content already keeps the user's part (the live manifest,
    see manifest_merge): written over without a backup or a .legacy copy."""
    tp = TreePlan()
    recorded = record.files if record else {}
    tp.legacy = dict(record.legacy) if record else {}
    for rel, want in wanted.items():
        path = target / rel
        new_sha = sha256(want.data)
        tp.files[rel] = new_sha
        for parent in reversed(Path(rel).parents):
            folder = target / parent
            if os.path.lexists(folder) and not folder.is_dir():
                tp.errors.append(f"{folder}: exists and is not a folder; hookmux needs a folder there")
            elif not os.path.lexists(folder) and parent.as_posix() not in tp.new_dirs:
                tp.new_dirs.append(parent.as_posix())
        if not os.path.lexists(path):
            tp.writes[rel] = want
            tp.fresh.append(rel)
            continue
        if path.is_dir() and not path.is_symlink():
            tp.errors.append(f"{path}: is a folder; hookmux needs to write a file there")
            continue
        current = read_regular(path)
        if current is not None and sha256(current) == new_sha:
            if stat.S_IMODE(path.stat().st_mode) != want.mode and rel in recorded:
                tp.writes[rel] = want
            continue
        if rel in merged and current is not None:
            tp.writes[rel] = want
            continue
        if rel in recorded and not path.is_symlink():
            if current is None or not record.ours_unedited(rel, sha256(current)):
                tp.backups.append(rel)
                tp.notes.append(f"{path}: edited since hookmux installed it; a backup is kept beside it")
            tp.writes[rel] = want
            continue
        legacy = rel + LEGACY_SUFFIX
        if os.path.lexists(target / legacy):
            tp.errors.append(f"{path}: is not hookmux's and {target / legacy} already exists; "
                             "move one of them away")
            continue
        tp.moves[rel] = legacy
        tp.legacy[rel] = legacy
        tp.writes[rel] = want
        tp.notes.append(f"{path}: not hookmux's; kept as {target / legacy} (restored by uninstall)")
    for rel in recorded:
        if rel in wanted:
            continue
        current = read_regular(target / rel)
        if current is not None and record.ours_unedited(rel, sha256(current)):
            tp.deletes.append(rel)
        elif current is not None:
            tp.notes.append(f"{target / rel}: no longer shipped but edited; left in place")
    return tp
