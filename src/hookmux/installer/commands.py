"""Recognise hookmux's own hook commands by their content, never by their position.

A command is hookmux's when it runs the dispatcher or the gate the way ``wiring.hook_command``
writes it, in any form hookmux ever wrote or a user may reasonably edit it into::

    <absolute python> [python options] <absolute script> [script options] [EVENT] [fail-open suffix]

``<script>`` is ``_dispatch/dispatch.py`` or ``skill-redirect/skill_redirect.py``; python options
are ``-S``, ``-E``, ``-SE``, ``-X opt``...; script options are the ones the script accepts
(dispatcher: ``--trace``, ``--manifest PATH``, ``--hooks-root DIR``, also as ``--opt=value``;
gate: ``--skills-dir DIR``); the suffix is ``|| true`` (also ``|| :``, ``; true``, ``|| exit 0``)
or none (before 0.x), after ``2>/dev/null`` on Gemini CLI. The command may follow the payload
filter ``wiring.prefiltered`` writes (issue 42: ``d=$(cat); case $d in ... esac; printf '%s' "$d" | ``). It belongs to a target when the script lies directly in that target,
compared by real path (a symlinked HOME is one target, not two).

``references`` is looser: any word of any command that names one of a target's two scripts.
Uninstall removes such entries too, so it never leaves an entry running a file it deleted.
"""
from __future__ import annotations

import os
import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path

from hookmux.wiring import DANGER_SCRIPT, DISPATCH_SCRIPT, GATE_SCRIPT, SERVE_SCRIPT, split_prefilter

ROLES = {"dispatch": DISPATCH_SCRIPT, "gate": GATE_SCRIPT, "serve": SERVE_SCRIPT, "danger": DANGER_SCRIPT}
_PYTHON_FLAGS = re.compile(r"-[bBdEiIOqsSuvRP]+")
_PYTHON_VALUE_FLAGS = ("-X", "-W")
# script options: name -> takes a value
OPTIONS = {
    "dispatch": {"--trace": False, "--manifest": True, "--hooks-root": True, "--host": True},
    "gate": {"--skills-dir": True, "--host": True},
    "danger": {"--host": True},
    "serve": {},
}
# An HTTP hook of ``install --serve``: the dispatcher, answered by ``hookmux serve``.
_SERVE_URL = re.compile(r"http://127\.0\.0\.1:(\d{1,5})/([0-9a-f]{64})/([A-Za-z]{1,64})")
SUFFIXES = (("||", "true"), ("||", ":"), (";", "true"), ("||", "exit", "0"), (";", "exit", "0"))
SILENT_STDERR = "2>/dev/null"


@dataclass(frozen=True)
class HookmuxCommand:
    role: str  # "dispatch" or "gate"
    python: str
    script: str
    event: str | None
    target: str  # the folder holding _dispatch/ and skill-redirect/
    options: tuple[str, ...] = field(default=())  # the script options, as written
    fail_open: bool = False  # ends in a fail-open suffix
    prefilter: str = ""  # the payload filter in front of it (wiring.prefiltered), as written


def words(command: str) -> list[str] | None:
    """Shell words with ``;``/``||``/``&&`` as words of their own; None when unparsable."""
    try:
        lexer = shlex.shlex(command, posix=True, punctuation_chars=";|&")
        lexer.whitespace_split = True
        return list(lexer)
    except ValueError:
        return None


def _script_role(script: str) -> tuple[str, str] | None:
    if not os.path.isabs(script):
        return None
    parts = Path(os.path.normpath(script)).parts
    for role, tail in ROLES.items():
        if parts[-len(tail):] == tail:
            return role, str(Path(*parts[: -len(tail)]))
    return None


def parse(command: object) -> HookmuxCommand | None:
    if not isinstance(command, str):
        return None
    if command.startswith("http://"):
        return parse_url(command)
    prefilter, command = split_prefilter(command)
    tokens = words(command)
    if not tokens or not os.path.isabs(tokens[0]):
        return None
    fail_open = False
    for suffix in SUFFIXES:
        if tuple(tokens[-len(suffix):]) == suffix:
            tokens, fail_open = tokens[: -len(suffix)], True
            break
    if tokens and tokens[-1] == SILENT_STDERR:  # Gemini's form (installer/gemini_hooks.py)
        tokens = tokens[:-1]
    if any(t in (";", "|", "||", "&", "&&") for t in tokens):
        return None
    index = 1
    while index < len(tokens) and tokens[index].startswith("-"):
        if _PYTHON_FLAGS.fullmatch(tokens[index]):
            index += 1
        elif tokens[index] in _PYTHON_VALUE_FLAGS or tokens[index][:2] in _PYTHON_VALUE_FLAGS:
            index += 2 if tokens[index] in _PYTHON_VALUE_FLAGS else 1
        else:
            return None
    if index >= len(tokens):
        return None
    found = _script_role(tokens[index])
    if found is None:
        return None
    role, target = found
    options, event = _script_args(tokens[index + 1:], OPTIONS[role])
    if options is None:
        return None
    return HookmuxCommand(role, tokens[0], tokens[index], event, target, tuple(options), fail_open, prefilter)


def parse_url(url: str) -> HookmuxCommand | None:
    """A dispatcher HTTP hook when the URL's secret is an install's (its target comes from there)."""
    found = _SERVE_URL.fullmatch(url)
    if not found:
        return None
    from hookmux.serve import files

    target = files.target_of(found.group(2))
    if target is None:
        return None
    return HookmuxCommand("dispatch", "", str(Path(target).joinpath(*DISPATCH_SCRIPT)), found.group(3), target,
                          (), True)


def _script_args(args: list[str], known: dict[str, bool]) -> tuple[list[str] | None, str | None]:
    options, event, index = [], None, 0
    while index < len(args):
        arg = args[index]
        name = arg.split("=", 1)[0]
        if arg.startswith("-") and name in known:
            takes_value = known[name] and "=" not in arg
            if takes_value and index + 1 >= len(args):
                return None, None
            options += args[index: index + 1 + takes_value]
            index += 1 + takes_value
        elif not arg.startswith("-") and event is None:
            event = arg
            index += 1
        else:
            return None, None
    return options, event


def real(path: os.PathLike | str) -> str:
    return os.path.realpath(os.path.abspath(os.path.expanduser(str(path))))


def same_target(a: os.PathLike | str, b: os.PathLike | str) -> bool:
    return os.path.normpath(os.path.abspath(a)) == os.path.normpath(os.path.abspath(b)) or real(a) == real(b)


def ours(command: object, target: os.PathLike | str) -> HookmuxCommand | None:
    """The parsed command when it is hookmux's and runs a script of ``target``."""
    parsed = parse(command)
    if parsed and same_target(parsed.target, target):
        return parsed
    return None


def references(command: object, target: os.PathLike | str) -> bool:
    """Any word of ``command`` names one of the scripts of ``target`` (``ROLES``)."""
    if not isinstance(command, str):
        return False
    scripts = {real(Path(target).joinpath(*tail)) for tail in ROLES.values()}
    for word in words(command) or command.split():
        word = word.strip("'\"")
        if word.endswith(("dispatch.py", "skill_redirect.py", "danger_gate.py")) and (
                os.path.isabs(os.path.expanduser(word)) or word.startswith("$")):
            if real(os.path.expandvars(word)) in scripts:
                return True
    return False
