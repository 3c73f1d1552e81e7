"""hookmux's block in OpenAI Codex CLI's administrator file ``/etc/codex/requirements.toml``.

Codex reads managed hooks there in the hooks.json schema written as inline TOML
(openai/codex PR #18893): ``[hooks] managed_dir = "<folder of the scripts>"``, then
``[[hooks.PreToolUse]] matcher = ...`` and ``[[hooks.PreToolUse.hooks]] type = "command"``,
``command``, ``timeout``. Managed hooks need no trust record and cannot be disabled from the
user's ``/hooks`` screen. Older Codex releases skip them unless ``managed_dir`` names an absolute
folder that exists, so the block sets it when the administrator's file has none.

The file is the administrator's: hookmux writes only one block, between ``BEGIN`` and ``END``,
appended after everything else (a TOML table runs to the next header, so nothing of the
administrator's may follow it), and takes out only that block. Every other byte stays. On
Python 3.11+ (``tomllib``) the result is parsed before it is written: it must be valid TOML, and
with the block taken out it must read exactly as the administrator's file did.

    with_block(text, command, managed_dir) -> new text   # BlockError when it cannot be done safely
    without_block(text) -> text                          # the administrator's text alone
    gate_commands(text, script) -> [command, ...]        # PreToolUse commands running ``script``
"""
from __future__ import annotations

import json
import re

try:
    import tomllib
except ImportError:  # Python 3.9/3.10: no TOML reader in the standard library
    tomllib = None

FILE = ("etc", "codex", "requirements.toml")
EVENT = "PreToolUse"
BEGIN = "# >>> hookmux: danger gate (hookmux install --managed --codex; hookmux uninstall --managed removes it)"
END = "# <<< hookmux"
_HOOKS_KEY = re.compile(r"^\s*(\[\[?\s*hooks\s*[.\]]|hooks\s*[.=])")
_MANAGED_DIR = re.compile(r"^\s*(hooks\s*\.\s*)?managed_dir\s*=")


class BlockError(Exception):
    pass


def _split(text: str) -> tuple[str, str, str] | None:
    """(before, block, after) of hookmux's block in ``text``, or None when there is none."""
    lines = text.splitlines(keepends=True)
    starts = [i for i, line in enumerate(lines) if line.rstrip("\r\n") == BEGIN]
    if not starts:
        return None
    ends = [i for i, line in enumerate(lines) if line.rstrip("\r\n") == END and i > starts[0]]
    if len(starts) > 1 or not ends:
        raise BlockError(f"hookmux's block is damaged ({len(starts)} start line(s), {len(ends)} end line(s)): "
                         "fix it by hand or take it out")
    start, end = starts[0], ends[0]
    return "".join(lines[:start]), "".join(lines[start:end + 1]), "".join(lines[end + 1:])


def without_block(text: str) -> str:
    parts = _split(text)
    return text if parts is None else parts[0] + parts[2]


def _string(value: str) -> str:
    """A TOML basic string (JSON's escapes are TOML's, with ``ensure_ascii``)."""
    return json.dumps(value, ensure_ascii=True)


def _admin_has(text: str) -> tuple[bool, bool]:
    """Whether the administrator's text has a ``hooks`` table, and a ``hooks.managed_dir``."""
    if tomllib is not None:
        hooks = tomllib.loads(text).get("hooks")
        return hooks is not None, isinstance(hooks, dict) and "managed_dir" in hooks
    lines = text.splitlines()
    has_hooks = any(_HOOKS_KEY.match(line) for line in lines)
    return has_hooks, has_hooks and any(_MANAGED_DIR.match(line) for line in lines)


def render(command: str, matcher: str, timeout: int, managed_dir: str | None) -> str:
    lines = [BEGIN]
    if managed_dir is not None:
        lines += ["[hooks]", f"managed_dir = {_string(managed_dir)}", ""]
    lines += [f"[[hooks.{EVENT}]]", f"matcher = {_string(matcher)}", "",
              f"[[hooks.{EVENT}.hooks]]", 'type = "command"', f"command = {_string(command)}",
              f"timeout = {int(timeout)}", END]
    return "\n".join(lines) + "\n"


def with_block(text: str, command: str, matcher: str, timeout: int, managed_dir: str) -> str:
    """``text`` with hookmux's block (one, at the end) running ``command``."""
    admin = without_block(text)
    try:
        has_hooks, has_dir = _admin_has(admin)
    except ValueError as exc:  # tomllib.TOMLDecodeError
        raise BlockError(f"not valid TOML ({exc}): hookmux adds nothing to a file Codex cannot read") from exc
    if has_hooks and not has_dir:
        raise BlockError("it has a [hooks] table without managed_dir; hookmux cannot add one without "
                         f"rewriting it: add managed_dir = {_string(managed_dir)} under [hooks] and run again")
    body = render(command, matcher, timeout, None if has_dir else managed_dir)
    new = admin + ("\n" if admin and not admin.endswith("\n") else "") + body
    if tomllib is not None:
        _check(admin, new, command)
    return new


def _check(admin: str, new: str, command: str) -> None:
    """The new text is TOML, holds the command, and is the administrator's once the block is out."""
    try:
        data = tomllib.loads(new)
    except ValueError as exc:
        raise BlockError(f"adding hookmux's block would make it invalid TOML ({exc}): nothing written") from exc
    if command not in _commands(data):
        raise BlockError("hookmux's block would not be read as a PreToolUse hook (the file's last table "
                         "takes it over): nothing written")
    if tomllib.loads(without_block(new)) != tomllib.loads(admin):
        raise BlockError("taking hookmux's block out again would change the file's other settings: nothing written")


def _commands(data: dict) -> list[str]:
    hooks = data.get("hooks") if isinstance(data, dict) else None
    groups = hooks.get(EVENT) if isinstance(hooks, dict) else None
    out = []
    for group in groups if isinstance(groups, list) else []:
        for hook in (group.get("hooks") or []) if isinstance(group, dict) else []:
            if isinstance(hook, dict) and hook.get("type", "command") == "command" \
                    and isinstance(hook.get("command"), str):
                out.append(hook["command"])
    return out


def gate_commands(text: str, script: str) -> list[str]:
    """The PreToolUse commands of ``text`` that run ``script`` (a file name). Without ``tomllib``,
    only hookmux's own block is read (its lines are hookmux's format)."""
    if tomllib is not None:
        try:
            data = tomllib.loads(text)
        except ValueError:
            return []
        return [c for c in _commands(data) if script in c]
    try:
        parts = _split(text)
    except BlockError:
        return []
    out = []
    for line in (parts[1].splitlines() if parts else []):
        if line.startswith("command = "):
            try:
                value = json.loads(line[len("command = "):])
            except ValueError:
                continue
            if isinstance(value, str) and script in value:
                out.append(value)
    return out
