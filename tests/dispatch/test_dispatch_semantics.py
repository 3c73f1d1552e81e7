"""Row selection, events, dialects and output of dispatch.run()."""
from __future__ import annotations

import json

import pytest
from dispatch_helpers import bash_payload, context_of, dispatch, emitter, manifest, write_check


def test_selected_rows_are_joined_in_manifest_order(tmp_path):
    rows = [{"script": emitter(tmp_path, f"c{i}/check.py", f"ctx-{i}"), "matcher": "Bash"} for i in range(3)]
    out = dispatch.run("PreToolUse", bash_payload(), manifest=manifest(tmp_path, rows))
    assert context_of(out) == "ctx-0\n\nctx-1\n\nctx-2"
    assert json.loads(out) == {"hookSpecificOutput": {"hookEventName": "PreToolUse", "additionalContext": "ctx-0\n\nctx-1\n\nctx-2"}}


def test_event_comes_from_payload_when_argv_has_none(tmp_path):
    rows = [{"script": emitter(tmp_path, "a/check.py", "from-payload")}]
    data = manifest(tmp_path, rows, event="SessionStart")
    payload = json.dumps({"hook_event_name": "SessionStart", "session_id": "s", "source": "startup"})
    assert context_of(dispatch.run(None, payload, manifest=data)) == "from-payload"
    assert dispatch.run(None, "{}", manifest=data) == ""


def test_argv_event_wins_over_payload(tmp_path):
    data = manifest(tmp_path, [{"script": emitter(tmp_path, "a/check.py", "x")}], event="SessionStart")
    assert dispatch.run("Stop", json.dumps({"hook_event_name": "SessionStart"}), manifest=data) == ""


def test_matcher_is_case_sensitive_search(tmp_path):
    rows = [{"script": emitter(tmp_path, "a/check.py", "hit"), "matcher": "ash"},
            {"script": emitter(tmp_path, "b/check.py", "lower"), "matcher": "bash"}]
    assert context_of(dispatch.run("PreToolUse", bash_payload(), manifest=manifest(tmp_path, rows))) == "hit"


@pytest.mark.parametrize("copilot, claude", [
    ("bash", "Bash"), ("view", "Read"), ("create", "Write"), ("edit", "Edit"),
    ("task", "Agent"), ("skill", "Skill"), ("grep", "Grep"), ("glob", "Glob"), ("powershell", "PowerShell"),
    ("web_fetch", "web_fetch"),
])
def test_copilot_tool_names_map_to_claude_names(tmp_path, copilot, claude):
    rows = [{"script": emitter(tmp_path, "a/check.py", "mapped"), "matcher": f"^{claude}$"}]
    payload = json.dumps({"sessionId": "s", "timestamp": 1, "cwd": "/", "toolName": copilot, "toolArgs": {}})
    out = dispatch.run("preToolUse", payload, manifest=manifest(tmp_path, rows))
    assert json.loads(out) == {"additionalContext": "mapped"}


@pytest.mark.parametrize("copilot, claude, payload", [
    ("preToolUse", "PreToolUse", {"toolName": "bash", "toolArgs": "{}"}),
    ("postToolUse", "PostToolUse", {"toolName": "bash", "toolArgs": {}, "toolResult": {}}),
    ("sessionStart", "SessionStart", {}),
    ("agentStop", "Stop", {}),
    ("subagentStop", "SubagentStop", {}),
    ("userPromptSubmitted", "UserPromptSubmit", {"prompt": "hi"}),
])
def test_copilot_events_select_claude_rows_and_render_flat(tmp_path, copilot, claude, payload):
    data = manifest(tmp_path, [{"script": emitter(tmp_path, "a/check.py", "c")}], event=claude)
    assert json.loads(dispatch.run(copilot, json.dumps(payload), manifest=data)) == {"additionalContext": "c"}
    claude_format = {**payload, "hook_event_name": claude}
    assert json.loads(dispatch.run(claude, json.dumps(claude_format), manifest=data)) == {
        "hookSpecificOutput": {"hookEventName": claude, "additionalContext": "c"}}


def test_copilot_payload_is_answered_flat_whatever_the_event_spelling(tmp_path):
    """Copilot's own payloads (camelCase keys, no hook_event_name) are read by Copilot, which ignores the nested form."""
    data = manifest(tmp_path, [{"script": emitter(tmp_path, "a/check.py", "c")}])
    payload = json.dumps({"sessionId": "s", "toolName": "bash", "toolArgs": {}})
    assert json.loads(dispatch.run("PreToolUse", payload, manifest=data)) == {"additionalContext": "c"}


