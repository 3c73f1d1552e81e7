"""Issue 20: hostile environments around an install — deleted folders and interpreters, edited
entries, symlinked HOMEs and settings, PYTHONPATH, read-only and odd settings files."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from install_helpers import Home, USER_SETTINGS

BASH = {"session_id": "s", "transcript_path": "/tmp/t.jsonl", "cwd": "/tmp", "hook_event_name": "PreToolUse",
        "tool_name": "Bash", "tool_input": {"command": "ls"}, "tool_use_id": "t1"}
# Copilot loading the Claude-format settings file: the one caller whose Skill call the gate denies.
SKILL = {"session_id": "s", "timestamp": "2026-01-01T00:00:00.000Z", "cwd": "/tmp", "hook_event_name": "PreToolUse",
         "tool_name": "skill", "tool_input": {"skill": "prompt-writer"}}
COPILOT_BASH = {"sessionId": "s", "timestamp": 1, "cwd": "/tmp", "toolName": "bash", "toolArgs": {"command": "ls"}}


@pytest.fixture
def h(tmp_path):
    return Home(tmp_path)


def _wired(path: Path, key: str = "command") -> list[tuple[str, str]]:
    """(event, command) of every hook entry in a settings or Copilot file."""
    out = []
    for event, items in json.loads(path.read_text()).get("hooks", {}).items():
        for item in items:
            for hook in item.get("hooks", [item]):
                out.append((event, hook[key]))
    return out


def _dispatcher(path: Path, event: str = "PreToolUse", key: str = "command") -> str:
    return next(c for e, c in _wired(path, key) if e == event and "dispatch.py" in c)


def _run(shell: str, command: str, payload: dict, env: dict, cwd: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([shell, "-c", command], input=json.dumps(payload).encode(), capture_output=True,
                          env=env, cwd=cwd, timeout=60)


# ------------------------------------------------------------------ 1: the wiring fails open


@pytest.mark.parametrize("shell", ["sh", "bash"])
def test_a_deleted_hooks_folder_makes_every_wired_command_a_silent_exit_0(h, shell):
    h.install("--copilot-hooks-dir", str(h.copilot_dir))
    commands = _wired(h.settings) + _wired(h.copilot_dir / "hookmux.json", "bash")
    assert len(commands) == 9  # Claude: 2 dispatchers + 2 gates + the danger gate; Copilot: 2 + 1 + 1
    shutil.rmtree(h.target)
    for event, command in commands:
        out = _run(shell, command, COPILOT_BASH if event[0].islower() else BASH, h.env)
        assert out.returncode == 0 and out.stdout == b"", (command, out)


def test_a_removed_interpreter_makes_every_wired_command_a_silent_exit_0(h, tmp_path):
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    h.install("--copilot-hooks-dir", str(h.copilot_dir), "--python", str(venv / "bin" / "python"))
    commands = _wired(h.settings) + _wired(h.copilot_dir / "hookmux.json", "bash")
    assert all(str(venv) in command for _, command in commands)
    out = _run("bash", _dispatcher(h.settings), BASH, h.env)
    assert b"sample saw Bash" in out.stdout  # it worked before
    shutil.rmtree(venv)
    for event, command in commands:
        out = _run("bash", command, COPILOT_BASH if event[0].islower() else BASH, h.env)
        assert out.returncode == 0 and out.stdout == b"", (command, out)
    status = h.hookmux("status", "--target", str(h.target), "--settings", str(h.settings))
    assert status.returncode == 1
    assert f"recorded interpreter {venv}/bin/python is missing" in status.stdout
    assert f"run `hookmux install --target {h.target} --settings {h.settings} --copilot-hooks-dir {h.copilot_dir} " \
           f"--python PYTHON` with PYTHON an existing python3" in status.stdout


def _copilot_agent(h) -> None:
    """The agent SKILL names, where Copilot looks: the gate denies only a real agent."""
    agent = h.home / ".copilot" / "agents" / "prompt-writer.agent.md"
    agent.parent.mkdir(parents=True, exist_ok=True)
    agent.write_text("---\nname: prompt-writer\ndescription: writes prompts\n---\nWrite prompts.\n")


def test_the_gates_deny_survives_the_fail_open_suffix(h):
    _copilot_agent(h)
    h.install()
    gate = next(c for e, c in _wired(h.settings) if e == "PreToolUse" and "skill_redirect" in c)
    out = _run("bash", gate, SKILL, h.env)
    assert out.returncode == 0
    assert json.loads(out.stdout)["hookSpecificOutput"]["permissionDecision"] == "deny"


# ------------------------------------------------------------------ 3: edited entries stay hookmux's


def _edit(path: Path, edit) -> None:
    data = json.loads(path.read_text())
    edit(data)
    path.write_text(json.dumps(data, indent=2) + "\n")


def _add_trace(data):
    for group in data["hooks"]["PreToolUse"]:
        for hook in group["hooks"]:
            hook["command"] = hook["command"].replace("dispatch.py ", "dispatch.py --trace ")


def test_an_entry_edited_with_trace_is_still_recognised(h):
    h.write_settings()
    h.install()
    _edit(h.settings, _add_trace)
    status = h.hookmux("status", "--target", str(h.target), "--settings", str(h.settings))
    assert status.returncode == 0, status.stdout
    h.install()
    dispatchers = [c for e, c in _wired(h.settings) if "dispatch.py" in c and e == "PreToolUse"]
    assert len(dispatchers) == 1 and "dispatch.py --trace PreToolUse || true" in dispatchers[0]  # kept
    h.uninstall()
    assert json.loads(h.settings.read_text()) == json.loads(USER_SETTINGS)


@pytest.mark.parametrize("form", [
    "{py} -S {script} PreToolUse",  # what hookmux wrote before the fail-open suffix
    "{py} -SE {script} --manifest {manifest} --hooks-root {target} PreToolUse || true",
    "{py} -S -E {script} --manifest={manifest} PreToolUse ; true",
    "{py} -E -S -X importtime {script} PreToolUse || exit 0",
])
def test_every_form_the_dispatcher_accepts_is_recognised(h, form):
    h.write_settings()
    h.install()

    def rewrite(data):
        for group in data["hooks"]["PreToolUse"]:
            for hook in group["hooks"]:
                if "dispatch.py" in hook["command"]:
                    hook["command"] = form.format(py=sys.executable, script=h.target / "_dispatch" / "dispatch.py",
                                                  manifest=h.target / "_dispatch" / "manifest.json", target=h.target)
    _edit(h.settings, rewrite)
    h.install()
    assert sum("dispatch.py" in c for e, c in _wired(h.settings) if e == "PreToolUse") == 1
    h.uninstall()
    assert "dispatch.py" not in h.settings.read_text()


def test_status_reports_missing_and_unexpected_entries(h):
    h.write_settings()
    h.install()
    _edit(h.settings, lambda data: data["hooks"].pop("PostToolBatch"))
    status = h.hookmux("status", "--target", str(h.target), "--settings", str(h.settings))
    assert status.returncode == 1
    assert "missing hookmux entries: PostToolBatch gate" in status.stdout

    h.install()

    def add_unexpected(data):
        dispatch = next(g for g in data["hooks"]["PreToolUse"] if "dispatch.py" in g["hooks"][0]["command"])
        data["hooks"]["UserPromptSubmit"] = [json.loads(json.dumps(dispatch).replace("PreToolUse", "UserPromptSubmit"))]
    _edit(h.settings, add_unexpected)
    status = h.hookmux("status", "--target", str(h.target), "--settings", str(h.settings))
    assert status.returncode == 1 and "unexpected hookmux entries: UserPromptSubmit dispatch" in status.stdout
    h.install()
    assert "UserPromptSubmit" not in h.settings.read_text()


def test_status_reports_entries_in_an_old_form(h):
    h.write_settings()
    h.install()
    h.settings.write_text(h.settings.read_text().replace(" -E", "").replace(" || true", ""))
    status = h.hookmux("status", "--target", str(h.target), "--settings", str(h.settings))
    assert status.returncode == 1 and "not in the form install writes" in status.stdout
    h.install()
    assert h.settings.read_text().count(" -S -E ") == 5 and h.settings.read_text().count(" || true") == 5


def test_uninstall_leaves_no_entry_running_a_file_it_deleted(h):
    h.write_settings()
    h.install()
    mine = f"cd /tmp && python3 {h.target}/_dispatch/dispatch.py --verbose PreToolUse"

    def add(data):
        data["hooks"]["PreToolUse"].append({"hooks": [{"type": "command", "command": mine}]})
    _edit(h.settings, add)
    status = h.hookmux("status", "--target", str(h.target), "--settings", str(h.settings))
    assert "runs a hookmux script in a form hookmux does not manage" in status.stdout
    h.uninstall()
    assert "dispatch.py" not in h.settings.read_text() and "skill_redirect" not in h.settings.read_text()


# ------------------------------------------------------------------ 4, 5: symlinks


def test_a_symlinked_home_is_one_install_not_two(tmp_path):
    h = Home(tmp_path)
    real_home = h.home
    linked = tmp_path / "linked-home"
    linked.symlink_to(real_home)
    h.write_settings()
    h.install()
    h.hookmux("install", "--target", str(linked / ".claude" / "hooks"), "--settings",
              str(linked / ".claude" / "settings.json"), "--source", str(h.source), check=True)
    assert sum("dispatch.py" in c for _, c in _wired(h.settings)) == 2  # PreToolUse and Stop, once each
    assert sum("skill_redirect.py" in c for _, c in _wired(h.settings)) == 2
    record = json.loads((h.target / ".hookmux-installed.json").read_text())
    assert len(record["wired"]) == 1
    status = h.hookmux("status", "--target", str(linked / ".claude" / "hooks"), "--settings", str(h.settings))
    assert status.returncode == 0, status.stdout
    h.uninstall()  # through the other spelling
    assert json.loads(h.settings.read_text()) == json.loads(USER_SETTINGS)
    assert not h.target.exists()


def test_uninstall_keeps_a_symlinked_settings_file_and_cleans_the_real_one(h, tmp_path):
    h.install()  # hookmux creates settings.json
    dotfiles = tmp_path / "dotfiles"
    dotfiles.mkdir()
    shutil.move(str(h.settings), dotfiles / "settings.json")
    h.settings.symlink_to(dotfiles / "settings.json")
    h.uninstall()
    assert h.settings.is_symlink()
    assert json.loads((dotfiles / "settings.json").read_text()) == {}


# ------------------------------------------------------------------ 6: PYTHONPATH


@pytest.mark.parametrize("module", ["json.py", "re.py"])
def test_hooks_do_not_import_from_the_project_under_pythonpath(h, tmp_path, module):
    _copilot_agent(h)
    h.install("--copilot-hooks-dir", str(h.copilot_dir))
    project = tmp_path / "project"
    project.mkdir()
    (project / module).write_text(f"open({str(project / 'imported')!r}, 'w').write('x')\nraise SystemExit(3)\n")
    env = dict(h.env, PYTHONPATH=".")
    out = _run("bash", _dispatcher(h.settings), BASH, env, cwd=str(project))
    assert out.returncode == 0 and json.loads(out.stdout)["hookSpecificOutput"]["additionalContext"] == "sample saw Bash"
    gate = next(c for e, c in _wired(h.settings) if e == "PreToolUse" and "skill_redirect" in c)
    out = _run("bash", gate, SKILL, env, cwd=str(project))
    assert json.loads(out.stdout)["hookSpecificOutput"]["permissionDecision"] == "deny"
    assert not (project / "imported").exists()


# ------------------------------------------------------------------ 7: odd settings files


def test_a_read_only_settings_file_is_refused_not_rewritten(h):
    before = h.write_settings()
    os.chmod(h.settings, 0o444)
    result = h.install(check=False)
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert f"{h.settings}: is read-only (mode 0444)" in result.stderr and "nothing was changed" in result.stderr
    assert h.settings.read_bytes() == before and oct(h.settings.stat().st_mode & 0o777) == "0o444"
    assert not h.target.exists()


def test_a_null_hooks_key_survives_install_and_uninstall(h):
    before = h.write_settings('{"model": "opus", "hooks": null}\n')
    h.install()
    assert "dispatch.py" in h.settings.read_text()
    h.uninstall()
    assert h.settings.read_bytes() == before


def test_crlf_settings_keep_crlf(h):
    text = USER_SETTINGS.replace("\n", "\r\n")
    h.settings.parent.mkdir(parents=True)
    h.settings.write_bytes(text.encode())
    h.install()
    raw = h.settings.read_bytes()
    assert b"dispatch.py" in raw and raw.count(b"\n") == raw.count(b"\r\n")
    h.uninstall()
    assert h.settings.read_bytes() == text.encode()


def test_two_installs_in_one_file_leave_no_empty_lists(h, tmp_path):
    h.install()  # creates settings.json
    other = ["--target", str(tmp_path / "other-hooks"), "--settings", str(h.settings)]
    h.hookmux("install", *other, "--source", str(h.source), check=True)
    h.uninstall()
    h.hookmux("uninstall", *other, check=True)
    assert not h.settings.exists()
    assert not list(h.claude.glob("*hookmux-backup*"))


def test_uninstall_without_an_install_creates_no_lock_file(h):
    result = h.uninstall()
    assert "nothing of hookmux's found" in result.stdout
    assert not Path(h.env["HOOKMUX_STATE_DIR"]).joinpath("install.lock").exists()


@pytest.mark.parametrize("text,message", [
    ('{"n": ' + "9" * 5000 + "}", "cannot read a value"),
    ('{"a": ' + "[" * 900 + "]" * 900 + "}", "nested"),
    ('{"a": ' + "[" * 120 + "]" * 120 + "}", "nested deeper than 100 levels"),
])
@pytest.mark.parametrize("command", ["install", "uninstall", "status"])
def test_hostile_settings_are_refused_with_the_file_name(h, text, message, command):
    before = h.write_settings(text)
    args = ["--target", str(h.target), "--settings", str(h.settings)]
    result = h.hookmux(command, *args, *(["--source", str(h.source)] if command == "install" else []))
    assert result.returncode == 1 and "Traceback" not in result.stderr + result.stdout
    assert f"{h.settings}: " in result.stderr + result.stdout and message in result.stderr + result.stdout
    assert h.settings.read_bytes() == before


def test_a_dollar_in_the_target_installs_and_runs(tmp_path):
    h = Home(tmp_path)
    h.target = h.home / "$HOME" / "hooks$1"
    h.install()
    out = _run("bash", _dispatcher(h.settings), BASH, h.env)
    assert out.returncode == 0 and b"sample saw Bash" in out.stdout
    h.uninstall()
    assert not h.target.exists()


def test_a_dollar_in_home_installs_with_the_default_target_and_runs(tmp_path):
    h = Home(tmp_path)
    home = tmp_path / "h$USER"
    home.mkdir()
    env = dict(h.env, HOME=str(home))
    h.hookmux("install", "--source", str(h.source), env=env, check=True)
    settings = home / ".claude" / "settings.json"
    assert f"{home}/.claude/hooks/_dispatch/dispatch.py" in _dispatcher(settings)
    out = _run("bash", _dispatcher(settings), BASH, env)
    assert out.returncode == 0 and b"sample saw Bash" in out.stdout
    assert h.hookmux("status", env=env).returncode == 0
    h.hookmux("uninstall", env=env, check=True)
    assert not (home / ".claude").exists()
