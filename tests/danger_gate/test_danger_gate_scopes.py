"""Issue 39 (follow the call): the gate keeps the shell's scopes (a ``cd`` in ``( … )`` or a
pipeline stage does not hold after it), and moves and links carry what they reach to the later
commands of the same call (``mv ~/Documents x && rm -rf x``; ``ln -s ~/Documents d; rm -rf d/``).

Every command is data, handed to the installed gate as a JSON payload; HOME is a temporary
folder holding a Documents folder that must still be there after each call."""
from __future__ import annotations

import os

import pytest

from gate_support import World, denial


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    world = World(tmp_path_factory.mktemp("scopes"))
    (world.home / "Documents" / "thesis.txt").write_text("five years of work\n")
    (world.home / "tmp").mkdir()
    (world.plain / "build").mkdir()
    (world.plain / "build" / "out.o").write_text("regenerable\n")
    return world


def _at(world, where):
    return {"home": world.home, "plain": world.plain}[where]


@pytest.mark.parametrize("command, where", [
    ("(cd /tmp); rm -r Documents", "home"),  # the cd ended with its subshell: rm runs in HOME
    ("(cd /tmp) && rm -rf Documents", "home"),
    ("cd /tmp | true; rm -r Documents", "home"),  # a stage before the last is a child process
    ("echo $(cd /tmp); rm -r Documents", "home"),
    ("(cd ~; rm -r Documents)", "plain"),
    ("cd ~; (rm -r Documents)", "plain"),
    ("(cd ~ && sh -c 'rm -r Documents')", "plain"),
    ("D=~/Documents; (rm -r \"$D\")", "plain"),
])
def test_a_delete_judged_in_the_folder_and_with_the_variables_of_its_shell_is_denied(world, command, where):
    reason = denial(world.gate(command, cwd=_at(world, where)))
    assert reason and "RM-RECURSIVE-UNDOABLE" in reason and "Documents" in reason, (command, reason)
    assert (world.home / "Documents" / "thesis.txt").is_file()


@pytest.mark.parametrize("command", [
    "(cd ~); rm -r Documents",  # plain holds no Documents: the subshell's cd does not hold
    "(cd ~) && rm -rf Documents",
    "cd ~ | true; rm -r Documents",
    "ls | cd ~; rm -r Documents",  # the last stage: bash forks it, zsh not; where rm runs is not known
    "(D=~/Documents); rm -r \"$D\"",
    "(f() { rm -rf \"$1\"; }); f ~/Documents",  # f is not defined after its subshell
])
def test_what_a_subshell_or_pipeline_stage_did_is_not_held_against_the_later_commands(world, command):
    assert denial(world.gate(command, cwd=world.plain)) is None, command


@pytest.mark.parametrize("command", [
    "mv ~/Documents ~/.cache/old && rm -rf ~/.cache/old",
    "mv ~/Documents ~/.cache/old; rm -r ~/.cache/old/*",
    "mv ~/Documents ~/tmp && rm -rf ~/tmp/Documents",  # into an existing folder
    "mv ~/Documents ~/tmp/a; mv ~/tmp/a ~/.cache/b; rm -rf ~/.cache/b",  # a chain of moves
    "mv ~/Documents ~/.cache/old; (cd ~/.cache && rm -rf old)",
    "ln -s ~/Documents docs; rm -rf docs/",  # the trailing slash follows the link
    "ln -s \"$HOME/Documents\" docs && rm -rf docs/*",
    "ln -sf ~/Documents docs; rm -r docs/.",
])
def test_a_move_or_link_carries_what_it_reaches_to_the_later_commands_of_the_call(world, command):
    reason = denial(world.gate(command, cwd=world.plain))
    assert reason and "UNDOABLE" in reason and str(world.home / "Documents") in reason, (command, reason)
    assert (world.home / "Documents" / "thesis.txt").is_file() and not os.path.lexists(world.plain / "docs")


def test_a_relative_link_target_is_read_from_the_links_folder(world):
    reason = denial(world.gate("ln -s ../Documents tmp/d; rm -rf tmp/d/", cwd=world.home))
    assert reason and str(world.home / "Documents") in reason, reason


@pytest.mark.parametrize("command", [
    "mv build build.old && rm -rf build.old",  # what moved is regenerable output in the project
    "ln -s ~/Documents docs; rm -rf docs",  # without the slash rm removes the link, not what it points to
    "ln ~/Documents/thesis.txt t; rm -rf t",  # a hard link: the file stays under its other name
    "cp -r ~/Documents ~/.cache/old; rm -rf ~/.cache/old",  # a copy: the original stays
    "mv ~/Documents ~/Documents.bak",  # a move alone loses nothing
])
def test_moves_and_links_that_lose_nothing_pass(world, command):
    assert denial(world.gate(command, cwd=world.plain)) is None, command


def test_an_existing_link_with_a_trailing_slash_is_judged_as_what_it_points_to(world, tmp_path):
    link = world.plain / "docs-link"
    link.symlink_to(world.home / "Documents")
    try:
        for command in ("rm -rf docs-link/", "rm -rf docs-link/*"):
            reason = denial(world.gate(command, cwd=world.plain))
            assert reason and str(world.home / "Documents") in reason, (command, reason)
        assert denial(world.gate("rm -rf docs-link", cwd=world.plain)) is None
    finally:
        link.unlink()
    assert (world.home / "Documents" / "thesis.txt").is_file()
