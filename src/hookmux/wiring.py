"""The exact command lines hookmux wires into a host's settings.

Installer, status and bench all build commands here, so what is benchmarked is
what is installed.
"""
from __future__ import annotations

import os
import re
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
# The dangerous-operation gate (hooks/danger-gate, docs/danger-gate.md): PreToolUse on the shell tool.
DANGER_SCRIPT = ("danger-gate", "danger_gate.py")
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


# Issue 42: a payload filter the shell evaluates before any interpreter starts. The host starts
# an entry on every UserPromptSubmit and PostToolBatch (no matcher or `if` narrows those events,
# docs/e2e.md); when the entry's rows can only act on a payload holding one of a few words, the
# shell reads the payload (`cat`), and only a payload holding one in any ASCII case is handed on
# to the hook command. The rule (docs/install.md#the-payload-filter): the filter may let through
# a payload nothing acts on, never hold back one something would act on. So:
# - ``decoded`` (the consumer matches the parsed JSON text with ``re.I``, as the dispatcher's rows
#   do): a payload holding a JSON ``\u`` escape (which may spell any letter) is handed on, and so
#   is one holding a non-ASCII letter Python's case-insensitive match folds onto a letter of a
#   word (UNICODE_FOLDS); not ``decoded`` (the consumer tests the raw bytes, ASCII case only, as
#   the gate's fast path does): the words only.
# - ``user_layer``: a user layer (whose rows may want every payload; it also brings a trusted
#   project's layer) hands every payload on: HOOKMUX_CONFIG_DIR set, a user layer file, or no HOME.
# The hook command itself is unchanged, so ``argv`` and the installer's parser read it as before.
PREFILTER_HEAD = 'd=$(cat); case $d in '
PREFILTER_PIPE = """ esac; printf '%s' "$d" | """
USER_LAYER_TEST = ('[ -n "$HOOKMUX_CONFIG_DIR" ] || [ -z "$HOME" ] '
                   '|| [ -e "${XDG_CONFIG_HOME:-$HOME/.config}/hookmux/manifest.json" ] '
                   '|| [ -e "$HOME/.config/hookmux/manifest.json" ] || ')
# The non-ASCII letters ``re.search(word, text, re.I)`` matches to an ASCII letter (all of them:
# tests/common/test_wiring_prefilter.py recomputes this from ``re``).
UNICODE_FOLDS = {"i": "\u0130\u0131", "k": "\u212a", "s": "\u017f"}
JSON_ESCAPE = "*\\\\u*"  # sh: a backslash then ``u``, anywhere
_WORD_GLOB = r"\*(?:\[[A-Z][a-z]\]|\\ )+\*"
_GLOB = r"(?:%s|\*[%s]\*|%s)" % (_WORD_GLOB, "".join(sorted("".join(UNICODE_FOLDS.values()))), re.escape(JSON_ESCAPE))
_PREFILTER = re.compile(r"%s%s(?:\|%s)*\) ;; \*\) (?:%s)?exit 0;;%s" % (
    re.escape(PREFILTER_HEAD), _GLOB, _GLOB, re.escape(USER_LAYER_TEST), re.escape(PREFILTER_PIPE)))


def payload_glob(words, decoded: bool = False) -> str:
    """``*[Uu][Nn]...*|...``: a sh ``case`` pattern matching text that holds any of ``words`` in
    any ASCII case; with ``decoded`` also text holding a JSON escape or a letter of UNICODE_FOLDS
    that folds onto a letter of the words."""
    out, folds = [], []
    for word in words:
        if not word or any(not (c.isascii() and (c.isalpha() or c == " ")) for c in word):
            raise ValueError(f"a payload word is ASCII letters and spaces: {word!r}")
        out.append("*%s*" % "".join("[%s%s]" % (c.upper(), c.lower()) if c != " " else "\\ " for c in word))
        folds += [fold for c in word.lower() for fold in UNICODE_FOLDS.get(c, "")]
    if decoded:
        out += ["*%s*" % fold for fold in dict.fromkeys(folds)] + [JSON_ESCAPE]
    return "|".join(out)


def prefiltered(command: str, words=(), user_layer: bool = False, decoded: bool = False) -> str:
    """``command`` behind the payload filter for ``words`` (``command`` itself without words)."""
    if not words:
        return command
    fallback = USER_LAYER_TEST if user_layer else ""
    return f"{PREFILTER_HEAD}{payload_glob(words, decoded)}) ;; *) {fallback}exit 0;;{PREFILTER_PIPE}{command}"


def split_prefilter(command: str) -> tuple[str, str]:
    """(the payload filter, the hook command): ``("", command)`` when there is none, or when the
    text in front is not exactly a filter ``prefiltered`` writes (a user's own shell is not one)."""
    found = _PREFILTER.match(command) if isinstance(command, str) else None
    if found:
        return command[: found.end()], command[found.end():]
    return "", command


def argv(command: str) -> list[str]:
    """The words of a command ``hook_command`` wrote, without the fail-open suffix: what runs
    when the command is started without a shell."""
    words = shlex.split(split_prefilter(command)[1])
    suffix = FAIL_OPEN.split()
    return words[: -len(suffix)] if words[-len(suffix):] == suffix else words


def dispatcher_command(python: str, target: os.PathLike | str, event: str,
                       options: list[str] | tuple[str, ...] = ()) -> str:
    return hook_command(python, Path(target).joinpath(*DISPATCH_SCRIPT), event, options)


def gate_command(python: str, target: os.PathLike | str, event: str) -> str:
    return hook_command(python, Path(target).joinpath(*GATE_SCRIPT), event)


def danger_command(python: str, target: os.PathLike | str, event: str) -> str:
    return hook_command(python, Path(target).joinpath(*DANGER_SCRIPT), event)
