"""``hookmux doctor`` on Gemini CLI: the settings install (``~/.gemini/settings.json``, a project's
``.gemini/settings.json``) and the hookmux extension where Gemini keeps it (``~/.gemini/extensions/``,
as ``gemini extensions link`` / ``install`` 0.61.0 leave it: docs/e2e.md, "Gemini CLI 0.61.0" item 8),
each canary through the exact command line as Gemini runs it (``bash -c``, the ms timeout), in a
temporary HOME. Healthy installs pass; broken ones are named with their fixes."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from hookmux_testing import gemini_extension_checkout, gemini_extension_link, hermetic_env

from hookmux.doctor.answers import problems as answer_problems

GEMINI_EVENTS = {"BeforeTool", "AfterTool", "BeforeAgent"}


class Gemini:
    def __init__(self, tmp_path: Path):
        self.root = tmp_path
        self.env = hermetic_env(tmp_path)
        self.env.pop("GEMINI_CLI_HOME", None)
        self.home = Path(self.env["HOME"])
        self.gemini = self.home / ".gemini"
        self.gemini.mkdir()
        self.settings = self.gemini / "settings.json"
        self.settings.write_text(json.dumps({"security": {"auth": {"selectedType": "gemini-api-key"}}}, indent=2))
        self.project = tmp_path / "project"
        self.project.mkdir()
        self.extensions = self.gemini / "extensions"

    def hookmux(self, *args, check=False):
        result = subprocess.run([sys.executable, "-m", "hookmux.cli", *args], capture_output=True, text=True,
                                env=self.env, cwd=str(self.project), timeout=300)
        if check:
            assert result.returncode == 0, result.stdout + result.stderr
        return result

    def install(self, *args):
        return self.install_into(self.gemini, *args)

    def install_into(self, gemini_home: Path, *args):
        return self.hookmux("install", "--gemini-home", str(gemini_home), *args, check=True)

    def checkout(self) -> Path:
        return gemini_extension_checkout(self.root / "checkout")

    def link(self, folder: Path, overrides=None) -> None:
        gemini_extension_link(self.gemini, folder, overrides)

    def install_copy(self, folder: Path) -> Path:
        """What `gemini extensions install DIR` leaves: a copy, whose install file names the source."""
        copy = self.extensions / "hookmux"
        shutil.copytree(folder, copy)
        (copy / ".gemini-extension-install.json").write_text(json.dumps({"source": str(folder), "type": "local"}))
        (self.extensions / "extension-enablement.json").write_text(
            json.dumps({"hookmux": {"overrides": [f"{self.home}/*"]}}))
        return copy

    def doctor(self, *args) -> dict:
        result = self.hookmux("doctor", "--json", *args)
        assert result.returncode in (0, 1), result.stderr
        report = json.loads(result.stdout)
        assert report["ok"] == (result.returncode == 0)
        return report


def problems(report) -> str:
    return "\n".join(f"{p['where']}: {p['problem']} FIX {p['fix']}" for p in report["problems"])


def gemini_wirings(report, file=None):
    """The Gemini files that wire hookmux (``file``: that one; the user's own settings.json is looked
    at too, and holds no hookmux hook before an install)."""
    return [w for w in report["wirings"] if w["format"] == "gemini" and w["hooks"]
            and (file is None or w["file"] == str(file))]


def tree_state(root: Path) -> dict:
    """Every file's mtime and size, but Python's bytecode cache: a canary leaves it in an extension
    folder that has none, as Gemini's first call would (docs/doctor.md, "The plugin")."""
    return {str(path): (path.stat().st_mtime_ns, path.stat().st_size) for path in root.rglob("*")
            if path.is_file() and not path.is_symlink() and "__pycache__" not in path.parts}


@pytest.fixture
def gemini(tmp_path):
    return Gemini(tmp_path)


def assert_fired_as_gemini_runs_it(wiring):
    assert {hook["event"] for hook in wiring["hooks"]} == GEMINI_EVENTS
    for hook in wiring["hooks"]:
        assert hook["canary"], hook
        for run in hook["canary"]:
            assert run["fired"] and run["accepted"] and run["exit"] == 0, run
            assert run["shell"] == "bash" and run["host"] == "gemini", run
            if hook["role"] == "dispatch":  # the proof: the record the dispatcher wrote in the sandbox
                assert run["ledger"] and run["ledger"][-1]["host"] == "gemini", run
                assert run["stdout"] == "" and run["stderr"] == "", run  # silent: 2>/dev/null and a harmless call
        if hook["role"] == "danger":
            verdict = json.loads(hook["canary"][0]["stdout"])
            assert verdict["decision"] == "deny" and verdict["reason"], verdict  # Gemini's flat deny


