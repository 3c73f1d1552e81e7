"""The dispatcher and the checks on Gemini CLI (``--host gemini``): Gemini's event and tool names,
one JSON object or nothing on stdout, advice after the call (BeforeTool context is dropped there).

Facts: shared/host-contract.md "Google Gemini CLI 0.61.0", hooks/_common/hosts.py, docs/e2e.md.
Hazardous commands here are data handed to the hooks on stdin, never run.
"""
from __future__ import annotations

import json
import sys

import pytest
from dispatch_helpers import dispatch, emitter, manifest
from hookmux_testing import DISPATCH, HOOKS, REPO, hermetic_env, run_hook

from _common import event as event_module  # noqa: E402  (the hooks tree, put on sys.path by dispatch_helpers)
from _common import hosts  # noqa: E402

sys.path.append(str(REPO / "tests" / "calibrated_silence"))
from silence_support import reactions  # noqa: E402

FORCE_PUSH = "git push --force origin main"
RESET = "git reset --hard HEAD~1"
SESSION = "gemini-session-1"


def gemini_payload(event: str, session: str = SESSION, **fields) -> str:
    """What Gemini CLI 0.61.0 sent (measured): snake_case, an ISO timestamp, its own names."""
    return json.dumps({"session_id": session, "transcript_path": "/tmp/chats/session.jsonl", "cwd": "/tmp/proj",
                       "hook_event_name": event, "timestamp": "2026-12-01T08:43:12.367Z", **fields})


def shell(event: str, command: str, session: str = SESSION) -> str:
    fields = {"tool_name": "run_shell_command", "tool_input": {"command": command}}
    if event == "AfterTool":
        fields["tool_response"] = {"llmContent": "<untrusted_context>\nOutput: x\n</untrusted_context>",
                                   "returnDisplay": "x"}
    return gemini_payload(event, session, **fields)


@pytest.fixture
def host(tmp_path):
    """The installed way: ``python -S dispatch.py --host gemini <Gemini event>`` with the shipped manifest."""
    env = hermetic_env(tmp_path)

    def call(event, payload, *extra_args):
        result = run_hook(DISPATCH, ["--hooks-root", str(HOOKS), "--host", "gemini", *extra_args, event], payload, env)
        assert result.returncode == 0 and result.stderr == b""
        return result.stdout.decode()

    call.state = tmp_path / "state"
    return call


# ---------------------------------------------------------------- reading Gemini's payloads


@pytest.mark.parametrize("native, canonical", sorted(hosts.EVENTS[hosts.GEMINI].items()))
def test_gemini_events_read_as_their_canonical_twins(native, canonical):
    call = event_module.parse(gemini_payload(native))
    assert (call.name, call.native_name, call.ok) == (canonical, native, True)
    # SessionStart, SessionEnd, Notification: Claude Code's names too; the ISO timestamp beside
    # transcript_path tells (Claude Code sends no timestamp, Copilot no transcript_path)
    assert (call.host, call.dialect) == ("gemini", "gemini")


@pytest.mark.parametrize("native, canonical", [("run_shell_command", "Bash"), ("replace", "Edit"),
                                               ("write_file", "Write"), ("read_file", "Read"),
                                               ("invoke_agent", "Agent"), ("activate_skill", "Skill")])
def test_gemini_tools_read_as_claude_names(native, canonical):
    call = event_module.parse(gemini_payload("BeforeTool", tool_name=native, tool_input={"file_path": "a"}))
    assert (call.tool_name, call.native_tool_name, call.tool_names()) == (canonical, native, [canonical])


def test_host_is_detected_from_the_tool_name_when_the_event_comes_from_the_command_line():
    payload = json.dumps({"session_id": "s", "tool_name": "run_shell_command", "tool_input": {"command": "ls"}})
    call = event_module.parse(payload, "PreToolUse")
    assert (call.host, call.dialect, call.tool_name) == ("gemini", "gemini", "Bash")


def test_deny_is_the_one_flat_object_gemini_obeys():
    call = event_module.parse(shell("BeforeTool", "ls"), host="gemini")
    out = event_module.render_deny(call, "no, because")
    assert out.endswith("\n") and out.count("\n") == 1
    assert json.loads(out) == {"decision": "deny", "reason": "no, because"}  # never "ask", nothing nested


