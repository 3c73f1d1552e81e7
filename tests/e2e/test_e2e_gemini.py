"""hookmux installed for Gemini CLI 0.61.0 (``--gemini-home``) and driven with the real binary
(``gemini -p go --yolo``) against the loopback Gemini API stand-in (``e2e_gemini_server``).

Every command the scripted model asks for is data in its reply; HOME is a fresh temporary folder
(asserted by ``GeminiSandbox.gemini`` before each run).
"""
from __future__ import annotations

import json
import shutil
import subprocess

from hookmux.standin.anthropic import ToolUse
from hookmux import resources

from e2e_fixtures import hookmux_installer  # noqa: F401 (pytest fixture)
from e2e_gemini import gemini_cli, gemini_sandbox, shell  # noqa: F401 (pytest fixtures)
from e2e_support import REPO

CONTRAINDICATED = "git push --force origin main"  # no remote in the sandbox's repository: git refuses
HARMLESS = "echo hi"
DESTRUCTIVE = "rm -rf ~/Documents"  # data in the scripted reply; HOME is the sandbox's temporary folder


def _wired_context(sandbox, event: str, command: str) -> str:
    """The context the installed hookmux command for ``event`` prints for a shell call, as Gemini runs it."""
    (wired,) = [c for c in sandbox.hookmux_commands()[event] if "dispatch.py" in c]
    payload = {"session_id": "expectation", "transcript_path": "/tmp/t.jsonl", "cwd": str(sandbox.project),
               "hook_event_name": event, "timestamp": "2026-12-01T00:00:00.000Z", "tool_name": "run_shell_command",
               "tool_input": {"command": command}, "tool_response": {"llmContent": "", "returnDisplay": ""}}
    proc = sandbox.run_wired(wired, payload)
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr
    return json.loads(proc.stdout)["hookSpecificOutput"]["additionalContext"]


def test_the_advice_arrives_after_a_hazardous_call_worded_for_what_already_ran(gemini_cli, gemini_sandbox):
    gemini_sandbox.install_gemini_user()

    run = gemini_sandbox.gemini(gemini_cli, [shell(CONTRAINDICATED)])

    assert run.proc.returncode == 0, run.proc.stderr
    output = run.after(0).response["output"]
    assert "does not appear to be a git repository" in output  # the command ran: advice never blocks
    assert output.count("<hook_context>") == 1 and output.rstrip().endswith("</hook_context>")
    context = output.split("<hook_context>", 1)[1]
    assert "GIT-FORCE-PUSH-MAIN" in context and "has already run" in context and "git ls-remote origin main" in context
    assert "Tool execution blocked" not in output
    # exactly what the installed, wired AfterTool command says for that call (another session)
    expected = _wired_context(gemini_sandbox, "AfterTool", CONTRAINDICATED)
    shown = context.split("</hook_context>")[0]
    assert shown == expected.replace("<", "&lt;").replace(">", "&gt;")  # Gemini escapes < and >


def test_a_destructive_call_is_denied_the_model_reads_why_and_the_folder_stays(gemini_cli, gemini_sandbox):
    home = gemini_sandbox.home
    assert home.is_relative_to(gemini_sandbox.root) and gemini_sandbox.env["HOME"] == str(home)
    keep = home / "Documents" / "thesis.txt"
    keep.parent.mkdir()
    keep.write_text("years of work")
    gemini_sandbox.install_gemini_user()
    assert any("danger_gate.py" in c for c in gemini_sandbox.hookmux_commands()["BeforeTool"])

    run = gemini_sandbox.gemini(gemini_cli, [shell(DESTRUCTIVE)])

    assert run.proc.returncode == 0, run.proc.stderr
    assert keep.read_text() == "years of work"
    response = run.after(0).response
    assert set(response) == {"error"}, response
    reason = response["error"]
    assert reason.startswith("Tool execution blocked: hookmux danger gate: this command was NOT run.")
    assert str(home / "Documents") in reason and "hookmux allow --last" in reason
    assert "hookmux allow '" not in reason
    assert "<hook_context>" not in reason  # one message per call: no advisory after a call that never ran


def test_a_harmless_call_is_untouched(gemini_cli, gemini_sandbox):
    gemini_sandbox.install_gemini_user()
    run = gemini_sandbox.gemini(gemini_cli, [shell(HARMLESS)])
    assert run.proc.returncode == 0, run.proc.stderr
    response = run.after(0).response
    assert set(response) == {"output"}
    assert response["output"].startswith("<untrusted_context>\nOutput: hi\n")
    assert response["output"].endswith("</untrusted_context>")  # nothing after the tool's own output


