"""Issue 39 (follow): the gate reads a script file the call runs from the call's folder, as the
commands it holds; the file is read, never executed, and the fast path sends such a call on.

The scripts are written by the tests into temporary folders; HOME is a temporary folder."""
from __future__ import annotations

import shutil

import pytest

from gate_support import World, denial, payload
from hookmux_testing import HOOKS, run_hook

WIPE = 'set -e\nrm -rf "$1"\n'
HARMLESS = "set -e\necho building\nmake -j4\n"


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    world = World(tmp_path_factory.mktemp("follow"))
    (world.plain / "deploy.sh").write_text(WIPE)
    (world.plain / "deploy.sh").chmod(0o644)  # not executable: it can only be read
    (world.plain / "build.sh").write_text(HARMLESS)
    (world.plain / "tool.py").write_text("#!/usr/bin/env python3\nrm -rf ~/Documents\n")
    marker = world.root / "ran"
    (world.plain / "marker.sh").write_text("touch %s\nrm -rf ~/Documents\n" % marker)
    return world


@pytest.mark.parametrize("command", [
    "bash deploy.sh ~/Documents", "sh ./deploy.sh ~/Documents", "./deploy.sh ~/.ssh",
    "source deploy.sh ~/Documents", ". ./deploy.sh ~/Documents", "sudo bash deploy.sh ~/Documents",
    "make && bash deploy.sh ~/Documents",
])
def test_a_script_file_that_deletes_home_is_denied(world, command):
    reason = denial(world.gate(command, cwd=world.plain))
    assert reason and "RM-RECURSIVE" in reason and "hookmux allow" in reason, (command, reason)
    assert (world.home / "Documents").is_dir()


@pytest.mark.parametrize("command", [
    "bash build.sh", "./build.sh", "bash deploy.sh ./dist", "bash missing.sh ~/Documents", "./tool.py",
])
def test_a_harmless_missing_or_other_language_script_runs(world, command):
    assert denial(world.gate(command, cwd=world.plain)) is None, command


def test_the_script_is_read_not_run(world):
    assert denial(world.gate("bash marker.sh", cwd=world.plain))
    assert not (world.root / "ran").exists() and (world.home / "Documents").is_dir()


def test_a_script_is_read_from_the_calls_folder_not_the_gates(world, tmp_path):
    assert denial(world.gate("bash deploy.sh ~/Documents", cwd=tmp_path)) is None  # no deploy.sh there


@pytest.mark.parametrize("command, goes_on", [
    ("bash deploy.sh", True), ("./deploy.sh", True), ("sudo sh scripts/x.sh", True), ("X=1 . ./env.sh", True),
    ("make && bin/release", True), ("ls -la src", False), ("ls ./src", False), ("cat docs/a.md", False),
    ("bash -c 'ls'", False), ("/usr/bin/env ls", False), ("npm test", False),
])
def test_the_fast_path_sends_on_only_a_call_that_runs_a_script_file(tmp_path, command, goes_on):
    """gate_core replaced by a module that says it was reached: the fast path is what decides."""
    world = World(tmp_path)
    target = tmp_path / "tree"
    for name in ("danger-gate", "_common"):
        shutil.copytree(HOOKS / name, target / name, ignore=shutil.ignore_patterns("__pycache__"))
    (target / "danger-gate" / "gate_core.py").write_text("def main(argv, data):\n    print('reached')\n    return 0\n")
    result = run_hook(target / "danger-gate" / "danger_gate.py", ["PreToolUse"], payload("claude", command, world.plain),
                      world.env)
    assert result.returncode == 0 and (result.stdout == b"reached\n") == goes_on, (command, result)