def test_claude_and_codex_denies_are_unchanged():
    claude = event_module.parse(json.dumps({"hook_event_name": "PreToolUse", "tool_name": "Bash"}))
    assert json.loads(event_module.render_deny(claude, "R"))["hookSpecificOutput"]["permissionDecision"] == "deny"
    copilot = event_module.parse(json.dumps({"toolName": "bash", "toolArgs": {}}), "preToolUse")
    assert json.loads(event_module.render_deny(copilot, "R")) == {"permissionDecision": "deny",
                                                                   "permissionDecisionReason": "R"}


# ---------------------------------------------------------------- where context goes


@pytest.mark.parametrize("native", ["AfterTool", "BeforeAgent", "SessionStart"])
def test_context_is_nested_under_gemini_event_name_where_gemini_reads_it(tmp_path, native):
    canonical = hosts.EVENTS[hosts.GEMINI][native]
    data = manifest(tmp_path, [{"script": emitter(tmp_path, "a/check.py", "ctx")}], event=canonical)
    out = dispatch.run(native, gemini_payload(native, prompt="hi", source="startup"), manifest=data, host="gemini")
    assert out.count("\n") == 1
    assert json.loads(out) == {"hookSpecificOutput": {"hookEventName": native, "additionalContext": "ctx"}}


@pytest.mark.parametrize("native", ["AfterAgent", "SessionEnd", "PreCompress", "Notification"])
def test_nothing_on_events_where_gemini_reads_no_context(tmp_path, native):
    canonical = hosts.EVENTS[hosts.GEMINI][native]
    data = manifest(tmp_path, [{"script": emitter(tmp_path, "a/check.py", "ctx")}], event=canonical)
    assert dispatch.run(native, gemini_payload(native), manifest=data, host="gemini") == ""


def test_an_advising_before_tool_row_runs_after_the_call_instead(tmp_path):
    data = manifest(tmp_path, [{"script": emitter(tmp_path, "a/check.py", "advice"), "matcher": "^Bash$"}])
    trace = []
    assert dispatch.run("BeforeTool", shell("BeforeTool", "ls"), manifest=data, host="gemini", trace=trace.append) == ""
    assert any("advice runs on PostToolUse, after the call" in line for line in trace), trace
    out = dispatch.run("AfterTool", shell("AfterTool", "ls"), manifest=data, host="gemini")
    assert json.loads(out)["hookSpecificOutput"] == {"hookEventName": "AfterTool", "additionalContext": "advice"}
    # on Claude Code the same row still advises before the call
    claude = json.dumps({"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": "ls"}})
    assert json.loads(dispatch.run("PreToolUse", claude, manifest=data))["hookSpecificOutput"]["additionalContext"] == "advice"


@pytest.mark.parametrize("tool, matcher, runs", [
    ("run_shell_command", "^(Bash|PowerShell)$", True),
    ("replace", "^(Edit|Write)$", True),
    ("write_file", "^(Edit|Write)$", True),
    ("read_file", "^(Bash|PowerShell)$", False),
    ("read_file", "^(Edit|Write)$", False),
])
def test_claude_named_matchers_select_gemini_tools(tmp_path, tool, matcher, runs):
    data = manifest(tmp_path, [{"script": emitter(tmp_path, "a/check.py", "row"), "matcher": matcher}])
    payload = gemini_payload("AfterTool", tool_name=tool, tool_input={"file_path": "/tmp/a", "content": "x"},
                             tool_response={"llmContent": "ok", "returnDisplay": "ok"})
    out = dispatch.run("AfterTool", payload, manifest=data, host="gemini")
    assert bool(out) is runs


