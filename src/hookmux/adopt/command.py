"""How a hook's command line runs a Python file, or why it does not in a way hookmux can adopt.

Spellings understood: ``python3 x.py``, ``/abs/python -u x.py``, ``uv run [--script|python] x.py``,
``./x.py`` / ``/abs/x.py`` with a Python shebang, ``"$CLAUDE_PROJECT_DIR"/.claude/hooks/x.py``
(``$VAR``, ``${VAR}``, quoted or not), ``~/x.py``, arguments after the script, and a trailing
``|| true`` / ``2>/dev/null``. Anything else a shell would do (pipes, ``&&``, ``cd``, variable
assignments, ``-m module``, ``-c``) is refused with the reason.
"""
from __future__ import annotations

import os
import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path

PROJECT_VAR = "CLAUDE_PROJECT_DIR"
_PYTHON_NAME = re.compile(r"^(python|pypy)(\d+(\.\d+)*)?$")
# Interpreter flags that do not change what the script sees (``-S``/``-E`` are what the
# dispatcher itself runs with; ``-u`` unbuffers the stdout the dispatcher replaces).
_HARMLESS_FLAGS = {"-u", "-S", "-E", "-s", "-B", "-I", "-O", "-OO", "-q"}
_UV_OPTIONS_WITH_VALUE = {"--python", "-p", "--directory", "--project"}
_TRAILERS = (("||", "true"), ("||", ":"), ("||", "exit", "0"))
_SHELL_OPERATORS = {"|", "||", "&&", ";", "&", ">", ">>", "<", "2>", "2>&1", ">&2", "1>&2", "(", ")"}


@dataclass
class Launch:
    """A command line that runs one Python file (``script`` absolute), or ``reason`` why not."""

    script: Path | None = None
    args: list[str] = field(default_factory=list)  #: the arguments after the script
    runner: str = ""  #: "python", "uv", "shebang"
    reason: str = ""  #: why the command is not one plain Python file run

    @property
    def ok(self) -> bool:
        return self.script is not None and not self.reason


def _split(command: str) -> list[str] | None:
    lexer = shlex.shlex(command, posix=True, punctuation_chars="|&;<>()")
    lexer.whitespace_split = True
    try:
        return list(lexer)
    except ValueError:
        return None


def _strip_trailers(tokens: list[str]) -> list[str]:
    changed = True
    while changed:
        changed = False
        if len(tokens) >= 2 and tokens[-2] in (">", "2>") and tokens[-1] == "/dev/null":
            # ``2>/dev/null``: shlex splits the 2 off as a word of its own
            tokens = tokens[:-2]
            if tokens and tokens[-1] == "2":
                tokens = tokens[:-1]
            changed = True
        for trailer in _TRAILERS:
            if tuple(tokens[-len(trailer):]) == trailer:
                tokens = tokens[: -len(trailer)]
                changed = True
    return tokens


def _expand(word: str, project_dir: Path | None) -> tuple[str | None, str]:
    """Expand ``~`` and ``$CLAUDE_PROJECT_DIR``; (None, reason) for any other variable."""
    def replace(match: re.Match) -> str:
        name = match.group(1) or match.group(2)
        if name == PROJECT_VAR and project_dir is not None:
            return str(project_dir)
        raise KeyError(name)

    try:
        word = re.sub(r"\$\{(\w+)\}|\$(\w+)", replace, word)
    except KeyError as exc:
        name = exc.args[0]
        if name == PROJECT_VAR:
            return None, f"${PROJECT_VAR} is a different folder in each project (user-level settings)"
        return None, f"depends on the environment variable ${name}"
    return os.path.expanduser(word), ""


def is_python(word: str) -> bool:
    return bool(_PYTHON_NAME.match(os.path.basename(word)))


def shebang_is_python(path: Path) -> bool:
    try:
        with open(path, "rb") as handle:
            first = handle.readline(200)
    except OSError:
        return False
    if not first.startswith(b"#!"):
        return False
    words = first[2:].decode("utf-8", "replace").split()
    if words and os.path.basename(words[0]) == "env":
        words = [w for w in words[1:] if not w.startswith("-")]
    if words and os.path.basename(words[0]) == "uv":  # "#!/usr/bin/env -S uv run --script"
        return True
    return bool(words) and is_python(words[0])


def parse(command: object, base: Path | None, project_dir: Path | None) -> Launch:
    """``base``: the folder a relative script path is relative to (None: it depends on the
    session's working directory, so a relative path cannot be adopted)."""
    if not isinstance(command, str) or not command.strip():
        return Launch(reason="no command")
    tokens = _split(command)
    if tokens is None:
        return Launch(reason="the command line does not parse (unbalanced quotes)")
    tokens = _strip_trailers(tokens)
    if not tokens:
        return Launch(reason="empty command")
    operators = [t for t in tokens if t in _SHELL_OPERATORS or set(t) <= set("|&;<>()")]
    if operators:
        return Launch(reason=f"a shell command line ({operators[0]!r}), not one Python file")
    if "=" in tokens[0] and not tokens[0].startswith(("/", ".", "~", "$")):
        return Launch(reason="sets environment variables for the hook")
    words = []
    for token in tokens:
        expanded, why = _expand(token, project_dir)
        if expanded is None:
            return Launch(reason=why)
        words.append(expanded)
    head = words[0]
    if os.path.basename(head) == "uv":
        return _uv(words[1:], base)
    if is_python(head):
        return _python(words[1:], base, "python")
    if head.endswith(".py"):
        script = _resolve(head, base)
        if script is None:
            return Launch(reason=f"{head}: relative to the session's working directory")
        if not shebang_is_python(script):
            return Launch(reason=f"{script}: no Python shebang")
        return Launch(script=script, args=words[1:], runner="shebang")
    return Launch(reason=f"runs {os.path.basename(head)!r}, not Python")


def _python(words: list[str], base: Path | None, runner: str) -> Launch:
    while words and words[0].startswith("-"):
        flag = words[0]
        if flag in ("-m", "-c") or flag.startswith(("-m", "-c")):
            return Launch(reason=f"python {flag} runs no script file")
        if flag not in _HARMLESS_FLAGS:
            return Launch(reason=f"python {flag} changes how the script runs")
        words = words[1:]
    if not words:
        return Launch(reason="python without a script")
    if not words[0].endswith(".py"):
        return Launch(reason=f"{words[0]}: the dispatcher imports only .py files")
    script = _resolve(words[0], base)
    if script is None:
        return Launch(reason=f"{words[0]}: relative to the session's working directory")
    return Launch(script=script, args=words[1:], runner=runner)


def _uv(words: list[str], base: Path | None) -> Launch:
    if not words or words[0] != "run":
        return Launch(reason="uv without run")
    words = words[1:]
    while words and words[0].startswith("-"):
        flag = words[0]
        if flag in ("--script", "--no-project", "-q", "--quiet", "--frozen", "--offline"):
            words = words[1:]
        elif flag in _UV_OPTIONS_WITH_VALUE:
            words = words[2:]
        else:
            return Launch(reason=f"uv run {flag} changes the environment the script runs in")
    if words and is_python(words[0]):
        return _python(words[1:], base, "uv")
    return _python(words, base, "uv")


def _resolve(word: str, base: Path | None) -> Path | None:
    if os.path.isabs(word):
        return Path(os.path.normpath(word))
    if base is None:
        return None
    return Path(os.path.normpath(base / word))
