"""``hookmux install --qwen``: what hookmux wires into Qwen Code's ``~/.qwen/settings.json``
(installer/qwen_hooks.py), the user's settings and hooks kept, the wired command lines run as
Qwen Code runs them (a shell, its payload on stdin), uninstall and status. The real binary runs
in tests/e2e/test_e2e_qwen.py. Hazardous commands are data on the hooks' stdin, never run.
"""
from __future__ import annotations

import json
import shlex
import shutil
import subprocess

import pytest

from hookmux import dangers, matchers, resources
from hookmux.installer import commands, qwen_hooks

FORCE_PUSH = "git push --force origin main"

USER_SETTINGS = """{
  "security": {"auth": {"selectedType": "openai"}},
  "model": {"name": "qwen3-coder-plus"},
  "hooks": {
    "PreToolUse": [
      {"matcher": "run_shell_command", "hooks": [{"type": "command", "command": "./audit.sh", "timeout": 5}]}
    ],
    "Stop": [{"hooks": [{"type": "command", "command": "./notify.sh"}]}]
  }
}
"""


def qwen_payload(event: str, cwd, **fields) -> str:
    """What Qwen Code 0.24.4 sends (measured): Claude's keys and event names, an ISO timestamp."""
    return json.dumps({"session_id": "qwen-1", "transcript_path": f"{cwd}/chat.jsonl", "cwd": str(cwd),
                       "hook_event_name": event, "timestamp": "2026-12-03T13:22:27.703Z",
                       "permission_mode": "yolo", **fields})


def shell_call(event: str, command: str, cwd) -> str:
    fields = {"tool_name": "run_shell_command", "tool_input": {"command": command, "is_background": False},
              "tool_use_id": "toolu_1", "tool_call_id": "call_1"}
    if event == "PostToolUse":
        fields["tool_response"] = {"llmContent": "Command: x\nOutput: \nExit Code: 0", "returnDisplay": ""}
    return qwen_payload(event, cwd, **fields)


@pytest.mark.parametrize("settings_matcher, event, expected", [
    ("Bash|PowerShell|bash|powershell", "PreToolUse", "^(?:run_shell_command)$"),
    ("Bash|Edit|Write", "PreToolUse", "^(?:run_shell_command|edit|write_file)$"),
    ("run_shell_command", "PostToolUse", "^(?:run_shell_command)$"),  # Qwen's own name works too
    (None, "PreToolUse", None),
    ("*", "PostToolUse", None),
    ("PowerShell|Zzz", "PreToolUse", False),  # no Qwen tool: the entry is left out
    ("anything", "UserPromptSubmit", None),  # no tool there
])
def test_matcher(settings_matcher, event, expected):
    assert matchers.qwen_matcher(settings_matcher, event) == expected


def test_shipped_manifest_gives_the_gate_and_the_dispatcher_with_advice_after_the_call(tmp_path):
    manifest = json.loads(resources.shipped_manifest().read_text())
    target = str(tmp_path / "hooks dir")
    entries = qwen_hooks.entries(manifest, target, "/usr/bin/python3")
    got = {(e.event, e.role): e for e in entries}
    assert ("PostToolUse", "dispatch") in got and ("PreToolUse", "danger") in got
    assert "run_shell_command" in got["PostToolUse", "dispatch"].matcher  # PreToolUse's advice, after the call
    failure = got["PostToolUseFailure", "dispatch"]  # what Qwen runs instead after a non-zero exit
    assert failure.matcher == got["PostToolUse", "dispatch"].matcher
    gate = got["PreToolUse", "danger"].matcher
    assert gate.startswith("^(?:run_shell_command|edit|write_file|notebook_edit)$|^mcp__.+__(?:")
    assert all(e.event in qwen_hooks._hosts.EVENTS["qwen"] for e in entries)
    for entry in entries:
        words = shlex.split(entry.command)
        assert words[words.index("--host") + 1] == "qwen" and words[-3:] == [entry.event, "||", "true"]
        parsed = commands.ours(entry.command, target)
        assert parsed and parsed.role == entry.role and parsed.event == entry.event and parsed.fail_open


