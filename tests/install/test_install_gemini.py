"""What hookmux wires into Gemini CLI's settings.json (installer/gemini_hooks.py), and the command
line that must stay a silent exit 0 when the hooks folder or the interpreter is gone (Gemini CLI
0.61.0 blocks the call on exit 2 or >= 3 with any text, bash's 127 "No such file" too).

Hazardous commands are data on the hooks' stdin, never run.
"""
from __future__ import annotations

import json
import re
import shlex
import shutil
import subprocess
import sys

import pytest
from hookmux_testing import HOOKS, hermetic_env

from hookmux import resources
from hookmux.installer import commands, gemini_hooks

FORCE_PUSH = "git push --force origin main"


def gemini_payload(event: str, command: str) -> str:
    payload = {"session_id": "g-1", "transcript_path": "/tmp/chats/s.jsonl", "cwd": "/tmp", "hook_event_name": event,
               "timestamp": "2026-12-01T08:43:12.367Z", "tool_name": "run_shell_command",
               "tool_input": {"command": command}}
    if event == "AfterTool":
        payload["tool_response"] = {"llmContent": "Output: (empty)", "returnDisplay": ""}
    return json.dumps(payload)


@pytest.mark.parametrize("settings_matcher, event, expected", [
    ("Bash|PowerShell|bash|powershell", "BeforeTool", "^(?:run_shell_command)$"),
    ("Bash|PowerShell|bash|powershell", "AfterTool", "^(?:run_shell_command)$"),
    ("^(Edit|Write)$", "BeforeTool", "^(?:replace|write_file)$"),
    ("Bash|Edit", "AfterTool", "^(?:run_shell_command|replace)$"),
    ("run_shell_command", "BeforeTool", "^(?:run_shell_command)$"),  # Gemini's own name works too
    (None, "BeforeTool", None),
    ("*", "AfterTool", None),
    ("PowerShell|Zzz", "BeforeTool", False),  # no Gemini tool: the entry is left out
    ("anything", "BeforeAgent", None),  # Gemini ignores matchers there
    ("anything", "AfterAgent", None),
    ("startup", "SessionStart", "startup"),  # an exact string there
])
def test_matcher(settings_matcher, event, expected):
    assert gemini_hooks.matcher(settings_matcher, event) == expected


def test_shipped_manifest_gives_the_dispatcher_before_and_after_tools_in_milliseconds(tmp_path):
    manifest = json.loads(resources.shipped_manifest().read_text())
    target = str(tmp_path / "hooks dir")
    entries = gemini_hooks.entries(manifest, target, "/usr/bin/python3")
    gates = [(e.event, e.role, e.matcher, e.timeout) for e in entries if e.role != "dispatch"]
    assert [(event, role, timeout) for event, role, _, timeout in gates] == [("BeforeTool", "danger", 10000)]
    # Gemini's shell and file tools, and its MCP tools that run a shell command (issue 39);
    # Gemini searches the matcher as an unanchored regex over its own tool names.
    wired = gates[0][2]
    assert wired.startswith("^(?:run_shell_command|replace|write_file)$|")
    chosen = ["run_shell_command", "replace", "write_file", "mcp_box_run_command", "mcp_my_box_exec",
              "mcp_box_runCommand", "mcp_desktop_start_process"]
    assert [name for name in chosen + ["read_file", "mcp_box_list_files", "mcp_github_create_issue"]
            if re.search(wired, name)] == chosen
    by_event = {e.event: e for e in entries if e.role == "dispatch"}
    assert set(by_event) == {"BeforeTool", "AfterTool", "BeforeAgent"}  # PreToolUse, its advice, UserPromptSubmit
    assert by_event["BeforeTool"].matcher == by_event["AfterTool"].matcher == "^(?:run_shell_command)$"
    assert by_event["BeforeAgent"].matcher is None
    seconds = manifest["events"]["PreToolUse"]["settings_timeout"]
    assert by_event["BeforeTool"].timeout == by_event["AfterTool"].timeout == seconds * 1000
    for entry in entries:
        assert entry.role != "gate"  # no skill/agent redirect on Gemini (docs/skill-redirect.md)
        words = shlex.split(entry.command)
        assert words[words.index("--host") + 1] == "gemini"
        assert words[-4:] == [entry.event, "2>/dev/null", "||", "true"]
        parsed = commands.ours(entry.command, target)
        assert parsed and parsed.role == entry.role and parsed.event == entry.event and parsed.fail_open


