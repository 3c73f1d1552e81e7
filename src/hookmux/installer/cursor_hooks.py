"""What hookmux wires into Cursor's ``~/.cursor/hooks.json`` (``hookmux install --cursor``).

The file is ``{"version": 1, "hooks": {"<event>": [{"command": ..., "matcher": ..., "timeout": ...}]}}``
(cursor.com/docs/agent/hooks, "Configuration"): a flat list per event as Copilot's, with
``command`` and ``timeout`` (seconds), so the ``merge.CURSOR`` dialect edits it beside the
user's own entries. Nothing here was run against Cursor (its CLI talks only to Cursor's
servers, docs/e2e.md): it follows the documentation.

- Cursor's event names: the manifest's PreToolUse is ``preToolUse``, UserPromptSubmit
  ``beforeSubmitPrompt`` (``hosts.EVENTS``, the first native name of each canonical one); Cursor
  reads no advice before a call, so the advising rows of PreToolUse run on ``postToolUse``
  (``hosts.ADVICE_AFTER``), whose ``additional_context`` reaches the model;
- matchers name Cursor's tools: ``Shell``, ``Write``, ``StrReplace`` (``matchers.cursor_matcher``);
- every command line carries ``--host cursor`` and ends ``|| true``; no entry sets
  ``failClosed``: a hook that crashes or is gone lets the call run (the hooks always exit 0 and
  deny with JSON on stdout);
- the danger gate runs on ``preToolUse`` for the shell and file tools, where its
  ``{"permission": "deny", "user_message": R, "agent_message": R}`` stops the call. The
  skill/agent redirect is not wired: Cursor has no skill tool of its own.
"""
from __future__ import annotations

from pathlib import Path

from hookmux import matchers, resources, wiring
from hookmux.installer import jsonfile, merge
from hookmux.installer.entries import DEFAULT_TIMEOUT, GATE_TIMEOUT, Entry, HostEntry, with_host

_hosts = resources.runtime("hosts")

HOOKS_FILE = "~/.cursor/hooks.json"
HOST_ARGS = ("--host", _hosts.CURSOR)
NATIVE_EVENTS: dict[str, str] = {}
for _native, _canonical in _hosts.EVENTS[_hosts.CURSOR].items():
    NATIVE_EVENTS.setdefault(_canonical, _native)
# The danger gate's events and the settings matcher its tools are chosen by.
DANGER_GATE_EVENTS = {"preToolUse": "Bash|Edit|Write"}  # Edit, Write: for the guard's own ground


def hooks_file() -> Path:
    """The user's ``~/.cursor/hooks.json`` (HOME as it is now)."""
    return Path(HOOKS_FILE).expanduser().absolute()


def wired_twice(home: Path) -> str | None:
    """The one-line warning of ``status`` and ``doctor`` when Cursor would run hookmux twice: a
    ``~/.cursor`` folder, and hookmux's entries both in ``~/.claude/settings.json`` (which Cursor
    runs too with its third-party option on, the default) and in ``~/.cursor/hooks.json``."""
    cursor_dir = Path(home) / ".cursor"
    claude, cursor = Path(home) / ".claude" / "settings.json", cursor_dir / "hooks.json"
    if not cursor_dir.is_dir() or not _wires_hookmux(claude, merge.CLAUDE) or not _wires_hookmux(cursor, merge.CURSOR):
        return None
    return (f"Cursor runs hookmux twice: from {claude} (Cursor loads Claude Code's hooks with its third-party "
            f"option on) and from {cursor}; keep one: turn off Cursor Settings > Agents > Third-Party Imports, "
            f"or `hookmux uninstall` and `hookmux install` again without --cursor")


def _wires_hookmux(path: Path, dialect) -> bool:
    try:
        loaded = jsonfile.load(path)
    except (jsonfile.JsonFileError, OSError):
        return False
    return loaded.exists and bool(merge.find_any(loaded.data, dialect))


def command(python: str, script, event: str, options: tuple[str, ...] = ()) -> str:
    """``'<python>' -S -E '<script>' --host cursor [OPTIONS] EVENT || true``."""
    return wiring.hook_command(python, script, event, with_host(HOST_ARGS, options))


def _timeout(seconds) -> float:
    return seconds if isinstance(seconds, (int, float)) and not isinstance(seconds, bool) and seconds > 0 \
        else DEFAULT_TIMEOUT


def _events(manifest: dict) -> dict[str, dict]:
    """Cursor event -> the manifest spec it serves: each wired event's own, and postToolUse
    PreToolUse's when that has advising rows (they run after the call on Cursor)."""
    events = {name: spec for name, spec in (manifest.get("events") or {}).items()
              if isinstance(spec, dict) and spec.get("checks")}
    out = {NATIVE_EVENTS[name]: spec for name, spec in events.items() if name in NATIVE_EVENTS}
    before, after = _hosts.ADVICE_AFTER[_hosts.CURSOR]
    spec = events.get(before)
    if spec and NATIVE_EVENTS[after] not in out and any(
            isinstance(row, dict) and row.get("emits", True) for row in spec["checks"]):
        out[NATIVE_EVENTS[after]] = spec
    return out


def entries(manifest: dict, target: str, python: str) -> list[Entry]:
    dispatch = Path(target).joinpath(*wiring.DISPATCH_SCRIPT)
    danger_gate = Path(target).joinpath(*wiring.DANGER_SCRIPT)
    out = []
    for event, spec in _events(manifest).items():
        wanted = matchers.cursor_matcher(spec.get("settings_matcher"), event)
        if wanted is False:
            continue
        out.append(HostEntry(event, "dispatch", wanted, command(python, dispatch, event),
                             _timeout(spec.get("settings_timeout")), python, str(dispatch), render=command))
    out += [HostEntry(event, "danger", matchers.cursor_matcher(tools, event), command(python, danger_gate, event),
                      GATE_TIMEOUT, python, str(danger_gate), render=command)
            for event, tools in DANGER_GATE_EVENTS.items()]
    return out
