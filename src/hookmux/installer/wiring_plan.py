"""What one host file becomes in an install or uninstall: hookmux's entries merged in (or
taken out), the bytes before and after, whether to back it up, and its record entry."""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from hookmux.installer import atomic, commands, jsonfile, merge
from hookmux.installer.jsonfile import JsonFileError
from hookmux.installer.wiring_files import Host


@dataclass
class FileChange:
    path: Path
    host: Host
    old: bytes | None  # None: the file does not exist
    new: bytes | None  # None: delete the file
    backup: bool = False  # the file holds none of hookmux's entries yet: back it up first
    info: dict = field(default_factory=dict)  # the record's "wired" entry after the change
    others: list[str] = field(default_factory=list)  # targets of other installs wired in this file

    @property
    def changed(self) -> bool:
        return self.old != self.new


def plan_wiring(path: Path, host: Host, wanted: list, target: str, recorded: dict | None) -> FileChange:
    loaded = jsonfile.load(path)
    created = set(recorded.get("created") or ()) if recorded else None
    new_data, made = merge.merge(loaded.data, wanted, target, host.dialect, created, str(path), sweep=not wanted)
    created_file = bool(recorded and recorded.get("created_file")) or not loaded.exists or (
        bool(wanted) and merge.hookmux_only_file(loaded.data, host.dialect))
    info = {"host": host.name, "created_file": created_file, "created": made}
    dirs = list(recorded.get("created_dirs", [])) if recorded else []
    if wanted and not loaded.exists:
        dirs += [str(d) for d in _missing_dirs(atomic.real_path(path).parent) if str(d) not in dirs]
    if dirs:
        info["created_dirs"] = dirs
    old = loaded.raw if loaded.exists else None
    change = _change(path, host, loaded, new_data, wanted, target, info, old)
    if change.changed and change.old is not None:
        _refuse_read_only(path)
    change.others = sorted({parsed.target for _, _, parsed in merge.find_any(loaded.data, host.dialect)
                            if not commands.same_target(parsed.target, target)})
    return change


def _change(path: Path, host: Host, loaded: jsonfile.JsonFile, new_data: dict, wanted: list, target: str,
            info: dict, old: bytes | None) -> FileChange:
    if not wanted:
        if not loaded.exists:
            return FileChange(path, host, None, None, info=info)
        if new_data == loaded.data:
            return FileChange(path, host, old, old, info=info)
        if info["created_file"] and host.trivially_empty(new_data) and not path.is_symlink():
            return FileChange(path, host, old, None, info=info)  # a link is kept: the real file is edited
        return FileChange(path, host, old, _restored_bytes(path, new_data) or loaded.render(new_data), info=info)
    if loaded.exists and new_data == loaded.data:
        return FileChange(path, host, old, old, info=info)
    first_change = loaded.exists and not merge.find(loaded.data, target, host.dialect) and not (
        merge.hookmux_only_file(loaded.data, host.dialect))
    return FileChange(path, host, old, loaded.render(new_data), backup=first_change, info=info)


def _refuse_read_only(path: Path) -> None:
    """A file the user made read-only (``chmod a-w``) is not silently replaced: ``os.replace``
    would succeed anyway, because it needs only the folder to be writable."""
    mode = atomic.file_mode(atomic.real_path(path))
    if mode is not None and not mode & 0o200:
        raise JsonFileError(f"{path}: is read-only (mode {mode:04o}); hookmux will not rewrite it. "
                            f"Make it writable (chmod u+w) and run the command again")


def _missing_dirs(folder: Path) -> list[Path]:
    """``folder`` and its ancestors that do not exist yet, deepest first."""
    out = []
    while not os.path.lexists(folder):
        out.append(folder)
        folder = folder.parent
    return out


def _restored_bytes(path: Path, data: dict) -> bytes | None:
    """The newest backup's exact bytes when they hold the same data (keeps the user's format)."""
    for backup in reversed(atomic.existing_backups(path)):
        try:
            if jsonfile.load(backup).data == data:
                return backup.read_bytes()
        except (JsonFileError, OSError):
            continue
        return None
    return None
