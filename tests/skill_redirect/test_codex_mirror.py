"""The gate's Codex branch (``skill_redirect.py --host codex``, codex_mirror.py), run as Codex runs it.

Codex has no skill tool: a ``spawn_agent`` naming a skill of this Codex, and no agent, is denied
with the path of the SKILL.md to read; everything else passes silently with exit 0.
"""
from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from hookmux_testing import GATE, PYTHON, hermetic_env


def _skill(root, name, frontmatter_name=None):
    folder = root / name
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(f"---\nname: {frontmatter_name or name}\ndescription: d\n---\nSteps.\n")
    return folder / "SKILL.md"


@pytest.fixture
def world(tmp_path):
    codex_home = tmp_path / "codex-home"
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    cwd = repo / "sub" / "dir"
    cwd.mkdir(parents=True)
    env = hermetic_env(tmp_path, CODEX_HOME=str(codex_home))
    return codex_home, repo, cwd, env


def gate(env, cwd, payload):
    data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
    proc = subprocess.run([PYTHON, "-S", "-E", str(GATE), "--host", "codex", "PreToolUse"], input=data,
                          capture_output=True, env=env, cwd=str(cwd), timeout=60)
    assert proc.returncode == 0 and proc.stderr == b"", proc
    return json.loads(proc.stdout) if proc.stdout.strip() else None


def spawn(cwd, agent_type, tool="spawn_agent", event="PreToolUse"):
    return {"session_id": "s", "turn_id": "t", "cwd": str(cwd), "hook_event_name": event, "model": "gpt-4.1",
            "tool_name": tool, "tool_input": {"agent_type": agent_type, "message": "go"}, "tool_use_id": "c"}


@pytest.mark.parametrize("where", ["home", "system", "nested", "user-agents", "project-agents", "project-codex",
                                   "cwd-agents", "frontmatter"])
def test_a_skill_that_is_no_agent_is_denied_with_its_path(world, where):
    codex_home, repo, cwd, env = world
    root = {"home": codex_home / "skills", "system": codex_home / "skills" / ".system",
            "nested": codex_home / "skills" / "group" / "deeper",
            "user-agents": Path(env["HOME"]) / ".agents" / "skills",
            "project-agents": repo / ".agents" / "skills", "project-codex": repo / ".codex" / "skills",
            "cwd-agents": cwd / ".agents" / "skills", "frontmatter": codex_home / "skills"}[where]
    skill_md = _skill(root, "folder-name" if where == "frontmatter" else "pdf-report", "pdf-report")
    out = gate(env, cwd, spawn(cwd, "pdf-report"))
    assert out is not None and list(out) == ["hookSpecificOutput"]
    decision = out["hookSpecificOutput"]
    assert sorted(decision) == ["hookEventName", "permissionDecision", "permissionDecisionReason"]
    assert decision["hookEventName"] == "PreToolUse" and decision["permissionDecision"] == "deny"
    assert str(skill_md) in decision["permissionDecisionReason"]
    assert "is a skill, not an agent" in decision["permissionDecisionReason"]


@pytest.mark.parametrize("agent", ["by-stem", "by-name", "worker", "default", "explorer"])
def test_a_real_agent_passes_even_when_a_skill_shares_its_name(world, agent):
    codex_home, _repo, cwd, env = world
    (codex_home / "agents").mkdir(parents=True)
    (codex_home / "agents" / "by-stem.toml").write_text('description = "x"\n')
    (codex_home / "agents" / "other-file.toml").write_text('name = "by-name"\ndescription = "x"\n')
    _skill(codex_home / "skills", agent)
    assert gate(env, cwd, spawn(cwd, agent)) is None


@pytest.mark.parametrize("payload", [
    b"", b"not json", b"[]", b'{"hook_event_name": "PreToolUse"}',
])
def test_malformed_input_passes_silently(world, payload):
    _codex_home, _repo, cwd, env = world
    assert gate(env, cwd, payload) is None


def test_a_skill_folder_is_not_searched_for_more_skills_and_outside_folders_do_not_count(world):
    codex_home, repo, cwd, env = world
    _skill(codex_home / "skills" / "outer" / "assets", "pdf-report")  # inside a skill
    _skill(Path(env["HOME"]) / ".claude" / "skills", "pdf-report")  # another host's folder
    (codex_home / "skills" / "outer" / "SKILL.md").write_text("---\nname: outer\n---\n")
    assert gate(env, cwd, spawn(cwd, "pdf-report")) is None


def test_unknown_names_other_tools_and_events_pass(world):
    codex_home, _repo, cwd, env = world
    _skill(codex_home / "skills", "pdf-report")
    assert gate(env, cwd, spawn(cwd, "no-such-thing")) is None
    assert gate(env, cwd, spawn(cwd, "pdf-report", tool="Bash")) is None
    assert gate(env, cwd, spawn(cwd, "pdf-report", event="PostToolUse")) is None
    assert gate(env, cwd, spawn(cwd, "../pdf-report")) is None  # never a path
