"""Whether a hook's answer is one its host accepts (host-contract.md, "What the model receives").

- every host: exit 0 (Claude Code and Codex read exit 2 as a block, Copilot denies the call on
  any non-zero exit of a preToolUse hook); stdout empty, or one JSON object;
- Claude Code: advice and denies nested in ``hookSpecificOutput`` with the event's name;
- Copilot CLI (its own hooks file): the flat keys; a nested object alone is ignored;
- Codex: strict: only known keys at the top and in ``hookSpecificOutput`` (an unknown one, a
  top-level ``additionalContext``, a deny without a reason, a line of text before the JSON: the
  hook failed), and ``additionalContext`` only on the events that take it;
- Gemini CLI (0.61.0, its ``runCommandHook``): it parses ``stdout.trim() || stderr.trim()`` as
  one JSON value whatever the exit status; text that is not JSON, at exit 2 or >= 3, **blocks the
  call** (fails closed), at exit 1 it is a warning, at 0 a message to the user. A deny is flat
  ``{"decision": "deny"|"block", "reason": R}`` (never ``ask``: a headless run hangs; no reason on
  an allow: Gemini joins every parallel hook's reasons into any deny); context is nested and read
  on AfterTool, BeforeAgent and SessionStart only (BeforeTool's is dropped, a top-level one ignored).

- Cursor (its own hooks.json; from its documentation, never run): flat keys only
  (``permission``, ``user_message``, ``agent_message``, ``updated_input``, ``additional_context``,
  ...), ``additional_context`` read on postToolUse and sessionStart only.

``problems(format, event, exit, stdout, stderr)`` returns what is wrong, in words; [] when accepted.
"""
from __future__ import annotations

import json

from hookmux import resources
from hookmux.doctor.wirings import CLAUDE, CODEX, COPILOT, CURSOR, GEMINI, PLUGIN, QWEN

_hosts = resources.runtime("hosts")
CODEX_TOP = {"hookSpecificOutput", "decision", "reason", "continue", "stopReason", "suppressOutput", "systemMessage"}
CODEX_NESTED = {"hookEventName", "additionalContext", "permissionDecision", "permissionDecisionReason"}
COPILOT_KEYS = {"additionalContext", "permissionDecision", "permissionDecisionReason"}
CURSOR_KEYS = {"permission", "user_message", "agent_message", "updated_input", "additional_context", "continue",
               "followup_message", "env", "updated_mcp_tool_output"}


def parse(stdout: str) -> tuple[dict | None, str | None]:
    """(the one JSON object, None) or (None, what is wrong); (None, None) for no output."""
    text = stdout.strip()
    if not text:
        return None, None
    lines = text.splitlines()
    if len(lines) != 1:
        return None, f"{len(lines)} lines on stdout, not one JSON line"
    try:
        data = json.loads(lines[0])
    except ValueError:
        return None, "stdout is not JSON: " + lines[0][:80]
    if not isinstance(data, dict):
        return None, "stdout is JSON but not an object"
    return data, None


