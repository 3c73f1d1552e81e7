"""The gate's behaviour matrix, run as a host runs it, in every payload dialect of both hosts."""
from __future__ import annotations

import json
import subprocess

import pytest

from gate_world import (SKILLS, World, agent_call, agent_text, claude_pre, copilot_claude_format_pre, copilot_pre,
                        copilot_pre_string_args, post_tool_batch, skill_call, to_agent, to_skill, write)
from hookmux_testing import GATE, PYTHON, one_json_line

COPILOT_DIALECTS = {
    "copilot-preToolUse": copilot_pre,
    "copilot-preToolUse-string-args": copilot_pre_string_args,
    "copilot-claude-format-PreToolUse": copilot_claude_format_pre,
}
ALL_DIALECTS = ["claude-PreToolUse", "claude-PostToolBatch", *COPILOT_DIALECTS]

# Fixture agents (both hosts) with no skill of that name in SKILLS; "architect" only has a folder
# whose SKILL.md is named architecture-notes (Copilot runs a skill by its frontmatter name).
AGENT_ONLY = ["prompt-writer", "builder", "guide", "architect"]
AGENT_AND_SKILL = ["gherkin-expert", "tla-plus-expert"]  # gherkin's folder is testing/gherkin
SKILL_ONLY = ["default-workflow", "pdf"]
NOTHING = ["totally-unknown-name", "changelog-scribe"]
MALFORMED_INPUTS = [
    {}, {"skill": 123}, {"skill": None}, {"name": ["x"]}, {"skill": {"skill": "prompt-writer"}},
    {"skill": ["prompt-writer"]}, {"skill": None, "name": "prompt-writer"}, {"skill": ""}, {"skill": True},
    {"skill": "PROMPT-WRITER"}, {"skill": "specialized/prompt-writer"}, {"skill": "amplihack:prompt-writer"},
    {"skill": " prompt-writer"},
]


@pytest.fixture
def world(tmp_path):
    return World(tmp_path, HOOKMUX_SKILLS_PATH=str(SKILLS))


def skill_payload(dialect, tool_input):
    if dialect == "claude-PreToolUse":
        return claude_pre("Skill", tool_input)
    if dialect == "claude-PostToolBatch":
        return post_tool_batch(skill_call(tool_input))
    return COPILOT_DIALECTS[dialect]("skill", tool_input)


def expected_deny(dialect, reason):
    if dialect in ("copilot-preToolUse", "copilot-preToolUse-string-args"):
        return {"permissionDecision": "deny", "permissionDecisionReason": reason}
    return {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny",
                                   "permissionDecisionReason": reason}}


def batch_context(text):
    return {"hookSpecificOutput": {"hookEventName": "PostToolBatch", "additionalContext": text}}


def assert_pass(result):
    assert (result.returncode, result.stdout, result.stderr) == (0, b"", b""), result


# --- the skill tool naming an agent ------------------------------------------------------------

@pytest.mark.parametrize("name", AGENT_ONLY)
@pytest.mark.parametrize("dialect", list(COPILOT_DIALECTS))
def test_copilot_agent_only_name_is_denied_with_the_redirect(world, dialect, name):
    result = world.gate(*skill_payload(dialect, {"skill": name}))
    assert (result.returncode, result.stderr) == (0, b"")
    assert one_json_line(result.stdout) == expected_deny(dialect, to_agent(name, "copilot"))


@pytest.mark.parametrize("name", AGENT_ONLY + AGENT_AND_SKILL)
def test_claude_unknown_skill_that_is_an_agent_gets_the_redirect(world, name):
    """Claude Code's own verdict ("Unknown skill") is final: no skill scan."""
    result = world.gate(*skill_payload("claude-PostToolBatch", {"skill": name}))
    assert (result.returncode, result.stderr) == (0, b"")
    assert one_json_line(result.stdout) == batch_context(to_agent(name, "claude"))


