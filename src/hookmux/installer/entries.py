"""The hook entries hookmux wants in each host's configuration, from the installed manifest."""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from hookmux import matchers, wiring

DEFAULT_TIMEOUT = 10
GATE_TIMEOUT = 10
# The gate's PreToolUse entry in Claude-format settings is for Copilot's loader of that file,
# which sends its skill tool as "skill" and its task tool as "Agent" (with agent_type) and
# matches those names case-sensitively (Copilot CLI 1.0.102, tests/e2e). Claude Code resolves
# its own Skill calls (no process starts for them); its Agent calls start the gate, which
# passes them at once (Claude Code is answered on PostToolBatch).
CLAUDE_GATE_EVENTS = {"PreToolUse": "skill|Agent", "PostToolBatch": None}
COPILOT_GATE_EVENTS = {"preToolUse": "skill|task"}
# The danger gate: the shell tool, in Claude Code (Bash) and in Copilot's loader of a
# Claude-format file (bash, matched case-sensitively); Copilot's own file: bash. And the file
# tools (Claude Code's Write/Edit/MultiEdit/NotebookEdit, Copilot's create/edit), judged only for
# the guard's own ground (hooks/danger-gate/own_ground.py): a process starts for each edit, and
# the cheap test in gate_entry.py ends it at once unless the call names that ground.
# And the MCP tools that run a shell command (``mcp__<server>__run_command`` ...: the gate judges
# their ``command`` as Bash's; ``matchers.with_mcp_shells``).
CLAUDE_DANGER_TOOLS = "Bash|bash|Write|Edit|MultiEdit|NotebookEdit|create|edit"
CLAUDE_DANGER_EVENTS = {"PreToolUse": matchers.with_mcp_shells("claude", CLAUDE_DANGER_TOOLS)}
COPILOT_DANGER_EVENTS = {"preToolUse": "bash|create|edit"}
DANGER_TIMEOUT = 10
# Issue 42: Claude Code starts an entry on every UserPromptSubmit and PostToolBatch (neither a
# matcher nor an `if` narrows those events: docs/e2e.md). Where every row of the entry can act
# only on a payload holding one of a few words, the shell filters the payload first
# (wiring.prefiltered, docs/install.md#the-payload-filter) and no interpreter starts for the others.
# The gate on PostToolBatch: the host's answers to a Skill or Agent call naming what it does not
# know; hooks/skill-redirect/skill_redirect.py's fast path tests the same two in the raw bytes,
# ASCII case only (``bytes.lower()``): the filter's words, not ``decoded``.
GATE_PAYLOAD_WORDS = {"PostToolBatch": ("unknown skill", "agent type")}
# calibrated-silence/reactions on UserPromptSubmit records only a prompt that tells the assistant
# to stop the warnings: ANNOYED in hooks/calibrated-silence/reactions.py, whose every match holds
# one of these (each ``_WHAT`` alternative starts with one), matched with ``re.I`` in the decoded
# prompt: ``decoded`` (tests/install/test_install_prefilter.py ties the two).
PROMPT_WORDS = ("warn", "advisor", "nag", "hookmux", "contraindication", "hazard", "safety")
ROW_PAYLOAD_WORDS = {("UserPromptSubmit", "calibrated-silence/reactions"): PROMPT_WORDS}




@dataclass(frozen=True)
class Entry:
    event: str  # the host's event key
    role: str  # "dispatch" or "gate"
    matcher: str | None  # None: no matcher key
    command: str
    timeout: float
    python: str = ""
    script: str = ""
    url: str | None = None  # an HTTP hook (``install --serve``): ``command`` is the URL too

    def command_with(self, options: tuple[str, ...]) -> str:
        """This entry's command keeping script options a user added (``--trace``...)."""
        if not options or not self.script or self.url:
            return self.command
        head, _ = wiring.split_prefilter(self.command)
        if any(option == "--manifest" or option.startswith("--manifest=") for option in options):
            head = ""  # another manifest's rows: the filter, made for this tree's rows, does not apply
        return head + wiring.hook_command(self.python, self.script, self.event, options)


def with_host(host_args: tuple[str, ...], options) -> tuple[str, ...]:
    """``host_args`` (``--host X``), then ``options`` less any ``--host`` they held: the command
    of a host whose lines name it (Codex, Gemini) names its own host, once, whatever a user added."""
    out, skip = [], False
    for option in options:
        if skip:
            skip = False
        elif option == "--host":
            skip = True
        elif not option.startswith("--host="):
            out.append(option)
    return tuple(host_args) + tuple(out)


