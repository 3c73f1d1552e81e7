"""hooks/_common/event.py on Qwen Code 0.24.4's payloads (measured with the real binary,
docs/e2e.md "Qwen Code"): recognised as Qwen from the payload alone, read in Claude's names,
answered in Claude's nested form; and every other host's payloads still read as before."""
from __future__ import annotations

import json
import sys

import pytest

from hookmux_testing import HOOKS

sys.path.insert(0, str(HOOKS))
from _common import event, hosts  # noqa: E402

#: What Qwen Code 0.24.4 sent in a ``-p`` run (copied from the run, ids shortened).
QWEN_BASE = {"session_id": "89f29647", "transcript_path": "/tmp/h/.qwen/projects/-tmp-p/chats/89f29647.jsonl",
             "cwd": "/tmp/p", "timestamp": "2026-12-03T13:22:27.703Z", "permission_mode": "yolo"}
QWEN_PRE = QWEN_BASE | {"hook_event_name": "PreToolUse", "prompt_id": "89f29647########0",
                        "tool_name": "run_shell_command",
                        "tool_input": {"command": "echo hi", "is_background": False, "description": "probe"},
                        "tool_use_id": "toolu_1796304147696_q82y7uy33", "tool_call_id": "call_e2e_0001"}
QWEN_POST = QWEN_PRE | {"hook_event_name": "PostToolUse", "duration_ms": 78,
                        "tool_response": {"llmContent": "Command: echo hi\nOutput: hi", "returnDisplay": "hi"}}
QWEN_SESSION = QWEN_BASE | {"hook_event_name": "SessionStart", "source": "startup", "model": "stub"}
QWEN_PROMPT = QWEN_BASE | {"hook_event_name": "UserPromptSubmit", "prompt_id": "89f29647########0", "prompt": "go",
                           "submitted_prompt": "go"}
QWEN_STOP = QWEN_BASE | {"hook_event_name": "Stop", "stop_hook_active": False, "last_assistant_message": "done"}
QWEN_BATCH = QWEN_BASE | {"hook_event_name": "PostToolBatch", "tool_calls": [
    {"tool_name": "run_shell_command", "tool_input": {"command": "echo hi"}, "tool_use_id": "call_e2e_0001"},
    {"tool_name": "edit", "tool_input": {"file_path": "a", "old_string": "x", "new_string": "y"}}]}


@pytest.mark.parametrize("payload, name, tool", [
    (QWEN_PRE, "PreToolUse", "Bash"), (QWEN_POST, "PostToolUse", "Bash"), (QWEN_SESSION, "SessionStart", ""),
    (QWEN_PROMPT, "UserPromptSubmit", ""), (QWEN_STOP, "Stop", ""), (QWEN_BATCH, "PostToolBatch", ""),
])
def test_qwen_payloads_are_recognised_without_the_command_line(payload, name, tool):
    call = event.parse(json.dumps(payload))
    assert (call.host, call.dialect, call.name, call.tool_name, call.ok) == ("qwen", "qwen", name, tool, True)
    assert call.session_id == "89f29647" and call.cwd == "/tmp/p"


@pytest.mark.parametrize("native, canonical", sorted(hosts.TOOLS[hosts.QWEN].items()))
def test_qwen_tools_read_as_claude_names(native, canonical):
    call = event.parse(json.dumps(QWEN_PRE | {"tool_name": native, "tool_input": {"file_path": "a"}}))
    assert (call.host, call.tool_name, call.native_tool_name, call.tool_names()) == ("qwen", canonical, native,
                                                                                     [canonical])


def test_a_batch_names_each_call_in_claude_names():
    assert event.parse(json.dumps(QWEN_BATCH)).tool_names() == ["Bash", "Edit"]