@pytest.mark.parametrize("name", AGENT_ONLY + AGENT_AND_SKILL + SKILL_ONLY + NOTHING + ["Explore", "code-review"])
def test_claude_pre_tool_use_skill_always_passes(world, name):
    """Claude Code fires PreToolUse only for a Skill it resolved (a skill, command or plugin)."""
    assert_pass(world.gate(*skill_payload("claude-PreToolUse", {"skill": name})))


@pytest.mark.parametrize("name", AGENT_AND_SKILL + SKILL_ONLY + NOTHING)
@pytest.mark.parametrize("dialect", list(COPILOT_DIALECTS))
def test_copilot_skills_and_names_that_are_no_agent_pass(world, dialect, name):
    assert_pass(world.gate(*skill_payload(dialect, {"skill": name})))


@pytest.mark.parametrize("name", SKILL_ONLY + NOTHING)
def test_claude_unknown_skill_that_is_no_agent_gets_nothing(world, name):
    assert_pass(world.gate(*skill_payload("claude-PostToolBatch", {"skill": name})))


@pytest.mark.parametrize("tool_input", MALFORMED_INPUTS, ids=json.dumps)
@pytest.mark.parametrize("dialect", ALL_DIALECTS)
def test_malformed_or_non_matching_input_passes(world, dialect, tool_input):
    assert_pass(world.gate(*skill_payload(dialect, tool_input)))


@pytest.mark.parametrize("dialect", ["claude-PostToolBatch", *COPILOT_DIALECTS])
def test_name_key_is_the_fallback(world, dialect):
    result = world.gate(*skill_payload(dialect, {"name": "prompt-writer", "args": "ignored"}))
    assert b"prompt-writer" in result.stdout and result.returncode == 0


# --- each host's own agents ---------------------------------------------------------------------

@pytest.mark.parametrize("host, layout, name", [
    ("claude", ".claude/agents/changelog-scribe.md", "changelog-scribe"),
    ("claude", ".claude/agents/team/deep/any-file.md", "changelog-scribe"),
    ("claude", "project:.claude/agents/changelog-scribe.md", "changelog-scribe"),
    ("claude", "project:.claude/agents/sub/changelog-scribe.md", "changelog-scribe"),
    ("claude", "built-in", "Explore"),
    ("claude", "built-in", "statusline-setup"),
    ("copilot", ".copilot/agents/changelog-scribe.agent.md", "changelog-scribe"),
    ("copilot", ".copilot/agents/changelog-scribe.md", "changelog-scribe"),
    ("copilot", ".copilot/agents/team/scribe.agent.md", "team--scribe"),
    ("copilot", "project:.github/agents/changelog-scribe.agent.md", "changelog-scribe"),
    ("copilot", "project:.claude/agents/changelog-scribe.md", "changelog-scribe"),
    ("copilot", "built-in", "code-review"),
    ("copilot", "built-in", "rubber-duck"),
])
@pytest.mark.parametrize("from_subfolder", [False, True])
def test_each_hosts_agents_are_found_when_the_gate_decides(tmp_path, host, layout, name, from_subfolder):
    world = World(tmp_path, agents=False)
    if layout != "built-in":
        base, _, rel = layout.rpartition(":")
        folder = world.project if base == "project" else world.home
        named = name if not rel.endswith("scribe.agent.md") or "team" not in rel else None
        write(folder / rel, agent_text(named))
    cwd = world.project / "apps" / "web" if from_subfolder else world.project
    cwd.mkdir(parents=True, exist_ok=True)
    if host == "claude":
        result = world.gate(*post_tool_batch(skill_call({"skill": name})), cwd=cwd)
        assert one_json_line(result.stdout) == batch_context(to_agent(name, "claude"))
    else:
        result = world.gate(*copilot_pre("skill", {"skill": name}), cwd=cwd)
        assert one_json_line(result.stdout) == expected_deny("copilot-preToolUse", to_agent(name, "copilot"))


