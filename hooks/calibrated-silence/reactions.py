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
import os
import sys
import time

_HERE = os.path.dirname(os.path.abspath(__file__))
try:
    import calibrated_silence as silence
    from _common import event as _event
except ImportError:  # standalone: neither this folder nor the hooks root is on sys.path
    sys.path[:0] = [_HERE, os.path.dirname(_HERE)]
    import calibrated_silence as silence
    from _common import event as _event

MAX_INPUT_CHARS = 100_000  # as hooks/contraindication/check.py: the same text is matched
MAX_PROMPT_CHARS = 4000

_STOP = (r"(?:stop|quit|cease|enough(?:\s+with)?|no\s+more|don'?t|do\s+not|never|shut\s+up|mute|silence|"
         r"disable|turn\s+off|switch\s+off|get\s+rid\s+of|drop)")
_WHAT = (r"(?:warn(?:ing|ings)?|advisor(?:y|ies)|nag(?:ging)?|hookmux|contraindications?|"
         r"hazard\s+(?:notes|messages|notices)|safety\s+(?:notes|messages|reminders|lectures))")
ANNOYED = r"\b%s\b[^.!?;\n]{0,40}?\b%s\b" % (_STOP, _WHAT)
# In the matched clause these mean the user wants the warnings (or means other ones).
NOT_ANNOYED = (r"ignor|fix|miss|overlook|forget|skip(?:ping)?\s+the|compiler|build|lint|deprecat|type|test|"
               r"pip|npm|gcc|clang|mypy|pytest|eslint|log")


def main(argv=None):
    try:
        text = _event.read_stdin()
        observe(text, (argv or [None])[0])
    except Exception:
        pass
    return 0


def observe(stdin_text, event_name=None):
    """Record what this event says about earlier advisories; returns the reactions."""
    event = _event.parse(stdin_text, event_name)
    if not event.session_id or not os.path.exists(silence.session_path(event.session_id)):
        return []
    if event.name == "PreToolUse" and event.tool_response is None and event.tool_name:
        origin = silence.digest(stdin_text)[:16]
        if not silence.awaits_reaction(event.session_id, origin):  # nothing this call could react to
            return []
        serialized = _event.dumps(event.tool_input)[:MAX_INPUT_CHARS]  # as the contraindication check serializes it
        return observe_call(event.session_id, event.tool_name, serialized, origin)
    if event.name == "UserPromptSubmit" and event.prompt:
        return observe_prompt(event.session_id, event.prompt)
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
    import re  # only when there is something to match (~9 ms to import here)

    try:
        return bool(re.search(entry["tool"], tool_name, re.I | re.A) and re.search(entry["input"], serialized, re.I | re.A))
    except (KeyError, TypeError, re.error, RecursionError, OverflowError):
        return False


def is_annoyed(prompt):
    """True when ``prompt`` tells the assistant to stop the warnings (see the module doc)."""
    import re  # only when there is something to match (~9 ms to import here)

    # Compiled here, not at import: this module is imported on every shell call.
    for match in re.finditer(ANNOYED, prompt[:MAX_PROMPT_CHARS], re.I):
        if not re.search(NOT_ANNOYED, match.group(0), re.I):
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


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
