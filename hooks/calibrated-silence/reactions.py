"""Reactions to hookmux advisories, observed from what the hosts show the dispatcher.

A manifest row on PreToolUse (shell tools) and one on UserPromptSubmit run this
script; it prints nothing and always exits 0. The rules (docs/calibrated-silence.md):

- **ignored**: an advisory for finding F was shown in session S (``record_interjection``
  with a ``repeat`` spec), and a later call of S — not the one that showed it, nor a
  replay of it — matches F's tool and input patterns. The first such call decides.
- **acted**: ACTED_AFTER later distinct calls of S went by, none of them repeating F.
- **unknown**: neither happened within PENDING_SECONDS of the advisory (recorded when
  the session is next seen); unknown does not count towards anything.
- **annoyed**: a prompt of S tells the assistant to stop the warnings (``ANNOYED``, and
  none of ``NOT_ANNOYED`` in the same clause) while S was shown an advisory within
  PENDING_SECONDS. Recorded once per session and advisory type, for every key.

Only reaction codes are stored, never the prompt, the command or the session id.
"""
import json
import os
import re
import sys
import time

try:
    import calibrated_silence as silence
except ImportError:  # standalone: this folder is not on sys.path
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import calibrated_silence as silence

MAX_INPUT_CHARS = 100_000  # as hooks/contraindication/check.py: the same text is matched
MAX_PROMPT_CHARS = 4000
COPILOT_TOOLS = {"bash": "Bash", "powershell": "PowerShell"}
TOOL_EVENTS = {"PreToolUse": "PreToolUse", "preToolUse": "PreToolUse"}
PROMPT_EVENTS = {"UserPromptSubmit": "UserPromptSubmit", "userPromptSubmitted": "UserPromptSubmit"}

_STOP = (r"(?:stop|quit|cease|enough(?:\s+with)?|no\s+more|don'?t|do\s+not|never|shut\s+up|mute|silence|"
         r"disable|turn\s+off|switch\s+off|get\s+rid\s+of|drop)")
_WHAT = (r"(?:warn(?:ing|ings)?|advisor(?:y|ies)|nag(?:ging)?|hookmux|contraindications?|"
         r"hazard\s+(?:notes|messages|notices)|safety\s+(?:notes|messages|reminders|lectures))")
ANNOYED = re.compile(r"\b%s\b[^.!?;\n]{0,40}?\b%s\b" % (_STOP, _WHAT), re.I)
# In the matched clause these mean the user wants the warnings (or means other ones).
NOT_ANNOYED = re.compile(
    r"ignor|fix|miss|overlook|forget|skip(?:ping)?\s+the|compiler|build|lint|deprecat|type|test|"
    r"pip|npm|gcc|clang|mypy|pytest|eslint|log", re.I)


def main(argv=None):
    try:
        text = _read_stdin()
        observe(text, (argv or [None])[0])
    except Exception:
        pass
    return 0


def _read_stdin():
    try:
        data = sys.stdin.buffer.read()
    except AttributeError:
        return sys.stdin.read()
    return data.decode("utf-8", "replace")


def observe(stdin_text, event=None):
    """Record what this event says about earlier advisories; returns the reactions."""
    try:
        payload = json.loads(stdin_text)
    except ValueError:
        return []
    if not isinstance(payload, dict):
        return []
    event = event or payload.get("hook_event_name")
    session_id = payload.get("session_id") or payload.get("sessionId")
    if not isinstance(session_id, str) or not session_id:
        return []
    if not os.path.exists(silence.session_path(session_id)):
        return []
    if event in TOOL_EVENTS and "tool_response" not in payload and "toolResult" not in payload:
        return observe_call(session_id, _tool_name(payload), _serialized_input(payload),
                            silence.digest(stdin_text)[:16])
    if event in PROMPT_EVENTS and isinstance(payload.get("prompt"), str):
        return observe_prompt(session_id, payload["prompt"])
    return []


def observe_call(session_id, tool_name, serialized, origin, now=None):
    tunables = silence.settings()
    now = time.time() if now is None else now

    def judge(entries):
        found = []
        for entry in entries.values():
            if entry.get("r") is not None:
                continue
            reaction = _judge_call(entry, tool_name, serialized, origin, now, tunables)
            if reaction:
                entry["r"] = reaction
                found.append((entry.get("type"), entry.get("key"), reaction))
        return found

    return silence.update_session(session_id, judge)


def _judge_call(entry, tool_name, serialized, origin, now, tunables):
    if now - silence._number(entry.get("t")) > tunables["pending_seconds"]:
        return "unknown"
    calls = entry.setdefault("calls", [])
    if not isinstance(calls, list):
        calls = entry["calls"] = []
    if origin == entry.get("origin") or origin in calls:
        return None
    if _repeats(entry, tool_name, serialized):
        return "ignored"
    calls.append(origin)
    del calls[: -silence.MAX_ORIGINS]
    return "acted" if len(calls) >= tunables["acted_after"] else None


def _repeats(entry, tool_name, serialized):
    try:
        return bool(re.search(entry["tool"], tool_name, re.I | re.A) and re.search(entry["input"], serialized, re.I | re.A))
    except (KeyError, TypeError, re.error, RecursionError, OverflowError):
        return False


def is_annoyed(prompt):
    """True when ``prompt`` tells the assistant to stop the warnings (see the module doc)."""
    for match in ANNOYED.finditer(prompt[:MAX_PROMPT_CHARS]):
        if not NOT_ANNOYED.search(match.group(0)):
            return True
    return False


def observe_prompt(session_id, prompt, now=None):
    if not is_annoyed(prompt):
        return []
    tunables = silence.settings()
    now = time.time() if now is None else now

    def annoyed(entries):
        types = sorted({entry.get("type") for entry in entries.values()
                        if now - silence._number(entry.get("t")) <= tunables["pending_seconds"]
                        and not entry.get("annoyed")})
        for entry in entries.values():
            if entry.get("type") in types:
                entry["annoyed"] = True
        return [(type, silence.ANY_KEY, "annoyed") for type in types if type]

    return silence.update_session(session_id, annoyed)


def _tool_name(payload):
    name = payload.get("tool_name", payload.get("toolName"))
    return COPILOT_TOOLS.get(name, name) if isinstance(name, str) else ""


def _serialized_input(payload):
    value = payload.get("tool_input") if "tool_input" in payload else payload.get("toolArgs")
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except ValueError:
            pass
    return json.dumps(value if value is not None else {})[:MAX_INPUT_CHARS]


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