@pytest.mark.parametrize("host, rel, text", [
    ("claude", ".copilot/agents/architect.agent.md", agent_text("architect")),  # the other host's folder
    ("claude", ".claude/agents/architect.md", agent_text(None)),  # Claude Code needs name:
    ("claude", ".claude/agents/architect.md", agent_text("architect", None)),  # ... and description:
    ("claude", ".claude/agents/architect.md", "no frontmatter\n"),
    ("copilot", ".claude/agents/architect.md", agent_text("architect")),  # ~/.claude is not Copilot's
    ("copilot", ".copilot/agents/architect.agent.md", agent_text("architect", None)),
    ("copilot", ".copilot/agents/x.agent.md", agent_text("other-name")),  # frontmatter name wins
    ("copilot", ".agents/agents/architect.agent.md", agent_text("architect")),
])
def test_files_a_host_does_not_list_are_no_agents(tmp_path, host, rel, text):
    world = World(tmp_path, agents=False)
    write(world.home / rel, text)
    if host == "claude":
        assert_pass(world.gate(*post_tool_batch(skill_call({"skill": "architect"}))))
    else:
        assert_pass(world.gate(*copilot_pre("skill", {"skill": "architect"})))


def test_code_review_is_a_skill_on_claude_and_an_agent_on_copilot(tmp_path):
    world = World(tmp_path, agents=False)
    assert_pass(world.gate(*claude_pre("Skill", {"skill": "code-review"})))
    result = world.gate(*post_tool_batch(agent_call({"subagent_type": "code-review"})))
    assert one_json_line(result.stdout) == batch_context(to_skill("code-review", "claude"))
    result = world.gate(*copilot_pre("skill", {"skill": "code-review"}))
    assert one_json_line(result.stdout) == expected_deny("copilot-preToolUse", to_agent("code-review", "copilot"))


def test_a_project_command_sharing_an_agents_name_passes_on_claude(tmp_path):
    world = World(tmp_path)
    write(world.project / ".claude" / "commands" / "architect.md", "---\ndescription: x\n---\nDo.\n")
    assert_pass(world.gate(*claude_pre("Skill", {"skill": "architect"})))


# --- the agent tool naming a skill (mirror) ------------------------------------------------------

def agent_payload(dialect, name):
    if dialect == "claude-PostToolBatch":
        return post_tool_batch(agent_call({"subagent_type": name, "prompt": "go"}))
    return COPILOT_DIALECTS[dialect]("task", {"agent_type": name, "prompt": "go", "description": "d"})


@pytest.mark.parametrize("name", SKILL_ONLY)
@pytest.mark.parametrize("dialect", ["claude-PostToolBatch", *COPILOT_DIALECTS])
def test_agent_tool_naming_a_skill_is_sent_to_the_skill_tool(world, dialect, name):
    result = world.gate(*agent_payload(dialect, name))
    if dialect == "claude-PostToolBatch" and name == "pdf":
        # documents/pdf/SKILL.md is two levels down: Claude Code loads <root>/<name>/SKILL.md only.
        assert_pass(result)
        return
    assert (result.returncode, result.stderr) == (0, b"")
    if dialect == "claude-PostToolBatch":
        assert one_json_line(result.stdout) == batch_context(to_skill(name, "claude"))
    else:
        assert one_json_line(result.stdout) == expected_deny(dialect, to_skill(name, "copilot"))


@pytest.mark.parametrize("name", AGENT_ONLY + NOTHING + ["general-purpose"])
@pytest.mark.parametrize("dialect", ["claude-PostToolBatch", *COPILOT_DIALECTS])
def test_agent_tool_naming_an_agent_or_nothing_passes(world, dialect, name):
    result = world.gate(*agent_payload(dialect, name))
    if dialect == "claude-PostToolBatch" and name == "architect":
        # Claude Code runs the skills/architect folder by its folder name (Copilot does not).
        assert one_json_line(result.stdout) == batch_context(to_skill(name, "claude"))
        return
    assert_pass(result)


@pytest.mark.parametrize("dialect", list(COPILOT_DIALECTS))
@pytest.mark.parametrize("name", AGENT_AND_SKILL)
def test_copilot_task_naming_an_agent_that_is_also_a_skill_passes(world, dialect, name):
    assert_pass(world.gate(*agent_payload(dialect, name)))


