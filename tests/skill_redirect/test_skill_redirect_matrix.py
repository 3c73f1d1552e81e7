"""The behaviour matrix of the skill-redirect gate, run as a host runs it, in every payload dialect."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from hookmux_testing import GATE, hermetic_env, one_json_line, run_hook

SKILLS = Path(__file__).resolve().parent / "fixtures" / "skills"

REDIRECTED = ["prompt-writer", "architect", "builder", "guide"]
PASSED = ["default-workflow", "pdf", "gherkin-expert", "tla-plus-expert", "totally-unknown-name"]
MALFORMED_INPUTS = [
    {},
    {"skill": 123},
    {"skill": None},
    {"name": ["x"]},
    {"skill": {"skill": "prompt-writer"}},
    {"skill": ["prompt-writer"]},
    {"skill": {"name": {"nested": [1, {"junk": None}]}}},
    {"skill": None, "name": "prompt-writer"},
    {"skill": ""},
    {"skill": True},
    {"skill": "PROMPT-WRITER"},
    {"skill": "specialized/prompt-writer"},
    {"skill": "amplihack:prompt-writer"},
    {"skill": " prompt-writer"},
]


def claude_code_pre(tool_input):
    return ["PreToolUse"], {
        "session_id": "s1", "transcript_path": "/tmp/t.jsonl", "cwd": "/tmp", "prompt_id": "p1",
        "permission_mode": "default", "hook_event_name": "PreToolUse", "tool_name": "Skill",
        "tool_input": tool_input, "tool_use_id": "toolu_01",
    }


def copilot_pre(tool_input):
    return ["preToolUse"], {"sessionId": "s1", "timestamp": 1764470000000, "cwd": "/tmp", "toolName": "skill", "toolArgs": tool_input}


def copilot_pre_string_args(tool_input):
    argv, payload = copilot_pre(tool_input)
    payload["toolArgs"] = json.dumps(tool_input)
    return argv, payload


def copilot_claude_format_pre(tool_input):
    return ["PreToolUse"], {
        "hook_event_name": "PreToolUse", "session_id": "s1", "timestamp": "2026-11-30T03:00:00.000Z",
        "cwd": "/tmp", "tool_name": "skill", "tool_input": tool_input,
    }


def post_tool_batch(tool_input):
    name = tool_input.get("skill") if isinstance(tool_input.get("skill"), str) else "x"
    return ["PostToolBatch"], {
        "session_id": "s1", "transcript_path": "/tmp/t.jsonl", "cwd": "/tmp", "hook_event_name": "PostToolBatch",
        "tool_calls": [{
            "tool_name": "Skill", "tool_input": tool_input, "tool_use_id": "toolu_01",
            "tool_response": f"<tool_use_error>Unknown skill: {name}</tool_use_error>",
        }],
    }


DIALECTS = {
    "claude-code-PreToolUse": claude_code_pre,
    "copilot-preToolUse": copilot_pre,
    "copilot-preToolUse-string-args": copilot_pre_string_args,
    "copilot-claude-format-PreToolUse": copilot_claude_format_pre,
    "claude-code-PostToolBatch": post_tool_batch,
}


def claude_code_message(name):
    return (
        f'"{name}" is an agent, not a skill, so the Skill tool cannot run it. '
        f'Run it as an agent instead: call the Agent tool with subagent_type "{name}". '
        f'Do not retry "{name}" as a Skill call.'
    )


def copilot_message(name):
    return (
        f'"{name}" is an agent, not a skill, so the skill tool cannot run it. '
        f'Run it as an agent instead: call the task tool with agent_type "{name}". '
        f'Do not retry "{name}" as a skill call.'
    )


def expected_redirect(dialect, name):
    """(exit code, stdout JSON, stderr bytes) the host contract asks for."""
    if dialect == "claude-code-PreToolUse":
        reason = claude_code_message(name)
        return 2, {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny",
                                          "permissionDecisionReason": reason}}, (reason + "\n").encode()
    if dialect in ("copilot-preToolUse", "copilot-preToolUse-string-args"):
        return 0, {"permissionDecision": "deny", "permissionDecisionReason": copilot_message(name)}, b""
    if dialect == "copilot-claude-format-PreToolUse":
        return 0, {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny",
                                          "permissionDecisionReason": copilot_message(name)}}, b""
    return 0, {"hookSpecificOutput": {"hookEventName": "PostToolBatch",
                                      "additionalContext": claude_code_message(name)}}, b""


def run_gate(tmp_path, dialect, tool_input, via="--skills-dir"):
    argv, payload = DIALECTS[dialect](tool_input)
    if via == "--skills-dir":
        env = hermetic_env(tmp_path)
        argv = ["--skills-dir", str(SKILLS), *argv]
    else:
        env = hermetic_env(tmp_path, HOOKMUX_SKILLS_PATH=str(SKILLS))
    return run_hook(GATE, argv, json.dumps(payload), env)


@pytest.mark.parametrize("via", ["--skills-dir", "HOOKMUX_SKILLS_PATH"])
@pytest.mark.parametrize("name", REDIRECTED)
@pytest.mark.parametrize("dialect", DIALECTS)
def test_agent_only_name_is_redirected(tmp_path, dialect, name, via):
    result = run_gate(tmp_path, dialect, {"skill": name}, via)
    code, stdout_json, stderr = expected_redirect(dialect, name)
    assert result.returncode == code, result
    assert one_json_line(result.stdout) == stdout_json
    assert result.stderr == stderr


@pytest.mark.parametrize("name", PASSED)
@pytest.mark.parametrize("dialect", DIALECTS)
def test_skills_and_unknown_names_pass(tmp_path, dialect, name):
    result = run_gate(tmp_path, dialect, {"skill": name})
    assert (result.returncode, result.stdout, result.stderr) == (0, b"", b"")


@pytest.mark.parametrize("tool_input", MALFORMED_INPUTS, ids=json.dumps)
@pytest.mark.parametrize("dialect", DIALECTS)
def test_malformed_or_non_matching_input_passes(tmp_path, dialect, tool_input):
    result = run_gate(tmp_path, dialect, tool_input)
    assert (result.returncode, result.stdout, result.stderr) == (0, b"", b"")


@pytest.mark.parametrize("dialect", DIALECTS)
def test_name_key_is_the_fallback(tmp_path, dialect):
    result = run_gate(tmp_path, dialect, {"name": "prompt-writer", "args": "ignored"})
    code, stdout_json, _ = expected_redirect(dialect, "prompt-writer")
    assert result.returncode == code
    assert one_json_line(result.stdout) == stdout_json


@pytest.mark.parametrize("dialect", DIALECTS)
def test_without_the_skills_tree_the_skill_agents_redirect(tmp_path, dialect):
    """gherkin-expert passes above only because the fixture tree holds it as a skill."""
    argv, payload = DIALECTS[dialect]({"skill": "gherkin-expert"})
    env = hermetic_env(tmp_path, HOOKMUX_SKILLS_PATH=str(tmp_path / "no-skills-here"))
    result = run_hook(GATE, argv, json.dumps(payload), env)
    code, stdout_json, _ = expected_redirect(dialect, "gherkin-expert")
    assert result.returncode == code
    assert one_json_line(result.stdout) == stdout_json


@pytest.mark.parametrize("dialect", DIALECTS)
def test_redirect_echoes_nothing_else_from_the_input(tmp_path, dialect):
    secret = "sk-live-SECRET-do-not-echo /home/alice/private"
    result = run_gate(tmp_path, dialect, {"skill": "prompt-writer", "args": secret})
    assert result.stdout and secret.encode() not in result.stdout + result.stderr
    assert b"alice" not in result.stdout + result.stderr


def test_other_tools_pass_even_when_they_mention_skills(tmp_path):
    env = hermetic_env(tmp_path, HOOKMUX_SKILLS_PATH=str(SKILLS))
    payloads = [
        (["PreToolUse"], {"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"skill": "prompt-writer"}}),
        (["PreToolUse"], {"hook_event_name": "PreToolUse", "tool_name": "SKILL", "tool_input": {"skill": "prompt-writer"}}),
        (["preToolUse"], {"toolName": "bash", "toolArgs": {"skill": "prompt-writer"}}),
        (["preToolUse"], {"toolName": "task", "toolArgs": {"agent_type": "prompt-writer", "skill": "prompt-writer"}}),
        (["PreToolUse"], {"hook_event_name": "PreToolUse", "tool_name": "Agent", "tool_input": {"subagent_type": "prompt-writer", "skill": "x"}}),
    ]
    for argv, payload in payloads:
        result = run_hook(GATE, argv, json.dumps(payload), env)
        assert (result.returncode, result.stdout, result.stderr) == (0, b"", b""), payload


def test_copilot_payload_on_another_event_passes(tmp_path):
    env = hermetic_env(tmp_path, HOOKMUX_SKILLS_PATH=str(SKILLS))
    payload = {"toolName": "skill", "toolArgs": {"skill": "prompt-writer"}, "toolResult": {"resultType": "failure"}}
    assert run_hook(GATE, ["postToolUse"], json.dumps(payload), env).stdout == b""
    # With no EVENT on the command line a camelCase payload is taken as preToolUse.
    result = run_hook(GATE, [], json.dumps(payload), env)
    assert one_json_line(result.stdout)["permissionDecision"] == "deny"


def test_event_comes_from_the_payload_before_the_command_line(tmp_path):
    env = hermetic_env(tmp_path, HOOKMUX_SKILLS_PATH=str(SKILLS))
    _, payload = claude_code_pre({"skill": "prompt-writer"})
    result = run_hook(GATE, [], json.dumps(payload), env)
    assert result.returncode == 2
    del payload["hook_event_name"]
    assert run_hook(GATE, ["PreToolUse"], json.dumps(payload), env).returncode == 2
    assert run_hook(GATE, ["Stop"], json.dumps(payload), env).returncode == 0
    payload["hook_event_name"] = "PostToolUse"
    assert run_hook(GATE, ["PreToolUse"], json.dumps(payload), env).stdout == b""


def test_skills_dir_wins_over_the_environment(tmp_path):
    env = hermetic_env(tmp_path, HOOKMUX_SKILLS_PATH=str(SKILLS))
    argv, payload = claude_code_pre({"skill": "gherkin-expert"})
    empty = tmp_path / "empty"
    empty.mkdir()
    result = run_hook(GATE, ["--skills-dir", str(empty), *argv], json.dumps(payload), env)
    assert result.returncode == 2
    result = run_hook(GATE, [f"--skills-dir={SKILLS}", *argv], json.dumps(payload), env)
    assert result.returncode == 0


def test_fixture_really_has_bom_crlf_and_quoted_names():
    pdf = (SKILLS / "documents" / "pdf" / "SKILL.md").read_bytes()
    tla = (SKILLS / "tla-plus-expert" / "SKILL.md").read_bytes()
    gherkin = (SKILLS / "testing" / "gherkin" / "SKILL.md").read_bytes()
    assert pdf.startswith(b"\xef\xbb\xbf---\r\n") and b"name: pdf\r\n" in pdf
    assert tla.startswith(b"\xef\xbb\xbf") and b"name: 'tla-plus-expert'" in tla and b"\r\n" in tla
    assert b'name: "gherkin-expert"' in gherkin
