"""File operations that remember how to undo themselves, so a failed install leaves nothing
changed."""
from __future__ import annotations

import os
from pathlib import Path

from hookmux.installer import atomic


class Journal:
    def __init__(self) -> None:
        self._undo: list[tuple] = []

    def mkdirs(self, folder: Path) -> None:
        missing = []
        current = Path(folder)
        while not os.path.lexists(current):
            missing.append(current)
            current = current.parent
        for path in reversed(missing):
            os.mkdir(path)
            self._undo.append(("rmdir", path))

    def write(self, path: Path, data: bytes, mode: int | None = None) -> None:
        real = atomic.real_path(path)
        old = real.read_bytes() if real.is_file() else None
        old_mode = atomic.file_mode(real) if old is not None else None
        self.mkdirs(real.parent)
        atomic.remove_stale_temps(real)
        atomic.write_atomic(path, data, mode)
        self._undo.append(("restore", real, old, old_mode))

    def delete(self, path: Path) -> None:
        old = path.read_bytes()
        old_mode = atomic.file_mode(path)
        os.unlink(path)
        self._undo.append(("restore", path, old, old_mode))

    def move(self, src: Path, dst: Path) -> None:
        if os.path.lexists(dst):
            raise FileExistsError(f"{dst}: already exists")
        os.rename(src, dst)
        self._undo.append(("move", dst, src))

    def backup(self, path: Path) -> Path:
        """Copy ``path`` (its content, through symlinks) to a fresh backup beside it."""
        dst = atomic.backup_path(path)
        atomic.write_atomic(dst, atomic.real_path(path).read_bytes(), atomic.file_mode(atomic.real_path(path)))
        self._undo.append(("restore", dst, None, None))
        return dst

    def rmdir_if_empty(self, folder: Path) -> None:
        try:
            os.rmdir(folder)
        except OSError:
            return
        self._undo.append(("mkdir", folder))

    def rollback(self) -> list[str]:
        """Undo everything, newest first; returns what could not be undone."""
        failures = []
        for op in reversed(self._undo):
            try:
                if op[0] == "rmdir":
                    os.rmdir(op[1])
                elif op[0] == "mkdir":
                    os.mkdir(op[1])
                elif op[0] == "move":
                    os.rename(op[1], op[2])
                elif op[0] == "restore":
                    _, path, old, mode = op
                    if old is None:
                        if os.path.lexists(path):
                            os.unlink(path)
                    else:
                        atomic.write_atomic(path, old, mode)
            except OSError as exc:
                failures.append(f"{op[1]}: {exc}")
        self._undo.clear()
        return failures