@dataclass(frozen=True)
class HostEntry(Entry):
    """An entry whose command line is the host's own (``render``: ``(python, script, event,
    options) -> command``, e.g. ``codex_hooks.command``): a re-install keeps the options a user
    added (``--trace``) and the host's ``--host`` and suffix."""

    render: Callable[..., str] | None = field(default=None, compare=False, repr=False)

    def command_with(self, options: tuple[str, ...]) -> str:
        return self.render(self.python, self.script, self.event, tuple(options))


def _entry(event: str, role: str, matcher: str | None, python: str, target: str, timeout,
           words: tuple[str, ...] = ()) -> Entry:
    tail = {"dispatch": wiring.DISPATCH_SCRIPT, "gate": wiring.GATE_SCRIPT, "serve": wiring.SERVE_SCRIPT,
            "danger": wiring.DANGER_SCRIPT}[role]
    script = str(Path(target).joinpath(*tail))
    # The dispatcher's rows read the decoded payload and a user layer may add rows; the gate reads bytes.
    dispatch = role == "dispatch"
    command = wiring.prefiltered(wiring.hook_command(python, script, event), words, user_layer=dispatch, decoded=dispatch)
    return Entry(event, role, matcher, command, timeout, python, script)


def dispatch_payload_words(event: str, spec: dict) -> tuple[str, ...]:
    """The words one of which a payload of ``event`` must hold for any of ``spec``'s rows to act
    (ROW_PAYLOAD_WORDS); () when a row may act on any payload."""
    words: list[str] = []
    for check in spec.get("checks") or []:
        found = ROW_PAYLOAD_WORDS.get((event, check.get("name") if isinstance(check, dict) else None))
        if not found:
            return ()
        words += found
    return tuple(dict.fromkeys(words))


def _wired_events(manifest: dict):
    for event, spec in (manifest.get("events") or {}).items():
        if isinstance(spec, dict) and spec.get("checks"):
            yield event, spec


def _number(value):
    return value if isinstance(value, (int, float)) and not isinstance(value, bool) else DEFAULT_TIMEOUT


def claude_entries(manifest: dict, target: str, python: str) -> list[Entry]:
    out = [_entry(event, "dispatch", spec.get("settings_matcher"), python, target,
                  _number(spec.get("settings_timeout")), dispatch_payload_words(event, spec))
           for event, spec in _wired_events(manifest)]
    out += _claude_gates(python, target)
    out += [_entry(event, "danger", matcher, python, target, DANGER_TIMEOUT)
            for event, matcher in CLAUDE_DANGER_EVENTS.items()]
    return out


SERVE_START_TIMEOUT = 10


def claude_serve_entries(manifest: dict, target: str, python: str, create: bool = True) -> list[Entry]:
    """``install --serve``: the dispatcher's events as HTTP hooks answered by ``hookmux serve``
    (port and secret made here, once per install), a SessionStart command hook that starts the
    server, and the gate as a command hook as before (blocking stays standalone). Without
    ``create`` (``--dry-run``) nothing is written: a port or secret not made yet shows as PORT
    or SECRET."""
    from hookmux.serve import files

    port, secret = files.port(target, create=create), files.secret(target, create=create)
    port, secret = port or "PORT", secret or "SECRET"
    if create:
        files.remember_target(target)
    out = []
    for event, spec in _wired_events(manifest):
        url = wiring.serve_url(port, secret, event)
        out.append(Entry(event, "dispatch", spec.get("settings_matcher"), url,
                         _number(spec.get("settings_timeout")), url=url))
    out.append(_entry("SessionStart", "serve", None, python, target, SERVE_START_TIMEOUT))
    out += _claude_gates(python, target)
    out += [_entry(event, "danger", matcher, python, target, DANGER_TIMEOUT)
            for event, matcher in CLAUDE_DANGER_EVENTS.items()]
    return out


def _claude_gates(python: str, target: str) -> list[Entry]:
    return [_entry(event, "gate", matcher, python, target, GATE_TIMEOUT, GATE_PAYLOAD_WORDS.get(event, ()))
            for event, matcher in CLAUDE_GATE_EVENTS.items()]


def copilot_entries(manifest: dict, target: str, python: str) -> list[Entry]:
    out = []
    for event, spec in _wired_events(manifest):
        camel = wiring.CLAUDE_TO_COPILOT.get(event)
        if camel:
            out.append(_entry(camel, "dispatch", matchers.copilot_matcher(spec.get("settings_matcher")), python, target,
                              _number(spec.get("settings_timeout"))))
    out += [_entry(event, "gate", matcher, python, target, GATE_TIMEOUT)
            for event, matcher in COPILOT_GATE_EVENTS.items()]
    out += [_entry(event, "danger", matcher, python, target, DANGER_TIMEOUT)
            for event, matcher in COPILOT_DANGER_EVENTS.items()]
    return out