def test_a_healthy_settings_install_passes_through_the_exact_lines(gemini, tmp_path):
    gemini.install()
    before = tree_state(tmp_path)
    report = gemini.doctor()
    assert tree_state(tmp_path) == before, "doctor wrote outside its temporary folder"
    assert report["problems"] == [], problems(report)
    [wiring] = gemini_wirings(report, gemini.settings)
    assert wiring["loaded_by"] == ["gemini"]
    assert_fired_as_gemini_runs_it(wiring)
    after = next(hook for hook in wiring["hooks"] if hook["event"] == "AfterTool")
    assert after["timeout"] == 10000 and after["canary"][0]["ledger"][0]["event"] == "PostToolUse"
    # The advisory row (PreToolUse in the manifest) runs after the call on Gemini: its canary is AfterTool's.
    [target] = [t for t in report["targets"] if t["target"].endswith(os.path.join(".claude", "hooks"))]
    row = next(r for r in target["rows"] if r["name"] == "contraindication/check")
    assert [c["trace"] for c in row["canary"] if c["file"] == str(gemini.settings)][0].startswith("selected")
    assert any(r["host"] == "gemini" and r["reachable"] for r in row["reach"])


def test_the_project_form_is_found_in_the_projects_gemini_folder(gemini):
    project_gemini = gemini.project / ".gemini"
    project_gemini.mkdir()
    gemini.install_into(project_gemini)
    report = gemini.doctor()
    assert report["problems"] == [], problems(report)
    [wiring] = gemini_wirings(report, project_gemini / "settings.json")
    assert_fired_as_gemini_runs_it(wiring)


def test_a_linked_extension_is_run_from_its_source_and_passes(gemini, tmp_path):
    source = gemini.checkout()
    gemini.link(source)
    before = tree_state(tmp_path)
    report = gemini.doctor()
    assert tree_state(tmp_path) == before, "doctor wrote outside its temporary folder"
    assert report["problems"] == [], problems(report)
    [extension] = report["gemini_extensions"]
    assert extension["kind"] == "link" and extension["root"] == str(source) and extension["enabled"]
    [wiring] = gemini_wirings(report)
    assert wiring["file"] == str(source / "hooks" / "hooks.json") and wiring["extension"]["root"] == str(source)
    assert_fired_as_gemini_runs_it(wiring)  # Gemini's events only: the file's Claude events are not Gemini's
    for hook in wiring["hooks"]:  # ${extensionPath} put in, as Gemini does before it runs the line
        assert "${extensionPath}" not in hook["command"] and str(source / "hooks") in hook["command"]
        assert hook["command"].startswith("python3 ")


def test_an_installed_copy_of_the_extension_is_run_from_the_copy(gemini):
    copy = gemini.install_copy(gemini.checkout())
    report = gemini.doctor()
    assert report["problems"] == [], problems(report)
    [wiring] = gemini_wirings(report)
    assert wiring["file"] == str(copy / "hooks" / "hooks.json")
    assert_fired_as_gemini_runs_it(wiring)


def test_extension_and_settings_at_once_is_named_with_both_ways_out(gemini):
    gemini.link(gemini.checkout())
    gemini.install()
    report = gemini.doctor()
    twice = [p for p in report["problems"] if "times on each" in p["problem"]]
    assert {p["problem"].split(" call:")[0] for p in twice} == {
        "gemini runs the dispatch 2 times on each BeforeTool", "gemini runs the danger 2 times on each BeforeTool",
        "gemini runs the dispatch 2 times on each AfterTool", "gemini runs the dispatch 2 times on each BeforeAgent"}
    for item in twice:
        assert "the hookmux extension (linked from" in item["problem"] and str(gemini.settings) in item["problem"]
        assert "`gemini extensions uninstall hookmux`" in item["fix"] and "without --gemini-home" in item["fix"]


def test_an_extension_turned_off_for_the_project_is_not_run(gemini):
    gemini.link(gemini.checkout(), overrides=[f"{gemini.home}/*", f"!{gemini.project}/*"])
    gemini.install()
    report = gemini.doctor()
    assert report["problems"] == [], problems(report)
    assert report["gemini_extensions"][0]["enabled"] is False
    assert [w["file"] for w in gemini_wirings(report)] == [str(gemini.settings)]


def test_a_linked_folder_that_is_gone_is_named(gemini):
    source = gemini.checkout()
    gemini.link(source)
    shutil.rmtree(source)
    report = gemini.doctor()
    text = problems(report)
    assert "has no hooks/hooks.json: Gemini runs none of its hooks" in text
    assert "`gemini extensions uninstall hookmux`, then `gemini extensions link " + str(source) + "`" in text


def test_a_wired_interpreter_that_is_gone_is_named_with_the_gemini_reinstall(gemini, tmp_path):
    python = tmp_path / "venv-python"
    python.symlink_to(sys.executable)
    gemini.install("--python", str(python))
    python.unlink()
    report = gemini.doctor()
    [item] = [p for p in report["problems"] if f"the wired interpreter {python}" in p["problem"]]
    assert str(gemini.settings) in item["where"] and "is gone" in item["problem"]
    assert f"--gemini-home {gemini.gemini}" in item["fix"] and "--python PYTHON" in item["fix"]


