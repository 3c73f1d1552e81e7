"""``hookmux install`` again (same source, or an upgrade) while hooks are adopted: the adopted
rows keep running, the settings stay adopted, and undo / uninstall still end where they would
have without the adoption."""
from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from adopt_helpers import hookmux, manifest_rows, user
from hookmux import resources
from hookmux.installer import record as records
from test_adopt_apply import BASH_PAYLOAD, adopt, files_under, wired_commands

CHECK = Path("contraindication") / "check.py"
MANIFEST = Path("_dispatch") / "manifest.json"


@pytest.fixture
def installed(tmp_path):
    env, settings, target = user(tmp_path)
    original = settings.read_bytes()
    hookmux(env, "install", "--target", target, "--settings", settings)
    return env, settings, target, original


def install(env, settings, target, *flags, check=True):
    return hookmux(env, "install", "--target", target, "--settings", settings, *flags, check=check)


def newer_tree(tmp_path: Path, rewire: bool) -> Path:
    """A copy of the package's hooks tree, upgraded: a changed shipped check, a longer timeout
    (the dispatcher entry changes with it), and with ``rewire`` a newly shipped event."""
    new = tmp_path / "newer-hooks"
    shutil.copytree(resources.hooks_tree(), new, ignore=shutil.ignore_patterns("__pycache__"))
    (new / CHECK).write_text((new / CHECK).read_text() + "\n# upgraded\n")
    manifest = json.loads((new / MANIFEST).read_text())
    pre = manifest["events"]["PreToolUse"]
    pre["settings_timeout"] = 12
    pre["checks"][0]["timeout"] = 9
    if rewire:
        manifest["events"]["PostToolUse"] = {"settings_matcher": "Bash", "settings_timeout": 10,
                                             "checks": [dict(pre["checks"][0], name="contraindication/post")]}
    (new / MANIFEST).write_text(json.dumps(manifest, indent=2) + "\n")
    return new


def dispatcher_context(env, settings: Path) -> str:
    dispatcher = next(c for c in wired_commands(settings) if "dispatch.py" in c)
    proc = subprocess.run(dispatcher, shell=True, input=json.dumps(BASH_PAYLOAD), capture_output=True, text=True,
                          env=env, timeout=60)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)["hookSpecificOutput"]["additionalContext"]


def backups(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if "hookmux-backup" in p.name)


def test_reinstall_keeps_everything_byte_for_byte(installed):
    env, settings, target, _ = installed
    after_install = settings.read_bytes()
    adopt(env, settings, target, "--apply")
    before = files_under(target), settings.read_bytes()
    dry = install(env, settings, target, "--dry-run")
    assert "@@" not in dry.stdout and (files_under(target), settings.read_bytes()) == before
    proc = install(env, settings, target)
    assert "2 adopted hook(s) kept" in proc.stderr and "edited" not in proc.stderr
    assert (files_under(target), settings.read_bytes()) == before
    assert [r["name"] for r in records.load(target).adopted["rows"]] == ["adopted/advise_git", "adopted/advise_echo"]
    status = hookmux(env, "status", "--target", target, "--settings", settings)
    assert "adopted:   2 hooks" in status.stdout and "status:    ok" in status.stdout
    assert "0 differ from the package" in status.stdout and "edited" not in status.stdout
    assert "adopted row: events.PreToolUse.checks[3](name='adopted/advise_echo')" in status.stdout
    assert "your row" not in status.stdout
    adopt(env, settings, target, "--undo")
    assert settings.read_bytes() == after_install


