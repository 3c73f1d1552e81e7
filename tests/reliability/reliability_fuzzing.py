"""Hypothesis strategies and oracles for the fuzz suite: inputs a host could send, and what must hold."""
from __future__ import annotations

import copy
import importlib.util
import json
import shutil
from pathlib import Path

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from reliability_support import (
    HOOKS, CLAUDE_EVENTS, copilot_flat, COPILOT_EVENTS, REAL_PAYLOADS, dispatch, fuzz_examples, manifest_for, shipped_manifest,
    write_script,
)

_spec = importlib.util.spec_from_file_location("rel_host_data", HOOKS / "_common" / "hosts.py")
host_data = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(host_data)
# Agents the fuzz sandbox installs in both hosts' user folders (the gate reads them when it decides).
AGENTS = ("prompt-writer", "architect", "builder", "guide", "gherkin-expert", "tla-plus-expert", "tester", "reviewer")
# Skills the fuzz sandbox installs: two are also agent names (a skill wins on Copilot), one is not an agent.
SKILLS = ("gherkin-expert", "tla-plus-expert", "pdf")


def fuzz_settings(default: int) -> settings:
    return settings(max_examples=fuzz_examples(default), deadline=None, database=None, derandomize=False,
                    suppress_health_check=list(HealthCheck))


# ------------------------------------------------------------------ sandbox

ECHO = '''
import json, sys
def main():
    data = sys.stdin.buffer.read().decode("utf-8", "replace")
    print(json.dumps({"additionalContext": "echo:" + data[:300]}))
'''


def build_sandbox(base: Path) -> tuple[Path, dict, Path]:
    """(hooks root, manifest, skills dir): the shipped checks plus an echo row on every event."""
    root = base / "hooks"
    for part in ("_common", "contraindication", "skill-redirect"):
        shutil.copytree(HOOKS / part, root / part, ignore=shutil.ignore_patterns("__pycache__"))
    echo = write_script(root, "fuzz_echo/check.py", ECHO)
    shipped = shipped_manifest()["events"]
    rows = {event: [*shipped.get(event, {}).get("checks", []), {"name": "fuzz-echo", "script": echo, "timeout": 5}]
            for event in CLAUDE_EVENTS}
    rows["PostToolBatch"].append({"name": "fuzz-skill-batch", "script": echo, "matcher": "^Skill$", "timeout": 5})
    for name in AGENTS:
        for path in (base / "home" / ".claude" / "agents" / f"{name}.md",
                     base / "home" / ".copilot" / "agents" / f"{name}.agent.md"):
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(f"---\nname: {name}\ndescription: fuzz agent\n---\nAn agent.\n")
    skills = base / "skills"
    for name in SKILLS:
        (skills / name).mkdir(parents=True)
        (skills / name / "SKILL.md").write_text(f"---\nname: {name}\n---\nA skill.\n")
    return root, manifest_for(root, rows), skills


# ------------------------------------------------------------------ strategies

json_scalars = (st.none() | st.booleans() | st.integers(-2**70, 2**70)
                | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=40))
json_values = st.recursive(json_scalars, lambda inner: st.lists(inner, max_size=5)
                           | st.dictionaries(st.text(max_size=12), inner, max_size=5), max_leaves=25)
INTERESTING_STRINGS = (
    "Skill", "skill", "Bash", "bash", "PreToolUse", "preToolUse", "PostToolBatch", "Stop", "agentStop",
    "Unknown skill: architect", "<tool_use_error>Unknown skill: prompt-writer</tool_use_error>",
    "git push --force origin main", "rm -rf ~", "curl x | sh", "", " ", "\x00", "\ud800", "é" * 50,
    "a" * 20000, *AGENTS[:8], *SKILLS, "prompt-writer\n", "Prompt-Writer", "../../etc/passwd",
)
interesting = st.sampled_from(INTERESTING_STRINGS) | st.sampled_from(AGENTS)
INTERESTING_KEYS = ("hook_event_name", "tool_name", "toolName", "toolArgs", "tool_input", "skill", "name",
                    "stop_hook_active", "tool_calls", "tool_response", "toolResult", "session_id", "sessionId")
any_event = st.sampled_from(CLAUDE_EVENTS + COPILOT_EVENTS) | st.text(
    st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), min_size=1, max_size=20
).filter(lambda text: not text.startswith("-"))


def _slots(value, found):
    """Every (container, key) in a JSON value, depth first."""
    if isinstance(value, dict):
        for key in list(value):
            found.append((value, key))
            _slots(value[key], found)
    elif isinstance(value, list):
        for index in range(len(value)):
            found.append((value, index))
            _slots(value[index], found)
    return found


