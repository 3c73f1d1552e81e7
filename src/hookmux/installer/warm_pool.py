"""The dispatcher's warm pools as ``hookmux status`` shows them (hooks/_dispatch/dispatch_arbiter.py, Pool).

A pool's folder in the runtime folder is named after the interpreter, the dispatcher's folder
and the interpreter's flags (escaped, or hashed when long), and its ``key`` file holds those
three, NUL-separated: the name is never decoded. Its ``manager`` file holds the arbiter's pid,
the calls its workers served and the pool's CPU milliseconds. Where the runtime folder is and
who may enter it: hooks/_common/warm.py, the dispatcher's own rules.
"""
from __future__ import annotations

import os
from pathlib import Path

from hookmux import resources


def _warm():
    return resources.runtime("warm")


def runtime_dir(environ=os.environ) -> Path:
    return Path(_warm().runtime_dir(environ))


def refusal(environ=os.environ) -> str | None:
    """Why the dispatcher does not use the runtime folder (it runs every call in a forked worker
    then), or None: ``warm.open_private``'s test, in words."""
    why = _warm().refusal(str(runtime_dir(environ)))
    if why and "belongs to uid" in why:
        return why + " (set HOOKMUX_RUNTIME_DIR to a folder of your own)"
    if why and "open to other users" in why:
        return why[:-1] + "; chmod 700 it)"
    return why


def folders_of(target, environ=os.environ) -> list[tuple[Path, tuple[str, str, str]]]:
    """(folder, key) of every pool of the dispatcher installed under ``target``, running or not."""
    dispatch_dir = os.path.join(str(target), "_dispatch")
    try:
        folders = sorted(runtime_dir(environ).iterdir())
    except OSError:
        return []
    keyed = [(folder, pool_key(folder)) for folder in folders]
    return [(folder, key) for folder, key in keyed if key is not None and same_folder(key[1], dispatch_dir)]


def pools_of(target: Path, environ=os.environ) -> list[dict]:
    """The running pools of the dispatcher installed under ``target``."""
    alive = _warm().alive
    found = []
    for folder, key in folders_of(target, environ):
        try:
            pid, served, cpu_ms = (folder / "manager").read_text().split()
        except (OSError, ValueError):
            continue
        if alive(pid):
            found.append({"python": key[0], "pid": int(pid), "served": int(served), "cpu_ms": float(cpu_ms)})
    return found


def pool_key(folder: Path) -> tuple[str, str, str] | None:
    """(interpreter, dispatcher folder, flags) of a pool's folder, from its ``key`` file."""
    try:
        parts = (folder / "key").read_bytes().decode("utf-8", "surrogateescape").split("\0")
    except OSError:
        return None
    return tuple(parts) if len(parts) == 3 else None


def same_folder(a: str, b: str) -> bool:
    return os.path.realpath(a) == os.path.realpath(b)
