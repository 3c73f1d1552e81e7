"""The dispatcher on Cursor: its own hooks.json (``--host cursor <Cursor event>``) and a Claude Code
settings file Cursor runs (``dispatch.py PreToolUse``, Cursor's payload on stdin).

No Cursor binary is run (its CLI talks only to Cursor's servers): the payloads are built from
Cursor's documentation (cursor.com/docs/agent/hooks, "Input (all hooks)", "preToolUse",
"postToolUse", "beforeShellExecution"; cursor.com/docs/reference/third-party-hooks). Cursor reads
context only as ``{"additional_context": T}`` from postToolUse and sessionStart; before a call it
reads no advice, so the advisory comes after it (``hosts.ADVICE_AFTER``). Hazardous commands here
are data handed to the hooks on stdin, never run.
"""
from __future__ import annotations

import json

import pytest
from dispatch_helpers import dispatch, emitter, manifest
from hookmux_testing import DISPATCH, HOOKS, hermetic_env, run_hook

from _common import event as event_module  # noqa: E402  (the hooks tree, put on sys.path by dispatch_helpers)
from _common import hosts  # noqa: E402

FORCE_PUSH = "git push --force origin main"
CONVERSATION = "cursor-conversation-1"


def cursor_payload(event: str, conversation: str = CONVERSATION, **fields) -> str:
    """Cursor's common schema plus the event's own fields."""
    return json.dumps({"conversation_id": conversation, "generation_id": "gen-1", "model": "claude-sonnet-4",
                       "hook_event_name": event, "cursor_version": "2.1.0", "workspace_roots": ["/tmp/proj"],
                       "user_email": None, "transcript_path": None, **fields})


def shell(event: str, command: str, conversation: str = CONVERSATION) -> str:
    if event == "beforeShellExecution":
        return cursor_payload(event, conversation, command=command, cwd="/tmp/proj", sandbox=False)
    fields = {"tool_name": "Shell", "tool_input": {"command": command, "working_directory": "/tmp/proj"},
              "tool_use_id": "tool-1", "cwd": "/tmp/proj"}
    if event == "postToolUse":
        fields.update(tool_output=json.dumps({"exitCode": 0, "stdout": ""}), duration=12)
    return cursor_payload(event, conversation, **fields)


def run(env, args, payload):
    result = run_hook(DISPATCH, ["--hooks-root", str(HOOKS), *args], payload, env)
    assert result.returncode == 0 and result.stderr == b"", result
    return result.stdout.decode()


@pytest.fixture
def env(tmp_path):
    return hermetic_env(tmp_path)


# ---------------------------------------------------------------- reading Cursor's payloads


@pytest.mark.parametrize("native, canonical", sorted(hosts.EVENTS[hosts.CURSOR].items()))
def test_cursor_events_read_as_their_canonical_twins(native, canonical):
    call = event_module.parse(cursor_payload(native))
    assert (call.name, call.host, call.dialect, call.session_id) == (canonical, "cursor", "cursor", CONVERSATION)


@pytest.mark.parametrize("argv", [None, "preToolUse", "PreToolUse"])
def test_a_shell_call_reads_as_bash_whichever_wiring_runs_it(argv):
    call = event_module.parse(shell("preToolUse", "ls"), argv)
    assert (call.host, call.name, call.tool_name, call.native_tool_name, call.cwd) == (
        "cursor", "PreToolUse", "Bash", "Shell", "/tmp/proj")
    assert call.tool_input["command"] == "ls"


def test_before_shell_execution_is_a_shell_call_with_its_command():
    call = event_module.parse(shell("beforeShellExecution", "ls -la"))
    assert (call.name, call.tool_name, call.tool_input) == ("PreToolUse", "Bash", {"command": "ls -la"})


def test_the_deny_is_cursors_flat_object_for_the_user_and_the_model():
    call = event_module.parse(shell("preToolUse", "ls"), "PreToolUse")
    out = event_module.render_deny(call, "no, because")
    assert out == '{"permission": "deny", "user_message": "no, because", "agent_message": "no, because"}\n'


# ---------------------------------------------------------------- where context goes


@pytest.mark.parametrize("native", ["postToolUse", "sessionStart"])
def test_context_is_flat_where_cursor_reads_it(tmp_path, native):
    canonical = hosts.EVENTS[hosts.CURSOR][native]
    data = manifest(tmp_path, [{"script": emitter(tmp_path, "a/check.py", "ctx")}], event=canonical)
    payload = shell(native, "ls") if native == "postToolUse" else cursor_payload(native, session_id=CONVERSATION)
    assert dispatch.run(native, payload, manifest=data, host="cursor") == '{"additional_context": "ctx"}\n'


@pytest.mark.parametrize("native", ["afterShellExecution", "beforeSubmitPrompt", "stop", "preToolUse"])
def test_nothing_where_cursor_reads_no_context(tmp_path, native):
    canonical = hosts.EVENTS[hosts.CURSOR][native]
    data = manifest(tmp_path, [{"script": emitter(tmp_path, "a/check.py", "ctx")}], event=canonical)
    payload = cursor_payload(native, command="ls", output="", prompt="hi", status="completed", loop_count=0,
                             tool_name="Shell", tool_input={"command": "ls"}, cwd="/tmp/proj")
    assert dispatch.run(native, payload, manifest=data, host="cursor") == ""


# ---------------------------------------------------------------- the shipped manifest, as installed


def test_claude_wiring_in_cursor_fails_open_before_the_call(env):
    """~/.claude/settings.json's ``dispatch.py PreToolUse`` given Cursor's payload: exit 0, nothing."""
    assert run(env, ["PreToolUse"], shell("preToolUse", FORCE_PUSH)) == ""
    assert run(env, ["UserPromptSubmit"], cursor_payload("beforeSubmitPrompt", prompt="push it")) == ""


@pytest.mark.parametrize("stdin", [b"", b"not json", b"[1]", b'{"conversation_id": 1, "hook_event_name": 2}',
                                   b"\xff\xfe"])
def test_malformed_input_on_either_wiring_is_a_silent_exit_0(env, stdin):
    for args in (["PreToolUse"], ["--host", "cursor", "postToolUse"]):
        result = run_hook(DISPATCH, ["--hooks-root", str(HOOKS), *args], stdin, env)
        assert (result.returncode, result.stdout, result.stderr) == (0, b"", b"")


def test_the_advisory_comes_after_the_call_in_cursors_form_once(env):
    assert run(env, ["--host", "cursor", "preToolUse"], shell("preToolUse", FORCE_PUSH)) == ""
    out = run(env, ["--host", "cursor", "postToolUse"], shell("postToolUse", FORCE_PUSH))
    assert out.endswith("\n") and out.count("\n") == 1
    answer = json.loads(out)
    assert list(answer) == ["additional_context"]
    text = answer["additional_context"]
    assert "GIT-FORCE-PUSH-MAIN" in text and "has already run" in text and FORCE_PUSH not in text
    # once per conversation
    assert run(env, ["--host", "cursor", "postToolUse"], shell("postToolUse", FORCE_PUSH + " -q")) == ""


def test_the_host_is_detected_without_the_host_option(env):
    out = run(env, ["postToolUse"], shell("postToolUse", FORCE_PUSH, "other"))
    assert "GIT-FORCE-PUSH-MAIN" in json.loads(out)["additional_context"]


def test_a_harmless_call_gets_nothing(env):
    assert run(env, ["--host", "cursor", "preToolUse"], shell("preToolUse", "ls")) == ""
    assert run(env, ["--host", "cursor", "postToolUse"], shell("postToolUse", "ls")) == ""