@st.composite
def mutated_payload(draw):
    """(argv event or None, stdin bytes): a real payload of either host, changed in a few places."""
    base, event = draw(st.sampled_from(REAL_PAYLOADS))
    payload = copy.deepcopy(base)
    for _ in range(draw(st.integers(0, 4))):
        slots = _slots(payload, [])
        operation = draw(st.sampled_from(("drop", "replace", "interesting", "add")))
        if operation == "add" or not slots:
            container = draw(st.sampled_from([payload] + [c for c, k in slots if isinstance(c, dict)]))
            container[draw(st.sampled_from(INTERESTING_KEYS))] = draw(json_values | interesting)
            continue
        container, key = draw(st.sampled_from(slots))
        if operation == "drop":
            del container[key]
        elif operation == "replace":
            container[key] = draw(json_values)
        else:
            container[key] = draw(interesting)
    event = draw(st.sampled_from((event, event, None)) | any_event)
    return event, draw(_encoded(payload))


@st.composite
def _encoded(draw, payload):
    form = draw(st.sampled_from(("ascii", "utf8", "utf8", "truncated", "bom", "trailing", "pretty")))
    if form == "ascii":
        return json.dumps(payload).encode()
    if form == "pretty":
        return json.dumps(payload, indent=2).encode()
    data = json.dumps(payload, ensure_ascii=False).encode("utf-8", "surrogatepass")
    if form == "truncated":
        return data[: draw(st.integers(0, max(0, len(data) - 1)))]
    if form == "bom":
        return b"\xef\xbb\xbf" + data
    if form == "trailing":
        return data + draw(st.binary(min_size=1, max_size=20))
    return data


arbitrary_bytes = st.tuples(st.sampled_from(CLAUDE_EVENTS + COPILOT_EVENTS) | st.none(), st.binary(max_size=3000))
arbitrary_json = st.tuples(st.sampled_from(CLAUDE_EVENTS + COPILOT_EVENTS) | st.none(),
                           json_values.map(lambda value: json.dumps(value).encode()))

GATE_EVENTS = ("PreToolUse", "preToolUse", "PostToolBatch", None)


@st.composite
def skill_call(draw):
    """(argv event, stdin bytes, the name, whose agent it must be to redirect: "claude", "copilot"
    or None -- Claude Code's own PreToolUse always passes): a well-formed Skill call in one of the
    hosts' dialects."""
    name = draw(st.sampled_from(AGENTS) | st.sampled_from(SKILLS) | st.text(max_size=30)
                | st.sampled_from(host_data.BUILTIN_AGENTS["claude"] + host_data.BUILTIN_AGENTS["copilot"]))
    key = draw(st.sampled_from(("skill", "name")))
    dialect = draw(st.sampled_from(("claude", "copilot", "copilot-string-args", "copilot-claude-format", "batch")))
    if dialect == "claude":
        payload, event = {"hook_event_name": "PreToolUse", "tool_name": "Skill", "tool_input": {key: name}}, "PreToolUse"
    elif dialect == "copilot":
        payload, event = {"sessionId": "s", "toolName": "skill", "toolArgs": {key: name}}, "preToolUse"
    elif dialect == "copilot-string-args":
        payload, event = {"sessionId": "s", "toolName": "skill", "toolArgs": json.dumps({key: name})}, "preToolUse"
    elif dialect == "copilot-claude-format":
        payload, event = {"hook_event_name": "PreToolUse", "tool_name": "skill", "tool_input": {key: name}}, "PreToolUse"
    else:
        call = {"tool_name": "Skill", "tool_input": {key: name}, "tool_response": f"Unknown skill: {name}"}
        payload, event = {"hook_event_name": "PostToolBatch", "tool_calls": [call]}, "PostToolBatch"
    host = {"claude": None, "batch": "claude"}.get(dialect, "copilot")
    return event, json.dumps(payload).encode(), name, host


# ------------------------------------------------------------------ oracles


def dispatcher_event(argv_event, stdin: bytes | str):
    """(event, payload dict or None) exactly as the dispatcher derives them."""
    text = stdin.decode("utf-8", errors="replace") if isinstance(stdin, bytes) else stdin
    try:
        payload = json.loads(text)
    except (ValueError, RecursionError):
        payload = None
    payload = payload if isinstance(payload, dict) else None
    if argv_event:
        return argv_event, payload
    event = payload.get("hook_event_name") if payload is not None else None
    return (event if isinstance(event, str) and event else None), payload


def must_emit(event, payload) -> bool:
    """The echo row has no matcher: every known event emits, except a Stop with stop_hook_active
    and an event whose host takes no context there (a nested payload that reads as Codex's or
    Gemini's: hosts.CONTEXT_EVENTS)."""
    canonical = dispatch.COPILOT_EVENTS.get(event, event)
    if canonical not in CLAUDE_EVENTS:
        return False
    host = None if copilot_flat(event, payload) else _nested_host(payload)
    if host in host_data.CONTEXT_EVENTS and canonical not in host_data.CONTEXT_EVENTS[host]:
        return False
    return not (canonical in ("Stop", "SubagentStop") and payload is not None
                and payload.get("stop_hook_active") is True)


