"""The redirect decision and its output, in the dialect of the calling host.

Loaded by skill_redirect.py only when the payload can matter. Two directions:
the skill tool naming an agent (-> run it as an agent), and the agent tool naming
a skill (-> run it with the skill tool). Agents and skills are those of the calling
host, found now (agent_scan, skill_scan). The payload is read by ``event.parse``
(host, dialect, canonical names); every deny is JSON at exit 0 (``event.render_deny``).

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
import folder_walk
import places as places_module
import skill_scan
from runtime import event as event_module
from runtime import hosts

CLAUDE = hosts.CLAUDE
COPILOT = hosts.COPILOT

_SAFE = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789:_-")
_MAX_NAME = 64


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
    ).format(name=sanitize(name), skill=hosts.SKILL_TOOL[host], agent=hosts.AGENT_TOOL[host],
             argument=hosts.AGENT_PARAM[host])


def skill_message(name, host):
    """The agent tool named a skill."""
    return (
        '"{name}" is a skill, not an agent, so the {agent} tool cannot run it. '
        'Run it as a skill instead: call the {skill} tool with skill "{name}". '
        'Do not retry "{name}" as an {agent} call.'
    ).format(name=sanitize(name), skill=hosts.SKILL_TOOL[host], agent=hosts.AGENT_TOOL[host])


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


def decide(data, argv):
    """The stdout text (one JSON line, or "") for one payload; the exit code is always 0."""
    skills_dirs, argv_event = parse_argv(argv)
    event = event_module.parse(data, argv_event)
    if event.payload is None:
        return ""
    # A Copilot payload without an event name on the command line is a preToolUse one.
    name = event.name or ("PreToolUse" if event.dialect == COPILOT else "")
    if name == "PreToolUse":
        if event.host != COPILOT:
            return ""  # Claude Code resolved its own Skill/Agent call
        reason = _copilot_reason(event, skills_dirs)
        return event_module.render_deny(event, reason) if reason else ""
    if name == "PostToolBatch" and event.host == CLAUDE:
        return _post_tool_batch(event, skills_dirs)
    return ""


def _copilot_reason(event, skills_dirs):
    """The deny reason for a Copilot skill/task call (canonical Skill/Agent), or None."""
    if event.tool_name == "Skill":
        name = target_name(event.tool_input)
        if echoable(name) and Session(COPILOT, event.cwd, skills_dirs).agent_only(name):
            return redirect_message(name, COPILOT)
    elif event.tool_name == "Agent":
        name = target_name(event.tool_input, (hosts.AGENT_PARAM[COPILOT],))
        if echoable(name) and Session(COPILOT, event.cwd, skills_dirs).skill_only(name):
            return skill_message(name, COPILOT)
    return None


def _post_tool_batch(event, skills_dirs):
    """Claude Code: context for the calls the host rejected, one paragraph per name."""
    unknown_skills, unknown_agents = [], []
    for call in event.tool_calls:
        tool, response = call.get("tool_name"), call.get("tool_response")
        if tool == "Skill":
            name = target_name(call.get("tool_input"))
            if echoable(name) and name not in unknown_skills and _says(response, ("unknown skill",)):
                unknown_skills.append(name)
        elif tool in ("Agent", "Task"):
            name = target_name(call.get("tool_input"), (hosts.AGENT_PARAM[CLAUDE],))
            if echoable(name) and name not in unknown_agents and _says(response, ("agent type", "not found")):
                unknown_agents.append(name)
    if not (unknown_skills or unknown_agents):
        return ""
    session = Session(CLAUDE, event.cwd, skills_dirs)
    paragraphs = []
    if unknown_skills:
        agents = session.agents(unknown_skills)
        paragraphs += [redirect_message(name, CLAUDE) for name in unknown_skills if name in agents]
    if unknown_agents:
        skills = session.skills(unknown_agents)
        paragraphs += [skill_message(name, CLAUDE) for name in unknown_agents if name in skills]
    return event_module.render_context(event, "\n\n".join(paragraphs))


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


def main(argv, data):
    """Decide for the raw payload bytes, write the output, return the exit code (always 0)."""
    out = decide(data, argv)
    data = out.encode("utf-8")
    while data:
        written = os.write(1, data)
        data = data[written:]
    return 0
