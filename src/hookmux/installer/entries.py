"""The hook entries hookmux wants in each host's configuration, from the installed manifest."""
from __future__ import annotations

import re
from dataclasses import dataclass

from hookmux import wiring

DEFAULT_TIMEOUT = 10
GATE_TIMEOUT = 10
# The gate's PreToolUse entry in Claude-format settings is for Copilot's loader of that file,
# which sends its skill tool as "skill" and its task tool as "Agent" (with agent_type) and
# matches those names case-sensitively (Copilot CLI 1.0.102, tests/e2e). Claude Code resolves
# its own Skill calls (no process starts for them); its Agent calls start the gate, which
# passes them at once (Claude Code is answered on PostToolBatch).
CLAUDE_GATE_EVENTS = {"PreToolUse": "skill|Agent", "PostToolBatch": None}
COPILOT_GATE_EVENTS = {"preToolUse": "skill|task"}




@dataclass(frozen=True)
class Entry:
    event: str  # the host's event key
    role: str  # "dispatch" or "gate"
    matcher: str | None  # None: no matcher key
    command: str
    timeout: float


def _wired_events(manifest: dict):
    for event, spec in (manifest.get("events") or {}).items():
        if isinstance(spec, dict) and spec.get("checks"):
            yield event, spec


def _number(value):
    return value if isinstance(value, (int, float)) and not isinstance(value, bool) else DEFAULT_TIMEOUT


def claude_entries(manifest: dict, target: str, python: str) -> list[Entry]:
    out = [
        Entry(event, "dispatch", spec.get("settings_matcher"),
              wiring.dispatcher_command(python, target, event), _number(spec.get("settings_timeout")))
        for event, spec in _wired_events(manifest)
    ]
    out += [Entry(event, "gate", matcher, wiring.gate_command(python, target, event), GATE_TIMEOUT)
            for event, matcher in CLAUDE_GATE_EVENTS.items()]
    return out


def copilot_matcher(settings_matcher: str | None) -> str | None:
    """Copilot matches its own lower-case tool names (anchored); the dispatcher maps them to
    Claude Code names. Keep every Copilot tool whose mapped name the settings matcher selects,
    and the matcher itself for tools the map leaves unchanged."""
    if settings_matcher in (None, "", "*"):
        return None
    try:
        pattern = re.compile(settings_matcher)
    except re.error:
        return None
    names = [copilot for copilot, claude in wiring.COPILOT_TOOLS.items() if pattern.search(claude)]
    return "(?:" + "|".join([*names, settings_matcher]) + ")"


def copilot_entries(manifest: dict, target: str, python: str) -> list[Entry]:
    out = []
    for event, spec in _wired_events(manifest):
        camel = wiring.CLAUDE_TO_COPILOT.get(event)
        if camel:
            out.append(Entry(camel, "dispatch", copilot_matcher(spec.get("settings_matcher")),
                             wiring.dispatcher_command(python, target, camel),
                             _number(spec.get("settings_timeout"))))
    out += [Entry(event, "gate", matcher, wiring.gate_command(python, target, event), GATE_TIMEOUT)
            for event, matcher in COPILOT_GATE_EVENTS.items()]
    return out