def test_qwen_is_answered_in_claude_form_and_context_only_where_qwen_reads_it():
    pre = event.parse(json.dumps(QWEN_PRE))
    assert json.loads(event.render_deny(pre, "R")) == {"hookSpecificOutput": {
        "hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "R"}}
    assert event.render_context(pre, "C") == ""  # Qwen 0.24.4 drops PreToolUse context (measured)
    for payload, name in ((QWEN_POST, "PostToolUse"), (QWEN_SESSION, "SessionStart"),
                          (QWEN_PROMPT, "UserPromptSubmit")):
        assert json.loads(event.render_context(event.parse(json.dumps(payload)), "C")) == {
            "hookSpecificOutput": {"hookEventName": name, "additionalContext": "C"}}
    assert hosts.ADVICE_AFTER[hosts.QWEN] == ("PreToolUse", "PostToolUse")


def test_a_failed_call_is_read_as_post_tool_use_and_answered_in_its_own_name():
    """Qwen runs PostToolUseFailure instead of PostToolUse after a command that exits non-zero,
    and reads context only from an answer naming PostToolUseFailure (measured)."""
    failed = QWEN_PRE | {"hook_event_name": "PostToolUseFailure", "error": "Exit Code: 128"}
    for argv in (None, "PostToolUseFailure"):
        call = event.parse(json.dumps(failed), argv)
        assert (call.host, call.name, call.native_name, call.tool_name) == ("qwen", "PostToolUse",
                                                                            "PostToolUseFailure", "Bash")
        assert json.loads(event.render_context(call, "C")) == {
            "hookSpecificOutput": {"hookEventName": "PostToolUseFailure", "additionalContext": "C"}}
    claude = {"session_id": "s", "cwd": "/w", "hook_event_name": "PostToolUseFailure", "tool_name": "Bash",
              "tool_input": {"command": "false"}, "permission_mode": "default"}
    assert event.parse(json.dumps(claude)).name == "PostToolUseFailure"  # Claude Code's stays its own


def test_the_command_line_host_still_wins():
    assert event.parse(json.dumps(QWEN_PRE), host="claude").host == "claude"
    assert event.parse(json.dumps(QWEN_PRE), host="qwen").dialect == "qwen"


# ---------------------------------------------------------------- the other hosts, as before

CLAUDE_PRE = {"session_id": "s", "transcript_path": "/t.jsonl", "cwd": "/w", "permission_mode": "default",
              "hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": "ls"}}
CLAUDE_SESSION = {"session_id": "s", "transcript_path": "/t.jsonl", "cwd": "/w", "hook_event_name": "SessionStart",
                  "source": "startup"}
COPILOT_PRE = {"sessionId": "s", "timestamp": 1764470000000, "cwd": "/w", "toolName": "bash",
               "toolArgs": "{\"command\": \"ls\"}"}
COPILOT_CLAUDE_FORMAT = {"hook_event_name": "PreToolUse", "session_id": "s", "timestamp": "2026-11-30T10:00:00Z",
                         "cwd": "/w", "tool_name": "skill", "tool_input": {"skill": "x"}}
CODEX_PRE = {"session_id": "s", "transcript_path": "/t", "cwd": "/w", "hook_event_name": "PreToolUse", "model": "o3",
             "permission_mode": "default", "turn_id": "t1", "tool_name": "Bash", "tool_input": {"command": "ls"}}
GEMINI = {"session_id": "s", "transcript_path": "/tmp/chats/session.jsonl", "cwd": "/w",
          "timestamp": "2026-12-01T08:43:12.367Z"}
GEMINI_BEFORE = GEMINI | {"hook_event_name": "BeforeTool", "tool_name": "run_shell_command",
                          "tool_input": {"command": "ls"}}
GEMINI_SESSION = GEMINI | {"hook_event_name": "SessionStart", "source": "startup"}
CURSOR_PRE = {"conversation_id": "c", "generation_id": "g", "hook_event_name": "preToolUse", "cursor_version": "2.1.0",
              "workspace_roots": ["/w"], "tool_name": "Shell", "tool_input": {"command": "ls"}}
CURSOR_IN_CLAUDE_FILE = CURSOR_PRE | {"hook_event_name": "PreToolUse", "permission_mode": "default",
                                      "timestamp": "2026-12-01T08:43:12.367Z"}


@pytest.mark.parametrize("payload, argv, host, dialect, name, tool", [
    (CLAUDE_PRE, None, "claude", "claude", "PreToolUse", "Bash"),
    (CLAUDE_SESSION, None, "claude", "claude", "SessionStart", ""),
    (COPILOT_PRE, "preToolUse", "copilot", "copilot", "PreToolUse", "Bash"),
    (COPILOT_CLAUDE_FORMAT, None, "copilot", "claude", "PreToolUse", "Skill"),
    (CODEX_PRE, None, "codex", "codex", "PreToolUse", "Bash"),
    (GEMINI_BEFORE, None, "gemini", "gemini", "PreToolUse", "Bash"),
    (GEMINI_BEFORE | {"hook_event_name": "AfterTool"}, None, "gemini", "gemini", "PostToolUse", "Bash"),
    (GEMINI_SESSION, None, "gemini", "gemini", "SessionStart", ""),
    (GEMINI_BEFORE, "BeforeTool", "gemini", "gemini", "PreToolUse", "Bash"),
    (CURSOR_PRE, None, "cursor", "cursor", "PreToolUse", "Bash"),
    (CURSOR_IN_CLAUDE_FILE, "PreToolUse", "cursor", "cursor", "PreToolUse", "Bash"),
])
def test_every_other_host_is_recognised_as_before(payload, argv, host, dialect, name, tool):
    call = event.parse(json.dumps(payload), argv)
    assert (call.host, call.dialect, call.name, call.tool_name) == (host, dialect, name, tool)
