"""hookmux explain: the reader's commands with their origin and each row's verdict and why
(the command is data: read, never run)."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

from hookmux_testing import REPO

HOOKMUX = [sys.executable, "-m", "hookmux"]


def explain(*args):
    result = subprocess.run([*HOOKMUX, "explain", *args], capture_output=True, text=True, timeout=60, cwd=REPO)
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_json_report_lists_commands_origins_and_verdicts():
    report = json.loads(explain("sudo rm -rf /home/user && echo 'git reset --hard'", "--cwd", "/home/user/project",
                                "--json"))
    assert report["commands"][0]["argv"] == ["rm", "-rf", "/home/user"]
    assert report["commands"][0]["origin"] == ["sudo"]
    assert report["commands"][1]["argv"] == ["echo", "git reset --hard"]
    verdicts = {v["id"]: v for v in report["evaluators"]["advisory"]}
    assert verdicts["RM-RECURSIVE-OUTSIDE"]["verdict"] == "advise"
    assert "/home/user is outside the session's folder" in verdicts["RM-RECURSIVE-OUTSIDE"]["why"]
    assert verdicts["GIT-RESET-HARD"]["verdict"] == "quiet"
    assert verdicts["SQL-DROP"]["form"] == "text"


def test_text_report_names_the_origin_and_why():
    out = explain("ls | xargs rm -rf", "--cwd", "/home/user/project")
    assert "rm -rf  [via xargs]  [+ arguments at run time]  [input from ls]" in out
    assert "advise RM-RECURSIVE-UNKNOWN (pack files): rm (via xargs) with -rf: its arguments come from xargs" in out


@pytest.mark.parametrize("command, quiet_row", [("git push --force-with-lease origin main", "GIT-FORCE-PUSH-MAIN"),
                                                ("rm -rf ./dist", "RM-RECURSIVE-OUTSIDE")])
def test_a_quiet_row_says_how_close_it_came(command, quiet_row):
    report = json.loads(explain(command, "--cwd", "/home/user/project", "--json"))
    verdict = next(v for v in report["evaluators"]["advisory"] if v["id"] == quiet_row)
    assert verdict["verdict"] == "quiet" and not verdict["why"].startswith("no command runs")


def test_evaluators_are_a_list_others_can_join():
    from hookmux.commands import explain as module

    module.EVALUATORS.append(("gate", lambda command, tool, cwd: [{"id": "G", "verdict": "deny", "why": "x"}]))
    try:
        report = module.explain("git status", "Bash", "/tmp")
        assert set(report["evaluators"]) == {"advisory", "danger gate", "gate"}
    finally:
        module.EVALUATORS.pop()


def test_a_pack_turned_off_in_the_users_config_is_reported_off(tmp_path):
    from hookmux_testing import hermetic_env

    config = tmp_path / "config" / "hookmux" / "dangers.json"
    config.parent.mkdir(parents=True)
    config.write_text(json.dumps({"packs": {"cloud": False}}))
    env = hermetic_env(tmp_path)
    command = "az group delete -n shop-rg --yes && kubectl delete ns checkout"

    def run(*extra):
        result = subprocess.run([*HOOKMUX, "explain", command, "--cwd", "/home/user/project", *extra],
                                capture_output=True, text=True, timeout=60, cwd=REPO, env=env)
        assert result.returncode == 0, result.stderr
        return result.stdout

    verdicts = {v["id"]: v for v in json.loads(run("--json"))["evaluators"]["advisory"]}
    off, on = verdicts["AZ-GROUP-DELETE"], verdicts["KUBECTL-DELETE-NAMESPACE"]
    assert (off["verdict"], off["pack"], off["pack_on"]) == ("off", "cloud", False)
    assert off["why"].endswith(f"; pack cloud is off ({config})")
    assert (on["verdict"], on["pack"], on["pack_on"]) == ("advise", "kubernetes", True)
    text = run()
    assert "advisory: KUBECTL-DELETE-NAMESPACE\n" in text
    assert "  off    AZ-GROUP-DELETE (pack cloud, off): az group delete; pack cloud is off (" in text
    assert "  advise KUBECTL-DELETE-NAMESPACE (pack kubernetes): " in text
