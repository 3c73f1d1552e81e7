"""hooks/_common/layers.py: the user's and a trusted project's manifests merged over the shipped one."""
from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from hookmux_testing import DISPATCH, HOOKS, hermetic_env, one_json_line, run_hook

sys.path.insert(0, str(HOOKS))
from _common import layers, manifest  # noqa: E402

CHECK = '''import json


def main():
    print(json.dumps({"additionalContext": "%s"}))
'''


def base(tmp_path):
    return manifest.from_data({"hooks_root": str(tmp_path / "shipped"), "events": {
        "PreToolUse": {"settings_matcher": "Bash", "checks": [
            {"name": "a", "script": "a.py", "matcher": "^Bash$"}, {"name": "b", "script": "b.py"}]},
        "UserPromptSubmit": {"checks": [{"name": "b", "script": "b.py"}]}}})


def names(loaded, event):
    return [(row.name, row.problem) for row in loaded.rows(event)]


def test_a_layer_adds_rows_after_the_shipped_ones_relative_to_its_folder(tmp_path):
    path = str(tmp_path / "user" / "manifest.json")
    merged = layers.merge(base(tmp_path), [(path, {"events": {
        "PreToolUse": {"checks": [{"name": "mine", "script": "checks/mine.py"}]},
        "PostToolUse": {"settings_matcher": "Edit", "checks": [{"name": "post", "script": "p.py"}]}}})])
    assert names(merged, "PreToolUse") == [("a", None), ("b", None), ("mine", None)]
    mine = merged.rows("PreToolUse")[2]
    assert (mine.index, mine.path, mine.layer) == (2, str(tmp_path / "user" / "checks" / "mine.py"), path)
    assert merged.events["PostToolUse"].settings_matcher == "Edit"
    assert merged.layers == [path] and merged.problems == []


def test_disabled_turns_a_name_off_in_every_event_and_enabled_false_in_one(tmp_path):
    shipped = base(tmp_path)
    merged = layers.merge(shipped, [("u", {"disabled": ["b"]})])
    assert names(merged, "PreToolUse") == [("a", None), ("b", "turned off by u")]
    assert names(merged, "UserPromptSubmit") == [("b", "turned off by u")]
    one = layers.merge(shipped, [("u", {"events": {"UserPromptSubmit": {"checks": [{"name": "b", "enabled": False}]}}})])
    assert names(one, "PreToolUse") == [("a", None), ("b", None)]
    assert names(one, "UserPromptSubmit") == [("b", "turned off by u")]
    # The base manifest (a resident server keeps it) is never changed.
    assert names(shipped, "UserPromptSubmit") == [("b", None)]


def test_a_same_name_is_an_error_and_the_earlier_row_stays(tmp_path):
    merged = layers.merge(base(tmp_path), [
        ("u", {"events": {"PreToolUse": {"checks": [{"name": "a", "script": "evil.py"}, {"name": "x", "script": "x.py"}]}}}),
        ("p", {"events": {"PreToolUse": {"checks": [{"name": "x", "script": "other.py"}]}}})])
    rows = merged.rows("PreToolUse")
    assert [(row.name, row.script) for row in rows] == [("a", "a.py"), ("b", "b.py"), ("x", "x.py")]
    errors = [message for severity, message in merged.problems if severity == "error"]
    assert len(errors) == 2
    assert "u: events.PreToolUse.checks[0](name='a')" in errors[0] and "shipped manifest" in errors[0]
    assert "p: events.PreToolUse.checks[0](name='x')" in errors[1] and "in u" in errors[1]


def test_turning_a_row_off_first_lets_a_layer_add_its_own_of_that_name(tmp_path):
    merged = layers.merge(base(tmp_path), [("u", {"disabled": ["a"], "events": {"PreToolUse": {"checks": [
        {"name": "a", "script": "mine.py"}]}}})])
    assert [(row.name, row.script, row.problem) for row in merged.rows("PreToolUse")] == [
        ("a", "a.py", "turned off by u"), ("b", "b.py", None), ("a", "mine.py", None)]
    assert merged.problems == []


def test_names_that_turn_nothing_off_and_unusable_layers_are_reported(tmp_path):
    merged = layers.merge(base(tmp_path), [
        ("u", {"disabled": ["nope", 3]}), ("bad", layers.Unreadable("JSONDecodeError")), ("list", [1])])
    assert [severity for severity, _ in merged.problems] == ["warning", "warning", "error", "error"]
    assert merged.layers == ["u"]
    assert names(merged, "PreToolUse") == [("a", None), ("b", None)]


