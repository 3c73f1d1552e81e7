"""The skill/agent gate decides on the calling host's truth (issue 11, issue 20 item 2).

Each test installs hookmux as a user does, adds agents/skills/commands *after* the
install, lets the real CLI make one scripted call and reads what the model was shown.
"""
from __future__ import annotations

import os

import pytest

from e2e_expect import COPILOT_DENIED, POST_TOOL_BATCH_PREFIX
from e2e_fixtures import claude_cli, copilot_cli, hookmux_installer, sandbox  # noqa: F401 (pytest fixtures)
from hookmux.standin.anthropic import ToolUse


def write(path, text: str):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def agent(name: str) -> str:
    return f"---\nname: {name}\ndescription: e2e agent {name}\n---\nYou are {name}.\n"


def skill(name: str) -> str:
    return f"---\nname: {name}\ndescription: e2e skill {name}\n---\nFollow the {name} steps.\n"


# --- Claude Code -----------------------------------------------------------------------------


def claude_redirects(run) -> list[str]:
    return [text[len(POST_TOOL_BATCH_PREFIX):] for text in run.after(0).extra if text.startswith(POST_TOOL_BATCH_PREFIX)]


def claude_skill(claude_cli, sandbox, name):
    run = sandbox.claude(claude_cli, [ToolUse("Skill", {"skill": name})])
    assert run.proc.returncode == 0, run.proc.stderr
    assert run.claude_hook_errors() == []
    return run


@pytest.mark.parametrize("where", ["user", "user-subfolder", "project", "project-from-subfolder"])
def test_claude_agent_added_after_install_is_redirected(claude_cli, sandbox, where):
    sandbox.install_claude_user()
    name = "changelog-scribe"
    if where == "user":
        write(sandbox.home / ".claude" / "agents" / f"{name}.md", agent(name))
    elif where == "user-subfolder":
        write(sandbox.home / ".claude" / "agents" / "team" / "scribe-file.md", agent(name))
    else:
        write(sandbox.project / ".claude" / "agents" / f"{name}.md", agent(name))
    if where == "project-from-subfolder":
        sandbox.project = sandbox.project / "apps" / "web"
        sandbox.project.mkdir(parents=True)
    run = claude_skill(claude_cli, sandbox, name)

    seen = run.after(0)
    assert seen.is_error and f"Unknown skill: {name}" in seen.result
    [redirect] = claude_redirects(run)
    assert f'call the Agent tool with subagent_type "{name}"' in redirect


def test_claude_built_in_agent_is_redirected(claude_cli, sandbox):
    sandbox.install_claude_user()
    run = claude_skill(claude_cli, sandbox, "Explore")
    assert "Unknown skill: Explore" in run.after(0).result
    [redirect] = claude_redirects(run)
    assert 'subagent_type "Explore"' in redirect


def test_claude_built_in_skill_code_review_runs(claude_cli, sandbox):
    sandbox.install_claude_user()
    run = claude_skill(claude_cli, sandbox, "code-review")
    seen = run.after(0)
    # A forked built-in skill: 'Skill "code-review" completed (forked execution)...'
    assert not seen.is_error and "code-review" in seen.result and "Unknown skill" not in seen.result, seen.result
    assert claude_redirects(run) == []


def test_claude_project_command_sharing_an_agents_name_runs(claude_cli, sandbox):
    sandbox.install_claude_user()
    write(sandbox.home / ".claude" / "agents" / "architect.md", agent("architect"))
    write(sandbox.project / ".claude" / "commands" / "architect.md", "---\ndescription: e2e command\n---\nDesign it.\n")
    run = claude_skill(claude_cli, sandbox, "architect")
    seen = run.after(0)
    assert not seen.is_error and seen.result == "Launching skill: architect"
    assert claude_redirects(run) == []
    # Claude Code starts no gate for its own Skill call on PreToolUse (the entry is for Copilot's "skill").
    assert [r for r in run.hook_runs() if r[0].startswith("PreToolUse") and "skill_redirect" in r[1]] == []


