"""The live manifest belongs to the user too: install, upgrade and uninstall keep the user's rows."""
from __future__ import annotations

import json

import pytest

from authoring_helpers import USER_ROW, Home, add_user_row, make_source, manifest_path, rows, status
from hookmux_testing import DISPATCH, run_hook


@pytest.fixture
def h(tmp_path):
    h = Home(tmp_path)
    h.write_settings()
    return h


def _upgraded_source(h: Home):
    """A hooks tree whose hookmux rows changed: a new timeout and a second shipped row."""
    def patch(manifest):
        rows = manifest["events"]["PreToolUse"]["checks"]
        rows[0]["timeout"] = 7
        rows.append({"name": "sample/again", "script": "sample/check.py", "timeout": 5, "matcher": "^Bash$"})
    return make_source(h.root / "v2", patch)


def _dispatch(h: Home, event: str = "PreToolUse") -> str:
    payload = {"session_id": "s", "hook_event_name": event, "tool_name": "Bash", "tool_input": {"command": "ls"}}
    result = run_hook(DISPATCH, ["--manifest", str(manifest_path(h)), event], json.dumps(payload), h.env)
    return result.stdout.decode()


def test_a_hand_added_row_survives_reinstall_and_upgrade_byte_for_byte_and_uninstall_keeps_it(h):
    h.install()
    add_user_row(h)
    assert "mine saw Bash" in _dispatch(h)

    h.install()
    h.install()
    assert USER_ROW in manifest_path(h).read_text()
    assert [r["name"] for r in rows(h)] == ["mine/check", "sample/check"]

    (h.root / "v2").mkdir()
    h.source = _upgraded_source(h)
    out = h.install()
    text = manifest_path(h).read_text()
    assert USER_ROW in text  # the user's exact bytes: spacing, key order, one line
    assert [(r["name"], r.get("timeout")) for r in rows(h)] == [("mine/check", 3), ("sample/check", 7),
                                                                  ("sample/again", 5)]
    assert "backup" not in out.stderr and not list(manifest_path(h).parent.glob("*hookmux-backup*"))
    assert "mine saw Bash" in _dispatch(h) and "sample saw Bash" in _dispatch(h)

    report = status(h)
    assert report.returncode == 0, report.stdout
    assert "your row: events.PreToolUse.checks[0](name='mine/check')" in report.stdout
    assert "modified" not in report.stdout.replace("0 modified", "")

    h.uninstall()
    left = json.loads(manifest_path(h).read_text())
    assert [r["name"] for e in left["events"].values() for r in e["checks"]] == ["mine/check"]
    assert USER_ROW in manifest_path(h).read_text()
    assert (h.target / "mine" / "check.py").is_file()
    assert not (h.target / "_dispatch" / "dispatch.py").exists()

    h.install()
    assert USER_ROW in manifest_path(h).read_text()
    assert "mine saw Bash" in _dispatch(h) and "sample saw Bash" in _dispatch(h)


def test_a_row_of_hookmux_the_user_edited_is_kept_and_reported(h):
    h.install()
    path = manifest_path(h)
    path.write_text(path.read_text().replace('"timeout": 8', '"timeout": 6', 1))
    (h.root / "v2").mkdir()
    h.source = _upgraded_source(h)
    out = h.install()
    assert "hookmux's row as you edited it is kept" in out.stderr
    assert rows(h)[0]["name"] == "sample/check" and rows(h)[0]["timeout"] == 6
    report = status(h)
    assert report.returncode == 0
    assert "as you edited it (kept by install): events.PreToolUse.checks[0](name='sample/check')" in report.stdout


def test_a_deleted_hookmux_row_is_reported_and_put_back(h):
    h.install()
    data = json.loads(manifest_path(h).read_text())
    del data["events"]["Stop"]
    manifest_path(h).write_text(json.dumps(data, indent=2))
    report = status(h)
    assert report.returncode == 1 and "hookmux's rows missing: events.Stop.checks(name='sample/stop')" in report.stdout
    h.install()
    assert [r["name"] for r in rows(h, "Stop")] == ["sample/stop"]


def test_an_unreachable_row_widens_the_matcher_hookmux_owns(tmp_path):
    h = Home(tmp_path)
    h.source = make_source(tmp_path / "narrow", lambda m: m["events"]["PreToolUse"].update(settings_matcher="Bash|bash"))
    h.install()
    add_user_row(h, '{"name": "mine/edits", "script": "mine/check.py", "matcher": "^(Edit|Write)$"}')
    report = status(h)
    assert report.returncode == 1 and "checks[0](name='mine/edits') never runs" in report.stdout
    out = h.install()
    assert "settings_matcher widened to 'Bash|bash|Edit|edit|Write|create'" in out.stderr
    wired = json.loads(h.settings.read_text())["hooks"]["PreToolUse"]
    assert any(g.get("matcher") == "Bash|bash|Edit|edit|Write|create" for g in wired)
    assert status(h).returncode == 0


def test_a_matcher_the_user_set_is_not_changed_but_install_names_the_fix(tmp_path):
    h = Home(tmp_path)
    h.install()
    data = json.loads(manifest_path(h).read_text())
    data["events"]["PostToolUse"] = {"settings_matcher": "Read", "settings_timeout": 10, "checks": [
        {"name": "mine/edits", "script": "mine/check.py", "matcher": "^Edit$"}]}
    manifest_path(h).write_text(json.dumps(data, indent=2))
    (h.target / "mine").mkdir()
    (h.target / "mine" / "check.py").write_text("def main():\n    pass\n")
    before = manifest_path(h).read_bytes()
    result = h.install(check=False)
    assert result.returncode == 1
    assert ("events.PostToolUse.checks[0](name='mine/edits'): never runs: your events.PostToolUse.settings_matcher "
            "'Read' lets none of its tools through; set it to 'Read|Edit|edit'") in result.stderr
    assert manifest_path(h).read_bytes() == before


def test_a_user_row_named_like_a_shipped_row_is_refused(tmp_path):
    h = Home(tmp_path)
    h.install()
    (h.root / "v2").mkdir()
    add_user_row(h, '{"name": "sample/again", "script": "mine/check.py"}')
    h.source = _upgraded_source(h)
    result = h.install(check=False)
    assert result.returncode == 1 and "has the name of a row hookmux ships; rename yours" in result.stderr


def test_a_live_manifest_that_is_not_json_is_refused_with_its_line(h):
    h.install()
    path = manifest_path(h)
    path.write_text(path.read_text().replace('"checks": [', '"checks": [,', 1))
    before = path.read_bytes()
    result = h.install(check=False)
    assert result.returncode == 1 and f"{path}:" in result.stderr and "invalid JSON" in result.stderr
    assert path.read_bytes() == before


def test_dry_run_shows_the_merge_as_a_diff_and_writes_nothing(h):
    h.install()
    add_user_row(h)
    (h.root / "v2").mkdir()
    h.source = _upgraded_source(h)
    before = manifest_path(h).read_bytes()
    out = h.install("--dry-run").stdout
    assert f"--- {manifest_path(h)}" in out and '-          "timeout": 8,' in out and '+          "timeout": 7,' in out
    assert USER_ROW not in [line[1:].strip() for line in out.splitlines() if line[:1] in "+-"]
    assert manifest_path(h).read_bytes() == before
