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

DISPATCH_SCRIPT = ("_dispatch", "dispatch.py")
GATE_SCRIPT = ("skill-redirect", "skill_redirect.py")
# The dangerous-operation gate (issue 27), standalone: its deny must reach the host.
DANGER_GATE_SCRIPT = ("danger-gate", "danger_gate.py")
# SessionStart under ``install --serve``: starts ``hookmux serve`` unless it is up (docs/serve.md).
SERVE_SCRIPT = ("_serve", "ensure.py")


def serve_url(port: int, secret: str, event: str) -> str:
    """The URL of an HTTP hook answered by ``hookmux serve``: loopback, the secret in the path."""
    return f"http://127.0.0.1:{port}/{secret}/{event}"


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


# Interpreter flags of every wired command. -S: no site-packages (the hooks use the standard
# library only; the dispatcher loads site itself if a check needs a third-party module).
# -E: no PYTHON* variables, so a PYTHONPATH set by direnv or a devcontainer cannot make a
# hook import a project's json.py or re.py.
PYTHON_FLAGS = ("-S", "-E")
# Appended to every wired command: when the interpreter or the script is gone (a venv deleted,
# the hooks folder moved) the shell exits 127 or CPython exits 2, and 2 is the hosts' block
# code (Copilot denies on any non-zero exit). The hooks exit 0 themselves and deny with JSON,
# so the suffix loses nothing; it costs the shell one fork.
FAIL_OPEN = "|| true"


def hook_command(python: str, script: os.PathLike | str, event: str | None = None,
                 options: list[str] | tuple[str, ...] = ()) -> str:
    """``'<python>' -S -E '<script>' [OPTIONS] [EVENT] || true``, every word quoted for sh/bash."""
    parts = [shlex.quote(str(python)), *PYTHON_FLAGS, shlex.quote(str(script)), *map(shlex.quote, options)]
    if event:
        parts.append(shlex.quote(event))
    return " ".join(parts) + " " + FAIL_OPEN


def argv(command: str) -> list[str]:
    """The words of a command ``hook_command`` wrote, without the fail-open suffix: what runs
    when the command is started without a shell."""
    words = shlex.split(command)
    suffix = FAIL_OPEN.split()
    return words[: -len(suffix)] if words[-len(suffix):] == suffix else words


def dispatcher_command(python: str, target: os.PathLike | str, event: str,
                       options: list[str] | tuple[str, ...] = ()) -> str:
    return hook_command(python, Path(target).joinpath(*DISPATCH_SCRIPT), event, options)


def gate_command(python: str, target: os.PathLike | str, event: str) -> str:
    return hook_command(python, Path(target).joinpath(*GATE_SCRIPT), event)
