"""A HOME and project holding agents and skills laid out as each host loads them, and the
payloads each host sends to the gate (Claude Code, Copilot flat, Copilot's Claude-format loader)."""
from __future__ import annotations

import json
import os
from pathlib import Path

import subprocess

from hookmux_testing import GATE, PYTHON, hermetic_env

FIXTURES = Path(__file__).resolve().parent / "fixtures"
SKILLS = FIXTURES / "skills"
AMPLIHACK_AGENTS = FIXTURES / "agents" / "amplihack"


def write(path: Path, text: str | bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text.encode() if isinstance(text, str) else text)
    return path


def agent_text(name: str | None, description: str | None = "an agent") -> str:
    lines = ([f"name: {name}"] if name else []) + ([f"description: {description}"] if description else [])
    return "---\n" + "".join(line + "\n" for line in lines) + "---\nBody.\n"


class World:
    """``world.env`` runs the gate with this HOME; ``world.project`` is a git repository."""

    def __init__(self, tmp_path: Path, agents: bool = True, **env: str):
        self.env = hermetic_env(tmp_path, **env)
        self.home = Path(self.env["HOME"])
        self.project = tmp_path / "project"
        (self.project / ".git").mkdir(parents=True)
        if agents:  # the 41 fixture agents, linked in the way a dotfile manager does
            for folder in (".claude/agents", ".copilot/agents"):
                (self.home / folder).mkdir(parents=True)
                os.symlink(AMPLIHACK_AGENTS, self.home / folder / "amplihack")

    def gate(self, argv, payload, cwd=None):
        payload = dict(payload)
        payload.setdefault("cwd", str(cwd or self.project))
        return subprocess.run([PYTHON, "-S", str(GATE), *argv], input=json.dumps(payload).encode(),
                              capture_output=True, env=self.env, cwd=cwd or self.project, timeout=60)


# --- payloads ---------------------------------------------------------------------------------

def claude_pre(tool_name, tool_input):
    return ["PreToolUse"], {"session_id": "s1", "transcript_path": "/tmp/t.jsonl", "prompt_id": "p1",
                            "permission_mode": "default", "hook_event_name": "PreToolUse", "tool_name": tool_name,
                            "tool_input": tool_input, "tool_use_id": "toolu_01"}


def copilot_pre(tool_name, tool_input):
    return ["preToolUse"], {"sessionId": "s1", "timestamp": 1764470000000, "toolName": tool_name, "toolArgs": tool_input}


def copilot_pre_string_args(tool_name, tool_input):
    argv, payload = copilot_pre(tool_name, tool_input)
    payload["toolArgs"] = json.dumps(tool_input)
    return argv, payload


def copilot_claude_format_pre(tool_name, tool_input):
    """Copilot's loader of .claude/settings.json: "skill" stays, "task" is sent as "Agent" (measured)."""
    tool_name = "Agent" if tool_name == "task" else tool_name
    return ["PreToolUse"], {"hook_event_name": "PreToolUse", "session_id": "s1",
                            "timestamp": "2026-11-30T03:00:00.000Z", "tool_name": tool_name, "tool_input": tool_input}


def unknown_skill(name):
    return f"<tool_use_error>Unknown skill: {name}</tool_use_error>"


def agent_not_found(name):
    return f"Agent type '{name}' not found. Available agents: claude, Explore, general-purpose, Plan, statusline-setup"


def post_tool_batch(*calls):
    return ["PostToolBatch"], {"session_id": "s1", "transcript_path": "/tmp/t.jsonl",
                               "hook_event_name": "PostToolBatch", "tool_calls": list(calls)}


def skill_call(tool_input, response=None):
    name = tool_input.get("skill") if isinstance(tool_input, dict) and isinstance(tool_input.get("skill"), str) else "x"
    return {"tool_name": "Skill", "tool_input": tool_input, "tool_use_id": f"toolu_{name}",
            "tool_response": unknown_skill(name) if response is None else response}


def agent_call(tool_input, response=None):
    name = tool_input.get("subagent_type") if isinstance(tool_input, dict) else "x"
    return {"tool_name": "Agent", "tool_input": tool_input, "tool_use_id": f"toolu_{name}",
            "tool_response": agent_not_found(name) if response is None else response}


# --- messages ---------------------------------------------------------------------------------

def to_agent(name, host):
    skill, agent, argument = ("Skill", "Agent", "subagent_type") if host == "claude" else ("skill", "task", "agent_type")
    return (f'"{name}" is an agent, not a skill, so the {skill} tool cannot run it. '
            f'Run it as an agent instead: call the {agent} tool with {argument} "{name}". '
            f'Do not retry "{name}" as a {skill} call.')


def to_skill(name, host):
    skill, agent = ("Skill", "Agent") if host == "claude" else ("skill", "task")
    return (f'"{name}" is a skill, not an agent, so the {agent} tool cannot run it. '
            f'Run it as a skill instead: call the {skill} tool with skill "{name}". '
            f'Do not retry "{name}" as an {agent} call.')