def problems(fmt: str, event: str, exit_code: int | None, stdout: str, stderr: str = "") -> list[str]:
    out = []
    if exit_code is None:
        return ["did not finish within its timeout (the host kills it)"]
    if fmt == GEMINI:
        return gemini_problems(event, exit_code, stdout, stderr)
    if exit_code != 0:
        out.append(f"exit status {exit_code} (the host reads a non-zero status as a failure or a block)")
    data, wrong = parse(stdout)
    if wrong:
        return out + [wrong]
    if data is None:
        return out
    if fmt == COPILOT:
        unknown = set(data) - COPILOT_KEYS
        if unknown:
            out.append("Copilot ignores keys " + ", ".join(sorted(unknown)))
        return out
    if fmt == CURSOR:
        unknown = set(data) - CURSOR_KEYS
        if unknown:
            out.append("Cursor reads no keys " + ", ".join(sorted(unknown)) + " from its own hooks file")
        if "additional_context" in data and event not in _hosts.CONTEXT_EVENTS[CURSOR]:
            out.append(f"Cursor reads no additional_context on {event}")
        return out
    nested = data.get("hookSpecificOutput")
    if fmt == QWEN:  # Claude's form; Qwen reads context only from an answer naming the event it ran
        if nested is not None and (not isinstance(nested, dict) or nested.get("hookEventName") != event):
            out.append(f"hookSpecificOutput must be an object naming hookEventName {event!r}: Qwen drops it")
        if isinstance(nested, dict) and nested.get("additionalContext") and event not in _hosts.CONTEXT_EVENTS[QWEN]:
            out.append(f"context on {event}: Qwen drops it (it reads context after a call, on PostToolUse)")
        return out
    if fmt in (CLAUDE, PLUGIN):
        if nested is not None and (not isinstance(nested, dict) or nested.get("hookEventName") != event):
            out.append(f"hookSpecificOutput must be an object naming hookEventName {event!r}")
        return out
    # Codex
    unknown = set(data) - CODEX_TOP
    if unknown:
        out.append("Codex fails a hook whose answer has the keys " + ", ".join(sorted(unknown)))
    if nested is not None:
        if not isinstance(nested, dict):
            return out + ["hookSpecificOutput is not an object"]
        extra = set(nested) - CODEX_NESTED
        if extra:
            out.append("Codex fails a hook whose hookSpecificOutput has " + ", ".join(sorted(extra)))
        if nested.get("hookEventName") != event:
            out.append(f"hookSpecificOutput.hookEventName is not {event!r}")
        decision = nested.get("permissionDecision")
        if decision is not None and (decision != "deny" or not nested.get("permissionDecisionReason")):
            out.append("Codex takes only a deny with a reason")
        if "additionalContext" in nested and event not in _hosts.CONTEXT_EVENTS[_hosts.CODEX]:
            out.append(f"Codex fails a hook that adds context on {event}")
    if data.get("decision") not in (None, "block") or (data.get("decision") == "block" and not data.get("reason")):
        out.append("Codex takes decision 'block' with a reason only")
    return out


def answered(stdout: str) -> bool:
    """Whether the hook said something (a context or a deny)."""
    data, _ = parse(stdout)
    return bool(data)


GEMINI_DECISIONS = ("allow", "deny", "block")


def gemini_problems(event: str, exit_code: int, stdout: str, stderr: str) -> list[str]:
    """What Gemini CLI makes of a hook's answer (``event``: canonical), when it is not what hookmux means."""
    text = stdout.strip() or stderr.strip()
    said = f" ({'stdout' if stdout.strip() else 'stderr'}: {text[:120]!r})" if text else ""
    data = None
    if text:
        try:
            data = json.loads(text)
            data = json.loads(data) if isinstance(data, str) else data
        except ValueError:
            data = None
    if exit_code == 2 or exit_code >= 3:
        if text and not isinstance(data, dict):
            return [f"exit status {exit_code} with text{said}: Gemini BLOCKS the tool call with that text as the "
                    "reason (it fails closed)"]
        return [f"exit status {exit_code}: Gemini counts the hook as failed{said}"]
    if exit_code == 1:
        return [f"exit status 1: Gemini shows a warning and ignores the answer{said}"]
    out = []
    if not text:
        return out
    if not isinstance(data, dict):
        return out + [f"{'stdout' if stdout.strip() else 'stderr'} is not one JSON object: Gemini shows it to the "
                      f"user as a message and hookmux's answer is lost{said}"]
    if not stdout.strip():
        out.append("the answer came on stderr (Gemini reads stderr when stdout is empty)")
    if "additionalContext" in data:
        out.append("a top-level additionalContext: Gemini ignores it (it reads hookSpecificOutput.additionalContext)")
    decision = data.get("decision")
    if decision is not None and decision not in GEMINI_DECISIONS:
        out.append(f"decision {decision!r}: Gemini takes allow, deny or block (never ask: a headless run hangs)")
    if decision in ("deny", "block") and not data.get("reason"):
        out.append("a deny without a reason: the model is not told why")
    if decision in (None, "allow") and data.get("reason"):
        out.append("a reason on an allow: Gemini joins it into any other hook's deny")
    nested = data.get("hookSpecificOutput")
    if nested is not None:
        if not isinstance(nested, dict):
            return out + ["hookSpecificOutput is not an object"]
        if nested.get("additionalContext") and event not in _hosts.CONTEXT_EVENTS[GEMINI]:
            out.append(f"context on {event}: Gemini drops it (it reads context after a call, on AfterTool)")
    return out