@pytest.mark.parametrize("project, trusted, expected", [
    ("/w/team/app", ["/w/team"], "/w/team"),
    ("/w/team/app/sub", ["/w/team", "/w/team/app"], "/w/team/app"),
    ("/w/teammate", ["/w/team"], None),
    ("/w/team", ["relative/team", 7], None),
    ("relative", ["/w"], None),
])
def test_the_project_layer_is_read_only_under_a_trusted_folder(project, trusted, expected):
    found = layers.project_layer_path({"trusted_projects": trusted}, project)
    assert found == (os.path.join(expected, ".hookmux", "manifest.json") if expected else None)


def write_layer(folder: Path, rows: list[dict], **extra) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "manifest.json").write_text(json.dumps({"events": {"PreToolUse": {"checks": rows}}, **extra}))
    return folder / "manifest.json"


def test_stat_calls_without_a_layer_one_with_a_user_layer_two_with_a_trusted_project(tmp_path, monkeypatch):
    calls = []
    real_stat = os.stat
    monkeypatch.setattr(os, "stat", lambda path, *a, **k: calls.append(path) or real_stat(path, *a, **k))
    environ = {"XDG_CONFIG_HOME": str(tmp_path / "config"), "HOME": str(tmp_path)}
    shipped = base(tmp_path)
    assert manifest.with_layers(shipped, "/somewhere", environ) is shipped
    assert len(calls) == 1
    assert manifest.with_layers(shipped, "/x", dict(environ, HOOKMUX_LAYERS="0")) is shipped and len(calls) == 1
    project = tmp_path / "proj"
    write_layer(tmp_path / "config" / "hookmux", [], trusted_projects=[str(project)])
    calls.clear()
    manifest.with_layers(shipped, str(project / "sub"), environ)
    assert len(calls) == 2  # the user layer, then the trusted project's (absent)


def user_check(tmp_path, text):
    folder = tmp_path / "config" / "hookmux"
    (folder / "checks").mkdir(parents=True, exist_ok=True)
    (folder / "checks" / "mine.py").write_text(CHECK % text)
    return folder


def bash_payload(cwd):
    return json.dumps({"session_id": "s", "hook_event_name": "PreToolUse", "tool_name": "Bash", "cwd": str(cwd),
                       "tool_input": {"command": "ls"}})


def test_the_dispatcher_runs_a_user_row_and_a_trusted_projects_row(tmp_path):
    project = tmp_path / "proj"
    (project / ".hookmux" / "checks").mkdir(parents=True)
    (project / ".hookmux" / "checks" / "team.py").write_text(CHECK % "team says hi")
    write_layer(project / ".hookmux", [{"name": "team", "script": "checks/team.py", "matcher": "^Bash$"}])
    folder = user_check(tmp_path, "user says hi")
    row = {"name": "mine", "script": "checks/mine.py", "matcher": "^Bash$"}
    env = hermetic_env(tmp_path)

    write_layer(folder, [row])
    out = run_hook(DISPATCH, ["PreToolUse"], bash_payload(project), env)
    assert out.returncode == 0
    assert one_json_line(out.stdout)["hookSpecificOutput"]["additionalContext"] == "user says hi"

    write_layer(folder, [row], trusted_projects=[str(project)])
    out = run_hook(DISPATCH, ["PreToolUse"], bash_payload(project / "src"), env)
    assert one_json_line(out.stdout)["hookSpecificOutput"]["additionalContext"] == "user says hi\n\nteam says hi"


def test_the_dispatcher_keeps_the_shipped_row_on_a_clash_and_traces_why(tmp_path):
    folder = user_check(tmp_path, "impostor")
    write_layer(folder, [{"name": "contraindication/check", "script": "checks/mine.py", "matcher": "^Bash$"}])
    out = run_hook(DISPATCH, ["--trace", "PreToolUse"], bash_payload(tmp_path), hermetic_env(tmp_path))
    assert out.returncode == 0 and out.stdout == b""
    assert b"layer error: " in out.stderr and b"never replaces one" in out.stderr


def test_a_broken_user_layer_fails_open(tmp_path):
    payload = json.dumps({"session_id": "s", "hook_event_name": "PreToolUse", "tool_name": "Bash", "cwd": "/",
                          "tool_input": {"command": "git push --force origin main"}})
    args = ["--hooks-root", str(HOOKS), "PreToolUse"]
    (tmp_path / "a").mkdir()
    without = run_hook(DISPATCH, args, payload, hermetic_env(tmp_path / "a"))
    (tmp_path / "b" / "config" / "hookmux").mkdir(parents=True)
    (tmp_path / "b" / "config" / "hookmux" / "manifest.json").write_text("{not json")
    broken = run_hook(DISPATCH, args, payload, hermetic_env(tmp_path / "b"))
    assert broken.returncode == 0
    assert broken.stdout == without.stdout and b"additionalContext" in broken.stdout
