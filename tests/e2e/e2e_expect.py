"""What the installed hooks should have produced, computed from the installed files themselves.

The e2e tests compare what the model received with what the installed gate prints
for the payload the host sends, and with the installed contraindication rows, so
they check delivery without hard-coding the wording.
"""
from __future__ import annotations

import json
import re
from pathlib import Path

from e2e_support import Sandbox

ADVISORY_PREFIX = "PreToolUse:Bash hook additional context: "
POST_TOOL_BATCH_PREFIX = "PostToolBatch hook additional context: "
COPILOT_DENIED = "Denied by preToolUse hook: "
COPILOT_PRE_CONTEXT = "Additional context from preToolUse hook:\n"


def _hooks(data: dict, event: str, copilot: bool) -> list[tuple[str | None, str]]:
    if copilot:
        return [(entry.get("matcher"), entry.get("bash", "")) for entry in data.get("hooks", {}).get(event, [])]
    return [(group.get("matcher"), hook.get("command", ""))
            for group in data.get("hooks", {}).get(event, []) for hook in group.get("hooks", [])]


def wired_gate(config: Path, event: str, copilot: bool = False) -> str:
    """The one command line the installer wired to run the skill-redirect gate on ``event``."""
    commands = [command for _, command in _hooks(json.loads(config.read_text()), event, copilot)
                if "skill_redirect" in command]
    assert len(commands) == 1, f"expected one skill-redirect gate on {event} in {config}, found {commands}"
    return commands[0]


def wired_matchers(config: Path, event: str, needle: str, copilot: bool = False) -> list[str | None]:
    return [matcher for matcher, command in _hooks(json.loads(config.read_text()), event, copilot)
            if needle in command]


def gate_output(sandbox: Sandbox, command: str, payload: dict) -> tuple[int, dict | None, str]:
    """(exit code, stdout JSON or None, stderr) of the installed gate for one payload."""
    proc = sandbox.run_wired(command, payload)
    out = proc.stdout.strip()
    return proc.returncode, (json.loads(out) if out else None), proc.stderr


def contraindication_rows(sandbox: Sandbox) -> list[dict]:
    data = json.loads((sandbox.claude_target / "contraindication" / "contraindications.json").read_text())
    return data["rows"] if isinstance(data, dict) else data


def matching_rows(sandbox: Sandbox, tool_name: str, tool_input: dict) -> list[dict]:
    """The installed rows the check should report for this call: text rows by their patterns
    (AND), structured rows by the installed check's own reader and matcher (issue 26)."""
    text = json.dumps(tool_input)
    rows = contraindication_rows(sandbox)
    structured = {row["id"] for row in _installed_check(sandbox).matching_call_rows(
        [row for row in rows if "input_pattern" not in row], tool_name, tool_input)}
    found = []
    for row in rows:
        if "input_pattern" not in row:
            if row["id"] in structured:
                found.append(row)
            continue
        tool_pattern = row.get("tool_pattern")
        if tool_pattern and not re.search(tool_pattern, tool_name, re.IGNORECASE):
            continue
        if re.search(row["input_pattern"], text, re.IGNORECASE):
            found.append(row)
    return found


def _installed_check(sandbox: Sandbox):
    import sys
    from importlib.util import module_from_spec, spec_from_file_location

    root = sandbox.claude_target
    if str(root) not in sys.path:
        sys.path.insert(0, str(root))
    spec = spec_from_file_location("e2e_installed_contraindication_check", root / "contraindication" / "check.py")
    module = module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