@pytest.mark.parametrize("rewire", [False, True], ids=["check-changed", "new-event"])
@pytest.mark.parametrize("back", ["undo", "uninstall"])
def test_upgrade_keeps_the_adoption_and_undo_ends_where_the_upgrade_alone_would(installed, tmp_path, rewire, back):
    env, settings, target, original = installed
    new = newer_tree(tmp_path, rewire)
    # what the upgrade does without adopt: the state undo must reach after an adopted upgrade
    install(env, settings, target, "--source", new)
    upgraded = settings.read_bytes(), (target / MANIFEST).read_bytes()
    install(env, settings, target)
    adopt(env, settings, target, "--apply")
    adopted_rows = [r for r in manifest_rows(target) if r["name"].startswith("adopted/")]
    proc = install(env, settings, target, "--source", new)
    assert "edited" not in proc.stderr
    assert (target / CHECK).read_bytes() == (new / CHECK).read_bytes()
    rows = manifest_rows(target)
    assert [r for r in rows if r["name"].startswith("adopted/")] == adopted_rows
    assert rows[0]["timeout"] == 9  # hookmux's row upgraded
    commands = wired_commands(settings)
    assert not any("advise_" in c for c in commands) and any("block_rm.py" in c for c in commands)
    context = dispatcher_context(env, settings)
    assert "ADVICE-GIT" in context and "ADVICE-ECHO" in context
    status = hookmux(env, "status", "--target", target, "--settings", settings)
    assert "adopted:   2 hooks" in status.stdout and "status:    ok" in status.stdout
    assert "0 differ from the package" in status.stdout
    if back == "undo":
        adopt(env, settings, target, "--undo")
        assert (settings.read_bytes(), (target / MANIFEST).read_bytes()) == upgraded
        assert len(backups(settings.parent)) == 1 and not backups(target / "_dispatch")  # install's only
        assert not records.load(target).adopted
    else:
        hookmux(env, "uninstall", "--target", target, "--settings", settings)
        assert settings.read_bytes() == original
        assert not target.exists()


def test_upgrade_dry_run_shows_the_plan_and_writes_nothing(installed, tmp_path):
    env, settings, target, _ = installed
    new = newer_tree(tmp_path, rewire=True)
    adopt(env, settings, target, "--apply")
    before = files_under(target), settings.read_bytes(), files_under(settings.parent)
    proc = install(env, settings, target, "--source", new, "--dry-run")
    assert f"write  {target / CHECK}" in proc.stdout and "PostToolUse" in proc.stdout
    assert (files_under(target), settings.read_bytes(), files_under(settings.parent)) == before


@pytest.mark.parametrize("nth", [4, 6, 7])
def test_a_failed_upgrade_changes_nothing(installed, tmp_path, nth):
    env, settings, target, _ = installed
    new = newer_tree(tmp_path, rewire=True)
    adopt(env, settings, target, "--apply")
    before = files_under(target), files_under(settings.parent)
    proc = install({**env, "HOOKMUX_FAULT": f"replace::{nth}"}, settings, target, "--source", new, check=False)
    assert proc.returncode == 1 and "nothing was changed" in proc.stderr
    assert (files_under(target), files_under(settings.parent)) == before


def test_an_adopted_event_hookmux_does_not_ship_survives_a_reinstall(installed):
    env, settings, target, _ = installed
    script = Path(env["HOME"]) / ".claude" / "my-hooks" / "on_start.py"
    script.write_text("import json, sys\n\n\ndef main():\n    json.load(sys.stdin)\n    print(json.dumps("
                      "{'hookSpecificOutput': {'hookEventName': 'SessionStart', 'additionalContext': 'STARTED'}}))"
                      "\n\n\nif __name__ == '__main__':\n    main()\n")
    data = json.loads(settings.read_text())
    data["hooks"]["SessionStart"] = [{"hooks": [{"type": "command", "command": f"python3 {script}"}]}]
    settings.write_text(json.dumps(data, indent=2) + "\n")
    before_adopt = settings.read_bytes()
    adopt(env, settings, target, "--apply")
    # a row added by hand after adopt stays where it is, the adopted rows around it
    manifest = json.loads((target / MANIFEST).read_text())
    mine = {"name": "mine", "script": str(script), "timeout": 5}
    manifest["events"]["PreToolUse"]["checks"].insert(-1, mine)
    (target / MANIFEST).write_text(json.dumps(manifest, indent=2) + "\n")
    adopted = (target / MANIFEST).read_bytes(), settings.read_bytes()
    install(env, settings, target)
    assert ((target / MANIFEST).read_bytes(), settings.read_bytes()) == adopted
    assert manifest_rows(target, "SessionStart")[0]["name"] == "adopted/on_start"
    adopt(env, settings, target, "--undo")
    assert settings.read_bytes() == before_adopt
    assert mine in manifest_rows(target) and "SessionStart" not in json.loads((target / MANIFEST).read_text())["events"]


def test_wiring_one_more_file_while_adopted_is_refused(installed):
    env, settings, target, _ = installed
    adopt(env, settings, target, "--apply")
    before = files_under(target), settings.read_bytes()
    copilot = Path(env["HOME"]) / ".copilot" / "hooks"
    proc = install(env, settings, target, "--copilot-hooks-dir", copilot, check=False)
    assert proc.returncode == 1 and "adopted hooks would run from it too" in proc.stderr
    assert "nothing was changed" in proc.stderr and not copilot.exists()
    assert (files_under(target), settings.read_bytes()) == before