def test_after_tool_serves_post_tool_use_rows_and_pre_tool_use_advice_with_one_matcher():
    row = {"name": "a/check", "script": "a/check.py"}
    manifest = {"events": {
        "PreToolUse": {"settings_matcher": "Bash", "settings_timeout": 10, "checks": [row]},
        "PostToolUse": {"settings_matcher": "^(Edit|Write)$", "settings_timeout": 20, "checks": [row]},
    }}
    after = [e for e in gemini_hooks.entries(manifest, "/h", "/usr/bin/python3") if e.event == "AfterTool"]
    assert [(e.matcher, e.timeout) for e in after] == [("^(?:replace|write_file|run_shell_command)$", 20000)]
    quiet = {"events": {"PreToolUse": {"settings_matcher": "Bash", "checks": [dict(row, emits=False)]}}}
    assert [e.event for e in gemini_hooks.entries(quiet, "/h", "/usr/bin/python3")] == ["BeforeTool", "BeforeTool"]


def test_a_users_options_are_kept_and_the_host_is_always_gemini():
    entry = gemini_hooks.entries(json.loads(resources.shipped_manifest().read_text()), "/h", "/usr/bin/python3")[0]
    command = entry.command_with(("--trace", "--host", "claude"))
    words = shlex.split(command)
    assert "--trace" in words and words.count("--host") == 1 and words[words.index("--host") + 1] == "gemini"
    assert command.endswith(" 2>/dev/null || true")


# ---------------------------------------------------------------- the exact command line under bash -c


