"""Git discards are denied only when git says there is something to lose (temporary repositories)."""
from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from gate_support import World, denial

from hookmux import dangers


def _examples():
    """Every git example of the shipped rows, with the repository state it names."""
    import json

    document = json.loads(dangers.shipped_registry().read_text())
    for row in document["rows"]:
        for kind in ("block", "pass"):
            for case in row.get("examples", {}).get(kind, []):
                if isinstance(case, dict) and case["repo"] in dangers.REPO_STATES:  # compose, terraform: validate's
                    yield pytest.param(row["id"], kind, case["command"], case["repo"],
                                       id=f"{kind}-{case['repo']}-{case['command']}")


@pytest.mark.parametrize("row_id,kind,command,state", list(_examples()))
def test_git_examples_through_the_real_gate(tmp_path, row_id, kind, command, state):
    world = World(tmp_path)
    repo = world.repo(state)
    before = {p: p.read_bytes() for p in repo.iterdir() if p.is_file()}
    reason = denial(world.gate(command, cwd=repo))
    if kind == "block":
        assert reason and row_id in reason, (command, state)
    else:
        assert reason is None or row_id not in reason, (command, state, reason)
    assert {p: p.read_bytes() for p in repo.iterdir() if p.is_file()} == before  # asking git changed nothing


def test_the_reason_says_what_git_would_lose(tmp_path):
    world = World(tmp_path)
    reason = denial(world.gate("git reset --hard", cwd=world.repo("changed")))
    assert "1 uncommitted change to tracked.txt" in reason
    reason = denial(world.gate("git clean -fd", cwd=world.repo("untracked")))
    assert "1 untracked file or folder (new.txt)" in reason


def test_cd_into_a_repository_first(tmp_path):
    world = World(tmp_path)
    changed = world.repo("changed")
    assert denial(world.gate(f"cd {changed} && git reset --hard", cwd=world.plain)) is not None
    assert denial(world.gate(f"git -C {changed} reset --hard", cwd=world.plain)) is not None
    assert denial(world.gate(f"cd {world.repo('clean')} && git reset --hard", cwd=world.plain)) is None


def test_outside_a_repository_git_does_not_answer_and_the_call_passes(tmp_path):
    world = World(tmp_path)
    assert denial(world.gate("git reset --hard", cwd=world.plain)) is None
    assert denial(world.gate("git stash clear", cwd=world.plain)) is None


def test_without_a_trusted_git_the_call_passes(tmp_path):
    world = World(tmp_path)
    repo = world.repo("changed")
    world.env["HOOKMUX_TRUSTED_BIN"] = str(tmp_path / "no-bin")
    assert denial(world.gate("git reset --hard", cwd=repo)) is None


def test_a_git_that_hangs_is_cut_and_the_call_passes(tmp_path):
    world = World(tmp_path)
    repo = world.repo("changed")
    bin_dir = tmp_path / "slow-bin"
    bin_dir.mkdir()
    fake = bin_dir / "git"
    fake.write_text("#!/bin/sh\nsleep 30\n")
    fake.chmod(0o755)
    world.env["HOOKMUX_TRUSTED_BIN"] = str(bin_dir)  # the user's own choice of git, in the host's environment
    import time

    started = time.monotonic()
    assert denial(world.gate("git reset --hard", cwd=repo)) is None
    assert time.monotonic() - started < 4.5  # git's budget (2 s), not the gate's last-resort alarm (5 s)


def test_a_repository_fsmonitor_is_not_started(tmp_path):
    world = World(tmp_path)
    repo = world.repo("changed")
    marker = tmp_path / "fsmonitor-ran"
    hook = tmp_path / "fsmonitor.sh"
    hook.write_text(f"#!/bin/sh\ntouch {marker}\n")
    hook.chmod(0o755)
    with open(Path(repo) / ".git" / "config", "a") as config:
        config.write(f"[core]\n\tfsmonitor = {hook}\n")
    assert denial(world.gate("git reset --hard", cwd=repo)) is not None
    assert not marker.exists()


def test_git_clean_of_regenerable_output_only_passes_and_anything_else_is_still_denied(tmp_path):
    """`git clean -fdX` over node_modules/, dist/ and a folder holding only __pycache__/ loses
    nothing a build does not make again; a .env, a note of the user's beside them or an empty
    folder is denied."""
    world = World(tmp_path)
    repo = world.repo("clean")
    (repo / ".gitignore").write_text("node_modules/\ndist/\n__pycache__/\n.env\n")
    for step in (["add", ".gitignore"], ["commit", "-q", "-m", "ignore"]):
        subprocess.run(["git", *step], cwd=repo, env=world.env, check=True, capture_output=True)
    for made in ("node_modules/left-pad/index.js", "dist/app.js", "pkg/__pycache__/m.cpython-311.pyc"):
        (repo / made).parent.mkdir(parents=True, exist_ok=True)
        (repo / made).write_text("x")
    for command in ("git clean -fdX", "git clean -fdx", "git clean -ffdX", "git clean -dXf"):
        assert denial(world.gate(command, cwd=repo)) is None, command
    (repo / ".env").write_text("TOKEN=1\n")
    reason = denial(world.gate("git clean -fdX", cwd=repo))
    assert reason is not None and "(.env)" in reason, reason
    (repo / ".env").unlink()
    (repo / "pkg" / "notes.txt").write_text("mine")
    reason = denial(world.gate("git clean -fd", cwd=repo))
    assert reason is not None and "notes.txt" in reason, reason
    (repo / "pkg" / "notes.txt").unlink()
    (repo / "empty").mkdir()
    assert denial(world.gate("git clean -fdX", cwd=repo)) is None  # an empty folder is not ignored: -X leaves it
    reason = denial(world.gate("git clean -fd", cwd=repo))
    assert reason is not None and "(empty/)" in reason, reason
    assert (repo / "node_modules" / "left-pad" / "index.js").exists() and (repo / "empty").is_dir()