# Issue 20 item 2 on Claude Code: a skill sharing an agent's name runs, however it is laid out.
@pytest.mark.parametrize("layout", ["frontmatter-name", "folder-name", "linked-folder", "project-from-subfolder"])
def test_claude_skill_sharing_an_agents_name_runs(claude_cli, sandbox, layout):
    sandbox.install_claude_user()
    name = "gherkin-expert"
    write(sandbox.home / ".claude" / "agents" / f"{name}.md", agent(name))
    skills = sandbox.home / ".claude" / "skills"
    if layout == "frontmatter-name":
        write(skills / "bdd" / "SKILL.md", skill(name))
    elif layout == "folder-name":
        write(skills / name / "SKILL.md", skill("gherkin-writer"))
    elif layout == "linked-folder":
        write(sandbox.root / "dotfiles" / name / "SKILL.md", skill(name))
        skills.mkdir(parents=True)
        os.symlink(sandbox.root / "dotfiles" / name, skills / name)
    else:
        write(sandbox.project / ".claude" / "skills" / name / "SKILL.md", skill(name))
        sandbox.project = sandbox.project / "apps" / "web"
        sandbox.project.mkdir(parents=True)
    run = claude_skill(claude_cli, sandbox, name)
    seen = run.after(0)
    assert not seen.is_error and seen.result == f"Launching skill: {name}", seen.result
    assert claude_redirects(run) == []


def test_claude_name_that_is_no_agent_gets_no_redirect(claude_cli, sandbox):
    sandbox.install_claude_user()
    write(sandbox.home / ".copilot" / "agents" / "architect.agent.md", agent("architect"))  # Copilot's, not Claude's
    run = claude_skill(claude_cli, sandbox, "architect")
    assert "Unknown skill: architect" in run.after(0).result
    assert claude_redirects(run) == []
    assert [r[2] for r in run.hook_runs() if r[0] == "PostToolBatch" and "skill_redirect" in r[1]] == [0]


@pytest.mark.parametrize("kind", ["user-skill", "linked-skill", "built-in-skill", "command"])
def test_claude_agent_call_naming_a_skill_is_sent_to_the_skill_tool(claude_cli, sandbox, kind):
    sandbox.install_claude_user()
    name = {"built-in-skill": "simplify", "command": "release-notes"}.get(kind, "pdf")
    if kind == "user-skill":
        write(sandbox.home / ".claude" / "skills" / name / "SKILL.md", skill(name))
    elif kind == "linked-skill":
        write(sandbox.root / "dotfiles" / name / "SKILL.md", skill(name))
        (sandbox.home / ".claude" / "skills").mkdir(parents=True)
        os.symlink(sandbox.root / "dotfiles" / name, sandbox.home / ".claude" / "skills" / name)
    elif kind == "command":
        write(sandbox.project / ".claude" / "commands" / f"{name}.md", "---\ndescription: e2e command\n---\nDo it.\n")
    run = sandbox.claude(claude_cli, [ToolUse("Agent", {"subagent_type": name, "prompt": "go", "description": "e2e"})])
    assert run.proc.returncode == 0, run.proc.stderr
    seen = run.after(0)
    assert seen.is_error and f"Agent type '{name}' not found" in seen.result
    [redirect] = claude_redirects(run)
    assert f'call the Skill tool with skill "{name}"' in redirect


def test_claude_agent_call_naming_nothing_known_gets_no_advice(claude_cli, sandbox):
    sandbox.install_claude_user()
    run = sandbox.claude(claude_cli, [ToolUse("Agent", {"subagent_type": "nosuch", "prompt": "go", "description": "e2e"})])
    assert "Agent type 'nosuch' not found" in run.after(0).result
    assert claude_redirects(run) == []


# --- Copilot CLI -----------------------------------------------------------------------------


def copilot_call(copilot_cli, sandbox, tool, args, *extra):
    run = sandbox.copilot(copilot_cli, [ToolUse(tool, args)], *extra)
    assert run.proc.returncode == 0, run.proc.stderr
    ends = [e for e in run.copilot_hook_events() if e["type"] == "hook.end" and e["data"].get("hookType") == "preToolUse"]
    assert all(e["data"].get("success") is True for e in ends), ends
    return run.after(0).result


@pytest.mark.parametrize("where", ["user", "user-subfolder", "project", "project-claude", "project-from-subfolder"])
def test_copilot_agent_added_after_install_is_redirected(copilot_cli, sandbox, where):
    sandbox.install_copilot_user()
    name = "changelog-scribe"
    if where == "user":
        write(sandbox.home / ".copilot" / "agents" / f"{name}.agent.md", agent(name))
    elif where == "user-subfolder":  # no name: -> the path, "/" as "--"
        name = "team--scribe"
        write(sandbox.home / ".copilot" / "agents" / "team" / "scribe.agent.md", "---\ndescription: e2e\n---\nx\n")
    elif where == "project-claude":
        write(sandbox.project / ".claude" / "agents" / f"{name}.md", agent(name))
    else:
        write(sandbox.project / ".github" / "agents" / f"{name}.agent.md", agent(name))
    if where == "project-from-subfolder":
        sandbox.project = sandbox.project / "apps" / "web"
        sandbox.project.mkdir(parents=True)
    result = copilot_call(copilot_cli, sandbox, "skill", {"skill": name})
    assert result.startswith(COPILOT_DENIED), result
    assert f'call the task tool with agent_type "{name}"' in result