def test_a_stop_row_is_silent_and_does_not_run_while_stop_hook_active(tmp_path):
    marker = tmp_path / "ran"
    script = tmp_path / "a" / "check.py"
    script.parent.mkdir()
    script.write_text("import json\ndef main():\n    open(%r, 'a').write('x')\n"
                      "    print(json.dumps({'additionalContext': 'go on'}))\n" % str(marker))
    data = manifest(tmp_path, [{"script": "a/check.py"}], event="Stop")
    assert dispatch.run("AfterAgent", gemini_payload("AfterAgent", stop_hook_active=False, prompt="go",
                                                    prompt_response="done"), manifest=data, host="gemini") == ""
    assert marker.read_text() == "x"  # it ran, and Gemini was told nothing (a deny would start a new turn)
    assert dispatch.run("AfterAgent", gemini_payload("AfterAgent", stop_hook_active=True), manifest=data,
                        host="gemini") == ""
    assert marker.read_text() == "x"  # stop_hook_active: no row runs


# ---------------------------------------------------------------- the shipped manifest, as installed


def test_the_advisory_comes_after_the_call_in_after_the_fact_words_once(host):
    assert host("BeforeTool", shell("BeforeTool", FORCE_PUSH)) == ""  # dropped by Gemini: not said there
    out = host("AfterTool", shell("AfterTool", FORCE_PUSH))
    assert out.count("\n") == 1
    answer = json.loads(out)
    assert set(answer) == {"hookSpecificOutput"} and answer["hookSpecificOutput"]["hookEventName"] == "AfterTool"
    text = answer["hookSpecificOutput"]["additionalContext"]
    assert "GIT-FORCE-PUSH-MAIN" in text and "has already run" in text and "run_shell_command" in text
    assert "git ls-remote origin main" in text  # how to check the remote, not "do not push"
    assert "advice only; the call was not blocked" not in text
    assert FORCE_PUSH not in text
    # once per session
    assert host("BeforeTool", shell("BeforeTool", FORCE_PUSH + " -q")) == ""
    assert host("AfterTool", shell("AfterTool", FORCE_PUSH + " -q")) == ""


def test_a_reset_gets_the_reflog_way_back(host):
    text = json.loads(host("AfterTool", shell("AfterTool", RESET)))["hookSpecificOutput"]["additionalContext"]
    assert "GIT-RESET-HARD" in text and "git reflog" in text


def test_a_harmless_call_gets_nothing(host):
    assert host("BeforeTool", shell("BeforeTool", "echo hi")) == ""
    assert host("AfterTool", shell("AfterTool", "echo hi")) == ""


def test_the_host_is_detected_without_the_host_option(tmp_path):
    env = hermetic_env(tmp_path)
    result = run_hook(DISPATCH, ["--hooks-root", str(HOOKS), "AfterTool"], shell("AfterTool", RESET), env)
    assert "GIT-RESET-HARD" in json.loads(result.stdout)["hookSpecificOutput"]["additionalContext"]


def test_repeating_an_advised_hazard_is_recorded_as_ignored(host):
    """Calibrated silence on Gemini: the advisory is shown at AfterTool, the repeat seen at BeforeTool."""
    assert host("AfterTool", shell("AfterTool", RESET))
    host("BeforeTool", shell("BeforeTool", RESET + " # again"))
    assert [r["r"] for r in reactions(host.state)] == ["ignored"]


def test_each_dispatch_is_in_the_ledger_as_gemini(host):
    host("BeforeTool", shell("BeforeTool", "echo hi"))
    host("AfterTool", shell("AfterTool", RESET))
    path = host.state / "ledger" / "dispatch.jsonl"
    records = [json.loads(line) for line in path.read_text().splitlines()]
    assert len(records) == 2
    assert all("gemini" in json.dumps(record) for record in records), records


def test_every_after_the_fact_text_belongs_to_a_shipped_row_and_every_shipped_row_has_one():
    """A row renamed or added in contraindications.json must get its "what to do now" too."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("after_the_fact", HOOKS / "contraindication" / "after_the_fact.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    shipped = {row["id"] for row in json.loads((HOOKS / "contraindication" / "contraindications.json").read_text())["rows"]}
    assert set(module.NOW) == shipped


def test_a_row_without_an_after_the_fact_text_gets_its_harm_and_next_time(tmp_path):
    import importlib.util

    spec = importlib.util.spec_from_file_location("after_the_fact", HOOKS / "contraindication" / "after_the_fact.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    text = module.advisory("run_shell_command", [{"id": "MY-ROW", "harm": "H.", "safe_alternative": "S."}], str)
    assert "has already run" in text and "- MY-ROW: H. Next time: S." in text
