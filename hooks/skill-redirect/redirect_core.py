"""The redirect decision and its output, in the dialect of the calling host.

Loaded by skill_redirect.py only when the payload can matter. Two directions:
the skill tool naming an agent (-> run it as an agent), and the agent tool naming
a skill (-> run it with the skill tool). Agents and skills are those of the calling
host, found now (agent_scan, skill_scan). Every deny is JSON at exit 0.

- Claude Code resolves names itself: a PreToolUse always passes; PostToolBatch adds
  context for a call the host rejected (``Unknown skill: X`` with X an agent;
  ``Agent type 'X' not found`` with X a skill).
- Copilot fires preToolUse before resolving: skill X is denied when X is an agent and,
  after a complete scan, not a skill; task with agent_type X when X is a skill and,
  after a complete scan, not an agent. Its loader of .claude/settings.json sends the
  same calls as ``tool_name`` "skill" / "Agent" (with agent_type) and gets the nested deny.
"""
import os

import agent_scan
import fast_json
import folder_walk
import host_data
import places as places_module
import skill_scan

CLAUDE = host_data.CLAUDE
COPILOT = host_data.COPILOT

_SAFE = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789:_-")
_MAX_NAME = 64
_PASS = (0, "", "")


def sanitize(name):
    return "".join(char for char in name if char in _SAFE)[:_MAX_NAME]


def echoable(name):
    """A name the messages can repeat as it is (anything else passes: it would name another thing)."""
    return isinstance(name, str) and bool(name) and sanitize(name) == name


def redirect_message(name, host):
    """The skill tool named an agent."""
    return (
        '"{name}" is an agent, not a skill, so the {skill} tool cannot run it. '
        'Run it as an agent instead: call the {agent} tool with {argument} "{name}". '
        'Do not retry "{name}" as a {skill} call.'
    ).format(name=sanitize(name), skill=host_data.SKILL_TOOL[host], agent=host_data.AGENT_TOOL[host],
             argument=host_data.AGENT_ARGUMENT[host])


def skill_message(name, host):
    """The agent tool named a skill."""
    return (
        '"{name}" is a skill, not an agent, so the {agent} tool cannot run it. '
        'Run it as a skill instead: call the {skill} tool with skill "{name}". '
        'Do not retry "{name}" as an {agent} call.'
    ).format(name=sanitize(name), skill=host_data.SKILL_TOOL[host], agent=host_data.AGENT_TOOL[host])


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


def target_name(tool_args, keys=("skill", "name")):
    """The first of keys present in tool_args; None unless it is a non-empty string."""
    if not isinstance(tool_args, dict):
        return None
    for key in keys:
        if key in tool_args:
            value = tool_args[key]
            return value if isinstance(value, str) and value else None
    return None


class Session:
    """What one decision looks at: the host, its folders, and one scan budget."""

    __slots__ = ("host", "places", "roots", "budget")

    def __init__(self, host, cwd, skills_dirs):
        self.host = host
        self.places = places_module.Places(cwd)
        self.roots = skill_scan.override_roots(skills_dirs, os.environ)
        self.budget = folder_walk.Budget()

    def agents(self, names):
        return agent_scan.find(names, self.host, self.places, self.budget)

    def skills(self, names):
        roots = self.roots or skill_scan.skill_folders(self.host, self.places, os.environ)
        return skill_scan.find(names, self.host, self.places, self.budget, roots)

    def agent_only(self, name):
        """name is an agent and, after a complete scan, not a skill."""
        if not self.agents([name]):
            return False
        self.budget.complete = True
        return not self.skills([name]) and self.budget.complete

    def skill_only(self, name):
        """name is a skill and, after a complete scan, not an agent."""
        if self.agents([name]) or not self.budget.complete:
            return False
        return bool(self.skills([name]))