def test_a_deleted_hooks_folder_blocks_nothing(gemini_cli, gemini_sandbox):
    gemini_sandbox.install_gemini_user()
    assert gemini_sandbox.hookmux_commands()["BeforeTool"], "hookmux should be wired on BeforeTool"
    shutil.rmtree(gemini_sandbox.claude_target)

    run = gemini_sandbox.gemini(gemini_cli, [shell("echo still-runs")])

    assert run.proc.returncode == 0, run.proc.stderr
    response = run.after(0).response
    assert "error" not in response, response  # Gemini's "Tool execution blocked: ..." would be here
    assert "Output: still-runs" in response["output"] and "<hook_context>" not in response["output"]


def test_install_keeps_the_users_settings_and_uninstall_gives_them_back(gemini_cli, gemini_sandbox):
    user = json.loads(gemini_sandbox.gemini_settings.read_text())
    user["hooks"] = {"BeforeTool": [{"matcher": "write_file", "hooks": [
        {"type": "command", "command": "true", "name": "users-own", "timeout": 5000}]}]}
    user["ui"] = {"theme": "Default"}
    original = json.dumps(user, indent=2) + "\n"
    gemini_sandbox.gemini_settings.write_text(original)

    gemini_sandbox.install_gemini_user()
    data = json.loads(gemini_sandbox.gemini_settings.read_text())
    assert {k: v for k, v in data.items() if k != "hooks"} == {k: v for k, v in user.items() if k != "hooks"}
    assert data["hooks"]["BeforeTool"][0] == user["hooks"]["BeforeTool"][0]  # the user's hook stays first
    ours = gemini_sandbox.hookmux_commands()
    assert set(ours) == {"BeforeTool", "AfterTool", "BeforeAgent"}
    timeouts = {h["timeout"] for groups in data["hooks"].values() for g in groups for h in g["hooks"]
                if str(gemini_sandbox.claude_target) in h["command"]}
    assert timeouts == {10000}  # milliseconds

    installed = gemini_sandbox.gemini_settings.read_bytes()
    gemini_sandbox.install_gemini_user()
    assert gemini_sandbox.gemini_settings.read_bytes() == installed  # a reinstall changes nothing

    run = gemini_sandbox.gemini(gemini_cli, [shell(CONTRAINDICATED)])  # the user's hook does not stop ours
    assert "<hook_context>" in run.after(0).response["output"]

    gemini_sandbox.hookmux("uninstall", "--target", gemini_sandbox.claude_target, "--settings",
                           gemini_sandbox.user_settings, "--gemini-home", gemini_sandbox.gemini_home)
    assert json.loads(gemini_sandbox.gemini_settings.read_text()) == user


PROBE = '''
import json, os, sys
def main(argv=None):
    payload = json.loads(sys.stdin.read())
    with open(os.environ["PROBE_LOG"], "a") as log:
        log.write(json.dumps([payload.get("hook_event_name"), payload.get("tool_name"),
                              payload.get("stop_hook_active")]) + "\\n")
    print(json.dumps({"hookSpecificOutput": {"hookEventName": "x", "additionalContext": "probe saw "
                      + str(payload.get("tool_name") or payload.get("hook_event_name"))}}))
'''


def _tree_with_probes(tmp_path):
    """The package's hooks tree plus a probe row for Edit|Write on PreToolUse and one on Stop."""
    tree = tmp_path / "tree"
    shutil.copytree(resources.hooks_tree(), tree, ignore=shutil.ignore_patterns("__pycache__"))
    (tree / "probe").mkdir()
    (tree / "probe" / "check.py").write_text(PROBE)
    manifest_path = tree / "_dispatch" / "manifest.json"
    manifest = json.loads(manifest_path.read_text())
    pre = manifest["events"]["PreToolUse"]
    pre["settings_matcher"] += "|Edit|Write"
    probe = dict(pre["checks"][0], name="probe/check", script="probe/check.py", matcher="^(Edit|Write)$",
                 isolate=[], side_effect="none")
    pre["checks"].append(probe)
    stop = {key: value for key, value in probe.items() if key != "matcher"}
    manifest["events"]["Stop"] = {"settings_timeout": 10, "checks": [stop]}
    manifest_path.write_text(json.dumps(manifest, indent=2))
    return tree