def test_copilot_code_review_is_a_built_in_agent_and_redirected(copilot_cli, sandbox):
    sandbox.install_copilot_user()
    result = copilot_call(copilot_cli, sandbox, "skill", {"skill": "code-review"})
    assert result.startswith(COPILOT_DENIED) and 'agent_type "code-review"' in result, result


def test_copilot_name_that_is_no_agent_gets_no_redirect(copilot_cli, sandbox):
    sandbox.install_copilot_user()
    write(sandbox.home / ".claude" / "agents" / "tester.md", agent("tester"))  # Claude Code's, not Copilot's
    result = copilot_call(copilot_cli, sandbox, "skill", {"skill": "tester"})
    assert "Denied" not in result and result.startswith('Skill "tester" not found'), result


# Issue 20 item 2: a real skill sharing an agent's name is never denied, however it is laid out.
@pytest.mark.parametrize("layout", ["linked-folder", "linked-skill-md", "frontmatter-name", "nested", "project-from-subfolder"])
def test_copilot_skill_sharing_an_agents_name_loads(copilot_cli, sandbox, layout):
    sandbox.install_copilot_user()
    name = "gherkin-expert"
    write(sandbox.home / ".copilot" / "agents" / f"{name}.agent.md", agent(name))
    skills = sandbox.home / ".copilot" / "skills"
    skills.mkdir(parents=True)
    if layout == "linked-folder":
        write(sandbox.root / "dotfiles" / name / "SKILL.md", skill(name))
        os.symlink(sandbox.root / "dotfiles" / name, skills / name)
        os.symlink(skills, skills / name / "loop")  # a link back up the tree
    elif layout == "linked-skill-md":
        write(sandbox.root / "dotfiles" / "gherkin.md", skill(name))
        (skills / name).mkdir()
        os.symlink(sandbox.root / "dotfiles" / "gherkin.md", skills / name / "SKILL.md")
    elif layout == "frontmatter-name":
        write(skills / "bdd-folder" / "SKILL.md", skill(name))
    elif layout == "nested":
        write(skills / "team" / name / "SKILL.md", skill(name))
    else:
        write(sandbox.project / ".github" / "skills" / name / "SKILL.md", skill(name))
        sandbox.project = sandbox.project / "apps" / "web"
        sandbox.project.mkdir(parents=True)
    result = copilot_call(copilot_cli, sandbox, "skill", {"skill": name})
    assert "Denied" not in result and result.startswith(f'Skill "{name}" loaded'), result


def test_copilot_folder_name_of_a_renamed_skill_is_no_skill(copilot_cli, sandbox):
    """Copilot runs a skill by its frontmatter name only: the folder name of a renamed skill is
    not a skill, so an agent of that name is redirected."""
    sandbox.install_copilot_user()
    write(sandbox.home / ".copilot" / "agents" / "bdd.agent.md", agent("bdd"))
    write(sandbox.home / ".copilot" / "skills" / "bdd" / "SKILL.md", skill("gherkin-writer"))
    result = copilot_call(copilot_cli, sandbox, "skill", {"skill": "bdd"})
    assert result.startswith(COPILOT_DENIED) and 'agent_type "bdd"' in result, result


# Named so that pytest's tmp folder (the payload's cwd) holds neither "skill" nor "task": the
# gate's byte filter must let the call through on its own.
@pytest.mark.parametrize("settings", ["copilot-hooks", "project-claude-settings"])
def test_copilot_mirror_direction(copilot_cli, sandbox, settings):
    """task with agent_type naming a skill is sent to the skill tool."""
    extra = ()
    if settings == "copilot-hooks":
        sandbox.install_copilot_user()
    else:
        sandbox.install_claude_project()
        extra = ("--trust-folder",)
    write(sandbox.home / ".copilot" / "skills" / "pdf" / "SKILL.md", skill("pdf"))
    result = copilot_call(copilot_cli, sandbox, "task",
                          {"agent_type": "pdf", "prompt": "go", "description": "e2e", "name": "e2e"}, *extra)
    assert result.startswith(COPILOT_DENIED), result
    assert 'call the skill tool with skill "pdf"' in result


def test_copilot_task_naming_an_agent_that_is_also_a_skill_runs(copilot_cli, sandbox):
    sandbox.install_copilot_user()
    write(sandbox.home / ".copilot" / "skills" / "research" / "SKILL.md", skill("research"))  # also a built-in agent
    result = copilot_call(copilot_cli, sandbox, "task",
                          {"agent_type": "research", "prompt": "go", "description": "e2e", "name": "e2e"})
    assert "Denied" not in result and "Unknown agent_type" not in result, result
