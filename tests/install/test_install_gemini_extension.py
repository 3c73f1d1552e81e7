"""``hookmux install --gemini-home`` and ``hookmux status`` when Gemini CLI also has the hookmux
extension (``~/.gemini/extensions/``, as ``gemini extensions link`` 0.61.0 leaves it): Gemini runs
an extension's hooks beside its settings' and does not deduplicate them. install warns and goes
on, naming both ways out; status reports the double wiring as a problem with its fix."""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from hookmux_testing import gemini_extension_checkout, gemini_extension_link, hermetic_env

UNINSTALL = "`gemini extensions uninstall hookmux`"


class Home:
    def __init__(self, tmp_path: Path):
        self.env = hermetic_env(tmp_path)
        self.env.pop("GEMINI_CLI_HOME", None)
        self.home = Path(self.env["HOME"])
        self.gemini = self.home / ".gemini"
        self.gemini.mkdir()
        self.settings = self.gemini / "settings.json"
        self.project = tmp_path / "project"
        self.project.mkdir()
        self.source = gemini_extension_checkout(tmp_path / "checkout")

    def link(self, overrides=None) -> None:
        gemini_extension_link(self.gemini, self.source, overrides)

    def hookmux(self, *args):
        return subprocess.run([sys.executable, "-m", "hookmux.cli", *args], capture_output=True, text=True,
                              env=self.env, cwd=str(self.project), timeout=300)

    def status(self) -> tuple[int, dict]:
        result = self.hookmux("status", "--json")
        return result.returncode, json.loads(result.stdout)


@pytest.fixture
def home(tmp_path):
    return Home(tmp_path)


def twice(report) -> list[str]:
    return [p for p in report["problems"] if "runs twice on gemini" in p]


def test_install_warns_and_still_wires_gemini_when_the_extension_is_on(home):
    home.link()
    result = home.hookmux("install", "--gemini-home", str(home.gemini))
    assert result.returncode == 0, result.stderr
    warning = [line for line in result.stderr.splitlines() if line.startswith("hookmux: warning: Gemini CLI")]
    assert len(warning) == 1, result.stderr
    assert f"linked from {home.source}" in warning[0] and "runs every hookmux hook twice" in warning[0]
    assert UNINSTALL in warning[0] and "without --gemini-home" in warning[0]
    hooks = json.loads(home.settings.read_text())["hooks"]
    assert {"BeforeTool", "AfterTool", "BeforeAgent"} <= set(hooks)  # a warning, not a refusal


def test_status_reports_gemini_wired_both_ways_with_the_fix(home):
    home.link()
    assert home.hookmux("install", "--gemini-home", str(home.gemini)).returncode == 0
    code, report = home.status()
    assert code == 1
    [problem] = twice(report)
    assert f"the extension (linked from {home.source})" in problem and str(home.settings) in problem
    assert UNINSTALL in problem and "without --gemini-home" in problem
    [extension] = report["gemini_extension"]
    assert extension["kind"] == "link" and extension["root"] == str(home.source) and extension["enabled"]
    text = home.hookmux("status").stdout
    assert f"gemini extension: hookmux link ({home.source}), on here" in text


def test_install_without_gemini_says_nothing_of_the_extension_and_status_is_ok(home):
    home.link()
    result = home.hookmux("install")
    assert result.returncode == 0 and "Gemini CLI also has" not in result.stderr, result.stderr
    code, report = home.status()
    assert twice(report) == [] and code == 0, report["problems"]


def test_an_extension_off_for_this_project_is_listed_but_not_a_problem(home):
    home.link(overrides=[f"{home.home}/*", f"!{home.project}/*"])
    assert home.hookmux("install", "--gemini-home", str(home.gemini)).returncode == 0
    code, report = home.status()
    assert twice(report) == [] and code == 0, report["problems"]
    assert report["gemini_extension"][0]["enabled"] is False
    assert "), off here (" in home.hookmux("status").stdout


def test_the_extension_alone_is_not_a_missing_install(home):
    home.link()
    code, report = home.status()
    assert not any("hookmux is not installed here" in p for p in report["problems"]), report["problems"]
    assert code == 0, report["problems"]


def test_a_linked_folder_that_is_gone_is_a_status_problem(home):
    home.link()
    shutil.rmtree(home.source)
    code, report = home.status()
    assert code == 1
    assert any("has no hooks/hooks.json" in p and UNINSTALL in p for p in report["problems"]), report["problems"]


def test_no_extension_no_warning(home):
    result = home.hookmux("install", "--gemini-home", str(home.gemini))
    assert result.returncode == 0 and "warning" not in result.stderr, result.stderr
    code, report = home.status()
    assert report["gemini_extension"] == [] and code == 0, report["problems"]
