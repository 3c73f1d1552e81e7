"""``hookmux install --cursor``: what hookmux wires into Cursor's ``~/.cursor/hooks.json``
(installer/cursor_hooks.py), the user's entries kept, the wired command lines run as Cursor runs
them (a shell, Cursor's payload on stdin), uninstall and status.

Cursor is not run (its CLI talks only to Cursor's servers): the file format and the payloads are
from cursor.com/docs/agent/hooks. Hazardous commands are data on the hooks' stdin, never run.
"""
from __future__ import annotations

import json
import shlex
import shutil
import subprocess

import pytest

from hookmux import dangers, resources
from hookmux.installer import commands, cursor_hooks

FORCE_PUSH = "git push --force origin main"

USER_HOOKS = """{
  "version": 1,
  "hooks": {
    "beforeShellExecution": [
      {"command": "./hooks/audit.sh", "timeout": 5}
    ],
    "afterFileEdit": [{"command": "./hooks/format.sh"}],
    "stop": [{"command": "./hooks/audit.sh", "loop_limit": 3}]
  }
}
"""


def cursor_payload(event: str, root, **fields) -> str:
    return json.dumps({"conversation_id": "conv-1", "generation_id": "gen-1", "model": "claude-sonnet-4",
                       "hook_event_name": event, "cursor_version": "2.1.0", "workspace_roots": [str(root)],
                       "user_email": None, "transcript_path": None, **fields})


def shell_call(event: str, command: str, cwd) -> str:
    fields = {"tool_name": "Shell", "tool_input": {"command": command, "working_directory": str(cwd)},
              "tool_use_id": "tool-1", "cwd": str(cwd)}
    if event == "postToolUse":
        fields.update(tool_output=json.dumps({"exitCode": 0, "stdout": ""}), duration=5)
    return cursor_payload(event, cwd, **fields)


@pytest.mark.parametrize("settings_matcher, event, expected", [
    ("Bash|PowerShell|bash|powershell", "preToolUse", "Shell"),
    ("Bash|PowerShell|bash|powershell", "postToolUse", "Shell"),
    ("Bash|Edit|Write", "preToolUse", "Shell|Write|StrReplace"),
    ("Shell", "preToolUse", "Shell"),  # Cursor's own name works too
    (None, "preToolUse", None),
    ("*", "postToolUse", None),
    ("PowerShell|Zzz", "preToolUse", False),  # no Cursor tool: the entry is left out
    ("anything", "beforeSubmitPrompt", None),  # no tool there
])
def test_matcher(settings_matcher, event, expected):
    from hookmux import matchers

    assert matchers.cursor_matcher(settings_matcher, event) == expected


def test_shipped_manifest_gives_the_gate_and_the_dispatcher_before_and_after_the_call(tmp_path):
    manifest = json.loads(resources.shipped_manifest().read_text())
    target = str(tmp_path / "hooks dir")
    entries = cursor_hooks.entries(manifest, target, "/usr/bin/python3")
    assert sorted((e.event, e.role, e.matcher, e.timeout) for e in entries) == [
        ("beforeSubmitPrompt", "dispatch", None, 10),
        ("postToolUse", "dispatch", "Shell", 10),  # PreToolUse's advice, after the call
        ("preToolUse", "danger", "Shell|Write|StrReplace", 10),
        ("preToolUse", "dispatch", "Shell", 10),
    ]
    for entry in entries:
        words = shlex.split(entry.command)
        assert words[words.index("--host") + 1] == "cursor" and words[-3:] == [entry.event, "||", "true"]
        parsed = commands.ours(entry.command, target)
        assert parsed and parsed.role == entry.role and parsed.event == entry.event and parsed.fail_open


def test_a_users_options_are_kept_and_the_host_is_always_cursor():
    entry = cursor_hooks.entries(json.loads(resources.shipped_manifest().read_text()), "/h", "/usr/bin/python3")[0]
    words = shlex.split(entry.command_with(("--trace", "--host", "claude")))
    assert "--trace" in words and words.count("--host") == 1 and words[words.index("--host") + 1] == "cursor"


# ---------------------------------------------------------------- hookmux install --cursor


@pytest.fixture
def c(tmp_path):
    from install_helpers import Home

    home = Home(tmp_path)
    home.cursor_file = home.home / ".cursor" / "hooks.json"
    return home


def _ours(data: dict, target) -> list[tuple[str, str, str | None, float, str]]:
    """(event, role, matcher, timeout, type) of hookmux's entries in a Cursor hooks.json object."""
    out = []
    for event, items in data.get("hooks", {}).items():
        for hook in items:
            parsed = commands.ours(hook.get("command"), target)
            if parsed:
                out.append((event, parsed.role, hook.get("matcher"), hook.get("timeout"), hook.get("type")))
                assert "failClosed" not in hook  # a crashed or missing hook lets the call run
    return out


def _run(command: str, payload: str, env, cwd):
    """The wired command line as Cursor runs it: a shell, the payload on stdin, from ~/.cursor."""
    return subprocess.run(["/bin/sh", "-c", command], input=payload.encode(), capture_output=True, env=env,
                          cwd=cwd, timeout=60)


def _command(path, event: str, role: str, target) -> str:
    data = json.loads(path.read_text())
    for hook in data["hooks"][event]:
        parsed = commands.ours(hook["command"], target)
        if parsed and parsed.role == role:
            return hook["command"]
    raise AssertionError((event, role, data))


