"""Git discards outside the first rows (issue 39), judged in temporary repositories: each denies
only when git says something would be lost (uncommitted changes, untracked files, stash entries)
and passes on a clean repository.

The commands are data: strings in payloads handed to the real gate, never run by a shell.
"""
from __future__ import annotations

import subprocess
from pathlib import Path

from gate_support import World, denial


def _git(world: World, repo: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=repo, env=world.env, check=True, capture_output=True)


def _worktree(world: World, name: str) -> tuple[Path, Path]:
    """The clean repository and a linked work tree of it, ``<root>/<name>``."""
    repo = world.repo("clean")
    tree = world.root / name
    _git(world, repo, "worktree", "add", "-q", "-b", name, str(tree))
    return repo, tree


def test_worktree_remove_force_over_changes_is_denied_and_a_clean_one_passes(tmp_path):
    world = World(tmp_path)
    repo, tree = _worktree(world, "side")
    assert denial(world.gate("git worktree remove --force ../side", cwd=repo)) is None  # clean: git keeps nothing
    (tree / "tracked.txt").write_text("unsaved\n")
    reason = denial(world.gate("git worktree remove --force ../side", cwd=repo))
    assert reason and "GIT-WORKTREE-REMOVE-FORCE" in reason and "tracked.txt" in reason
    assert denial(world.gate(f"git worktree remove -f {tree}", cwd=repo)) is not None  # absolute
    assert denial(world.gate("git worktree remove side", cwd=repo)) is None  # without --force git refuses
    assert (tree / "tracked.txt").read_text() == "unsaved\n"


def test_worktree_remove_force_of_untracked_work_and_of_a_tree_named_by_its_last_part(tmp_path):
    world = World(tmp_path)
    repo, tree = _worktree(world, "notes-tree")
    (tree / "node_modules").mkdir()
    (tree / "node_modules" / "x.js").write_text("regenerable\n")
    assert denial(world.gate("git worktree remove --force notes-tree", cwd=repo)) is None  # comes back with npm
    (tree / "ideas.md").write_text("never committed\n")
    reason = denial(world.gate("git worktree remove --force notes-tree", cwd=repo))  # git finds it by its name
    assert reason and "ideas.md" in reason
    assert denial(world.gate("git worktree remove --force no-such-tree", cwd=repo)) is None
    # The main work tree is not a linked one: git refuses to remove it.
    (repo / "tracked.txt").write_text("main edit\n")
    assert denial(world.gate(f"git worktree remove --force {repo}", cwd=tree)) is None
    assert (tree / "ideas.md").exists()


def test_an_option_worktree_remove_does_not_know_is_denied(tmp_path):
    world = World(tmp_path)
    repo, _ = _worktree(world, "side")
    reason = denial(world.gate("git worktree remove --force --no-such-option ../side", cwd=repo))
    assert reason and "cannot judge `--no-such-option` safely" in reason


def test_clean_without_force_where_the_users_configuration_does_not_ask_for_it(tmp_path):
    world = World(tmp_path)
    repo = world.repo("untracked")
    assert denial(world.gate("git clean -dx", cwd=repo)) is None  # git refuses without -f
    _git(world, repo, "config", "clean.requireForce", "false")
    reason = denial(world.gate("git clean -dx", cwd=repo))
    assert reason and "GIT-CLEAN-NO-FORCE-NEEDED" in reason and "new.txt" in reason
    assert denial(world.gate("git clean -n -dx", cwd=repo)) is None  # the user's own dry run
    assert denial(world.gate("git -c clean.requireForce=true clean -dx", cwd=repo)) is None
    # A dry run turned off again is not one; an option the model does not know is not passed on.
    assert denial(world.gate("git clean -dx -n --no-dry-run", cwd=repo)) is not None
    clean = world.repo("clean")
    _git(world, clean, "config", "clean.requireForce", "false")
    assert denial(world.gate("git clean -dx", cwd=clean)) is None  # nothing untracked
    assert (repo / "new.txt").exists()


def test_checkout_force_with_a_new_branch_discards_too(tmp_path):
    world = World(tmp_path)
    for command in ("git checkout -f -B main HEAD", "git checkout -f -b topic", "git checkout --force -B main",
                    "git checkout -fb topic"):
        assert denial(world.gate(command, cwd=world.repo("changed"))) is not None, command
        assert denial(world.gate(command, cwd=world.repo("clean"))) is None, command
    assert denial(world.gate("git checkout -b topic", cwd=world.repo("changed"))) is None  # changes carried over


def test_checkout_index_from_a_pipe_and_rm_from_a_list_count_every_change(tmp_path):
    world = World(tmp_path)
    changed, clean = world.repo("changed"), world.repo("clean")
    command = "git ls-files -m | git checkout-index -f --stdin"
    assert denial(world.gate(command, cwd=changed)) is not None
    assert denial(world.gate(command, cwd=clean)) is None
    assert denial(world.gate("git checkout-index -a -f --prefix=../export/", cwd=changed)) is None  # elsewhere
    assert denial(world.gate("git checkout-index -a -f --temp", cwd=changed)) is None
    assert denial(world.gate("git rm -f --pathspec-from-file=list.txt", cwd=changed)) is not None
    assert denial(world.gate("git rm -f --pathspec-from-file=list.txt", cwd=clean)) is None
    assert denial(world.gate("git rm -f tracked.txt", cwd=changed)) is not None
    assert denial(world.gate("git rm tracked.txt", cwd=changed)) is None  # git refuses over changes
    assert (changed / "tracked.txt").read_text() == "two\n"


def test_read_tree_and_update_ref_spellings(tmp_path):
    world = World(tmp_path)
    changed, stashed, clean = world.repo("changed"), world.repo("stashed"), world.repo("clean")
    for command in ("git read-tree -u --reset HEAD", "git read-tree --reset -uv HEAD", "git read-tree -u --res HEAD"):
        assert denial(world.gate(command, cwd=changed)) is not None, command
        assert denial(world.gate(command, cwd=clean)) is None, command
    assert denial(world.gate("git read-tree -m -u HEAD", cwd=changed)) is None  # -m refuses over changes
    reason = denial(world.gate("git read-tree -u --reset --no-such HEAD", cwd=changed))
    assert reason and "cannot judge `--no-such` safely" in reason
    reason = denial(world.gate("git update-ref -d refs/stash", cwd=stashed))
    assert reason and "GIT-UPDATE-REF-STASH" in reason and "stash entry" in reason
    assert denial(world.gate("git update-ref --no-deref -d refs/stash", cwd=stashed)) is not None
    assert denial(world.gate("git update-ref -d refs/stash", cwd=clean)) is None  # no stash: nothing to lose
    assert denial(world.gate("git update-ref refs/stash HEAD", cwd=stashed)) is None  # the reflog keeps the rest
