"""Recognise hookmux's own hook commands by their content, never by their position.

A command is hookmux's when it has exactly the shape ``wiring.hook_command`` writes:
``<absolute python> -S <script> [EVENT]`` where ``<script>`` is ``_dispatch/dispatch.py`` or
``skill-redirect/skill_redirect.py``. It belongs to a target when the script lies directly in
that target. A user's own command running the same file in another shape (``python3
~/.claude/hooks/_dispatch/dispatch.py``) is the user's and is left alone.
"""
from __future__ import annotations

import os
import shlex
from dataclasses import dataclass
from pathlib import Path

from hookmux.wiring import DISPATCH_SCRIPT, GATE_SCRIPT

ROLES = {"dispatch": DISPATCH_SCRIPT, "gate": GATE_SCRIPT}


@dataclass(frozen=True)
class HookmuxCommand:
    role: str  # "dispatch" or "gate"
    python: str
    script: str
    event: str | None
    target: str  # the folder holding _dispatch/ and skill-redirect/


def parse(command: object) -> HookmuxCommand | None:
    if not isinstance(command, str):
        return None
    try:
        tokens = shlex.split(command)
    except ValueError:
        return None
    if len(tokens) == 6 and tokens[3] == "--host":  # codex_hooks.command
        tokens = tokens[:3] + tokens[5:]
    if len(tokens) not in (3, 4) or tokens[1] != "-S" or not os.path.isabs(tokens[0]):
        return None
    script = tokens[2]
    if not os.path.isabs(script):
        return None
    parts = Path(os.path.normpath(script)).parts
    for role, tail in ROLES.items():
        if parts[-len(tail):] == tail:
            target = str(Path(*parts[: -len(tail)]))
            event = tokens[3] if len(tokens) == 4 else None
            return HookmuxCommand(role, tokens[0], script, event, target)
    return None


def same_target(a: os.PathLike | str, b: os.PathLike | str) -> bool:
    return os.path.normpath(os.path.abspath(a)) == os.path.normpath(os.path.abspath(b))


def ours(command: object, target: os.PathLike | str) -> HookmuxCommand | None:
    """The parsed command when it is hookmux's and runs a script of ``target``."""
    parsed = parse(command)
    if parsed and same_target(parsed.target, target):
        return parsed
    return None
