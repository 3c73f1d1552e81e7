"""Recursive deletes, devices: blocked only where nothing could bring the data back."""
from __future__ import annotations

import pytest

from gate_support import World, cases, denial

PATHS = cases()["paths"]


@pytest.mark.parametrize("command", PATHS["block"])
def test_undoable_delete_is_denied(tmp_path, command):
    world = World(tmp_path)
    reason = denial(world.gate(command))
    assert reason and "hookmux allow" in reason, command
    assert (world.home / "Documents").is_dir()


@pytest.mark.parametrize("command", PATHS["pass"])
def test_everything_else_passes(tmp_path, command):
    world = World(tmp_path)
    assert denial(world.gate(command)) is None, command


def test_the_reason_names_what_would_be_lost_and_sends_the_model_to_the_user(tmp_path):
    world = World(tmp_path)
    reason = denial(world.gate("rm -rf ~/Documents"))
    assert f"{world.home}/Documents, a top-level folder of the home folder" in reason
    assert "RM-RECURSIVE-UNDOABLE" in reason
    assert "Stop and ask the user" in reason
    assert "hookmux allow --last" in reason and "their own terminal" in reason


@pytest.mark.parametrize("command", ["rm -rf ~/Documents", "rm -rf ~/'Documents'"])
def test_the_reason_holds_no_allow_line_to_paste(tmp_path, command):
    world = World(tmp_path)
    reason = denial(world.gate(command))
    assert "hookmux allow '" not in reason and "--once" not in reason
    assert "hookmux allow --last" in reason


def test_the_whole_project_from_a_subfolder(tmp_path):
    world = World(tmp_path)
    sub = world.repo() / "src"
    sub.mkdir()
    assert "the whole project" in denial(world.gate("rm -rf ..", cwd=sub))
    assert denial(world.gate("rm -rf ../src", cwd=sub)) is None


def test_an_unset_variable_is_judged_by_the_path_it_leaves(tmp_path):
    world = World(tmp_path)
    world.env.pop("BUILD_DIR_FOR_TEST", None)
    assert "the system folder /etc" in denial(world.gate("rm -rf $BUILD_DIR_FOR_TEST/*"))
    world.env["BUILD_DIR_FOR_TEST"] = str(tmp_path / "build")
    assert denial(world.gate("rm -rf $BUILD_DIR_FOR_TEST/*")) is None


def test_a_glob_that_reaches_a_top_level_folder(tmp_path):
    world = World(tmp_path)
    assert denial(world.gate("rm -rf ~/Doc*")) is not None
    assert denial(world.gate("rm -rf ~/Documents/*.tmp")) is None


def test_a_symlink_is_removed_not_what_it_points_to(tmp_path):
    world = World(tmp_path)
    (world.repo() / "docs-link").symlink_to(world.home / "Documents")
    assert denial(world.gate("rm -rf docs-link")) is None
    linked_home = tmp_path / "home-link"
    linked_home.symlink_to(world.home)
    assert denial(world.gate(f"rm -rf {linked_home}/Documents")) is not None  # the folders above do resolve


def test_a_folder_that_is_not_there_loses_nothing(tmp_path):
    world = World(tmp_path)
    assert denial(world.gate("rm -rf ~/Pictures")) is None
    (world.home / "Pictures").mkdir()
    assert denial(world.gate("rm -rf ~/Pictures")) is not None


def test_wipefs_that_only_lists_passes_and_one_that_erases_is_denied(tmp_path):
    world = World(tmp_path)
    for command in ("wipefs /dev/sda", "wipefs -p /dev/sda", "wipefs --no-act --all /dev/sda", "wipefs -an /dev/sda"):
        assert denial(world.gate(command, cwd=world.plain)) is None, command
    for command in ("wipefs -a /dev/sda", "wipefs --all /dev/sdb", "wipefs -o 0x438 /dev/sdb", "wipefs -af /dev/sdb",
                    "wipefs --offset=0x438 /dev/sdb", "sudo wipefs --al /dev/nvme0n1"):
        assert denial(world.gate(command, cwd=world.plain)) is not None, command
