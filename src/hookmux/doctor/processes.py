"""The processes a wired hook depends on: its interpreter, the warm pool, the server."""
from __future__ import annotations

import errno
import os
import subprocess
from pathlib import Path

from hookmux.installer import warm_pool

FLOOR = (3, 9)
VERSION_TIMEOUT = 15.0


def interpreter(python: str) -> dict:
    """{"path", "ok", "version", "problem"}: whether ``python`` exists, runs, and is 3.9 or newer."""
    info = {"path": python, "ok": False, "version": None, "problem": None}
    if not python or not os.path.isfile(python) or not os.access(python, os.X_OK):
        info["problem"] = "is gone (or not executable)"
        return info
    try:
        result = subprocess.run([python, "-S", "-E", "-c", "import sys; print('%d.%d' % sys.version_info[:2])"],
                                capture_output=True, timeout=VERSION_TIMEOUT, stdin=subprocess.DEVNULL)
        major, minor = map(int, result.stdout.decode().strip().split("."))
    except (OSError, ValueError, subprocess.TimeoutExpired) as exc:
        info["problem"] = f"does not run ({type(exc).__name__})"
        return info
    info["version"] = f"{major}.{minor}"
    if (major, minor) < FLOOR:
        info["problem"] = f"is Python {major}.{minor}, older than the floor {FLOOR[0]}.{FLOOR[1]}"
        return info
    info["ok"] = True
    return info


def pools(target: str, environ=os.environ) -> list[dict]:
    """Every warm-pool folder of the dispatcher under ``target``, answering or not."""
    return [pool_state(folder, key[0]) for folder, key in warm_pool.folders_of(target, environ)]


def pool_state(folder: Path, python: str) -> dict:
    info = {"folder": str(folder), "python": python, "pid": None, "answers": False, "problem": None}
    try:
        pid = int((folder / "manager").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        pid = None
    info["pid"] = pid
    state = _process_state(pid) if pid else None
    if state is None:
        info["problem"] = (f"its manager (pid {pid}) is gone" if pid else "it has no manager")
        return info
    if state in ("T", "t", "Z"):
        info["problem"] = f"its manager (pid {pid}) is {'stopped' if state != 'Z' else 'a zombie'}"
        return info
    try:
        fd = os.open(folder / "calls", os.O_WRONLY | os.O_NONBLOCK)
        os.close(fd)
    except OSError as exc:
        info["problem"] = ("nobody reads its calls FIFO" if exc.errno == errno.ENXIO
                           else f"its calls FIFO cannot be opened ({exc.strerror})")
        return info
    info["answers"] = True
    return info


def _process_state(pid: int) -> str | None:
    """The process's state letter (R, S, T, Z, ...), or None when there is no such process."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as handle:
            return handle.read().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        pass
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return None
    except PermissionError:
        return "?"
    return "?"


def server(target: str) -> dict:
    """Whether ``hookmux serve`` for ``target`` answers its health check (loopback only)."""
    from hookmux.serve.probe import probe

    record = probe(target)
    return {"answers": bool(record), "pid": record and record.get("pid"), "port": record and record.get("port")}