def test_edit_rows_reach_write_file_after_the_call_and_a_stop_row_never_adds_a_turn(gemini_cli, gemini_sandbox,
                                                                                   tmp_path):
    gemini_sandbox.install_gemini_user("--source", _tree_with_probes(tmp_path))
    log = tmp_path / "probe.log"
    gemini_sandbox.extra_env = {"PROBE_LOG": str(log)}
    data = json.loads(gemini_sandbox.gemini_settings.read_text())
    dispatcher = [g for g in data["hooks"]["BeforeTool"] if "dispatch.py" in g["hooks"][0]["command"]]
    assert [g["matcher"] for g in dispatcher] == ["^(?:run_shell_command|replace|write_file)$"]
    assert "AfterAgent" in data["hooks"]
    target = gemini_sandbox.project / "notes.txt"

    run = gemini_sandbox.gemini(gemini_cli, [ToolUse("write_file", {"file_path": str(target), "content": "x\n"})])

    assert run.proc.returncode == 0, run.proc.stderr
    assert target.read_text() == "x\n"
    output = run.after(0).response["output"]
    assert output.rstrip().endswith("<hook_context>probe saw write_file</hook_context>")
    seen = [json.loads(line) for line in log.read_text().splitlines()]
    # the Edit|Write row advises: it ran after the call only, then once on AfterAgent
    assert seen == [["AfterTool", "write_file", None], ["AfterAgent", None, False]]
    assert len(run.requests) == 2  # the call, then the final answer: the Stop row added no turn


def test_the_project_form_advises_too(gemini_cli, gemini_sandbox):
    project_home = gemini_sandbox.project / ".gemini"
    gemini_sandbox.hookmux("install", "--target", gemini_sandbox.claude_target, "--settings",
                           gemini_sandbox.user_settings, "--gemini-home", project_home)
    assert "hooks" not in json.loads(gemini_sandbox.gemini_settings.read_text())  # the user file is untouched
    run = gemini_sandbox.gemini(gemini_cli, [shell(CONTRAINDICATED)])
    assert "<hook_context>" in run.after(0).response["output"]



def test_the_extension_linked_from_a_copy_of_the_checkout_advises_after_a_hazardous_call_and_gates(gemini_cli,
                                                                                                    gemini_sandbox):
    """The repository's own hooks/hooks.json (Claude's events and Gemini's side by side) as an extension."""
    home = gemini_sandbox.home
    assert home.is_relative_to(gemini_sandbox.root) and gemini_sandbox.env["HOME"] == str(home)
    keep = home / "Documents" / "thesis.txt"
    keep.parent.mkdir()
    keep.write_text("years of work")
    extension = gemini_sandbox.root / "checkout"
    extension.mkdir()
    shutil.copy(REPO / "gemini-extension.json", extension)
    shutil.copytree(REPO / "hooks", extension / "hooks", ignore=shutil.ignore_patterns("__pycache__"))
    before = gemini_sandbox.gemini_settings.read_text()
    node = shutil.which("node") or "node"
    linked = subprocess.run([node, str(gemini_cli.path), "extensions", "link", str(extension)], input="y\n",
                            cwd=gemini_sandbox.project, env=gemini_sandbox.env, capture_output=True, text=True,
                            timeout=120)
    assert linked.returncode == 0, linked.stdout + linked.stderr
    listed = subprocess.run([node, str(gemini_cli.path), "extensions", "list"], cwd=gemini_sandbox.project,
                            env=gemini_sandbox.env, capture_output=True, text=True, timeout=120)
    assert "hookmux (" in listed.stdout + listed.stderr and str(extension) in listed.stdout + listed.stderr
    assert gemini_sandbox.gemini_settings.read_text() == before  # no settings entries: the extension alone

    run = gemini_sandbox.gemini(gemini_cli, [shell(CONTRAINDICATED), shell(HARMLESS), shell(DESTRUCTIVE)])

    assert run.proc.returncode == 0, run.proc.stderr
    output = run.after(0).response["output"]
    assert "does not appear to be a git repository" in output  # it ran: advice never blocks
    assert output.count("<hook_context>") == 1 and output.rstrip().endswith("</hook_context>")
    context = output.split("<hook_context>", 1)[1]
    assert "GIT-FORCE-PUSH-MAIN" in context and "has already run" in context
    harmless = run.after(1).response
    assert set(harmless) == {"output"} and harmless["output"].startswith("<untrusted_context>\nOutput: hi\n")
    assert harmless["output"].endswith("</untrusted_context>")
    assert keep.read_text() == "years of work"
    denied = run.after(2).response
    assert set(denied) == {"error"} and denied["error"].startswith(
        "Tool execution blocked: hookmux danger gate: this command was NOT run."), denied
