"""PostToolBatch: Claude Code rejects an unknown skill or agent type itself; the batch hook says
what the name is on this host (an agent -> the Agent tool; a skill -> the Skill tool)."""
from __future__ import annotations

import json

import pytest

from gate_world import SKILLS, World, agent_call, post_tool_batch, skill_call, unknown_skill
from hookmux_testing import one_json_line


@pytest.fixture
def world(tmp_path):
    return World(tmp_path, HOOKMUX_SKILLS_PATH=str(SKILLS))


def context_of(result):
    assert (result.returncode, result.stderr) == (0, b"")
    output = one_json_line(result.stdout)
    assert set(output) == {"hookSpecificOutput"}
    assert set(output["hookSpecificOutput"]) == {"hookEventName", "additionalContext"}
    assert output["hookSpecificOutput"]["hookEventName"] == "PostToolBatch"
    return output["hookSpecificOutput"]["additionalContext"]


def test_every_name_of_a_batch_is_explained_in_one_line(world):
    result = world.gate(*post_tool_batch(
        {"tool_name": "Bash", "tool_input": {"command": "ls"}, "tool_use_id": "t1", "tool_response": "skill"},
        skill_call({"skill": "prompt-writer"}),
        skill_call({"skill": "pdf"}, "Launching skill: pdf"),
        agent_call({"subagent_type": "default-workflow"}),
        skill_call({"skill": "builder"}),
        skill_call({"skill": "prompt-writer"}),
        skill_call({"skill": "totally-unknown-name"}),
        agent_call({"subagent_type": "totally-unknown-name"}),
    ))
    context = context_of(result)
    assert context.count('subagent_type "prompt-writer"') == 1
    assert context.count('subagent_type "builder"') == 1
    assert context.count('call the Skill tool with skill "default-workflow"') == 1
    assert "pdf" not in context and "totally-unknown-name" not in context
    assert context.index("prompt-writer") < context.index("builder") < context.index("default-workflow")


def test_a_call_the_host_ran_is_left_alone(world):
    """Only a call the host reported as unknown is explained (e.g. a plugin skill named like an agent)."""
    for response in ("Launching skill: architect", {"result": "ok"}, ["done"], "", 7):
        assert world.gate(*post_tool_batch(skill_call({"skill": "architect"}, response))).stdout == b""
        # Past the command-line pre-filter (no EVENT argument; another call in the batch did fail):
        argv, payload = post_tool_batch(skill_call({"skill": "architect"}, response), skill_call({"skill": "builder"}))
        context = context_of(world.gate([], payload))
        assert "builder" in context and "architect" not in context, response


def test_the_hosts_verdict_is_found_in_structured_responses(world):
    for response in (
        [{"type": "text", "text": unknown_skill("guide")}],
        {"content": [{"type": "text", "text": "Error: UNKNOWN SKILL: guide"}], "is_error": True},
    ):
        assert 'subagent_type "guide"' in context_of(world.gate(*post_tool_batch(skill_call({"skill": "guide"}, response))))
    response = {"content": [{"type": "text", "text": "agent TYPE 'pdf' NOT FOUND"}]}
    argv, payload = post_tool_batch(agent_call({"subagent_type": "default-workflow"}, response))
    assert "Skill tool" in context_of(world.gate(argv, payload))


def test_did_you_mean_after_the_name_changes_nothing(tmp_path):
    world = World(tmp_path, agents=False)
    result = world.gate(*post_tool_batch(skill_call({"skill": "Plan"}, "Unknown skill: Plan. Did you mean plan?")))
    assert 'subagent_type "Plan"' in context_of(result)


def test_command_line_post_tool_batch_needs_the_hosts_rejection_text(world):
    """Wired as PostToolBatch, a payload without "unknown skill"/"agent type" is not even parsed."""
    argv, payload = post_tool_batch(skill_call({"skill": "prompt-writer"}, "Skill failed"))
    payload["note"] = "unknown skill"
    assert b"prompt-writer" not in world.gate([], payload).stdout  # parsed: the response itself has no verdict
    del payload["note"]
    assert world.gate(argv, payload).stdout == b""


def test_malformed_batches_pass(world):
    for payload in (
        '{"hook_event_name":"PostToolBatch","tool_calls":"Unknown skill: prompt-writer"}',
        '{"hook_event_name":"PostToolBatch","tool_calls":{"0":{"tool_name":"Skill","tool_input":{"skill":"prompt-writer"},"tool_response":"Unknown skill"}}}',
        '{"hook_event_name":"PostToolBatch","tool_calls":[null, 1, "Unknown skill", []]}',
        '{"hook_event_name":"PostToolBatch","tool_calls":[{"tool_name":"Skill","tool_input":"prompt-writer","tool_response":"Unknown skill"}]}',
        '{"hook_event_name":"PostToolBatch","tool_calls":[{"tool_name":"Agent","tool_input":["pdf"],"tool_response":"Agent type not found"}]}',
        '{"hook_event_name":"PostToolBatch"} unknown skill',
    ):
        result = world.gate(["PostToolBatch"], json.loads(payload) if payload.endswith("}") and "} u" not in payload else {})
        assert (result.returncode, result.stdout, result.stderr) == (0, b"", b""), payload