def test_install_keeps_the_users_entries_and_a_reinstall_changes_nothing(c):
    c.cursor_file.parent.mkdir(parents=True)
    c.cursor_file.write_text(USER_HOOKS)
    user = json.loads(USER_HOOKS)
    result = c.install("--cursor", source=False)
    assert f"wired {c.cursor_file}" in result.stdout
    data = json.loads(c.cursor_file.read_text())
    assert data["version"] == 1
    assert data["hooks"]["beforeShellExecution"] == user["hooks"]["beforeShellExecution"]
    assert data["hooks"]["afterFileEdit"] == user["hooks"]["afterFileEdit"]
    assert data["hooks"]["stop"] == user["hooks"]["stop"]
    assert sorted(_ours(data, c.target)) == [
        ("beforeSubmitPrompt", "dispatch", None, 10, "command"),
        ("postToolUse", "dispatch", "Shell", 10, "command"),
        ("preToolUse", "danger", "Shell|Write|StrReplace", 10, "command"),
        ("preToolUse", "dispatch", "Shell", 10, "command"),
    ]
    backups = list(c.cursor_file.parent.glob("hooks.json.hookmux-backup-*"))
    assert len(backups) == 1 and backups[0].read_text() == USER_HOOKS
    first = c.cursor_file.read_bytes()
    c.install("--cursor", source=False)
    assert c.cursor_file.read_bytes() == first


def test_the_installed_gate_denies_in_cursors_form_and_passes_a_harmless_call(c, tmp_path):
    c.install("--cursor", source=False)
    command = _command(c.cursor_file, "preToolUse", "danger", c.target)
    env = dict(c.env, GIT_CONFIG_GLOBAL="/dev/null", GIT_CONFIG_NOSYSTEM="1")
    repo = dangers.make_repo(tmp_path / "repo", "changed", env)
    result = _run(command, shell_call("preToolUse", "git reset --hard", repo), env, c.cursor_file.parent)
    assert result.returncode == 0 and result.stderr == b"" and result.stdout.count(b"\n") == 1
    answer = json.loads(result.stdout)
    assert list(answer) == ["permission", "user_message", "agent_message"] and answer["permission"] == "deny"
    assert "NOT run" in answer["agent_message"]
    harmless = _run(command, shell_call("preToolUse", "ls", repo), env, c.cursor_file.parent)
    assert (harmless.returncode, harmless.stdout, harmless.stderr) == (0, b"", b"")


def test_the_installed_post_tool_use_command_advises_after_the_call(c, tmp_path):
    c.install("--cursor", source=False)
    before = _run(_command(c.cursor_file, "preToolUse", "dispatch", c.target),
                  shell_call("preToolUse", FORCE_PUSH, tmp_path), c.env, tmp_path)
    assert (before.returncode, before.stdout, before.stderr) == (0, b"", b"")
    after = _run(_command(c.cursor_file, "postToolUse", "dispatch", c.target),
                 shell_call("postToolUse", FORCE_PUSH, tmp_path), c.env, tmp_path)
    assert after.returncode == 0 and after.stderr == b""
    assert "GIT-FORCE-PUSH-MAIN" in json.loads(after.stdout)["additional_context"]


def test_a_removed_hooks_folder_is_a_silent_exit_0(c, tmp_path):
    c.install("--cursor", source=False)
    wired = [h["command"] for items in json.loads(c.cursor_file.read_text())["hooks"].values() for h in items
             if commands.ours(h["command"], c.target)]
    shutil.rmtree(c.target)
    for command in wired:
        result = _run(command, shell_call("preToolUse", "rm" + " -rf ~/Documents", tmp_path), c.env, tmp_path)
        assert (result.returncode, result.stdout) == (0, b"")


def test_uninstall_gives_the_users_file_back_byte_for_byte_from_the_record(c):
    c.cursor_file.parent.mkdir(parents=True)
    c.cursor_file.write_text(USER_HOOKS)
    c.install("--cursor", source=False)
    result = c.uninstall()  # no --cursor: the install record knows the file
    assert f"unwired {c.cursor_file}" in result.stdout
    assert c.cursor_file.read_text() == USER_HOOKS


def test_a_hooks_file_and_folder_hookmux_created_are_removed_on_uninstall(c):
    c.install("--cursor", source=False)
    assert c.cursor_file.exists()
    c.uninstall("--cursor")
    assert not c.cursor_file.exists() and not c.cursor_file.parent.exists()


def test_a_malformed_hooks_file_is_refused_with_its_path_and_nothing_changes(c):
    c.cursor_file.parent.mkdir(parents=True)
    c.cursor_file.write_text('{"version": 1, "hooks": {"stop": [}\n')
    before = c.cursor_file.read_bytes()
    result = c.install("--cursor", source=False, check=False)
    assert result.returncode == 1 and str(c.cursor_file) in result.stderr and "nothing was changed" in result.stderr
    assert c.cursor_file.read_bytes() == before and not c.target.exists()


def test_status_reports_the_cursor_file_and_a_missing_entry(c):
    c.install("--cursor", source=False)
    ok = c.hookmux("status", "--target", str(c.target), "--settings", str(c.settings), "--cursor")
    assert ok.returncode == 0, ok.stdout
    assert f"wired:     {c.cursor_file} (cursor): 4 hookmux entries" in ok.stdout
    data = json.loads(c.cursor_file.read_text())
    del data["hooks"]["postToolUse"]
    c.cursor_file.write_text(json.dumps(data))
    bad = c.hookmux("status", "--target", str(c.target), "--settings", str(c.settings))
    assert bad.returncode == 1
    assert f"{c.cursor_file}: missing hookmux entries: postToolUse dispatch; run `hookmux install" in bad.stdout
    assert "--cursor" in bad.stdout