def decide(payload, argv):
    """(exit code, stdout text, stderr text) for one payload; the exit code is always 0."""
    skills_dirs, argv_event = parse_argv(argv)
    if not isinstance(payload, dict):
        return _PASS
    if "toolName" in payload or "toolArgs" in payload:
        if (argv_event or "preToolUse").lower() != "pretooluse":
            return _PASS
        tool_args = payload.get("toolArgs")
        if isinstance(tool_args, str):
            tool_args = fast_json.loads(tool_args)
        reason = _copilot_reason(payload.get("toolName"), tool_args, payload.get("cwd"), skills_dirs)
        return _deny({"permissionDecision": "deny", "permissionDecisionReason": reason}) if reason else _PASS
    event = payload.get("hook_event_name", argv_event)
    if not isinstance(event, str):
        return _PASS
    if event.lower() == "pretooluse":
        # Claude Code's own Skill and Agent (subagent_type) calls pass: the host resolves them.
        # Copilot's loader of .claude/settings.json sends "skill", and its task tool as "Agent"
        # with agent_type.
        tool_name, tool_input = payload.get("tool_name"), payload.get("tool_input")
        if tool_name == "Agent" and isinstance(tool_input, dict) and "subagent_type" not in tool_input:
            tool_name = "task"
        reason = _copilot_reason(tool_name, tool_input, payload.get("cwd"), skills_dirs)
        if not reason:
            return _PASS
        return _deny({"hookSpecificOutput": {
            "hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": reason}})
    if event.lower() == "posttoolbatch":
        return _post_tool_batch(payload, skills_dirs)
    return _PASS


def _copilot_reason(tool_name, tool_args, cwd, skills_dirs):
    """The deny reason for a Copilot skill/task call, or None."""
    if tool_name == "skill":
        name = target_name(tool_args)
        if echoable(name) and Session(COPILOT, cwd, skills_dirs).agent_only(name):
            return redirect_message(name, COPILOT)
    elif tool_name == "task":
        name = target_name(tool_args, ("agent_type",))
        if echoable(name) and Session(COPILOT, cwd, skills_dirs).skill_only(name):
            return skill_message(name, COPILOT)
    return None


def _post_tool_batch(payload, skills_dirs):
    """Claude Code: context for the calls the host rejected, one paragraph per name."""
    calls = payload.get("tool_calls")
    if not isinstance(calls, list):
        return _PASS
    unknown_skills, unknown_agents = [], []
    for call in calls:
        if not isinstance(call, dict):
            continue
        tool, response = call.get("tool_name"), call.get("tool_response")
        if tool == "Skill":
            name = target_name(call.get("tool_input"))
            if echoable(name) and name not in unknown_skills and _says(response, ("unknown skill",)):
                unknown_skills.append(name)
        elif tool in ("Agent", "Task"):
            name = target_name(call.get("tool_input"), ("subagent_type",))
            if echoable(name) and name not in unknown_agents and _says(response, ("agent type", "not found")):
                unknown_agents.append(name)
    if not (unknown_skills or unknown_agents):
        return _PASS
    session = Session(CLAUDE, payload.get("cwd"), skills_dirs)
    paragraphs = []
    if unknown_skills:
        agents = session.agents(unknown_skills)
        paragraphs += [redirect_message(name, CLAUDE) for name in unknown_skills if name in agents]
    if unknown_agents:
        skills = session.skills(unknown_agents)
        paragraphs += [skill_message(name, CLAUDE) for name in unknown_agents if name in skills]
    if not paragraphs:
        return _PASS
    return _deny({"hookSpecificOutput": {"hookEventName": "PostToolBatch", "additionalContext": "\n\n".join(paragraphs)}})


def _says(response, needles, depth=0):
    """Whether one string of the host's response holds every needle (case-insensitive)."""
    if isinstance(response, str):
        lowered = response.lower()
        return all(needle in lowered for needle in needles)
    if depth >= 8:
        return False
    if isinstance(response, dict):
        response = list(response.values())
    if isinstance(response, list):
        return any(_says(item, needles, depth + 1) for item in response)
    return False


def _deny(obj):
    return 0, fast_json.dumps(obj) + "\n", ""


def _write(fd, text):
    data = text.encode("utf-8")
    while data:
        written = os.write(fd, data)
        data = data[written:]


def main(argv, data):
    """Decide for the raw payload bytes, write the output, return the exit code (0)."""
    code, out, err = decide(fast_json.loads(data), argv)
    if out:
        _write(1, out)
    if err:
        _write(2, err)
    return code
