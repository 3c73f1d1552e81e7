"""PostToolBatch: Claude Code rejects an unknown skill before PreToolUse, so the batch hook redirects."""
from __future__ import annotations

import json
from pathlib import Path

from hookmux_testing import GATE, hermetic_env, one_json_line, run_hook

SKILLS = Path(__file__).resolve().parent / "fixtures" / "skills"


def skill_call(name, response):
    return {"tool_name": "Skill", "tool_input": {"skill": name}, "tool_use_id": f"toolu_{name}", "tool_response": response}


def unknown(name):
    return f"<tool_use_error>Unknown skill: {name}</tool_use_error>"


def batch(*calls):
    return json.dumps({
        "session_id": "s1", "transcript_path": "/tmp/t.jsonl", "cwd": "/tmp",
        "hook_event_name": "PostToolBatch", "tool_calls": list(calls),
    })


def run(tmp_path, payload):
    env = hermetic_env(tmp_path, HOOKMUX_SKILLS_PATH=str(SKILLS))
    return run_hook(GATE, ["PostToolBatch"], payload, env)


def context_of(result):
    assert (result.returncode, result.stderr) == (0, b"")
    output = one_json_line(result.stdout)
    assert set(output) == {"hookSpecificOutput"}
    assert set(output["hookSpecificOutput"]) == {"hookEventName", "additionalContext"}
    assert output["hookSpecificOutput"]["hookEventName"] == "PostToolBatch"
    return output["hookSpecificOutput"]["additionalContext"]


def test_every_agent_only_name_of_a_batch_is_redirected_in_one_line(tmp_path):
    result = run(tmp_path, batch(
        {"tool_name": "Bash", "tool_input": {"command": "ls"}, "tool_use_id": "t1", "tool_response": "skill"},
        skill_call("prompt-writer", unknown("prompt-writer")),
        skill_call("pdf", "Launching skill: pdf"),
        skill_call("builder", unknown("builder")),
        skill_call("prompt-writer", unknown("prompt-writer")),
        skill_call("totally-unknown-name", unknown("totally-unknown-name")),
    ))
    context = context_of(result)
    assert context.count('subagent_type "prompt-writer"') == 1
    assert context.count('subagent_type "builder"') == 1
    assert "pdf" not in context and "totally-unknown-name" not in context
    assert context.index("prompt-writer") < context.index("builder")


def test_agent_name_that_the_host_ran_is_left_alone(tmp_path):
    """Only a call the host reported as an unknown skill is redirected (e.g. a plugin skill named like an agent)."""
    env = hermetic_env(tmp_path, HOOKMUX_SKILLS_PATH=str(SKILLS))
    for response in ("Launching skill: architect", None, {"result": "ok"}, ["done"], "", 7):
        result = run(tmp_path, batch(skill_call("architect", response)))
        assert (result.returncode, result.stdout, result.stderr) == (0, b"", b""), response
        # Past the command-line pre-filter (no EVENT argument; another call in the batch did fail):
        result = run_hook(GATE, [], batch(skill_call("architect", response), skill_call("builder", unknown("builder"))), env)
        context = context_of(result)
        assert "builder" in context and "architect" not in context, response


def test_unknown_skill_is_found_in_structured_responses(tmp_path):
    for response in (
        [{"type": "text", "text": unknown("guide")}],
        {"content": [{"type": "text", "text": "Error: UNKNOWN SKILL: guide"}], "is_error": True},
    ):
        assert 'subagent_type "guide"' in context_of(run(tmp_path, batch(skill_call("guide", response))))


def test_skill_precedence_holds_on_batch_too(tmp_path):
    result = run(tmp_path, batch(skill_call("gherkin-expert", unknown("gherkin-expert")),
                                 skill_call("tla-plus-expert", unknown("tla-plus-expert"))))
    assert (result.returncode, result.stdout, result.stderr) == (0, b"", b"")


def test_command_line_post_tool_batch_needs_unknown_skill_text(tmp_path):
    """Wired as PostToolBatch, a payload without "unknown skill" is not even parsed (the speed pre-filter)."""
    env = hermetic_env(tmp_path, HOOKMUX_SKILLS_PATH=str(SKILLS))
    payload = json.dumps({"hook_event_name": "PreToolUse", "tool_name": "Skill", "tool_input": {"skill": "prompt-writer"}})
    assert run_hook(GATE, ["PreToolUse"], payload, env).returncode == 2
    result = run_hook(GATE, ["PostToolBatch"], payload, env)
    assert (result.returncode, result.stdout, result.stderr) == (0, b"", b"")


def test_malformed_batches_pass(tmp_path):
    for payload in (
        '{"hook_event_name":"PostToolBatch","tool_calls":"Unknown skill: prompt-writer"}',
        '{"hook_event_name":"PostToolBatch","tool_calls":{"0":{"tool_name":"Skill","tool_input":{"skill":"prompt-writer"},"tool_response":"Unknown skill"}}}',
        '{"hook_event_name":"PostToolBatch","tool_calls":[null, 1, "Unknown skill", []]}',
        '{"hook_event_name":"PostToolBatch","tool_calls":[{"tool_name":"Skill","tool_input":"prompt-writer","tool_response":"Unknown skill"}]}',
        '{"hook_event_name":"PostToolBatch"} unknown skill',
    ):
        result = run(tmp_path, payload)
        assert (result.returncode, result.stdout, result.stderr) == (0, b"", b""), payload
