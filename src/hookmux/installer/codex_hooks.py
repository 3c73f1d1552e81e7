"""What hookmux wires into OpenAI Codex CLI's ``$CODEX_HOME/hooks.json``.

The file has Claude Code's shape (event -> matcher groups -> command hooks), so the Claude
merge dialect edits it. Differences that matter here (docs/e2e.md, "Codex"):

- no top-level key but ``description`` and ``hooks``: Codex ignores the whole file on any
  other, so nothing like ``$schema`` is ever written;
- every command line carries ``--host codex`` (kept through re-installs, whatever options a user
  added), so the dispatcher and the gate answer in Codex's strict output schema;
- matchers name Codex's tools: ``Bash`` for shell calls, ``apply_patch`` for edits (Codex also
  matches it with ``Edit``/``Write``), ``spawn_agent`` for agents; a matcher made of letters,
  digits, ``_`` and ``|`` is a list of exact names there;
- PostToolBatch does not exist in Codex: the gate runs on PreToolUse for ``spawn_agent``.

Each definition must be trusted before Codex runs it (``codex_trust``).
"""
from __future__ import annotations

import os
from pathlib import Path

from hookmux import matchers, resources, wiring
from hookmux.installer.entries import DEFAULT_TIMEOUT, GATE_TIMEOUT, Entry, HostEntry, with_host

_hosts = resources.runtime("hosts")

HOOKS_FILE = "hooks.json"
HOST_ARGS = ("--host", _hosts.CODEX)
GATE_EVENTS = {"PreToolUse": _hosts.AGENT_TOOL[_hosts.CODEX]}
# apply_patch: for the guard's own ground; Codex names MCP tools mcp__<server>__<tool>, and the
# gate judges the command of those that run one (``matchers.with_mcp_shells``).
DANGER_EVENTS = {"PreToolUse": matchers.with_mcp_shells(_hosts.CODEX, "Bash|apply_patch")}
EVENTS = tuple(_hosts.EVENTS[_hosts.CODEX])


def hooks_file(codex_home: os.PathLike | str) -> Path:
    return Path(os.path.abspath(os.path.expanduser(str(codex_home)))) / HOOKS_FILE


def command(python: str, script: os.PathLike | str, event: str, options: tuple[str, ...] = ()) -> str:
    """``'<python>' -S -E '<script>' --host codex [OPTIONS] EVENT || true``: the Codex command
    (``options`` may hold a ``--host`` of a user's: it is replaced)."""
    return wiring.hook_command(python, script, event, with_host(HOST_ARGS, options))


def entries(manifest: dict, target: str, python: str) -> list[Entry]:
    root = Path(target)
    dispatch, gate = root.joinpath(*wiring.DISPATCH_SCRIPT), root.joinpath(*wiring.GATE_SCRIPT)
    out = []
    for event, spec in (manifest.get("events") or {}).items():
        if event not in EVENTS or not isinstance(spec, dict) or not spec.get("checks"):
            continue
        wanted = matchers.codex_matcher(spec.get("settings_matcher"), event)
        if wanted is False:
            continue
        timeout = spec.get("settings_timeout")
        if not isinstance(timeout, (int, float)) or isinstance(timeout, bool):
            timeout = DEFAULT_TIMEOUT
        out.append(HostEntry(event, "dispatch", wanted, command(python, dispatch, event), timeout,
                             python, str(dispatch), render=command))
    out += [HostEntry(event, "gate", tools, command(python, gate, event), GATE_TIMEOUT, python, str(gate),
                      render=command)
            for event, tools in GATE_EVENTS.items()]
    danger = root.joinpath(*wiring.DANGER_SCRIPT)
    out += [HostEntry(event, "danger", tools, command(python, danger, event), GATE_TIMEOUT, python, str(danger),
                      render=command)
            for event, tools in DANGER_EVENTS.items()]
    return out
