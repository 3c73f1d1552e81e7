"""The user's formatting survives: only what hookmux adds or removes changes in the text."""
from __future__ import annotations

import difflib
import json

import pytest
from hypothesis import given, settings, strategies as st

from hookmux.installer.jsonedit import canon, rewrite
from install_helpers import USER_SETTINGS, Home


def test_install_only_adds_lines_and_uninstall_removes_exactly_them(tmp_path):
    h = Home(tmp_path)
    original = h.write_settings()
    h.install()
    new = h.settings.read_text()
    diff = list(difflib.unified_diff(USER_SETTINGS.splitlines(), new.splitlines(), lineterm="", n=0))
    removed = [line for line in diff[2:] if line.startswith("-")]
    added = [line for line in diff[2:] if line.startswith("+")]
    # a changed line only ever gains the comma before an appended entry
    assert {line[1:] + "," for line in removed} <= {line[1:] for line in added}
    assert len(removed) <= 1 and any("skill_redirect.py PreToolUse" in line for line in added)
    for backup in h.claude.glob("settings.json.hookmux-backup-*"):
        backup.unlink()  # no byte-exact restore from a backup: the edit itself must be exact
    h.uninstall()
    assert h.settings.read_bytes() == original


@pytest.mark.parametrize("text", [
    '{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "x"}]}]}, "model": "opus"}',
    '{\n\t"model": "opus"\n}\n',
    '{}',
    '{\n}\n',
    '  {  "a" : 1 ,\n "hooks" :{}  }  \n',
])
def test_odd_layouts_round_trip(tmp_path, text):
    h = Home(tmp_path)
    original = h.write_settings(text)
    h.install()
    data = json.loads(h.settings.read_text())
    assert any("skill_redirect.py" in hook["command"] for g in data["hooks"]["PreToolUse"] for hook in g["hooks"])
    for backup in h.claude.glob("settings.json.hookmux-backup-*"):
        backup.unlink()
    h.uninstall()
    restored = h.settings.read_bytes()
    assert json.loads(restored) == json.loads(original)
    if '"hooks"' in text:  # hookmux made no container there, so the text comes back exactly
        assert restored == original


def test_unchanged_values_keep_their_text():
    text = '{\n  "a": {"x": [1,2,   3]},\n  "b": [ "keep" ,"me" ],\n  "c": 1.50\n}'
    old = json.loads(text)
    new = json.loads(text)
    new["b"].append("new")
    new["d"] = {"k": [1]}
    out = rewrite(text, old, new, 2, False)
    assert json.loads(out) == new
    assert '"a": {"x": [1,2,   3]}' in out and '"c": 1.50' in out and '[ "keep" ,"me"' in out


json_scalars = st.one_of(st.none(), st.booleans(), st.integers(-5, 5), st.sampled_from([1.5, -0.25]),
                         st.text("ab\"\\é", max_size=3))
json_values = st.recursive(json_scalars, lambda inner: st.one_of(
    st.lists(inner, max_size=4), st.dictionaries(st.text("abc", max_size=2), inner, max_size=4)), max_leaves=12)
json_objects = st.dictionaries(st.text("abch", max_size=3), json_values, max_size=5)
layouts = st.sampled_from([None, 2, 4, "\t", "compact"])


def _format(value, layout) -> str:
    if layout == "compact":
        return json.dumps(value, separators=(",", ":"))
    return json.dumps(value, indent=layout, ensure_ascii=False)


@settings(max_examples=300, deadline=None)
@given(old=json_objects, new=json_objects, layout=layouts)
def test_rewrite_always_yields_the_new_data(old, new, layout):
    text = _format(old, layout)
    out = rewrite(text, old, new, 2 if layout in (None, "compact") else layout, False)
    assert canon(json.loads(out)) == canon(new)
    if canon(old) == canon(new):
        assert out == text


@settings(max_examples=200, deadline=None)
@given(old=json_objects, extra=json_values, layout=layouts)
def test_adding_then_removing_a_key_restores_the_text(old, extra, layout):
    text = _format(old, layout)
    new = dict(old, zz_hookmux=extra) if "zz_hookmux" not in old else old
    added = rewrite(text, old, new, 2 if layout in (None, "compact") else layout, False)
    assert canon(json.loads(added)) == canon(new)
    assert rewrite(added, new, old, 2 if layout in (None, "compact") else layout, False) == text
