"""plan / --apply / --undo / uninstall round trips, run as a user runs them."""
from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path

import pytest

from adopt_helpers import hookmux, manifest_rows, user
from hookmux.installer import record as records

BASH_PAYLOAD = {"session_id": "s", "transcript_path": "", "cwd": "/tmp", "hook_event_name": "PreToolUse",
                "tool_name": "Bash", "tool_input": {"command": "git log; echo hi"}, "tool_use_id": "t1"}


@pytest.fixture
def installed(tmp_path):
    env, settings, target = user(tmp_path)
    original = settings.read_bytes()
    hookmux(env, "install", "--target", target, "--settings", settings)
    return env, settings, target, original, settings.read_bytes()


def adopt(env, settings, target, *flags, check=True):
    return hookmux(env, "adopt", "--target", target, "--settings", settings, *flags, check=check)


def wired_commands(settings: Path, event: str = "PreToolUse") -> list[str]:
    data = json.loads(settings.read_text())
    return [h["command"] for g in data["hooks"].get(event, []) for h in g["hooks"]]


def files_under(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_plan_alone_writes_nothing(installed):
    env, settings, target, _, after_install = installed
    before = files_under(target)
    proc = adopt(env, settings, target)
    assert "adoptable -> row adopted/advise_git" in proc.stdout
    assert "adoptable -> row adopted/advise_echo" in proc.stdout
    assert "blocker: line 10: can exit 2" in proc.stdout and "stays a standalone hook" in proc.stdout
    assert "not adoptable: runs 'sh', not Python" in proc.stdout
    assert "PreToolUse       Bash 6 -> 4" in proc.stdout  # 6: with the danger gate, which stays
    assert settings.read_bytes() == after_install and files_under(target) == before
    plan = json.loads(adopt(env, settings, target, "--json").stdout)
    kinds = [(Path(e["command"].split()[-1].strip('"')).name, e["kind"]) for e in plan["entries"]]
    assert kinds[:4] == [("advise_git.py", "adoptable"), ("advise_echo.py", "adoptable"),
                         ("block_rm.py", "blocker"), ("log.sh", "not adoptable")]
    assert plan["processes"] == {"PreToolUse": [["Bash", 6, 4]]}


def test_apply_moves_the_advisories_behind_the_dispatcher(installed):
    env, settings, target, _, _ = installed
    adopt(env, settings, target, "--apply")
    commands = wired_commands(settings)
    assert not any("advise_" in c for c in commands)
    assert any("block_rm.py" in c for c in commands) and any("log.sh" in c for c in commands)
    rows = {r["name"]: r for r in manifest_rows(target)}
    assert rows["adopted/advise_git"]["script"].endswith("my-hooks/advise_git.py")
    assert rows["adopted/advise_git"]["matcher"] == "^(?:Bash)$" and rows["adopted/advise_git"]["timeout"] == 10
    assert rows["adopted/advise_echo"]["timeout"] == 7
    rec = records.load(target)
    assert [r["name"] for r in rec.adopted["rows"]] == ["adopted/advise_git", "adopted/advise_echo"]
    # the wired dispatcher command, as the host runs it, gives both advisories in one line
    dispatcher = next(c for c in commands if "dispatch.py" in c)
    proc = subprocess.run(dispatcher, shell=True, input=json.dumps(BASH_PAYLOAD), capture_output=True, text=True,
                          env=env, timeout=60)
    assert proc.returncode == 0
    context = json.loads(proc.stdout)["hookSpecificOutput"]["additionalContext"]
    assert "ADVICE-GIT" in context and "ADVICE-ECHO" in context
    status = hookmux(env, "status", "--target", target, "--settings", settings, check=False)
    assert "adopted:   2 hooks" in status.stdout


def test_undo_restores_settings_and_manifest_byte_for_byte(installed):
    env, settings, target, _, after_install = installed
    before = files_under(target)
    record_before = records.path_of(target).read_bytes()
    adopt(env, settings, target, "--apply")
    assert settings.read_bytes() != after_install
    adopt(env, settings, target, "--undo")
    assert settings.read_bytes() == after_install
    assert files_under(target) == before
    assert records.path_of(target).read_bytes() == record_before
    assert not [p for p in settings.parent.iterdir() if p.name.startswith("settings.json.hookmux-backup-")][1:]


def test_uninstall_after_apply_restores_the_original_settings(installed):
    env, settings, target, original, _ = installed
    adopt(env, settings, target, "--apply")
    hookmux(env, "uninstall", "--target", target, "--settings", settings)
    assert settings.read_bytes() == original
    assert not target.exists()


def test_undo_after_other_edits_puts_entries_back_and_keeps_the_edits(installed):
    env, settings, target, _, after_install = installed
    shipped_rows = manifest_rows(target)
    adopt(env, settings, target, "--apply")
    data = json.loads(settings.read_text())
    data["theme"] = "dark"
    data["hooks"]["PreToolUse"][0]["hooks"].append({"type": "command", "command": "echo new"})
    settings.write_text(json.dumps(data, indent=4) + "\n")
    proc = adopt(env, settings, target, "--undo")
    assert "changed since adopt" in proc.stderr
    backups = sorted(p for p in settings.parent.iterdir() if "hookmux-backup" in p.name)
    assert len(backups) == 2 and backups[-1].name in proc.stderr  # install's, and adopt's (kept)
    assert not list((target / "_dispatch").glob("*hookmux-backup*"))  # the manifest came back exactly
    restored = json.loads(settings.read_text())
    expected = json.loads(after_install)
    expected["theme"] = "dark"
    expected["hooks"]["PreToolUse"][0]["hooks"].append({"type": "command", "command": "echo new"})
    assert restored == expected
    assert manifest_rows(target) == shipped_rows


def test_install_while_hooks_are_adopted_keeps_them(installed):
    env, settings, target, _, _ = installed
    adopt(env, settings, target, "--apply")
    adopted = settings.read_bytes(), manifest_rows(target)
    proc = hookmux(env, "install", "--target", target, "--settings", settings)
    assert proc.returncode == 0 and "2 adopted hook(s) kept" in proc.stderr
    assert (settings.read_bytes(), manifest_rows(target)) == adopted and records.load(target).adopted


def test_adopt_twice_is_refused_and_undo_twice_is_a_no_op(installed):
    env, settings, target, _, after_install = installed
    adopt(env, settings, target, "--apply")
    again = adopt(env, settings, target, "--apply", check=False)
    assert again.returncode == 1 and "already adopted" in again.stderr
    adopt(env, settings, target, "--undo")
    assert "nothing adopted" in adopt(env, settings, target, "--undo").stdout
    assert settings.read_bytes() == after_install


@pytest.mark.parametrize("step", ["temp", "fsync", "replace"])
def test_a_failed_write_changes_nothing(installed, step):
    env, settings, target, _, after_install = installed
    before = files_under(target)
    proc = adopt({**env, "HOOKMUX_FAULT": f"{step}::3"}, settings, target, "--apply", check=False)
    assert proc.returncode == 1 and "nothing was changed" in proc.stderr
    assert settings.read_bytes() == after_install
    assert files_under(target) == before
    assert not [p for p in settings.parent.iterdir() if "hookmux-backup" in p.name][1:]


def test_not_installed_is_refused(tmp_path):
    env, settings, target = user(tmp_path)
    proc = adopt(env, settings, target, check=False)
    assert proc.returncode == 1 and "hookmux install first" in proc.stderr


def test_project_settings_with_claude_project_dir(tmp_path):
    env, _, _ = user(tmp_path)
    project = tmp_path / "proj"
    hooks = project / ".claude" / "hooks"
    hooks.mkdir(parents=True)
    (hooks / "ctx.py").write_text((Path(__file__).parent / "adopt_helpers.py").read_text().split("ADVISE_GIT = '''")[1]
                                  .split("'''")[0])
    settings = project / ".claude" / "settings.json"
    settings.write_text(json.dumps({"hooks": {"PreToolUse": [{"matcher": "Bash|Edit", "hooks": [
        {"type": "command", "command": 'python3 "$CLAUDE_PROJECT_DIR"/.claude/hooks/ctx.py'}]}]}}, indent=2) + "\n")
    original = settings.read_bytes()
    target = project / ".claude" / "hookmux"
    hookmux(env, "install", "--target", target, "--settings", settings)
    proc = adopt(env, settings, target, "--apply")
    assert "Bash 3 -> 2" in proc.stdout and "Edit 2 -> 2" in proc.stdout  # with the danger gate (Edit: its own ground)
    spec = json.loads((target / "_dispatch" / "manifest.json").read_text())["events"]["PreToolUse"]
    assert spec["checks"][-1]["script"] == str(hooks / "ctx.py")
    assert spec["checks"][-1]["matcher"] == "^(?:Bash|Edit)$" and spec["checks"][-1]["timeout"] == 60
    assert spec["settings_timeout"] == 61
    assert set(spec["settings_matcher"].split("|")) >= {"Bash", "Edit", "edit", "bash"}
    hookmux(env, "uninstall", "--target", target, "--settings", settings)
    assert settings.read_bytes() == original


def test_copilot_hooks_file(tmp_path):
    env, _, _ = user(tmp_path)
    home = Path(env["HOME"])
    hooks_dir = home / ".copilot" / "hooks"
    hooks_dir.mkdir(parents=True)
    script = home / ".claude" / "my-hooks" / "advise_git.py"
    mine = hooks_dir / "mine.json"
    mine.write_text(json.dumps({"version": 1, "hooks": {"preToolUse": [
        {"type": "command", "bash": f"python3 {script}", "timeoutSec": 5, "matcher": "bash"},
        {"type": "command", "bash": "echo hi", "timeoutSec": 5}]}}, indent=2) + "\n")
    original = mine.read_bytes()
    target = home / ".copilot" / "hookmux-target"
    claude = home / "nowhere.json"
    hookmux(env, "install", "--target", target, "--settings", claude, "--copilot-hooks-dir", hooks_dir)
    # wired into a Claude settings file too: a row would run in Claude Code sessions as well
    proc = adopt(env, claude, target, "--copilot-hooks-dir", hooks_dir)
    assert "also runs from " + str(claude) in proc.stdout and "nothing to adopt" in proc.stdout
    os.unlink(claude)  # a Copilot-only install: forget the Claude wiring
    rec = records.load(target)
    rec.wired.pop(str(claude))
    records.path_of(target).write_bytes(rec.to_bytes())
    adopt(env, home / "nowhere.json", target, "--copilot-hooks-dir", hooks_dir, "--apply")
    assert [h["bash"] for h in json.loads(mine.read_text())["hooks"]["preToolUse"]] == ["echo hi"]
    row = manifest_rows(target)[-1]
    assert row["matcher"] == "^(?:Bash)$|^(?:bash)$" and row["timeout"] == 5
    adopt(env, home / "nowhere.json", target, "--copilot-hooks-dir", hooks_dir, "--undo")
    assert mine.read_bytes() == original


EVENT_HOOK = '''import json, sys


def main():
    payload = json.load(sys.stdin)
    print(json.dumps({"hookSpecificOutput": {"hookEventName": payload["hook_event_name"],
                                             "additionalContext": "EVENT-SEEN " + payload["hook_event_name"]}}))


if __name__ == "__main__":
    main()
'''


@pytest.mark.parametrize("event", ["SessionStart", "UserPromptSubmit"])
def test_events_without_a_tool(installed, event):
    env, settings, target, original, after_install = installed
    shipped = json.loads((target / "_dispatch" / "manifest.json").read_text())["events"]
    script = Path(env["HOME"]) / ".claude" / "my-hooks" / "on_event.py"
    script.write_text(EVENT_HOOK)
    data = json.loads(settings.read_text())
    data["hooks"].setdefault(event, []).insert(0, {"hooks": [{"type": "command", "command": f"python3 {script}"}]})
    settings.write_text(json.dumps(data, indent=2) + "\n")
    before = settings.read_bytes()
    proc = adopt(env, settings, target, "--apply")
    if event in shipped:
        assert f"{event}: settings matcher" in proc.stdout
        assert re.search(rf"{event}\s+each call 2 -> 1", proc.stdout)
    else:
        assert f"{event}: new dispatcher entry" in proc.stdout
        assert re.search(rf"{event}\s+each call 1 -> 1", proc.stdout)
    spec = json.loads((target / "_dispatch" / "manifest.json").read_text())["events"][event]
    row = spec["checks"][-1]
    assert row["name"] == "adopted/on_event" and "matcher" not in row and spec["settings_timeout"] == 61
    dispatcher = next(c for c in wired_commands(settings, event) if "dispatch.py" in c)
    proc = subprocess.run(dispatcher, shell=True, capture_output=True, text=True, env=env, timeout=60,
                          input=json.dumps({"session_id": "s", "hook_event_name": event, "prompt": "hello",
                                            "source": "startup", "cwd": "/tmp", "transcript_path": ""}))
    assert f"EVENT-SEEN {event}" in json.loads(proc.stdout)["hookSpecificOutput"]["additionalContext"]
    adopt(env, settings, target, "--undo")
    assert settings.read_bytes() == before
