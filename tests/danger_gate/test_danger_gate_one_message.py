"""One message per call: the advisory stays silent on a call the danger gate beside it denies."""
from __future__ import annotations

import shutil
import subprocess
import sys

from gate_support import World, denial, payload
from hookmux_testing import HOOKS, run_hook

CHECK = HOOKS / "contraindication" / "check.py"
ADVISORY = b"hookmux contraindication advisory"


def advise(world: World, command: str, cwd, check=CHECK, session="s1"):
    data = payload("claude", command, cwd).replace('"s1"', f'"{session}"', 1)
    result = run_hook(check, ["PreToolUse"], data, world.env)
    assert result.returncode == 0 and result.stderr == b""
    return result.stdout


def test_the_advisory_is_silent_where_the_gate_denies(tmp_path):
    world = World(tmp_path)
    assert denial(world.gate("rm -rf ~/Documents")) is not None
    assert advise(world, "rm -rf ~/Documents", world.repo()) == b""
    assert advise(world, "git reset --hard", world.repo("changed")) == b""
    # the gate passes these, so the advisory speaks
    assert ADVISORY in advise(world, "git reset --hard", world.repo("clean"), session="s2")
    assert ADVISORY in advise(world, "git push --force origin main", world.repo(), session="s3")


def test_without_the_gate_in_the_tree_the_advisory_speaks(tmp_path):
    world = World(tmp_path)
    tree = tmp_path / "tree"
    shutil.copytree(HOOKS, tree, ignore=shutil.ignore_patterns("__pycache__", "danger-gate"))
    check = tree / "contraindication" / "check.py"
    assert ADVISORY in advise(world, "rm -rf ~/Documents", world.repo(), check=check)


def test_after_an_allow_the_advisory_speaks_and_the_once_allowance_is_the_gates(tmp_path):
    world = World(tmp_path)
    command = "git reset --hard"
    repo = world.repo("changed")
    done = subprocess.run([sys.executable, "-m", "hookmux.cli", "allow", command, "--once"], cwd=repo, env=world.env,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert ADVISORY in advise(world, command, repo)  # its --dry-run question used nothing up
    assert denial(world.gate(command, cwd=repo)) is None  # the gate's own run uses the allowance
    assert denial(world.gate(command, cwd=repo)) is not None
