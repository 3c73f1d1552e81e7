"""What hookmux wires into Gemini CLI's ``settings.json`` (``~/.gemini`` or a project's ``.gemini``).

The ``hooks`` object has Claude Code's shape (event -> matcher groups -> command hooks), so
the Claude merge dialect edits it, beside everything else the user keeps in that file.
Differences that matter here (shared/host-contract.md "Gemini CLI 0.61.0", docs/e2e.md):

- Gemini's event names: the manifest's PreToolUse is ``BeforeTool``, UserPromptSubmit
  ``BeforeAgent``, Stop ``AfterAgent`` ... (``hosts.EVENTS``); and because Gemini drops context
  given before a call, the advising rows of PreToolUse run on ``AfterTool`` (``hosts.ADVICE_AFTER``),
  so AfterTool is wired with PreToolUse's matcher;
- ``timeout`` is in **milliseconds**;
- matchers are unanchored JavaScript regexes over Gemini's own tool names: a settings matcher
  becomes ``^(?:run_shell_command|...)$``, the Gemini tools whose canonical name it selects;
  BeforeAgent and AfterAgent ignore matchers;
- Gemini blocks the call on exit 2 or >= 3 *with any text*, bash's 127 "No such file" too: every
  command line ends ``2>/dev/null || true``, so a removed hooks folder or interpreter is a silent
  exit 0 (the hooks themselves always exit 0 and deny with JSON on stdout);
- every command line carries ``--host gemini``;
- the dangerous-operation gate (``danger-gate/``, issue 27) runs on BeforeTool for the shell
  tool, where its ``{"decision": "deny", "reason": R}`` stops the call; the skill/agent redirect
  is not wired: Gemini rejects an unknown skill or agent name before any hook.
"""
from __future__ import annotations

import os
import shlex
from pathlib import Path

from hookmux import matchers, resources, wiring
from hookmux.installer.entries import DEFAULT_TIMEOUT, GATE_TIMEOUT, Entry, HostEntry, with_host

_hosts = resources.runtime("hosts")

SETTINGS_FILE = "settings.json"
HOST_ARGS = ("--host", _hosts.GEMINI)
# Gemini parses ``stdout.trim() || stderr.trim()``: stderr must stay empty as stdout does.
SILENT = "2>/dev/null"
NATIVE_EVENTS = {canonical: native for native, canonical in _hosts.EVENTS[_hosts.GEMINI].items()}
matcher = matchers.gemini_matcher


def settings_file(gemini_home: os.PathLike | str) -> Path:
    """``<DIR>/settings.json``: ``~/.gemini`` for the user, ``<project>/.gemini`` for a project."""
    return Path(os.path.abspath(os.path.expanduser(str(gemini_home)))) / SETTINGS_FILE


def command(python: str, script: os.PathLike | str, event: str, options: tuple[str, ...] = ()) -> str:
    """``'<python>' -S -E '<script>' --host gemini [OPTIONS] EVENT 2>/dev/null || true``."""
    parts = [shlex.quote(str(python)), *wiring.PYTHON_FLAGS, shlex.quote(str(script)),
             *map(shlex.quote, with_host(HOST_ARGS, options)), shlex.quote(event)]
    return " ".join(parts) + " " + SILENT + " " + wiring.FAIL_OPEN


def _milliseconds(seconds) -> int:
    if not isinstance(seconds, (int, float)) or isinstance(seconds, bool) or seconds <= 0:
        seconds = DEFAULT_TIMEOUT
    return int(round(seconds * 1000))


def _events(manifest: dict) -> dict[str, list[dict]]:
    """Gemini event -> the manifest specs it serves: each wired event's own, and on AfterTool
    also PreToolUse's when it has advising rows (they run after the call on Gemini)."""
    events = {name: spec for name, spec in (manifest.get("events") or {}).items()
              if isinstance(spec, dict) and spec.get("checks")}
    out: dict[str, list[dict]] = {}
    for name, spec in events.items():
        if name in NATIVE_EVENTS:
            out.setdefault(NATIVE_EVENTS[name], []).append(spec)
    before, after = _hosts.ADVICE_AFTER[_hosts.GEMINI]
    spec = events.get(before)
    if spec and any(isinstance(row, dict) and row.get("emits", True) for row in spec["checks"]):
        out.setdefault(NATIVE_EVENTS[after], []).append(spec)
    return out


def _union(event: str, specs: list[dict]) -> str | None | bool:
    """One Gemini matcher for all ``specs`` (several only on AfterTool, whose matchers are
    ``^(?:a|b)$``, None or False): None when any takes every tool, False when none selects one."""
    wanted = [matcher(spec.get("settings_matcher"), event) for spec in specs]
    if len(wanted) == 1:
        return wanted[0]
    if any(w is None for w in wanted):
        return None
    names = [name for w in wanted if w for name in w[len("^(?:"):-len(")$")].split("|")]
    return "^(?:" + "|".join(dict.fromkeys(names)) + ")$" if names else False


# The danger gate's events and the settings matcher its tools are chosen by.
DANGER_GATE_EVENTS = {"BeforeTool": "Bash|Edit|Write"}  # Edit, Write: for the guard's own ground
# The gate's wired matcher: those tools in Gemini's names, and Gemini's MCP tools that run a shell
# command (mcp_<server>_run_command ...: the gate judges their command as run_shell_command's).
DANGER_MATCHER = matchers.with_mcp_shells(_hosts.GEMINI, matcher("Bash|Edit|Write", "BeforeTool"))


def entries(manifest: dict, target: str, python: str) -> list[Entry]:
    dispatch = Path(target).joinpath(*wiring.DISPATCH_SCRIPT)
    danger_gate = Path(target).joinpath(*wiring.DANGER_SCRIPT)
    out = []
    for event, specs in _events(manifest).items():
        wanted = _union(event, specs)
        if wanted is False:
            continue
        timeout = max(_milliseconds(spec.get("settings_timeout")) for spec in specs)
        out.append(HostEntry(event, "dispatch", wanted, command(python, dispatch, event), timeout,
                             python, str(dispatch), render=command))
    out += [HostEntry(event, "danger", matchers.with_mcp_shells(_hosts.GEMINI, matcher(tools, event)),
                      command(python, danger_gate, event), _milliseconds(GATE_TIMEOUT), python, str(danger_gate),
                      render=command)
            for event, tools in DANGER_GATE_EVENTS.items()]
    return out
