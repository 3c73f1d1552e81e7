"""What hookmux wires into Qwen Code's ``~/.qwen/settings.json`` (``hookmux install --qwen``).

The ``hooks`` object has Claude Code's shape (event -> matcher groups -> command hooks, Claude's
event names), so the Claude merge dialect edits it beside everything else the user keeps in that
file (auth, model, their own hooks). Measured with Qwen Code 0.24.4 (docs/e2e.md, "Qwen Code"):

- matchers are regexes over Qwen's own tool names (``run_shell_command``, ``write_file``,
  ``edit``; ``hosts.TOOLS``): a settings matcher becomes ``^(?:run_shell_command|...)$``
  (``matchers.qwen_matcher``); UserPromptSubmit, Stop and PostToolBatch take none;
- Qwen drops context given on PreToolUse, so the advising rows of PreToolUse run on PostToolUse
  (``hosts.ADVICE_AFTER``), whose ``additionalContext`` Qwen appends to the tool's result; and
  on PostToolUseFailure, which Qwen runs instead after a command that exits non-zero
  (``hosts.READ_AS``: the dispatcher reads it as PostToolUse);
- ``timeout`` is in seconds;
- every command line carries ``--host qwen`` and ends ``|| true``: a removed hooks folder or
  interpreter is an exit 0 that blocks nothing (Qwen blocks on exit 2 only);
- the danger gate runs on PreToolUse for the shell and file tools, where Claude's nested
  ``permissionDecision: "deny"`` stops the call and its reason is the tool result the model
  reads. The skill/agent redirect is not wired (Qwen's skill and agent folders are not measured).
"""
from __future__ import annotations

from pathlib import Path

from hookmux import matchers, resources, wiring
from hookmux.installer.entries import DEFAULT_TIMEOUT, GATE_TIMEOUT, Entry, HostEntry, with_host

_hosts = resources.runtime("hosts")

SETTINGS_FILE = "~/.qwen/settings.json"
HOST_ARGS = ("--host", _hosts.QWEN)
# The danger gate's events and the settings matcher its tools are chosen by (Edit, Write: for
# the guard's own ground), plus Qwen's MCP tools that run a shell command (mcp__<server>__run ...).
DANGER_GATE_EVENTS = {"PreToolUse": "Bash|Edit|Write|NotebookEdit"}


def settings_file() -> Path:
    """The user's ``~/.qwen/settings.json`` (HOME as it is now)."""
    return Path(SETTINGS_FILE).expanduser().absolute()


def command(python: str, script, event: str, options: tuple[str, ...] = ()) -> str:
    """``'<python>' -S -E '<script>' --host qwen [OPTIONS] EVENT || true``."""
    return wiring.hook_command(python, script, event, with_host(HOST_ARGS, options))


def _timeout(seconds) -> float:
    return seconds if isinstance(seconds, (int, float)) and not isinstance(seconds, bool) and seconds > 0 \
        else DEFAULT_TIMEOUT


def _events(manifest: dict) -> dict[str, list[dict]]:
    """Qwen event -> the manifest specs it serves: each wired event's own (Qwen has the event),
    and on PostToolUse also PreToolUse's when it has advising rows (they run after the call)."""
    events = {name: spec for name, spec in (manifest.get("events") or {}).items()
              if isinstance(spec, dict) and spec.get("checks") and name in _hosts.EVENTS[_hosts.QWEN]}
    out = {name: [spec] for name, spec in events.items()}
    before, after = _hosts.ADVICE_AFTER[_hosts.QWEN]
    spec = events.get(before)
    if spec and any(isinstance(row, dict) and row.get("emits", True) for row in spec["checks"]):
        out.setdefault(after, []).append(spec)
    for native, canonical in _hosts.READ_AS[_hosts.QWEN].items():
        if canonical in out:
            out[native] = out[canonical]
    return out


def _union(event: str, specs: list[dict]) -> str | None | bool:
    """One Qwen matcher for all ``specs``: None when any takes every tool, False when none
    selects one."""
    wanted = [matchers.qwen_matcher(spec.get("settings_matcher"), event) for spec in specs]
    if len(wanted) == 1:
        return wanted[0]
    if any(w is None for w in wanted):
        return None
    names = [name for w in wanted if w for name in w[len("^(?:"):-len(")$")].split("|")]
    return "^(?:" + "|".join(dict.fromkeys(names)) + ")$" if names else False


def entries(manifest: dict, target: str, python: str) -> list[Entry]:
    dispatch = Path(target).joinpath(*wiring.DISPATCH_SCRIPT)
    danger_gate = Path(target).joinpath(*wiring.DANGER_SCRIPT)
    out = []
    for event, specs in _events(manifest).items():
        wanted = _union(event, specs)
        if wanted is False:
            continue
        timeout = max(_timeout(spec.get("settings_timeout")) for spec in specs)
        out.append(HostEntry(event, "dispatch", wanted, command(python, dispatch, event), timeout,
                             python, str(dispatch), render=command))
    out += [HostEntry(event, "danger", matchers.with_mcp_shells(_hosts.QWEN, matchers.qwen_matcher(tools, event)),
                      command(python, danger_gate, event), GATE_TIMEOUT, python, str(danger_gate), render=command)
            for event, tools in DANGER_GATE_EVENTS.items()]
    return out
