"""hooks/_common/manifest.py: defaults applied once, hooks_root resolved once, lenient rows."""
from __future__ import annotations

import json
import os
import sys

import pytest

from hookmux_testing import HOOKS

sys.path.insert(0, str(HOOKS))
from _common import manifest  # noqa: E402


def test_defaults_are_filled_in(tmp_path):
    loaded = manifest.from_data({"hooks_root": str(tmp_path), "events": {"PreToolUse": {"checks": [
        {"name": "a", "script": "a/check.py"}]}}})
    row = loaded.rows("PreToolUse")[0]
    assert (row.timeout, row.args, row.matcher, row.isolate, row.side_effect, row.emits, row.slow, row.problem) == (
        8.0, [], None, (), "none", True, False, None)
    assert row.path == str(tmp_path / "a" / "check.py")
    assert (row.label(), row.ref()) == ("[0] a", "events.PreToolUse.checks[0](name='a')")
    assert loaded.events["PreToolUse"].settings_timeout is None


def test_malformed_rows_are_kept_with_a_problem(tmp_path):
    rows = ["junk", {"name": "no script"}, {"script": "x.py", "timeout": True, "args": "nope", "emits": 0}]
    loaded = manifest.from_data({"hooks_root": str(tmp_path), "events": {"Stop": {"checks": rows}}})
    assert [row.problem for row in loaded.rows("Stop")] == ["malformed row", "malformed row", None]
    last = loaded.rows("Stop")[2]
    assert (last.timeout, last.args, last.emits, last.label()) == (8.0, [], True, "[2] ?")
    assert loaded.rows("PreToolUse") == []


def test_shipped_manifest_loads():
    loaded = manifest.load(str(HOOKS / "_dispatch" / "manifest.json"), hooks_root=str(HOOKS))
    rows = [row for entry in loaded.events.values() for row in entry.rows]
    assert "contraindication/check" in [row.name for row in rows]
    assert all(os.path.isfile(row.path) and row.problem is None for row in rows)


@pytest.mark.parametrize("text", ["{not json", "[]", "", '{"events": {}}'])
def test_unusable_manifest_is_a_manifest_error(tmp_path, text):
    path = tmp_path / "m.json"
    path.write_text(text)
    with pytest.raises(manifest.ManifestError):
        manifest.load(str(path))


def test_relative_hooks_root_is_relative_to_the_manifest_and_expands(tmp_path, monkeypatch):
    path = tmp_path / "sub" / "m.json"
    path.parent.mkdir()
    path.write_text(json.dumps({"hooks_root": "../hooks", "events": {}}))
    assert manifest.load(str(path)).hooks_root == str(tmp_path / "hooks")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("HM_ROOT", str(tmp_path / "var"))
    assert manifest.resolve_hooks_root({"hooks_root": "~/h"}, str(path)) == str(tmp_path / "home" / "h")
    assert manifest.resolve_hooks_root({"hooks_root": "$HM_ROOT/h"}, str(path)) == str(tmp_path / "var" / "h")


def test_absolute_hooks_root_is_never_expanded(tmp_path, monkeypatch):
    monkeypatch.setenv("b", "EXPANDED")
    literal = str(tmp_path / "a$b" / "~x")
    assert manifest.resolve_hooks_root({"hooks_root": literal}, None) == literal
    assert manifest.resolve_hooks_root({}, None, override=literal) == literal


def test_override_is_relative_to_the_cwd(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert manifest.resolve_hooks_root({"hooks_root": "/elsewhere"}, "/m/m.json", override="h") == str(tmp_path / "h")