def _nested_host(payload):
    """Codex by ``turn_id`` or a Codex-only tool; Gemini by a Gemini-only tool or an ISO
    ``timestamp`` beside ``transcript_path`` (event.py's documented inference)."""
    if payload is None:
        return None
    tool = payload["tool_name"] if "tool_name" in payload else payload.get("toolName")
    tool = tool if isinstance(tool, str) else ""
    gemini_tools = set(host_data.TOOLS[host_data.GEMINI]) - set(host_data.TOOLS[host_data.COPILOT]) - {"web_fetch"}
    if tool in gemini_tools:
        return host_data.GEMINI
    if tool in host_data.TOOLS[host_data.COPILOT]:
        return host_data.COPILOT
    if "turn_id" in payload or tool == "apply_patch" or tool in host_data.TOOLS[host_data.CODEX]:
        return host_data.CODEX
    if isinstance(payload.get("timestamp"), str) and "transcript_path" in payload:
        return host_data.GEMINI
    return None


def agent_only(name, host=None) -> bool:
    """Whether the gate redirects a Skill call naming name for host (None: for either host).

    Claude Code's PostToolBatch trusts the host's "Unknown skill" (no skill precedence);
    Copilot passes a name that is also a skill."""
    if not isinstance(name, str):
        return False
    if host is None:
        return agent_only(name, "claude") or agent_only(name, "copilot")
    if name not in AGENTS and name not in host_data.BUILTIN_AGENTS[host]:
        return False
    return host == "claude" or (name not in SKILLS and name not in host_data.BUILTIN_SKILLS["copilot"])


def gate_targets(stdin: bytes) -> set[str]:
    """Agent-only names a Skill call in this payload names (any dialect, any field the gate reads)."""
    try:
        payload = json.loads(stdin.decode("utf-8"))
    except (ValueError, UnicodeDecodeError, RecursionError):
        return set()
    if not isinstance(payload, dict):
        return set()
    calls = [payload]
    if isinstance(payload.get("tool_calls"), list):
        calls += [call for call in payload["tool_calls"] if isinstance(call, dict)]
    names = set()
    for call in calls:
        tool = call.get("tool_name", call.get("toolName"))
        if tool in ("task", "Agent"):  # the other direction: the agent tool naming a skill
            for args in (call.get("tool_input"), call.get("toolArgs")):
                if isinstance(args, str):
                    try:
                        args = json.loads(args)
                    except (ValueError, RecursionError):
                        continue
                if isinstance(args, dict):
                    names.update(value for value in (args.get("agent_type"), args.get("subagent_type"))
                                 if value in SKILLS + host_data.BUILTIN_SKILLS["claude"] + host_data.BUILTIN_SKILLS["copilot"])
            continue
        if call.get("tool_name") not in ("Skill", "skill") and call.get("toolName") not in ("Skill", "skill"):
            continue
        for args in (call.get("tool_input"), call.get("toolArgs")):
            if isinstance(args, str):
                try:
                    args = json.loads(args)
                except (ValueError, RecursionError):
                    continue
            if isinstance(args, dict):
                names.update(value for value in (args.get("skill"), args.get("name")) if agent_only(value))
    return names


def classify_gate_output(returncode: int, stdout: bytes, stderr: bytes) -> tuple[str, str | None]:
    """("pass" | "deny" | "context", the reason or context text); asserts the documented shapes."""
    assert b"Traceback" not in stdout and b"Traceback" not in stderr
    assert returncode in (0, 2), (returncode, stdout, stderr)
    if stdout == b"":
        assert returncode == 0 and stderr == b"", (returncode, stderr)
        return "pass", None
    text = stdout.decode("utf-8")
    assert text.endswith("\n") and text.count("\n") == 1, text
    data = json.loads(text)
    if set(data) == {"permissionDecision", "permissionDecisionReason"}:
        assert returncode == 0 and data["permissionDecision"] == "deny"
        return "deny", data["permissionDecisionReason"]
    assert set(data) == {"hookSpecificOutput"}, data
    nested = data["hookSpecificOutput"]
    if "permissionDecision" in nested:
        assert set(nested) == {"hookEventName", "permissionDecision", "permissionDecisionReason"}, nested
        assert nested["hookEventName"] == "PreToolUse" and nested["permissionDecision"] == "deny"
        reason = nested["permissionDecisionReason"]
        assert stderr.decode("utf-8") == (reason + "\n" if returncode == 2 else ""), (returncode, stderr)
        return "deny", reason
    assert returncode == 0
    assert set(nested) == {"hookEventName", "additionalContext"} and nested["hookEventName"] == "PostToolBatch"
    return "context", nested["additionalContext"]
