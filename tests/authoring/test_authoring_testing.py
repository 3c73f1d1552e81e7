"""hookmux.testing: payload builders that match the hosts, and checks run through dispatch.run()."""
from __future__ import annotations

import json

import pytest

from hookmux import resources, testing
from hookmux_testing import HOOKS

event_kit = resources.runtime("event")

EMITTER = '''import sys
from _common.event import parse, render_context


def main():
    event = parse(sys.stdin.read())
    sys.stdout.write(render_context(event, "saw %s %s on %s" % (event.name or "?", event.tool_name,
                                                               event.tool_input.get("command"))))
'''


@pytest.fixture
def tree(tmp_path):
    (tmp_path / "emitter").mkdir()
    (tmp_path / "emitter" / "check.py").write_text(EMITTER)
    return tmp_path


@pytest.mark.parametrize("host, event_arg, tool_key, tool", [
    ("claude", "PreToolUse", "tool_name", "Bash"),
    ("copilot", "preToolUse", "toolName", "bash"),
    ("copilot-claude", "PreToolUse", "tool_name", "bash"),
    ("codex", "PreToolUse", "tool_name", "Bash"),
])
def test_pre_tool_use_speaks_each_hosts_dialect_and_the_kit_reads_it_back(host, event_arg, tool_key, tool):
    call = testing.pre_tool_use("Bash", {"command": "ls -la"}, host=host)
    assert call.event == event_arg and call.payload[tool_key] == tool
    assert ("hook_event_name" in call.payload) == (host != "copilot")
    parsed = event_kit.parse(call.stdin, call.event)
    assert (parsed.name, parsed.tool_name, parsed.tool_input, parsed.session_id) == (
        "PreToolUse", "Bash", {"command": "ls -la"}, testing.SESSION)
    assert parsed.host == {"copilot-claude": "copilot"}.get(host, host)


def test_copilot_tool_args_as_a_json_string_and_tool_results():
    call = testing.post_tool_use("Edit", {"file_path": "a"}, "done", host="copilot", tool_args_as_string=True)
    assert call.event == "postToolUse" and isinstance(call.payload["toolArgs"], str)
    assert call.payload["toolResult"] == {"resultType": "success", "textResultForLlm": "done"}
    parsed = event_kit.parse(call.stdin, call.event)
    assert (parsed.tool_name, parsed.tool_input) == ("Edit", {"file_path": "a"})


@pytest.mark.parametrize("builder, name", [
    (lambda h: testing.session_start(host=h), "SessionStart"),
    (lambda h: testing.user_prompt_submit("hi", host=h), "UserPromptSubmit"),
    (lambda h: testing.stop(host=h), "Stop"),
    (lambda h: testing.subagent_stop(host=h), "SubagentStop"),
])
@pytest.mark.parametrize("host", testing.HOSTS)
def test_every_event_builds_for_every_host_and_parses_to_its_canonical_name(builder, name, host):
    if host == "gemini" and name == "SubagentStop":  # Gemini CLI 0.61.0 has no such hook
        with pytest.raises(ValueError):
            builder(host)
        return
    call = builder(host)
    assert event_kit.parse(call.stdin, call.event).name == name


def test_post_tool_batch_is_claude_only():
    call = testing.post_tool_batch([("Bash", {"command": "ls"}, "out"), ("Read", {"file_path": "x"}, "text")])
    assert [c["tool_name"] for c in call.payload["tool_calls"]] == ["Bash", "Read"]
    with pytest.raises(ValueError):
        testing.post_tool_batch([], host="copilot")


@pytest.mark.parametrize("host", testing.HOSTS)
def test_run_check_goes_through_the_dispatcher_in_the_hosts_output_shape(tree, host):
    # Gemini drops context given before a call: its advice comes after it (hosts.ADVICE_AFTER)
    build, event = (testing.post_tool_use, "PostToolUse") if host == "gemini" else (testing.pre_tool_use, "PreToolUse")
    result = testing.run_check(tree / "emitter" / "check.py", build("Bash", {"command": "ls"}, host=host),
                               matcher="^Bash$")
    assert result.context == "saw %s Bash on ls" % event if host != "copilot" else result.context.endswith("Bash on ls")
    assert ("hookSpecificOutput" in result.json) == (host != "copilot")
    assert result.contexts == [result.context] and not result.silent
    assert len(result.trace) == 1 and result.trace[0].startswith("[0] emitter/check  selected")


def test_a_matcher_that_does_not_match_is_skipped_and_silent(tree):
    result = testing.run_check(tree / "emitter" / "check.py", testing.pre_tool_use("Read", {"file_path": "x"}),
                               matcher="^Bash$")
    assert result.silent and result.output == "" and "skipped: matcher does not match tool" in result.trace[0]


def test_run_manifest_joins_rows_in_order_and_state_is_fresh_unless_shared(tree, tmp_path):
    manifest = {"version": 1, "hooks_root": str(HOOKS), "events": {"PreToolUse": {"checks": [
        {"name": "contra", "script": "contraindication/check.py", "matcher": "^Bash$"},
        {"name": "emitter", "script": str(tree / "emitter" / "check.py")}]}}}
    call = testing.pre_tool_use("Bash", {"command": "git push --force origin main"})
    first = testing.run_manifest(manifest, call)
    assert len(first.contexts) == 2 and first.contexts[1] == "saw PreToolUse Bash on git push --force origin main"
    assert testing.run_manifest(manifest, call).contexts == first.contexts  # a fresh state folder each run
    shared = tmp_path / "state"
    assert len(testing.run_manifest(manifest, call, state_dir=shared).contexts) == 2
    assert len(testing.run_manifest(manifest, call, state_dir=shared).contexts) == 1  # advised once per session


def test_the_project_checks_test_through_it(tmp_path):
    call = testing.pre_tool_use("Bash", {"command": "git push --force origin main"}, host="copilot")
    result = testing.run_check(HOOKS / "contraindication" / "check.py", call, matcher="^(Bash|PowerShell)$")
    assert "advice only" in result.context and json.loads(result.output).keys() == {"additionalContext"}


def test_contexts_are_told_apart_even_when_they_hold_blank_lines(tmp_path):
    for name, text in (("a", "first\n\nparagraph"), ("b", "second")):
        (tmp_path / name).mkdir()
        (tmp_path / name / "check.py").write_text(
            "import json\ndef main():\n    print(json.dumps({'additionalContext': %r}))\n" % text)
    manifest = {"version": 1, "hooks_root": str(tmp_path), "events": {"PreToolUse": {"checks": [
        {"name": "a", "script": "a/check.py"}, {"name": "b", "script": "b/check.py"}]}}}
    result = testing.run_manifest(manifest, testing.pre_tool_use("Bash", {"command": "ls"}))
    assert result.contexts == ["first\n\nparagraph", "second"]