def test_claude_agent_call_the_host_ran_is_left_alone(world):
    assert_pass(world.gate(*post_tool_batch(agent_call({"subagent_type": "pdf"}, response="done"))))
    assert_pass(world.gate(*claude_pre("Agent", {"subagent_type": "pdf"})))


# --- events, precedence, echo -------------------------------------------------------------------

def test_redirect_echoes_nothing_else_from_the_input(world):
    secret = "sk-live-SECRET-do-not-echo /home/alice/private"
    for dialect in ["claude-PostToolBatch", *COPILOT_DIALECTS]:
        result = world.gate(*skill_payload(dialect, {"skill": "prompt-writer", "args": secret}))
        assert result.stdout and secret.encode() not in result.stdout + result.stderr
        assert b"alice" not in result.stdout + result.stderr


def test_other_tools_pass_even_when_they_mention_skills(world):
    payloads = [
        claude_pre("Bash", {"skill": "prompt-writer"}),
        claude_pre("SKILL", {"skill": "prompt-writer"}),
        copilot_pre("bash", {"skill": "prompt-writer"}),
        copilot_pre("task", {"skill": "pdf", "agent_type": "prompt-writer"}),
    ]
    for argv, payload in payloads:
        assert_pass(world.gate(argv, payload))


def test_copilot_payload_on_another_event_passes(world):
    payload = {"toolName": "skill", "toolArgs": {"skill": "prompt-writer"}, "toolResult": {"resultType": "failure"}}
    assert_pass(world.gate(["postToolUse"], payload))
    # With no EVENT on the command line a camelCase payload is taken as preToolUse.
    assert one_json_line(world.gate([], payload).stdout)["permissionDecision"] == "deny"


def test_the_command_lines_event_comes_before_the_payloads(world):
    """The installer writes the event into the command line (event.parse: argv first)."""
    _, payload = copilot_claude_format_pre("skill", {"skill": "prompt-writer"})
    assert b"deny" in world.gate([], payload).stdout
    assert_pass(world.gate(["Stop"], payload))
    assert_pass(world.gate(["PostToolUse"], payload))
    del payload["hook_event_name"]
    assert b"deny" in world.gate(["PreToolUse"], payload).stdout
    payload["hook_event_name"] = "PostToolUse"
    assert b"deny" in world.gate(["PreToolUse"], payload).stdout
    assert_pass(world.gate([], payload))


def test_skills_dir_wins_over_the_environment(world, tmp_path):
    argv, payload = copilot_pre("skill", {"skill": "gherkin-expert"})
    empty = tmp_path / "empty"
    empty.mkdir()
    assert b"deny" in world.gate(["--skills-dir", str(empty), *argv], payload).stdout
    assert_pass(world.gate([f"--skills-dir={SKILLS}", *argv], payload))


def test_fixture_really_has_bom_crlf_and_quoted_names():
    pdf = (SKILLS / "documents" / "pdf" / "SKILL.md").read_bytes()
    tla = (SKILLS / "tla-plus-expert" / "SKILL.md").read_bytes()
    gherkin = (SKILLS / "testing" / "gherkin" / "SKILL.md").read_bytes()
    assert pdf.startswith(b"\xef\xbb\xbf---\r\n") and b"name: pdf\r\n" in pdf
    assert tla.startswith(b"\xef\xbb\xbf") and b"name: 'tla-plus-expert'" in tla and b"\r\n" in tla
    assert b'name: "gherkin-expert"' in gherkin


@pytest.mark.parametrize("dialect", list(COPILOT_DIALECTS))
def test_the_byte_filter_lets_every_copilot_agent_call_through(world, dialect):
    """No "skill" or "task" anywhere else in the payload (this test's own paths contain both)."""
    argv, payload = agent_payload(dialect, "default-workflow")
    payload["cwd"] = "/"
    text = json.dumps(payload)
    assert "skill" not in text.replace("default-workflow", "") or dialect != "copilot-claude-format-PreToolUse"
    result = subprocess.run([PYTHON, "-S", str(GATE), *argv], input=text.encode(), capture_output=True,
                            env=world.env, cwd="/", timeout=60)
    assert b"call the skill tool" in result.stdout, result