@pytest.fixture
def installed(tmp_path):
    """A copy of the hooks tree at a target, and the command lines wired for it."""
    target = tmp_path / "home" / ".gemini-hooks target"
    shutil.copytree(HOOKS, target, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    manifest = json.loads((target / "_dispatch" / "manifest.json").read_text())
    manifest["hooks_root"] = str(target)
    (target / "_dispatch" / "manifest.json").write_text(json.dumps(manifest))
    wired = gemini_hooks.entries(manifest, str(target), sys.executable)
    entries = {e.event: e for e in wired if e.role == "dispatch"}
    entries["gate"] = next(e for e in wired if e.role == "danger")
    env = hermetic_env(tmp_path)
    (tmp_path / "home" / "Documents").mkdir(parents=True)

    def run(event, payload, command=None):
        return subprocess.run(["bash", "-c", command or entries[event].command], input=payload.encode(),
                              capture_output=True, env=env, cwd=tmp_path, timeout=60)

    run.target, run.entries = target, entries
    return run


def test_the_wired_command_advises_after_the_call(installed):
    before = installed("BeforeTool", gemini_payload("BeforeTool", FORCE_PUSH))
    assert (before.returncode, before.stdout, before.stderr) == (0, b"", b"")
    after = installed("AfterTool", gemini_payload("AfterTool", FORCE_PUSH))
    assert after.returncode == 0 and after.stderr == b""
    answer = json.loads(after.stdout)
    assert answer["hookSpecificOutput"]["hookEventName"] == "AfterTool"
    assert "GIT-FORCE-PUSH-MAIN" in answer["hookSpecificOutput"]["additionalContext"]


def test_the_wired_danger_gate_denies_in_the_one_form_gemini_obeys(installed, tmp_path):
    destructive = "rm" + " -rf ~/Documents"  # data on the gate's stdin; HOME is tmp_path/home
    payload = json.loads(gemini_payload("BeforeTool", destructive))
    payload["cwd"] = str(tmp_path)
    result = installed("gate", json.dumps(payload))
    assert result.returncode == 0 and result.stderr == b""
    assert result.stdout.count(b"\n") == 1
    answer = json.loads(result.stdout)
    assert set(answer) == {"decision", "reason"} and answer["decision"] == "deny"
    assert "NOT run" in answer["reason"] and "Documents" in answer["reason"]
    assert (tmp_path / "home" / "Documents").is_dir()
    harmless = json.loads(gemini_payload("BeforeTool", "ls -la"))
    harmless["cwd"] = str(tmp_path)
    result = installed("gate", json.dumps(harmless))
    assert (result.returncode, result.stdout, result.stderr) == (0, b"", b"")


@pytest.mark.parametrize("event", ["BeforeTool", "AfterTool", "BeforeAgent", "gate"])
def test_a_removed_hooks_folder_is_a_silent_exit_0(installed, event):
    shutil.rmtree(installed.target)
    result = installed(event, gemini_payload("BeforeTool" if event == "gate" else event, "rm" + " -rf ~/Documents"))
    assert (result.returncode, result.stdout, result.stderr) == (0, b"", b"")


def test_a_removed_interpreter_is_a_silent_exit_0(installed, tmp_path):
    entry = installed.entries["BeforeTool"]
    gone = str(tmp_path / "venv-that-was-deleted" / "bin" / "python3")
    command = gemini_hooks.command(gone, entry.script, entry.event)
    result = installed("BeforeTool", gemini_payload("BeforeTool", FORCE_PUSH), command)
    assert (result.returncode, result.stdout, result.stderr) == (0, b"", b"")
    # without the Gemini form bash would say so on stderr, which Gemini reads as a block
    plain = subprocess.run(["bash", "-c", command.replace(" 2>/dev/null", "")], input=b"{}", capture_output=True,
                           timeout=60)
    assert plain.returncode == 0 and b"No such file" in plain.stderr


def test_malformed_stdin_is_a_silent_exit_0(installed):
    result = installed("BeforeTool", "{not json")
    assert (result.returncode, result.stdout, result.stderr) == (0, b"", b"")


# ---------------------------------------------------------------- hookmux install --gemini-home


GEMINI_USER_SETTINGS = """{
  "security": {"auth": {"selectedType": "gemini-api-key"}},
  "general": {"vimMode": true, "enableAutoUpdate": false},
  "ui": {"theme": "GitHub"},
  "hooksConfig": {"disabled": ["slow-linter"]},
  "hooks": {
    "BeforeTool": [
      {"matcher": "write_file|replace", "hooks": [
        {"name": "slow-linter", "type": "command", "command": "~/bin/lint-hook", "timeout": 30000}]}
    ],
    "SessionEnd": [{"hooks": [{"type": "command", "command": "notify-send done"}]}]
  },
  "mcpServers": {"docs": {"command": "docs-server", "args": ["--port", "0"]}}
}
"""


@pytest.fixture
def g(tmp_path):
    from install_helpers import Home

    home = Home(tmp_path)
    home.gemini_home = home.home / ".gemini"
    home.gemini_settings = home.gemini_home / "settings.json"
    return home


def _ours(data: dict, target) -> list[tuple[str, str, str | None, int]]:
    """(event, role, matcher, timeout) of hookmux's entries in a Gemini settings object."""
    out = []
    for event, groups in data.get("hooks", {}).items():
        for group in groups:
            for hook in group.get("hooks", []):
                parsed = commands.ours(hook.get("command"), target)
                if parsed:
                    out.append((event, parsed.role, group.get("matcher"), hook.get("timeout")))
    return out


def test_install_wires_gemini_keeps_the_users_settings_and_a_reinstall_changes_nothing(g):
    g.gemini_home.mkdir(parents=True)
    g.gemini_settings.write_text(GEMINI_USER_SETTINGS)
    user = json.loads(GEMINI_USER_SETTINGS)
    g.install("--gemini-home", str(g.gemini_home), source=False)
    data = json.loads(g.gemini_settings.read_text())
    assert {k: v for k, v in data.items() if k != "hooks"} == {k: v for k, v in user.items() if k != "hooks"}
    assert data["hooks"]["BeforeTool"][0] == user["hooks"]["BeforeTool"][0]  # the user's first, untouched
    assert data["hooks"]["SessionEnd"] == user["hooks"]["SessionEnd"]
    assert sorted(_ours(data, g.target)) == sorted([
        ("BeforeTool", "dispatch", "^(?:run_shell_command)$", 10000),
        ("BeforeTool", "danger", gemini_hooks.DANGER_MATCHER, 10000),
        ("AfterTool", "dispatch", "^(?:run_shell_command)$", 10000),
        ("BeforeAgent", "dispatch", None, 10000),
    ])
    first = g.gemini_settings.read_bytes()
    g.install("--gemini-home", str(g.gemini_home), source=False)
    assert g.gemini_settings.read_bytes() == first


def test_the_installed_after_tool_command_advises_as_gemini_runs_it(g):
    g.install("--gemini-home", str(g.gemini_home), source=False)
    data = json.loads(g.gemini_settings.read_text())
    command = next(h["command"] for grp in data["hooks"]["AfterTool"] for h in grp["hooks"])
    result = subprocess.run(["bash", "-c", command], input=gemini_payload("AfterTool", FORCE_PUSH).encode(),
                            capture_output=True, env=g.env, timeout=60)
    assert result.returncode == 0 and result.stderr == b""
    assert "GIT-FORCE-PUSH-MAIN" in json.loads(result.stdout)["hookSpecificOutput"]["additionalContext"]


def test_uninstall_gives_the_users_settings_back_and_finds_the_file_from_the_record(g):
    g.gemini_home.mkdir(parents=True)
    g.gemini_settings.write_text(GEMINI_USER_SETTINGS)
    g.install("--gemini-home", str(g.gemini_home), source=False)
    g.uninstall()  # no --gemini-home: the install record knows the file
    assert json.loads(g.gemini_settings.read_text()) == json.loads(GEMINI_USER_SETTINGS)


def test_a_settings_file_hookmux_created_is_removed_on_uninstall(g):
    g.install("--gemini-home", str(g.gemini_home), source=False)
    assert g.gemini_settings.exists()
    g.uninstall("--gemini-home", str(g.gemini_home))
    assert not g.gemini_settings.exists() and not g.gemini_home.exists()


def test_status_reports_the_gemini_file_and_a_missing_entry(g):
    g.install("--gemini-home", str(g.gemini_home), source=False)
    status = g.hookmux("status", "--target", str(g.target), "--settings", str(g.settings), "--gemini-home",
                       str(g.gemini_home), "--json")
    report = json.loads(status.stdout)
    assert status.returncode == 0, status.stdout
    (item,) = [i for i in report["wired"] if i.get("host") == "gemini"]
    assert item["file"] == str(g.gemini_settings)
    data = json.loads(g.gemini_settings.read_text())
    del data["hooks"]["AfterTool"]
    g.gemini_settings.write_text(json.dumps(data))
    status = g.hookmux("status", "--target", str(g.target), "--settings", str(g.settings), "--gemini-home",
                       str(g.gemini_home))
    assert status.returncode == 1 and "AfterTool" in status.stdout


def test_dry_run_writes_nothing(g):
    result = g.install("--gemini-home", str(g.gemini_home), "--dry-run", source=False)
    assert not g.gemini_settings.exists() and "BeforeTool" in result.stdout
