"""The gate's verdict row by row, as ``hookmux explain`` shows it (``hookmux.dangers.explain``)."""
from __future__ import annotations

from gate_support import World

from hookmux import dangers


def test_each_row_says_whether_it_matched_and_what_would_be_lost(tmp_path):
    world = World(tmp_path)
    verdicts = {v["id"]: v for v in dangers.explain("rm -rf ~/Documents && git status", str(world.repo()), world.env)}
    rm = verdicts["RM-RECURSIVE-UNDOABLE"]
    assert rm["matched"] and rm["blocks"] and rm["why"] == "rm with -rf"
    assert rm["lost"] == [f"{world.home}/Documents, a top-level folder of the home folder"]
    assert not verdicts["GIT-RESET-HARD-UNSAVED"]["matched"] and verdicts["GIT-RESET-HARD-UNSAVED"]["why"] == "git: not reset"


def test_a_row_that_matches_but_loses_nothing_does_not_block(tmp_path):
    world = World(tmp_path)
    verdict = next(v for v in dangers.explain("git reset --hard", str(world.repo("clean")), world.env)
                   if v["id"] == "GIT-RESET-HARD-UNSAVED")
    assert verdict["matched"] and verdict["lost"] == [] and not verdict["blocks"]
    verdict = next(v for v in dangers.explain("git reset --hard", str(world.repo("changed")), world.env)
                   if v["id"] == "GIT-RESET-HARD-UNSAVED")
    assert verdict["blocks"] and verdict["lost"] == ["1 uncommitted change to tracked.txt"]


def test_hookmux_explain_shows_the_gates_verdict_beside_the_advisorys(tmp_path):
    import json
    import subprocess
    import sys

    world = World(tmp_path)
    repo = world.repo("changed")
    cmd = [sys.executable, "-m", "hookmux.cli", "explain", "rm -rf ~/Documents && git reset --hard", "--cwd", str(repo)]
    report = json.loads(subprocess.run(cmd + ["--json"], env=world.env, capture_output=True, text=True).stdout)
    gate = {v["id"]: v for v in report["evaluators"]["danger gate"]}
    assert gate["RM-RECURSIVE-UNDOABLE"]["verdict"] == "block"
    assert gate["GIT-RESET-HARD-UNSAVED"]["why"] == "git reset with --hard: would lose 1 uncommitted change to tracked.txt"
    assert "advisory" in report["evaluators"]
    text = subprocess.run(cmd, env=world.env, capture_output=True, text=True).stdout
    assert "danger gate: RM-RECURSIVE-UNDOABLE, GIT-RESET-HARD-UNSAVED" in text
    clean = subprocess.run([sys.executable, "-m", "hookmux.cli", "explain", "git reset --hard", "--cwd",
                            str(world.repo("clean"))], env=world.env, capture_output=True, text=True).stdout
    assert "danger gate: quiet" in clean and "but nothing would be lost here" in clean
