"""The dispatcher on OpenAI Codex CLI (``--host codex``): the same rows, Codex's strict output.

Codex 0.169.0 fails a hook (and runs the call) on any key it does not expect for the event;
it takes nested ``additionalContext`` on PreToolUse, PostToolUse, SessionStart,
UserPromptSubmit and SubagentStart only (docs/e2e.md, "Codex").
"""
from __future__ import annotations

import json
import subprocess

import pytest
from dispatch_helpers import bash_payload, dispatch, emitter, manifest, write_manifest
from hookmux_testing import DISPATCH, HOOKS, PYTHON

CONTEXT_EVENTS = ("PreToolUse", "PostToolUse", "SessionStart", "UserPromptSubmit", "SubagentStart")
SILENT_EVENTS = ("Stop", "SubagentStop", "PreCompact", "PostCompact", "SessionEnd", "PermissionRequest", "Interrupt")


def codex_payload(event: str, **fields) -> str:
    return json.dumps({"session_id": "s1", "turn_id": "t1", "transcript_path": "/x.jsonl", "cwd": "/",
                       "hook_event_name": event, "model": "gpt-4.1", "permission_mode": "bypassPermissions",
                       **fields})


@pytest.mark.parametrize("event", CONTEXT_EVENTS)
def test_context_is_exactly_the_nested_object_on_the_events_codex_accepts(tmp_path, event):
    data = manifest(tmp_path, [{"script": emitter(tmp_path, "a/check.py", "ctx")}], event=event)
    out = dispatch.run(event, codex_payload(event), manifest=data, host="codex")
    assert out.endswith("\n") and out.count("\n") == 1
    assert json.loads(out) == {"hookSpecificOutput": {"hookEventName": event, "additionalContext": "ctx"}}


@pytest.mark.parametrize("event", SILENT_EVENTS)
def test_nothing_on_events_where_codex_would_reject_context(tmp_path, event):
    data = manifest(tmp_path, [{"script": emitter(tmp_path, "a/check.py", "ctx")}], event=event)
    assert dispatch.run(event, codex_payload(event), manifest=data, host="codex") == ""
    # the same row on Claude Code does answer: the silence is Codex's rule, not a dead row
    assert dispatch.run(event, json.dumps({"hook_event_name": event}), manifest=data, host="claude") != ""


def test_stop_stays_silent_on_codex_even_without_stop_hook_active(tmp_path):
    """Codex has no loop guard; a Stop answer would be a block. hookmux only advises."""
    data = manifest(tmp_path, [{"script": emitter(tmp_path, "a/check.py", "ctx")}], event="Stop")
    for active in (False, True):
        payload = codex_payload("Stop", stop_hook_active=active, last_assistant_message="done")
        assert dispatch.run("Stop", payload, manifest=data, host="codex") == ""


@pytest.mark.parametrize("matcher", ["^(Edit|Write)$", "^Edit$", "^Write$", "apply_patch"])
def test_edit_and_write_rows_reach_apply_patch(tmp_path, matcher):
    rows = [{"script": emitter(tmp_path, "a/check.py", "edit-row"), "matcher": matcher}]
    payload = codex_payload("PreToolUse", tool_name="apply_patch", tool_use_id="c",
                            tool_input={"command": "*** Begin Patch\n*** Add File: a.txt\n+x\n*** End Patch\n"})
    out = dispatch.run("PreToolUse", payload, manifest=manifest(tmp_path, rows), host="codex")
    assert json.loads(out)["hookSpecificOutput"]["additionalContext"] == "edit-row"


def test_shell_rows_do_not_run_on_apply_patch_and_agent_rows_run_on_spawn_agent(tmp_path):
    rows = [{"script": emitter(tmp_path, "a/check.py", "shell"), "matcher": "^(Bash|PowerShell)$"},
            {"script": emitter(tmp_path, "b/check.py", "agent"), "matcher": "^Agent$"}]
    data = manifest(tmp_path, rows)
    patch = codex_payload("PreToolUse", tool_name="apply_patch", tool_input={"command": "*** Begin Patch"})
    assert dispatch.run("PreToolUse", patch, manifest=data, host="codex") == ""
    spawn = codex_payload("PreToolUse", tool_name="spawn_agent", tool_input={"agent_type": "worker"})
    assert json.loads(dispatch.run("PreToolUse", spawn, manifest=data, host="codex")) == {
        "hookSpecificOutput": {"hookEventName": "PreToolUse", "additionalContext": "agent"}}


def test_the_wired_command_line_form_reads_host_and_event(tmp_path):
    rows = [{"script": emitter(tmp_path, "a/check.py", "ctx")}]
    path = write_manifest(tmp_path / "manifest.json", manifest(tmp_path, rows, event="Stop"))
    stop = codex_payload("Stop", stop_hook_active=False).encode()
    for args in (["--host", "codex", "Stop"], ["Stop", "--host", "codex"], ["--host=codex", "Stop"]):
        proc = subprocess.run([PYTHON, "-S", str(DISPATCH), "--manifest", str(path), *args], input=stop,
                              capture_output=True, timeout=60)
        assert proc.returncode == 0 and proc.stdout == b"", (args, proc.stdout)
    proc = subprocess.run([PYTHON, "-S", str(DISPATCH), "--manifest", str(path), "Stop"],
                          input=b'{"hook_event_name": "Stop"}', capture_output=True, timeout=60)
    assert proc.stdout != b""  # Claude Code's Stop takes context: the host flag made the difference


def test_the_shipped_rows_advise_a_codex_force_push(tmp_path, monkeypatch):
    monkeypatch.setenv("HOOKMUX_STATE_DIR", str(tmp_path))
    payload = codex_payload("PreToolUse", tool_name="Bash", tool_use_id="c",
                            tool_input={"command": "git push --force origin main"})
    out = dispatch.run("PreToolUse", payload, hooks_root=str(HOOKS), host="codex")
    data = json.loads(out)
    assert list(data) == ["hookSpecificOutput"]
    assert sorted(data["hookSpecificOutput"]) == ["additionalContext", "hookEventName"]
    assert "GIT-FORCE-PUSH-MAIN" in data["hookSpecificOutput"]["additionalContext"]
    assert dispatch.run("PreToolUse", bash_payload("echo hi", turn_id="t"), hooks_root=str(HOOKS), host="codex") == ""
