"""``hookmux allow``: the user lets one exact command through in one project; the gate honours it."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from gate_support import World, denial

COMMAND = "rm -rf ~/Documents"


def allow(world: World, *args: str, cwd=None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "hookmux.cli", "allow", *args], cwd=cwd or world.repo(),
                          env=world.env, capture_output=True, text=True, timeout=60)


def stored(world: World) -> dict:
    return json.loads((world.root / "state" / "danger-gate" / "allowances.json").read_text())


def test_once_lets_the_command_through_one_time(tmp_path):
    world = World(tmp_path)
    assert denial(world.gate(COMMAND)) is not None
    done = allow(world, COMMAND, "--once")
    assert done.returncode == 0, done.stderr
    assert "allowed once" in done.stdout
    assert denial(world.gate(COMMAND)) is None
    assert denial(world.gate(COMMAND)) is not None  # used up
    assert stored(world)["allowances"] == []


def test_for_a_while_lets_it_through_again_and_again(tmp_path):
    world = World(tmp_path)
    assert allow(world, COMMAND, "--for", "10m").returncode == 0
    for _ in range(2):
        assert denial(world.gate(COMMAND)) is None
    assert denial(world.gate("rm -rf ~/.ssh")) is not None  # only that exact command


def test_only_in_that_project(tmp_path):
    world = World(tmp_path)
    assert allow(world, COMMAND, "--for", "1h").returncode == 0
    sub = world.repo() / "deep"
    sub.mkdir()
    assert denial(world.gate(COMMAND, cwd=sub)) is None  # same project, a subfolder
    assert denial(world.gate(COMMAND, cwd=world.repo("changed"))) is not None  # another project


def test_expired_allowances_do_not_count(tmp_path):
    world = World(tmp_path)
    assert allow(world, COMMAND, "--for", "1h").returncode == 0
    path = world.root / "state" / "danger-gate" / "allowances.json"
    document = json.loads(path.read_text())
    document["allowances"][0]["expires"] = 1.0
    path.write_text(json.dumps(document))
    assert denial(world.gate(COMMAND)) is not None


def test_the_file_is_private_and_a_shared_one_is_ignored(tmp_path):
    world = World(tmp_path)
    assert allow(world, COMMAND, "--for", "1h").returncode == 0
    path = world.root / "state" / "danger-gate" / "allowances.json"
    assert path.stat().st_mode & 0o777 == 0o600
    assert path.parent.stat().st_mode & 0o777 == 0o700
    path.chmod(0o666)
    assert denial(world.gate(COMMAND)) is not None
    path.chmod(0o600)
    path.parent.chmod(0o777)
    assert denial(world.gate(COMMAND)) is not None
    path.parent.chmod(0o700)
    assert denial(world.gate(COMMAND)) is None


def test_a_symlinked_file_is_ignored(tmp_path):
    world = World(tmp_path)
    assert allow(world, COMMAND, "--for", "1h").returncode == 0
    path = world.root / "state" / "danger-gate" / "allowances.json"
    elsewhere = tmp_path / "planted.json"
    os.replace(path, elsewhere)
    path.symlink_to(elsewhere)
    assert denial(world.gate(COMMAND)) is not None


def test_list_and_revoke(tmp_path):
    world = World(tmp_path)
    assert allow(world, COMMAND, "--for", "2h").returncode == 0
    listed = allow(world, "--list")
    assert COMMAND in listed.stdout and str(world.repo()) in listed.stdout
    assert allow(world, COMMAND, "--revoke").returncode == 0
    assert "no allowances" in allow(world, "--list").stdout
    assert denial(world.gate(COMMAND)) is not None


@pytest.mark.parametrize("bad", ["0m", "abc", "31d", ""])
def test_a_bad_duration_is_an_error(tmp_path, bad):
    world = World(tmp_path)
    done = allow(world, COMMAND, "--for", bad)
    assert done.returncode == 1 and done.stderr.startswith("hookmux: --for")


def test_once_and_for_together_are_refused(tmp_path):
    world = World(tmp_path)
    assert allow(world, COMMAND, "--once", "--for", "1h").returncode == 2


def test_a_malformed_file_counts_as_none_and_allow_rewrites_it(tmp_path):
    world = World(tmp_path)
    path = world.root / "state" / "danger-gate" / "allowances.json"
    path.parent.mkdir(parents=True, mode=0o700)
    path.write_text("{not json")
    path.chmod(0o600)
    assert denial(world.gate(COMMAND)) is not None
    assert allow(world, COMMAND, "--once").returncode == 0
    assert denial(world.gate(COMMAND)) is None


def test_status_lists_the_allowances_in_force(tmp_path):
    world = World(tmp_path)
    assert allow(world, COMMAND, "--once").returncode == 0
    cmd = [sys.executable, "-m", "hookmux.cli", "status", "--target", str(tmp_path / "nothing"),
           "--settings", str(tmp_path / "settings.json")]
    report = json.loads(subprocess.run(cmd + ["--json"], env=world.env, capture_output=True, text=True).stdout)
    assert [(a["command"], a["once"]) for a in report["allowances"]] == [(COMMAND, True)]
    text = subprocess.run(cmd, env=world.env, capture_output=True, text=True).stdout
    assert "danger gate allowances" in text and COMMAND in text


def test_a_dry_run_does_not_use_up_a_once_allowance(tmp_path):
    world = World(tmp_path)
    assert denial(world.gate(COMMAND, args=["--dry-run", "PreToolUse"])) is not None
    assert allow(world, COMMAND, "--once").returncode == 0
    assert denial(world.gate(COMMAND, args=["--dry-run", "PreToolUse"])) is None
    assert denial(world.gate(COMMAND)) is None
    assert denial(world.gate(COMMAND)) is not None