def test_a_users_options_are_kept_and_the_host_is_always_qwen():
    entry = qwen_hooks.entries(json.loads(resources.shipped_manifest().read_text()), "/h", "/usr/bin/python3")[0]
    words = shlex.split(entry.command_with(("--trace", "--host", "claude")))
    assert "--trace" in words and words.count("--host") == 1 and words[words.index("--host") + 1] == "qwen"


# ---------------------------------------------------------------- hookmux install --qwen


@pytest.fixture
def q(tmp_path):
    from install_helpers import Home

    home = Home(tmp_path)
    home.qwen_file = home.home / ".qwen" / "settings.json"
    return home


def _ours(data: dict, target) -> list[tuple[str, str]]:
    return sorted((event, parsed.role) for event, groups in data.get("hooks", {}).items() for group in groups
                  for hook in group.get("hooks", []) if (parsed := commands.ours(hook.get("command"), target)))


def _run(command: str, payload: str, env, cwd):
    """The wired command line as Qwen Code runs it: bash, the payload on stdin."""
    return subprocess.run(["bash", "-c", command], input=payload.encode(), capture_output=True, env=env,
                          cwd=cwd, timeout=60)


def _command(path, event: str, role: str, target) -> str:
    data = json.loads(path.read_text())
    for group in data["hooks"][event]:
        for hook in group["hooks"]:
            parsed = commands.ours(hook["command"], target)
            if parsed and parsed.role == role:
                return hook["command"]
    raise AssertionError((event, role, data))


def test_install_keeps_the_users_settings_and_hooks_and_a_reinstall_changes_nothing(q):
    q.qwen_file.parent.mkdir(parents=True)
    q.qwen_file.write_text(USER_SETTINGS)
    user = json.loads(USER_SETTINGS)
    result = q.install("--qwen", source=False)
    assert f"wired {q.qwen_file}" in result.stdout
    data = json.loads(q.qwen_file.read_text())
    assert data["security"] == user["security"] and data["model"] == user["model"]
    assert user["hooks"]["PreToolUse"][0] in data["hooks"]["PreToolUse"]
    assert data["hooks"]["Stop"][0] == user["hooks"]["Stop"][0]
    assert ("PreToolUse", "danger") in _ours(data, q.target) and ("PostToolUse", "dispatch") in _ours(data, q.target)
    backups = list(q.qwen_file.parent.glob("settings.json.hookmux-backup-*"))
    assert len(backups) == 1 and backups[0].read_text() == USER_SETTINGS
    first = q.qwen_file.read_bytes()
    q.install("--qwen", source=False)
    assert q.qwen_file.read_bytes() == first


def test_the_installed_gate_denies_in_claudes_form_and_passes_a_harmless_call(q, tmp_path):
    q.install("--qwen", source=False)
    command = _command(q.qwen_file, "PreToolUse", "danger", q.target)
    env = dict(q.env, GIT_CONFIG_GLOBAL="/dev/null", GIT_CONFIG_NOSYSTEM="1")
    repo = dangers.make_repo(tmp_path / "repo", "changed", env)
    result = _run(command, shell_call("PreToolUse", "git reset --hard", repo), env, repo)
    assert result.returncode == 0 and result.stderr == b"" and result.stdout.count(b"\n") == 1
    answer = json.loads(result.stdout)["hookSpecificOutput"]
    assert answer["hookEventName"] == "PreToolUse" and answer["permissionDecision"] == "deny"
    assert "NOT run" in answer["permissionDecisionReason"]
    harmless = _run(command, shell_call("PreToolUse", "ls", repo), env, repo)
    assert (harmless.returncode, harmless.stdout, harmless.stderr) == (0, b"", b"")


