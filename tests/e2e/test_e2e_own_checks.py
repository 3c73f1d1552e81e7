"""A user's own checks in a live install, through the real Claude Code and Copilot CLI: one made
by ``hookmux new-check`` and one added by hand both run, survive reinstalls and an upgrade
byte for byte, and stay when hookmux is uninstalled."""
from __future__ import annotations

import json
import shutil

from e2e_expect import ADVISORY_PREFIX, COPILOT_PRE_CONTEXT
from e2e_fixtures import claude_cli, copilot_cli, hookmux_installer, sandbox  # noqa: F401 (pytest fixtures)
from hookmux.standin.anthropic import ToolUse
from hookmux import resources
from hookmux.installer import jsonedit

HAND_CHECK = '''import json, sys


def main():
    sys.stdin.read()
    print(json.dumps({"additionalContext": "e2e-by-hand says hi"}))
'''
HAND_ROW = '{ "name": "by-hand",  "script": "by-hand/check.py", "matcher": "^Bash$",  "timeout": 4 }'
COMMAND = {"command": "echo e2e-own-checks"}


def _manifest(sandbox):
    return sandbox.claude_target / "_dispatch" / "manifest.json"


def _row_texts(sandbox) -> dict[str, str]:
    """name -> the exact text of each PreToolUse row in the live manifest."""
    text = _manifest(sandbox).read_text()
    root = jsonedit.parse(text)
    events = root.children[root.keys.index("events")]
    pre = events.children[events.keys.index("PreToolUse")]
    checks = pre.children[pre.keys.index("checks")]
    return {json.loads(text[n.start:n.end])["name"]: text[n.start:n.end] for n in checks.children}


def _add_own_checks(sandbox) -> dict[str, str]:
    """The scaffolded check (answering, with the kit) and a row typed by hand; their row texts."""
    sandbox.hookmux("new-check", "e2e-mine", "--matcher", "^Bash$", "--target", sandbox.claude_target)
    check = sandbox.claude_target / "e2e-mine" / "check.py"
    check.write_text(check.read_text().replace(
        'return ""', 'return "e2e-mine saw %s via %s" % (event.tool_name, event.host)', 1))
    (sandbox.claude_target / "by-hand").mkdir()
    (sandbox.claude_target / "by-hand" / "check.py").write_text(HAND_CHECK)
    text = _manifest(sandbox).read_text()
    at = text.index('"checks": [', text.index('"PreToolUse"')) + len('"checks": [')
    _manifest(sandbox).write_text(text[:at] + "\n        " + HAND_ROW + "," + text[at:])
    rows = _row_texts(sandbox)
    assert rows["by-hand"] == HAND_ROW
    return {name: rows[name] for name in ("by-hand", "e2e-mine")}


def _upgrade_source(sandbox):
    """The package's hooks tree with hookmux's own row changed (timeout, args)."""
    source = sandbox.root / "hooks-v2"
    shutil.copytree(resources.hooks_tree(), source, ignore=shutil.ignore_patterns("__pycache__"))
    manifest = json.loads((source / "_dispatch" / "manifest.json").read_text())
    row = manifest["events"]["PreToolUse"]["checks"][0]
    row["timeout"], row["args"] = 7, ["--upgraded"]
    (source / "_dispatch" / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")
    return source


def _reinstall_and_upgrade(sandbox, where: list, mine: dict[str, str]) -> None:
    sandbox.hookmux("install", *where)
    sandbox.hookmux("install", *where)
    assert {k: v for k, v in _row_texts(sandbox).items() if k in mine} == mine
    sandbox.hookmux("install", *where, "--source", _upgrade_source(sandbox))
    rows = _row_texts(sandbox)
    assert {k: v for k, v in rows.items() if k in mine} == mine  # byte-identical
    assert json.loads(rows["contraindication/check"])["timeout"] == 7  # hookmux's own row was upgraded
    names = list(rows)  # places kept: first (typed at the top) and last (appended by new-check)
    assert names[0] == "by-hand" and names[-1] == "e2e-mine" and "contraindication/check" in names[1:-1]


def _uninstall_keeps_them(sandbox, where: list, mine: dict[str, str]) -> None:
    sandbox.hookmux("uninstall", *where)
    assert _row_texts(sandbox) == mine
    assert (sandbox.claude_target / "e2e-mine" / "check.py").is_file()
    assert (sandbox.claude_target / "by-hand" / "check.py").is_file()
    assert not (sandbox.claude_target / "_dispatch" / "dispatch.py").exists()


def test_own_checks_run_in_claude_code_and_survive_reinstall_upgrade_and_uninstall(claude_cli, sandbox):
    where = ["--target", sandbox.claude_target, "--settings", sandbox.user_settings]
    sandbox.install_claude_user()
    mine = _add_own_checks(sandbox)
    _reinstall_and_upgrade(sandbox, where, mine)
    assert sandbox.hookmux("status", *where).stdout.count("your row:") == 2

    run = sandbox.claude(claude_cli, [ToolUse("Bash", COMMAND)], "--allowedTools", "Bash")
    assert run.proc.returncode == 0, run.proc.stderr
    seen = run.after(0)
    assert seen.result == "e2e-own-checks"
    advice = [text for text in seen.extra if text.startswith(ADVISORY_PREFIX)]
    assert advice == [ADVISORY_PREFIX + "e2e-by-hand says hi\n\ne2e-mine saw Bash via claude"], seen.extra
    assert run.claude_hook_errors() == []

    _uninstall_keeps_them(sandbox, where, mine)
    sandbox.hookmux("install", *where)  # a later install runs them again
    assert {k: v for k, v in _row_texts(sandbox).items() if k in mine} == mine
    again = sandbox.claude(claude_cli, [ToolUse("Bash", COMMAND)], "--allowedTools", "Bash")
    assert any("e2e-mine saw Bash via claude" in text for text in again.after(0).extra)


def test_own_checks_run_in_copilot_and_survive_reinstall_upgrade_and_uninstall(copilot_cli, sandbox):
    where = ["--target", sandbox.claude_target, "--settings", sandbox.user_settings,
             "--copilot-hooks-dir", sandbox.copilot_hooks_dir]
    sandbox.install_copilot_user()
    mine = _add_own_checks(sandbox)
    _reinstall_and_upgrade(sandbox, where, mine)

    run = sandbox.copilot(copilot_cli, [ToolUse("bash", COMMAND)])
    assert run.proc.returncode == 0, run.proc.stderr
    seen = run.after(0)
    assert "e2e-own-checks" in seen.result
    advice = [text for text in seen.extra if text.startswith(COPILOT_PRE_CONTEXT)]
    assert advice == [COPILOT_PRE_CONTEXT + "e2e-by-hand says hi\n\ne2e-mine saw Bash via copilot"], seen.extra

    _uninstall_keeps_them(sandbox, where, mine)
