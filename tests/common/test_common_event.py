"""hooks/_common/event.py: every host's payload read once, answers written in the dialect the host reads."""
from __future__ import annotations

import ast
import json
import subprocess
import sys

import pytest

from hookmux_testing import HOOKS, PYTHON

sys.path.insert(0, str(HOOKS))
from _common import event, hosts  # noqa: E402

CLAUDE_PRE = {"session_id": "s1", "transcript_path": "/t.jsonl", "cwd": "/w", "hook_event_name": "PreToolUse",
              "tool_name": "Bash", "tool_input": {"command": "ls"}, "tool_use_id": "u"}
COPILOT_PRE = {"sessionId": "s2", "timestamp": 1764470000000, "cwd": "/w", "toolName": "bash",
               "toolArgs": "{\"command\": \"ls\"}"}
COPILOT_CLAUDE_FORMAT = {"hook_event_name": "PreToolUse", "session_id": "s3", "timestamp": "2026-11-30T10:00:00Z",
                         "cwd": "/w", "tool_name": "skill", "tool_input": {"skill": "x"}}
CODEX_PRE = {"session_id": "s4", "transcript_path": "/t", "cwd": "/w", "hook_event_name": "PreToolUse", "model": "o3",
             "permission_mode": "default", "turn_id": "t1", "tool_name": "spawn_agent",
             "tool_input": {"agent_type": "reviewer", "message": "go"}}


@pytest.mark.parametrize("payload, argv, host, dialect, tool", [
    (CLAUDE_PRE, None, "claude", "claude", "Bash"),
    (COPILOT_PRE, "preToolUse", "copilot", "copilot", "Bash"),
    (COPILOT_PRE, "PreToolUse", "copilot", "copilot", "Bash"),
    (COPILOT_CLAUDE_FORMAT, None, "copilot", "claude", "Skill"),
    (CODEX_PRE, None, "codex", "codex", "Agent"),
])
def test_each_host_is_read_into_one_event(payload, argv, host, dialect, tool):
    call = event.parse(json.dumps(payload), argv)
    assert (call.host, call.dialect, call.name, call.tool_name, call.ok) == (host, dialect, "PreToolUse", tool, True)
    assert call.session_id.startswith("s") and call.cwd == "/w"
    assert isinstance(call.tool_input, dict) and call.tool_input


def test_copilot_json_string_tool_args_are_parsed():
    assert event.parse(json.dumps(COPILOT_PRE), "preToolUse").tool_input == {"command": "ls"}


def test_copilot_event_names_become_canonical():
    for native, canonical in hosts.EVENTS["copilot"].items():
        call = event.parse("{}", native)
        assert (call.name, call.native_name, call.dialect) == (canonical, native, "copilot")


def test_explicit_host_wins():
    assert event.parse(json.dumps(CLAUDE_PRE), host="codex").dialect == "codex"


@pytest.mark.parametrize("stdin", ["", "not json", "[1]", "\"", "{", "1" * 5000, "[" * 100000, b"\xff", None, 5])
def test_parse_never_raises_and_keeps_the_argv_event(stdin):
    call = event.parse(stdin, "Stop")
    assert (call.name, call.payload, call.ok) == ("Stop", None, False)


def test_bad_json_in_a_fresh_interpreter_is_not_json_not_a_crash():
    """Before 3.12 the C scanner raises SystemError on bad JSON unless json.decoder was imported."""
    code = ("import sys; sys.path.insert(0, sys.argv[1]); from _common import event; "
            "print(event.parse('\"', 'PreToolUse').name, 'json' in sys.modules)")
    result = subprocess.run([PYTHON, "-S", "-c", code, str(HOOKS)], capture_output=True, text=True, check=True)
    name, json_imported = result.stdout.split()
    assert name == "PreToolUse"
    if (3, 10) <= sys.version_info < (3, 12):  # 3.9 and 3.12+ import json.decoder to raise JSONDecodeError
        assert json_imported == "False"


def test_post_tool_batch_names_every_call():
    payload = {"hook_event_name": "PostToolBatch", "tool_calls": [{"tool_name": "Read"}, "junk", {"tool_name": "Skill"}]}
    assert event.parse(json.dumps(payload)).tool_names() == ["Read", "Skill"]


def test_stop_hook_active_only_when_exactly_true():
    assert event.parse('{"hook_event_name": "Stop", "stop_hook_active": true}').stop_hook_active is True
    assert event.parse('{"hook_event_name": "Stop", "stop_hook_active": "true"}').stop_hook_active is False


@pytest.mark.parametrize("payload, argv, context, deny", [
    (CLAUDE_PRE, None,
     {"hookSpecificOutput": {"hookEventName": "PreToolUse", "additionalContext": "C"}},
     {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "R"}}),
    (COPILOT_PRE, "preToolUse", {"additionalContext": "C"},
     {"permissionDecision": "deny", "permissionDecisionReason": "R"}),
    (CODEX_PRE, None,
     {"hookSpecificOutput": {"hookEventName": "PreToolUse", "additionalContext": "C"}},
     {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "R"}}),
])
def test_renderers_write_one_line_in_the_dialect(payload, argv, context, deny):
    call = event.parse(json.dumps(payload), argv)
    for text, expected in ((event.render_context(call, "C"), context), (event.render_deny(call, "R"), deny)):
        assert text.endswith("\n") and text.count("\n") == 1
        assert json.loads(text) == expected
    assert event.render_context(call, "") == ""


def test_dumps_is_byte_identical_to_json_dumps():
    obj = {"hookSpecificOutput": {"hookEventName": "PreToolUse", "additionalContext": "é \"q\"\n\u2028 \x00"}}
    assert event.dumps(obj) == json.dumps(obj)


@pytest.mark.parametrize("value", [
    {"command": "git push --force", "timeout": 120000, "run_in_background": False, "env": None},
    {"edits": [{"old": "a", "new": "b", "n": -1.5e-7}, [], {}], "nested": {"deep": [[[1, 2.0, 10 ** 30]]]}},
    ["x", 0, -0.0, 1e300, float("inf"), float("nan"), True], "plain", 7, None,
])
def test_dumps_writes_any_json_value_as_json_dumps_does(value):
    assert event.dumps(value) == json.dumps(value)
    with pytest.raises(TypeError):
        event.dumps({"not json": object()})


def test_hosts_is_data_only():
    tree = ast.parse((HOOKS / "_common" / "hosts.py").read_text())
    assert not [node for node in ast.walk(tree) if isinstance(node, (ast.Import, ast.ImportFrom, ast.FunctionDef, ast.ClassDef))]
    for table in (hosts.EVENTS, hosts.TOOLS, hosts.KNOWN_TOOLS, hosts.DIALECTS, hosts.EXIT_POLICY,
                  hosts.SKILL_DIRS, hosts.AGENT_DIRS, hosts.SETTINGS_FILE):
        assert set(table) == set(hosts.HOSTS)
