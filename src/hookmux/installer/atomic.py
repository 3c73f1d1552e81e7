"""Atomic file writes: temp file in the same folder, fsync, ``os.replace``, mode kept.

Fault injection (issue 8): every write goes through ``fault_point(step)`` before each of the
steps ``temp`` (creating the temp file), ``fsync`` and ``replace``, and through the
module-level ``make_temp``/``fsync``/``replace`` callables, which a test may monkeypatch.
A subprocess is steered with ``HOOKMUX_FAULT=STEP[:ACTION[:N]]``: at the N-th time (default 1)
STEP is reached, ACTION happens: ``raise`` (OSError, the default), ``kill`` (SIGKILL to
itself, a crash with no cleanup) or ``exit`` (``os._exit(70)``).
"""
from __future__ import annotations

import errno
import os
import signal
import stat
import tempfile
import time
from pathlib import Path

STEPS = ("temp", "fsync", "replace")
TEMP_SUFFIX = ".hookmux-tmp"

make_temp = tempfile.mkstemp
fsync = os.fsync
replace = os.replace

_counts: dict[str, int] = {}


def fault_point(step: str) -> None:
    spec = os.environ.get("HOOKMUX_FAULT", "")
    if not spec:
        return
    parts = spec.split(":")
    if parts[0] != step:
        return
    action = parts[1] if len(parts) > 1 and parts[1] else "raise"
    nth = int(parts[2]) if len(parts) > 2 and parts[2] else 1
    _counts[step] = _counts.get(step, 0) + 1
    if _counts[step] != nth:
        return
    if action == "kill":
        os.kill(os.getpid(), signal.SIGKILL)
    if action == "exit":
        os._exit(70)
    raise OSError(errno.EIO, f"injected fault at {step} (HOOKMUX_FAULT={spec})")


def current_umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def real_path(path: os.PathLike | str) -> Path:
    """Where a write to ``path`` lands: symlinks (also dangling ones) are followed."""
    return Path(os.path.realpath(path))


def file_mode(path: os.PathLike | str) -> int | None:
    try:
        return stat.S_IMODE(os.stat(path).st_mode)
    except FileNotFoundError:
        return None


def write_atomic(path: os.PathLike | str, data: bytes, mode: int | None = None) -> None:
    """Replace ``path`` (through any symlink) with ``data``; the mode is ``mode``, else the
    existing file's, else what a plain ``open()`` would give."""
    target = real_path(path)
    if mode is None:
        mode = file_mode(target)
    if mode is None:
        mode = 0o666 & ~current_umask()
    fault_point("temp")
    fd, tmp = make_temp(prefix=f".{target.name}.", suffix=TEMP_SUFFIX, dir=str(target.parent))
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            fault_point("fsync")
            fsync(handle.fileno())
        os.chmod(tmp, mode)
        fault_point("replace")
        replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    fsync_dir(target.parent)


def fsync_dir(folder: os.PathLike | str) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def remove_stale_temps(path: os.PathLike | str) -> list[Path]:
    """Temp files a killed hookmux left beside ``path``'s real file (call under the lock)."""
    target = real_path(path)
    removed = []
    try:
        names = os.listdir(target.parent)
    except OSError:
        return removed
    for name in names:
        if name.startswith(f".{target.name}.") and name.endswith(TEMP_SUFFIX):
            try:
                os.unlink(target.parent / name)
                removed.append(target.parent / name)
            except OSError:
                pass
    return removed


def timestamp() -> str:
    return time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())


def backup_path(path: os.PathLike | str, stamp: str | None = None) -> Path:
    """``<name>.hookmux-backup-<time>`` beside ``path``, never an existing file."""
    path = Path(path)
    base = path.with_name(f"{path.name}.hookmux-backup-{stamp or timestamp()}")
    candidate, n = base, 1
    while os.path.lexists(candidate):
        n += 1
        candidate = base.with_name(f"{base.name}-{n}")
    return candidate


def existing_backups(path: os.PathLike | str) -> list[Path]:
    path = Path(path)
    try:
        names = os.listdir(path.parent)
    except OSError:
        return []
    prefix = f"{path.name}.hookmux-backup-"
    return sorted(path.parent / n for n in names if n.startswith(prefix))
