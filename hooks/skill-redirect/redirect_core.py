"""The skill-redirect decision and its output for each host.

Loaded by skill_redirect.py only when the payload mentions "skill".
"""
import os

import fast_json
import known_agents
import skill_scan

CLAUDE_CODE = "claude-code"
COPILOT = "copilot"

_SAFE = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789:_-")
_MAX_NAME = 64

_SKILL_TOOL = {CLAUDE_CODE: "Skill", COPILOT: "skill"}
_HOW_TO_RUN = {
    CLAUDE_CODE: 'call the Agent tool with subagent_type "{name}"',
    COPILOT: 'call the task tool with agent_type "{name}"',
}


def sanitize(name):
    return "".join(char for char in name if char in _SAFE)[:_MAX_NAME]


def redirect_message(name, host):
    name = sanitize(name)
    return (
        '"{name}" is an agent, not a skill, so the {tool} tool cannot run it. '
        "Run it as an agent instead: " + _HOW_TO_RUN[host] + ". "
        'Do not retry "{name}" as a {tool} call.'
    ).format(name=name, tool=_SKILL_TOOL[host])


def parse_argv(argv):
    """(--skills-dir values, the first positional EVENT or None); unknown flags are ignored."""
    skills_dirs = []
    event = None
    index = 0
    while index < len(argv):
        arg = argv[index]
        if arg == "--skills-dir" and index + 1 < len(argv):
            skills_dirs.append(argv[index + 1])
            index += 1
        elif arg.startswith("--skills-dir="):
            skills_dirs.append(arg[len("--skills-dir="):])
        elif not arg.startswith("-") and event is None:
            event = arg
        index += 1
    return skills_dirs, event


def target_name(tool_args):
    """The ``skill`` value, falling back to ``name``; None unless it is a non-empty string."""
    if not isinstance(tool_args, dict):
        return None
    value = tool_args["skill"] if "skill" in tool_args else tool_args.get("name")
    return value if isinstance(value, str) and value else None


def agent_only(names, skills_dirs, host):
    """The names that are known agents and, after a complete scan of the host's skills, not skills."""
    agents = [name for name in names if known_agents.is_known_agent(name) and sanitize(name)]
    if not agents:
        return []
    found, complete = skill_scan.find_skills(agents, skill_scan.skill_roots(skills_dirs, os.environ, host))
    if not complete:
        return []
    return [name for name in agents if name not in found]


def decide(payload, argv):
    """(exit code, stdout text, stderr text) for one payload."""
    skills_dirs, argv_event = parse_argv(argv)
    if not isinstance(payload, dict):
        return 0, "", ""
    if "toolName" in payload or "toolArgs" in payload:
        return _copilot_pre_tool_use(payload, argv_event, skills_dirs)
    event = payload.get("hook_event_name", argv_event)
    if not isinstance(event, str):
        return 0, "", ""
    if event.lower() == "pretooluse":
        return _claude_format_pre_tool_use(payload, skills_dirs)
    if event.lower() == "posttoolbatch":
        return _post_tool_batch(payload, skills_dirs)
    return 0, "", ""


def _copilot_pre_tool_use(payload, argv_event, skills_dirs):
    if (argv_event or "preToolUse").lower() != "pretooluse":
        return 0, "", ""
    if payload.get("toolName") not in ("skill", "Skill"):
        return 0, "", ""
    tool_args = payload.get("toolArgs")
    if isinstance(tool_args, str):
        tool_args = fast_json.loads(tool_args)
    name = target_name(tool_args)
    if name is None or not agent_only([name], skills_dirs, COPILOT):
        return 0, "", ""
    reason = redirect_message(name, COPILOT)
    return 0, _dumps({"permissionDecision": "deny", "permissionDecisionReason": reason}), ""


def _claude_format_pre_tool_use(payload, skills_dirs):
    tool_name = payload.get("tool_name")
    if tool_name not in ("Skill", "skill"):
        return 0, "", ""
    host = CLAUDE_CODE if tool_name == "Skill" else COPILOT
    name = target_name(payload.get("tool_input"))
    if name is None or not agent_only([name], skills_dirs, host):
        return 0, "", ""
    reason = redirect_message(name, host)
    deny = _dumps({"hookSpecificOutput": {
        "hookEventName": "PreToolUse",
        "permissionDecision": "deny",
        "permissionDecisionReason": reason,
    }})
    if host == CLAUDE_CODE:
        return 2, deny, reason + "\n"
    # Copilot's loader of .claude/settings.json drops the reason on exit 2.
    return 0, deny, ""


def _post_tool_batch(payload, skills_dirs):
    calls = payload.get("tool_calls")
    if not isinstance(calls, list):
        return 0, "", ""
    names = []
    for call in calls:
        if not isinstance(call, dict) or call.get("tool_name") not in ("Skill", "skill"):
            continue
        name = target_name(call.get("tool_input"))
        if name is not None and name not in names and _unknown_skill_response(call.get("tool_response")):
            names.append(name)
    redirected = agent_only(names, skills_dirs, CLAUDE_CODE)
    if not redirected:
        return 0, "", ""
    context = "\n\n".join(redirect_message(name, CLAUDE_CODE) for name in redirected)
    return 0, _dumps({"hookSpecificOutput": {"hookEventName": "PostToolBatch", "additionalContext": context}}), ""


def _unknown_skill_response(response, depth=0):
    """Whether the host reported the call as naming an unknown skill (in any string of the response)."""
    if isinstance(response, str):
        return "unknown skill" in response.lower()
    if depth >= 8:
        return False
    if isinstance(response, dict):
        response = list(response.values())
    if isinstance(response, list):
        return any(_unknown_skill_response(item, depth + 1) for item in response)
    return False


def _dumps(obj):
    return fast_json.dumps(obj) + "\n"


def _write(fd, text):
    data = text.encode("utf-8")
    while data:
        written = os.write(fd, data)
        data = data[written:]


def main(argv, data):
    """Decide for the raw payload bytes, write the output, return the exit code."""
    code, out, err = decide(fast_json.loads(data), argv)
    if out:
        _write(1, out)
    if err:
        _write(2, err)
    return code