def test_post_tool_batch_selects_when_any_call_matches(tmp_path):
    rows = [{"script": emitter(tmp_path, "a/check.py", "skill-seen"), "matcher": "^Skill$"}]
    data = manifest(tmp_path, rows, event="PostToolBatch")
    batch = {"hook_event_name": "PostToolBatch", "tool_calls": [
        {"tool_name": "Read", "tool_input": {}}, {"tool_name": "Skill", "tool_input": {"skill": "x"}}]}
    assert context_of(dispatch.run("PostToolBatch", json.dumps(batch), manifest=data)) == "skill-seen"
    batch["tool_calls"].pop()
    assert dispatch.run("PostToolBatch", json.dumps(batch), manifest=data) == ""


def test_rows_with_matcher_never_run_on_events_without_tool(tmp_path):
    rows = [{"script": emitter(tmp_path, "a/check.py", "matcher-row"), "matcher": ".*"},
            {"script": emitter(tmp_path, "b/check.py", "plain-row")}]
    out = dispatch.run("SessionStart", json.dumps({"tool_name": "Bash"}), manifest=manifest(tmp_path, rows, event="SessionStart"))
    assert context_of(out) == "plain-row"


@pytest.mark.parametrize("event", ["Stop", "SubagentStop"])
def test_stop_hook_active_runs_nothing(tmp_path, event):
    marker = tmp_path / "ran"
    script = write_check(tmp_path, "a/check.py", f'''
        import json
        def main():
            open({str(marker)!r}, "w").close()
            print(json.dumps({{"additionalContext": "again"}}))
    ''')
    data = manifest(tmp_path, [{"script": script}], event=event)
    assert dispatch.run(event, json.dumps({"stop_hook_active": True}), manifest=data) == ""
    assert not marker.exists()
    assert context_of(dispatch.run(event, json.dumps({"stop_hook_active": False}), manifest=data)) == "again"


def test_main_receives_args_only_when_it_takes_a_parameter(tmp_path):
    with_args = write_check(tmp_path, "a/check.py", '''
        import json
        def main(argv):
            print(json.dumps({"additionalContext": "args=" + ",".join(argv)}))
    ''')
    without = write_check(tmp_path, "b/check.py", '''
        import json
        def main():
            print(json.dumps({"additionalContext": "no-args"}))
    ''')
    rows = [{"script": with_args, "args": ["-x", "1"]}, {"script": without, "args": ["ignored"]}]
    assert context_of(dispatch.run("PreToolUse", bash_payload(), manifest=manifest(tmp_path, rows))) == "args=-x,1\n\nno-args"


def test_each_check_reads_the_whole_payload_on_its_own_stdin(tmp_path):
    body = '''
        import json, sys
        def main():
            data = json.loads(sys.stdin.read())
            print(json.dumps({"additionalContext": "%s:" + data["tool_input"]["command"]}))
    '''
    rows = [{"script": write_check(tmp_path, f"{n}/check.py", body % n)} for n in ("a", "b")]
    out = dispatch.run("PreToolUse", bash_payload("make test"), manifest=manifest(tmp_path, rows))
    assert context_of(out) == "a:make test\n\nb:make test"


def test_stdin_buffer_is_available_to_checks(tmp_path):
    script = write_check(tmp_path, "a/check.py", '''
        import json, sys
        def main():
            raw = sys.stdin.buffer.read()
            print(json.dumps({"additionalContext": str(len(raw))}))
    ''')
    payload = bash_payload("é")
    out = dispatch.run("PreToolUse", payload, manifest=manifest(tmp_path, [{"script": script}]))
    assert context_of(out) == str(len(payload.encode()))


def test_emits_false_drops_context(tmp_path):
    rows = [{"script": emitter(tmp_path, "a/check.py", "should-not-show"), "emits": False},
            {"script": emitter(tmp_path, "b/check.py", "shown")}]
    assert context_of(dispatch.run("PreToolUse", bash_payload(), manifest=manifest(tmp_path, rows))) == "shown"


def test_nothing_printed_without_context(tmp_path):
    script = write_check(tmp_path, "a/check.py", "def main():\n    return 0\n")
    assert dispatch.run("PreToolUse", bash_payload(), manifest=manifest(tmp_path, [{"script": script}])) == ""


def test_context_is_capped(tmp_path):
    rows = [{"script": emitter(tmp_path, f"c{i}/check.py", str(i) * 6000)} for i in range(3)]
    context = context_of(dispatch.run("PreToolUse", bash_payload(), manifest=manifest(tmp_path, rows)))
    assert len(context) == dispatch.MAX_CONTEXT_CHARS
    assert context.endswith("[hookmux: context truncated]")


def test_never_a_permission_decision(tmp_path):
    script = write_check(tmp_path, "a/check.py", '''
        import json
        def main():
            print(json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny",
                              "permissionDecisionReason": "no", "additionalContext": "advice"}}))
            print(json.dumps({"decision": "block", "reason": "no"}))
            return 2
    ''')
    out = dispatch.run("PreToolUse", bash_payload(), manifest=manifest(tmp_path, [{"script": script}]))
    assert json.loads(out) == {"hookSpecificOutput": {"hookEventName": "PreToolUse", "additionalContext": "advice"}}


