"""``event.parse`` on the payloads hookmux's opencode plugin and Pi extension send
(installer/host_plugins/*.js): the host told by the plugin event name, the host's tool names read
as Claude Code's, its argument keys given Claude's names beside its own, Claude's nested dialect."""
from __future__ import annotations

import json
import sys

import pytest

from hookmux_testing import HOOKS

sys.path.insert(0, str(HOOKS))
from _common import event, hosts  # noqa: E402


def payload(name: str, tool: str, tool_input: dict, **extra) -> str:
    return json.dumps({"hook_event_name": name, "session_id": "s1", "call_id": "c1", "cwd": "/p", "tool_name": tool,
                       "tool_input": tool_input, **extra})


@pytest.mark.parametrize("name, host, canonical", [
    ("tool.execute.before", "opencode", "PreToolUse"), ("tool.execute.after", "opencode", "PostToolUse"),
    ("tool_call", "pi", "PreToolUse"), ("tool_result", "pi", "PostToolUse"),
])
def test_the_plugin_event_name_tells_the_host_even_with_a_tool_name_copilot_also_has(name, host, canonical):
    call = event.parse(payload(name, "bash", {"command": "ls"}))
    assert (call.host, call.dialect, call.name, call.tool_name, call.native_tool_name) == (
        host, "claude", canonical, "Bash", "bash")
    assert call.session_id == "s1" and call.cwd == "/p" and call.ok


def test_opencode_argument_keys_get_claudes_names_beside_their_own():
    call = event.parse(payload("tool.execute.before", "edit", {"filePath": "/p/a", "oldString": "x", "newString": "y"}))
    assert call.tool_name == "Edit"
    assert call.tool_input == {"filePath": "/p/a", "oldString": "x", "newString": "y", "file_path": "/p/a",
                               "old_string": "x", "new_string": "y"}


def test_pi_path_is_file_path_and_a_key_already_there_is_kept():
    call = event.parse(payload("tool_call", "write", {"path": "/p/a", "content": "c", "file_path": "/p/b"}))
    assert call.tool_name == "Write" and call.tool_input["file_path"] == "/p/b"
    assert event.parse(payload("tool_call", "write", {"path": "/p/a"})).tool_input["file_path"] == "/p/a"


def test_a_deny_and_context_are_in_the_nested_form_the_plugins_read():
    call = event.parse(payload("tool.execute.before", "bash", {"command": "x"}))
    assert json.loads(event.render_deny(call, "why")) == {"hookSpecificOutput": {
        "hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "why"}}
    after = event.parse(payload("tool_result", "bash", {"command": "x"}, tool_response={"output": ""}))
    assert json.loads(event.render_context(after, "advice"))["hookSpecificOutput"]["additionalContext"] == "advice"


def test_advice_comes_after_the_call_on_both():
    assert hosts.ADVICE_AFTER[hosts.OPENCODE] == hosts.ADVICE_AFTER[hosts.PI] == ("PreToolUse", "PostToolUse")