def test_the_installed_post_tool_use_command_advises_after_the_call(q, tmp_path):
    q.install("--qwen", source=False)
    data = json.loads(q.qwen_file.read_text())
    pre = [c for c in (commands.ours(h["command"], q.target) for g in data["hooks"].get("PreToolUse", [])
                       for h in g["hooks"]) if c and c.role == "dispatch"]
    if pre:  # whatever runs before the call says nothing of the push
        before = _run(_command(q.qwen_file, "PreToolUse", "dispatch", q.target),
                      shell_call("PreToolUse", FORCE_PUSH, tmp_path), q.env, tmp_path)
        assert (before.returncode, before.stdout, before.stderr) == (0, b"", b"")
    after = _run(_command(q.qwen_file, "PostToolUse", "dispatch", q.target),
                 shell_call("PostToolUse", FORCE_PUSH, tmp_path), q.env, tmp_path)
    assert after.returncode == 0 and after.stderr == b""
    context = json.loads(after.stdout)["hookSpecificOutput"]
    assert context["hookEventName"] == "PostToolUse" and "GIT-FORCE-PUSH-MAIN" in context["additionalContext"]


def test_a_removed_hooks_folder_is_a_silent_exit_0(q, tmp_path):
    q.install("--qwen", source=False)
    data = json.loads(q.qwen_file.read_text())
    wired = [h["command"] for groups in data["hooks"].values() for g in groups for h in g["hooks"]
             if commands.ours(h["command"], q.target)]
    assert wired
    shutil.rmtree(q.target)
    for command in wired:
        result = _run(command, shell_call("PreToolUse", "rm" + " -rf ~/Documents", tmp_path), q.env, tmp_path)
        assert (result.returncode, result.stdout) == (0, b"")


def test_uninstall_gives_the_users_file_back_byte_for_byte_from_the_record(q):
    q.qwen_file.parent.mkdir(parents=True)
    q.qwen_file.write_text(USER_SETTINGS)
    q.install("--qwen", source=False)
    result = q.uninstall()  # no --qwen: the install record knows the file
    assert f"unwired {q.qwen_file}" in result.stdout
    assert q.qwen_file.read_text() == USER_SETTINGS


def test_a_settings_file_and_folder_hookmux_created_are_removed_on_uninstall(q):
    q.install("--qwen", source=False)
    assert q.qwen_file.exists()
    q.uninstall("--qwen")
    assert not q.qwen_file.exists() and not q.qwen_file.parent.exists()


def test_a_malformed_settings_file_is_refused_with_its_path_and_nothing_changes(q):
    q.qwen_file.parent.mkdir(parents=True)
    q.qwen_file.write_text('{\n  // a comment: not JSON, hookmux edits no such file\n  "hooks": {}\n}\n')
    before = q.qwen_file.read_bytes()
    result = q.install("--qwen", source=False, check=False)
    assert result.returncode == 1 and str(q.qwen_file) in result.stderr and "nothing was changed" in result.stderr
    assert q.qwen_file.read_bytes() == before and not q.target.exists()


def test_status_reports_the_qwen_file_and_a_missing_entry(q):
    q.install("--qwen", source=False)
    ok = q.hookmux("status", "--target", str(q.target), "--settings", str(q.settings), "--qwen")
    assert ok.returncode == 0, ok.stdout
    count = len(_ours(json.loads(q.qwen_file.read_text()), q.target))
    assert f"wired:     {q.qwen_file} (qwen): {count} hookmux entries" in ok.stdout
    data = json.loads(q.qwen_file.read_text())
    del data["hooks"]["PostToolUse"]
    q.qwen_file.write_text(json.dumps(data))
    bad = q.hookmux("status", "--target", str(q.target), "--settings", str(q.settings))
    assert bad.returncode == 1
    assert f"{q.qwen_file}: missing hookmux entries: PostToolUse dispatch; run `hookmux install" in bad.stdout
    assert "--qwen" in bad.stdout