def test_a_line_that_fails_closed_is_named(gemini):
    """The dispatcher's BeforeTool line without ``2>/dev/null || true`` and its script gone: Gemini
    reads CPython's exit 2 and its text as a block of every shell call."""
    gemini.install()
    data = json.loads(gemini.settings.read_text())
    hook = next(h for g in data["hooks"]["BeforeTool"] for h in g["hooks"] if "dispatch.py" in h["command"])
    hook["command"] = hook["command"].replace(" 2>/dev/null || true", "")
    gemini.settings.write_text(json.dumps(data, indent=2))
    (gemini.home / ".claude" / "hooks" / "_dispatch" / "dispatch.py").unlink()
    report = gemini.doctor()
    text = problems(report)
    assert "exit status 2 with text (stderr:" in text and "Gemini BLOCKS the tool call" in text
    assert "did not reach the dispatch" in text and "no record in the sandbox's ledger" in text


@pytest.mark.parametrize("exit_code, stdout, stderr, expected", [
    (0, "", "", []),
    (0, json.dumps({"decision": "deny", "reason": "R"}), "", []),
    (0, json.dumps({"hookSpecificOutput": {"hookEventName": "AfterTool", "additionalContext": "c"}}), "", []),
    (0, json.dumps({"decision": "deny", "reason": "R"}, indent=2), "", []),  # Gemini parses the whole text
    (2, "", "python3: can't open file", ["Gemini BLOCKS the tool call"]),
    (127, "", "bash: x: No such file or directory", ["Gemini BLOCKS the tool call"]),
    (1, "", "oops", ["Gemini shows a warning"]),
    (0, "hello", "", ["not one JSON object"]),
    (0, json.dumps({"decision": "ask"}), "", ["never ask"]),
    (0, json.dumps({"decision": "deny"}), "", ["without a reason"]),
    (0, json.dumps({"decision": "allow", "reason": "r"}), "", ["a reason on an allow"]),
    (0, json.dumps({"additionalContext": "c"}), "", ["top-level additionalContext"]),
])
def test_what_gemini_accepts(exit_code, stdout, stderr, expected):
    found = answer_problems("gemini", "PostToolUse", exit_code, stdout, stderr)
    assert len(found) == len(expected) and all(want in got for want, got in zip(expected, found)), found


def test_context_before_the_call_is_dropped_on_gemini():
    context = json.dumps({"hookSpecificOutput": {"hookEventName": "BeforeTool", "additionalContext": "c"}})
    assert "Gemini drops it" in answer_problems("gemini", "PreToolUse", 0, context, "")[0]


def test_geminis_own_switches_that_skip_hookmux_are_named(gemini):
    """``hooksConfig.enabled: false`` runs no hook; ``hooksConfig.disabled`` skips the hooks whose
    command it lists (Gemini CLI 0.61.0's ``getHookName``: the name, else the command)."""
    gemini.install()
    data = json.loads(gemini.settings.read_text())
    after = next(h["command"] for g in data["hooks"]["AfterTool"] for h in g["hooks"])
    data["hooksConfig"] = {"disabled": [after]}
    gemini.settings.write_text(json.dumps(data, indent=2))
    text = problems(gemini.doctor())
    assert f"{gemini.settings}: AfterTool dispatch: Gemini skips it silently: hooksConfig.disabled" in text
    assert "hooksConfig.enabled is false" not in text
    data["hooksConfig"] = {"enabled": False}
    gemini.settings.write_text(json.dumps(data, indent=2))
    text = problems(gemini.doctor())
    assert "hooksConfig.enabled is false: Gemini runs no hook at all" in text


def test_user_and_project_settings_both_wiring_hookmux_run_it_twice(gemini):
    """Gemini concatenates the hooks of its user and project settings (mergeStrategy concat, 0.61.0)."""
    gemini.install()
    project_gemini = gemini.project / ".gemini"
    project_gemini.mkdir()
    gemini.install_into(project_gemini)
    report = gemini.doctor()
    twice = [p for p in report["problems"] if p["problem"].startswith("gemini runs the dispatch 2 times")]
    assert twice and all("one hooks folder wired in two files" in p["problem"] for p in twice), problems(report)
    assert all("--gemini-home" in p["fix"] for p in twice)


def test_gemini_cli_home_moves_where_the_extension_is_looked_for(gemini, tmp_path):
    """``GEMINI_CLI_HOME`` replaces the home folder for Gemini's ``.gemini`` (settings and extensions)."""
    elsewhere = tmp_path / "gemini-cli-home" / ".gemini"
    source = gemini.checkout()
    gemini_extension_link(elsewhere, source)
    assert gemini.doctor()["gemini_extensions"] == []  # not in ~/.gemini
    gemini.env["GEMINI_CLI_HOME"] = str(elsewhere.parent)
    report = gemini.doctor()
    assert report["problems"] == [], problems(report)
    assert [e["root"] for e in report["gemini_extensions"]] == [str(source)]
    assert_fired_as_gemini_runs_it(gemini_wirings(report)[0])
