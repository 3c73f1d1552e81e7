"""The exact command lines hookmux wires into a host's settings.

Installer, status and bench all build commands here, so what is benchmarked is
what is installed.
"""
from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

from hookmux import resources

_hosts = resources.runtime("hosts")
# Host facts live once, in the hooks tree (hooks/_common/hosts.py).
COPILOT_EVENTS = _hosts.EVENTS[_hosts.COPILOT]
CLAUDE_TO_COPILOT = {claude: copilot for copilot, claude in COPILOT_EVENTS.items()}
COPILOT_TOOLS = _hosts.TOOLS[_hosts.COPILOT]

DISPATCH_SCRIPT = ("_dispatch", "dispatch.py")
GATE_SCRIPT = ("skill-redirect", "skill_redirect.py")


def resolve_python(python: str | None = None) -> str:
    """An absolute interpreter path, resolved past pyenv/asdf-style shims.

    A shim is a shell script that re-execs the real interpreter (~50 ms a call);
    asking the interpreter for ``sys.executable`` gives the real one.
    """
    candidate = python or sys.executable
    path = Path(candidate)
    if not path.is_absolute():
        found = shutil.which(candidate)
        path = Path(found) if found else path.absolute()
    if looks_like_shim(path):
        real = subprocess.run(
            [str(path), "-S", "-c", "import sys; print(sys.executable)"],
            capture_output=True, text=True, timeout=30, check=True,
        ).stdout.strip()
        if real:
            path = Path(real)
    return str(path)


def looks_like_shim(path: os.PathLike | str) -> bool:
    """A version-manager shim: under a ``shims`` folder, or a script rather than a binary."""
    if "shims" in Path(path).parts:
        return True
    try:
        with open(path, "rb") as handle:
            return handle.read(2) == b"#!"
    except OSError:
        return False


def hook_command(python: str, script: os.PathLike | str, event: str | None = None) -> str:
    """``"<python>" -S "<script>" [EVENT]``, every path quoted for sh/bash.

    ``-S`` skips site-packages: the hooks use the standard library only, and
    the dispatcher loads site itself if a check needs a third-party module.
    """
    parts = [shlex.quote(str(python)), "-S", shlex.quote(str(script))]
    if event:
        parts.append(shlex.quote(event))
    return " ".join(parts)


def dispatcher_command(python: str, target: os.PathLike | str, event: str) -> str:
    return hook_command(python, Path(target).joinpath(*DISPATCH_SCRIPT), event)


def gate_command(python: str, target: os.PathLike | str, event: str) -> str:
    return hook_command(python, Path(target).joinpath(*GATE_SCRIPT), event)
