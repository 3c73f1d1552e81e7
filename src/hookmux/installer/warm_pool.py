"""The dispatcher's warm pools as ``hookmux status`` shows them (hooks/_dispatch/dispatch_standby.py).

A pool's folder in the runtime folder is named after the interpreter, the dispatcher's folder
and the interpreter's flags, each ``/`` written ``%2F``; its ``manager`` file holds the
manager's pid, the calls its standbys served and the pool's CPU milliseconds.
"""
from __future__ import annotations

import os
import stat
from pathlib import Path


def runtime_dir(environ=os.environ) -> Path:
    chosen = environ.get("HOOKMUX_RUNTIME_DIR")
    if chosen:
        return Path(chosen)
    xdg = environ.get("XDG_RUNTIME_DIR")
    return Path(xdg) / "hookmux" if xdg else Path(f"/tmp/hookmux-{os.getuid()}")


def refusal(environ=os.environ) -> str | None:
    """Why the dispatcher does not use the runtime folder (it runs every call in a forked worker
    then), or None. The dispatcher's own test is ``dispatch_isolated.open_private``."""
    folder = runtime_dir(environ)
    try:
        info = folder.lstat()
    except FileNotFoundError:
        return None
    except OSError as exc:
        return f"{folder}: {exc.strerror}"
    if stat.S_ISLNK(info.st_mode):
        return f"{folder} is a link"
    if not stat.S_ISDIR(info.st_mode):
        return f"{folder} is not a folder"
    if info.st_uid != os.getuid():
        return f"{folder} belongs to uid {info.st_uid} (set HOOKMUX_RUNTIME_DIR to a folder of your own)"
    if info.st_mode & 0o077:
        return f"{folder} is open to other users (mode {stat.S_IMODE(info.st_mode):o}; chmod 700 it)"
    return None


def pools_of(target: Path, environ=os.environ) -> list[dict]:
    """The running pools of the dispatcher installed under ``target``."""
    dispatch_dir = str(target / "_dispatch")
    found = []
    try:
        folders = sorted(runtime_dir(environ).iterdir())
    except OSError:
        return found
    for folder in folders:
        parts = folder.name.replace("%2F", "/").replace("%25", "%").split("@")
        if len(parts) != 3 or parts[1] != dispatch_dir:
            continue
        try:
            pid, served, cpu_ms = (folder / "manager").read_text().split()
            os.kill(int(pid), 0)
        except (OSError, ValueError):
            continue
        found.append({"python": parts[0], "pid": int(pid), "served": int(served), "cpu_ms": float(cpu_ms)})
    return found