def test_manifest_path_and_hooks_root_with_user_and_vars(tmp_path, monkeypatch):
    emitter(tmp_path, "a/check.py", "via-path")
    monkeypatch.setenv("HOOKMUX_TEST_ROOT", str(tmp_path))
    path = tmp_path / "m.json"
    data = manifest(tmp_path, [{"script": "a/check.py"}])
    data["hooks_root"] = "$HOOKMUX_TEST_ROOT"
    path.write_text(json.dumps(data))
    assert context_of(dispatch.run("PreToolUse", bash_payload(), manifest=str(path))) == "via-path"
    monkeypatch.setenv("HOME", str(tmp_path))
    data["hooks_root"] = "~"
    path.write_text(json.dumps(data))
    assert context_of(dispatch.run("PreToolUse", bash_payload(), manifest=str(path))) == "via-path"


@pytest.mark.parametrize("folder", ["a$HOME_b", "a$b", "x~y"])
def test_absolute_hooks_root_is_used_as_written(tmp_path, monkeypatch, folder):
    """An installer-written absolute hooks_root is never expanded: a HOME named a$b must work (issue 20, item 7)."""
    root = tmp_path / folder
    emitter(root, "a/check.py", "literal")
    monkeypatch.setenv("HOME", str(tmp_path / "elsewhere"))
    monkeypatch.setenv("b", "expanded")
    path = root / "m.json"
    path.write_text(json.dumps(manifest(root, [{"script": "a/check.py"}])))
    assert context_of(dispatch.run("PreToolUse", bash_payload(), manifest=str(path))) == "literal"
    data = manifest(tmp_path / "missing", [{"script": "a/check.py"}])
    assert context_of(dispatch.run("PreToolUse", bash_payload(), manifest=data, hooks_root=str(root))) == "literal"


def test_hooks_root_argument_overrides_manifest(tmp_path):
    other = tmp_path / "other"
    emitter(other, "a/check.py", "override")
    data = manifest(tmp_path / "missing", [{"script": "a/check.py"}])
    assert context_of(dispatch.run("PreToolUse", bash_payload(), manifest=data, hooks_root=str(other))) == "override"


def test_isolate_evicts_named_modules_so_each_check_gets_its_own(tmp_path):
    for name in ("a", "b"):
        write_check(tmp_path, f"{name}/shared_helper.py", f"WHO = {name!r}\n")
        write_check(tmp_path, f"{name}/check.py", '''
            import json, shared_helper
            def main():
                print(json.dumps({"additionalContext": shared_helper.WHO}))
        ''')
    rows = [{"script": "a/check.py", "isolate": ["shared_helper"]}, {"script": "b/check.py", "isolate": ["shared_helper"]}]
    assert context_of(dispatch.run("PreToolUse", bash_payload(), manifest=manifest(tmp_path, rows))) == "a\n\nb"


def test_common_is_always_evicted_and_importable_from_hooks_root(tmp_path):
    write_check(tmp_path, "_common/__init__.py", "import os\nWHERE = os.path.dirname(__file__)\n")
    script = write_check(tmp_path, "a/check.py", '''
        import json, _common
        def main():
            print(json.dumps({"additionalContext": _common.WHERE}))
    ''')
    out = dispatch.run("PreToolUse", bash_payload(), manifest=manifest(tmp_path, [{"script": script}]))
    assert context_of(out) == str(tmp_path / "_common")


def test_trace_one_line_per_row_without_payload(tmp_path):
    secret_command = "echo sk-THISISASECRETTOKEN123456"
    rows = [{"name": "emits", "script": emitter(tmp_path, "a/check.py", "x"), "matcher": "Bash"},
            {"name": "skipped", "script": emitter(tmp_path, "b/check.py", "y"), "matcher": "Read"},
            {"name": "quiet", "script": write_check(tmp_path, "c/check.py", "def main():\n    pass\n")},
            {"name": "broken", "script": write_check(tmp_path, "d/check.py", "def main():\n    raise KeyError('sk-x')\n")}]
    lines = []
    dispatch.run("PreToolUse", bash_payload(secret_command), manifest=manifest(tmp_path, rows), trace=lines.append)
    assert len(lines) == 4
    assert "[0] emits" in lines[0] and "emitted 1 chars" in lines[0] and "ms" in lines[0]
    assert "[1] skipped" in lines[1] and "matcher does not match tool" in lines[1]
    assert "[2] quiet" in lines[2] and "silent" in lines[2]
    assert "[3] broken" in lines[3] and "error KeyError" in lines[3]
    assert not any("sk-" in line or "echo" in line for line in lines)
