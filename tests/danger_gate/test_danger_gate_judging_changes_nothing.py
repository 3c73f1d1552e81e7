"""Judging changes nothing (issues 38, 39): for the git discards the gate judges, in every spelling of
their options, the repository, its work tree and the home folder are byte-identical after the
gate, the advisory's dry run of the gate and ``hookmux explain`` judged them.

The commands are data: strings in payloads handed to the real gate, never run by a shell.
"""
from __future__ import annotations

import hashlib
import itertools
import os
import subprocess
import sys
from pathlib import Path

import pytest

from gate_support import World, denial

from hookmux import dangers

# git clean's flags in every combination the gate must not pass through to a real clean.
_CLEAN_FLAGS = ["-f", "-ff", "-d", "-x", "-X", "--force", "-fd", "-fdx", "-fdX", "-ffdx", "-e keep.txt",
                "--exclude=keep.txt", "-i", "-q"]
_TRAPS = ["--no-dry-run", "--no-dry", "--no-d", "-n --no-dry-run", "--dry-run --no-dry-run", "--no-n"]
_PREFIXES = ["", "-c clean.requireForce=false ", "-c core.worktree=../other ", "--work-tree=. ",
             '--work-tree="$HOME" ', "--git-dir=.git --work-tree=. ", "-C . ", "-C sub/.. ", "--no-pager "]
_ENV_PREFIXES = ["", "GIT_WORK_TREE=~ ", "GIT_DIR=.git GIT_WORK_TREE=. ", "GIT_INDEX_FILE=.git/index ",
                 "GIT_CONFIG_PARAMETERS=\"'clean.requireForce'='false'\" "]


def _without_force(flags):
    """``flags`` less every ``-f``: what ``clean.requireForce=false`` lets run as it is."""
    words = [w if w.startswith("--") else w.replace("f", "") for w in flags.split() if w != "--force"]
    return " ".join(w for w in words if w != "-")


def _clean_commands():
    for flags in itertools.chain(_CLEAN_FLAGS, (" ".join(p) for p in itertools.product(["-fdx", "-f"], _TRAPS))):
        yield "git clean " + flags
        unforced = _without_force(flags)
        if unforced:
            yield "git -c clean.requireForce=false clean " + unforced
    for prefix, env in itertools.product(_PREFIXES, _ENV_PREFIXES):
        yield "%sgit %sclean -fdx --no-dry-run" % (env, prefix)
        yield "%sgit %sclean -ffdx" % (env, prefix)
        yield "%sgit -c clean.requireForce=false %sclean -dx" % (env, prefix)


def _other_discards():
    for prefix, env in itertools.product(_PREFIXES, _ENV_PREFIXES):
        for sub in ("reset --hard", "checkout -f", "checkout -- .", "restore .", "stash clear", "stash drop",
                    "switch -f main", "checkout --no-overlay -- .",
                    # issue 39: discards outside the first rows
                    "checkout -f -B main HEAD", "read-tree -u --reset HEAD", "checkout-index -a -f", "rm -r -f .",
                    "update-ref -d refs/stash", "worktree remove --force ../lived-in-wt"):
            yield "%sgit %s%s" % (env, prefix, sub)


COMMANDS = sorted(set(_clean_commands()) | set(_other_discards()))


def _snapshot(*roots: Path) -> dict[str, str]:
    """Every file, link and folder under ``roots`` (the .git folder too), with a digest of its bytes."""
    seen = {}
    for root in roots:
        for folder, dirs, files in os.walk(root):
            for name in dirs + files:
                path = Path(folder, name)
                if path.is_symlink():
                    seen[str(path)] = "-> " + os.readlink(path)
                elif path.is_file():
                    seen[str(path)] = hashlib.sha256(path.read_bytes()).hexdigest()
                else:
                    seen[str(path)] = "dir"
    return seen


def _lived_in_repo(world: World) -> Path:
    """A repository with something of every kind to lose: an uncommitted edit, a staged file,
    untracked and ignored files, an untracked folder, a nested repository and a stash entry."""
    repo = world.root / "lived-in"
    repo.mkdir()
    git = lambda *args: subprocess.run(["git", *args], cwd=repo, env=world.env, check=True,  # noqa: E731
                                       capture_output=True)
    git("init", "-q", "-b", "main")
    (repo / "tracked.txt").write_text("one\n")
    (repo / ".gitignore").write_text("ignored.log\n")
    (repo / "sub").mkdir()
    (repo / "sub" / "kept.txt").write_text("kept\n")
    git("add", ".")
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "one")
    (repo / "tracked.txt").write_text("stashed edit\n")
    git("-c", "user.name=t", "-c", "user.email=t@t", "stash", "-q")
    (repo / "tracked.txt").write_text("unsaved edit\n")
    (repo / "staged.txt").write_text("staged\n")
    git("add", "staged.txt")
    (repo / "untracked.txt").write_text("new\n")
    (repo / "keep.txt").write_text("new\n")
    (repo / "ignored.log").write_text("log\n")
    (repo / "scratch").mkdir()
    (repo / "scratch" / "notes.txt").write_text("notes\n")
    nested = repo / "nested"
    nested.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=nested, env=world.env, check=True, capture_output=True)
    (nested / "inner.txt").write_text("inner\n")
    # A linked work tree with an unsaved edit and an untracked note (git worktree remove --force).
    git("worktree", "add", "-q", "-b", "side", "../lived-in-wt")
    (world.root / "lived-in-wt" / "tracked.txt").write_text("side edit\n")
    (world.root / "lived-in-wt" / "note.txt").write_text("side note\n")
    (world.home / "Documents" / "thesis.txt").write_text("years of work\n")
    return repo


@pytest.fixture(scope="module")
def lived_in(tmp_path_factory):
    world = World(tmp_path_factory.mktemp("judging"))
    return world, _lived_in_repo(world)


@pytest.mark.parametrize("command", COMMANDS)
def test_judging_a_git_discard_leaves_every_byte_as_it_was(lived_in, command):
    world, repo = lived_in
    roots = (repo, world.root / "lived-in-wt", world.home)
    before = _snapshot(*roots)
    judged = world.gate(command, cwd=repo)
    assert _snapshot(*roots) == before, command
    world.gate(command, cwd=repo, args=["--dry-run", "PreToolUse"])  # the advisory's question
    dangers.explain(command, str(repo), world.env)  # hookmux explain's
    assert _snapshot(*roots) == before, command
    # There is something of every kind to lose here: every discard is denied (a clean without
    # -f is refused by git itself, and the user's own dry run deletes nothing).
    words = command.split()
    forced = any(w == "--force" or w.startswith("-") and not w.startswith("--") and "f" in w for w in words)
    unforced = "clean.requireForce=false" in command  # git needs no -f then (no user's dry run here)
    if "clean" not in words or forced or unforced:
        assert denial(judged) is not None, command


def test_an_option_the_gate_does_not_know_is_denied_not_passed_to_git(tmp_path):
    world = World(tmp_path)
    repo = world.repo("clean")
    (repo / "new.txt").write_text("untracked\n")
    reason = denial(world.gate("git clean -fdx --no-dry-run", cwd=repo))
    assert reason and "cannot judge `--no-dry-run` safely" in reason
    assert (repo / "new.txt").exists()
    # A dry run of the user's own deletes nothing: it passes.
    assert denial(world.gate("git clean -n -fdx", cwd=repo)) is None


def test_git_is_asked_about_the_repository_the_command_names(tmp_path):
    world = World(tmp_path)
    clean = world.repo("clean")
    changed = world.repo("changed")
    (world.home / "Documents" / "thesis.txt").write_text("years of work\n")
    assert denial(world.gate('git --work-tree="$HOME" clean -fdx', cwd=clean)) is not None
    assert denial(world.gate("GIT_WORK_TREE=~ git clean -fdx", cwd=clean)) is not None
    rel = os.path.relpath(changed, clean)
    assert denial(world.gate(f"GIT_DIR={rel}/.git GIT_WORK_TREE={rel} git reset --hard", cwd=clean)) is not None
    assert denial(world.gate(f"git --git-dir={rel}/.git --work-tree={rel} reset --hard", cwd=clean)) is not None
    assert denial(world.gate("git reset --hard", cwd=clean)) is None  # the clean one itself


def test_a_git_first_on_path_is_not_the_one_asked(tmp_path):
    world = World(tmp_path)
    repo = world.repo("changed")
    bin_dir = tmp_path / "agent-bin"
    bin_dir.mkdir()
    silent = bin_dir / "git"
    silent.write_text("#!/bin/sh\nexit 0\n")  # answers "nothing to lose" to every question
    silent.chmod(0o755)
    world.env["PATH"] = f"{bin_dir}{os.pathsep}{world.env['PATH']}"
    assert denial(world.gate("git reset --hard", cwd=repo)) is not None


def test_prefix_assignments_reach_the_program_not_the_shells_expansions(tmp_path):
    world = World(tmp_path)
    (world.home / "Documents" / "thesis.txt").write_text("years of work\n")
    other = tmp_path / "elsewhere"
    (other / "Documents").mkdir(parents=True)
    # The shell expands ~ with its own HOME before HOME=... applies to rm: the real Documents go.
    assert denial(world.gate(f"HOME={other} rm -rf ~/Documents", cwd=world.plain)) is not None
    # $TARGET is expanded by the shell, where TARGET is not set: `rm -rf` of nothing.
    assert denial(world.gate("TARGET=/etc rm -rf $TARGET", cwd=world.plain)) is None
    # A plain assignment first lasts for the later command: that one is /etc.
    assert denial(world.gate("TARGET=/etc; rm -rf $TARGET", cwd=world.plain)) is not None


def _filtered_repo(world: World, driver: str) -> tuple[Path, Path]:
    """A repository whose configuration names filter programs (clean, smudge, process) that leave a
    marker file when run, with a tracked file edited (its size kept) so that a status hashes it."""
    repo = world.root / ("filtered-" + str(abs(hash(driver))))
    repo.mkdir()
    marker = world.root / (repo.name + ".ran")
    program = world.root / "filter_program.py"
    program.write_text("import sys\nopen(sys.argv[1], 'a').write('ran\\n')\n")  # then it quits: git fails
    git = lambda *args: subprocess.run(["git", *args], cwd=repo, env=world.env, check=True,  # noqa: E731
                                       capture_output=True)
    git("init", "-q", "-b", "main")
    (repo / "src").mkdir()
    (repo / "src" / "tracked.txt").write_text("one\n")
    git("add", ".")
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "one")
    (repo / ".git" / "info" / "attributes").write_text("* filter=%s\n" % driver)
    run = "%s %s %s" % (sys.executable, program, marker)
    for key in ("clean", "smudge", "process"):
        git("config", "filter.%s.%s" % (driver, key), run)
    git("config", "filter.%s.required" % driver, "true")
    (repo / "src" / "tracked.txt").write_text("two\n")  # the same size: git must hash it to know
    # The trap is real: git itself runs the program when it hashes the edited file.
    subprocess.run(["git", "status", "--porcelain"], cwd=repo, env=world.env, capture_output=True, timeout=60)
    assert marker.exists(), "the filter program did not run: the test would prove nothing"
    marker.unlink()
    return repo, marker


@pytest.mark.parametrize("command", ["git checkout -- .", "git reset --hard", "git restore src", "rm -rf src",
                                     "git stash clear", "git clean -fd"])
def test_judging_runs_no_filter_program_of_the_repository(tmp_path, command):
    world = World(tmp_path)
    repo, marker = _filtered_repo(world, "trap")
    judged = world.gate(command, cwd=repo)
    world.gate(command, cwd=repo, args=["--dry-run", "PreToolUse"])
    dangers.explain(command, str(repo), world.env)
    assert not marker.exists(), command
    if command.split()[1] in ("checkout", "reset", "restore") or command.startswith("rm"):
        assert "src/tracked.txt" in (denial(judged) or ""), command  # the edit is still seen


def test_a_filter_driver_named_so_no_setting_can_empty_it_is_not_asked_about(tmp_path):
    world = World(tmp_path)
    repo, marker = _filtered_repo(world, "a=b")
    denial(world.gate("git checkout -- .", cwd=repo))  # a valid answer, whatever it is
    assert not marker.exists()


def _signed_stash_repo(world: World) -> tuple[Path, Path]:
    """A repository whose configuration shows signatures with a gpg program that leaves a marker,
    and whose stash is a commit carrying a (forged) signature: listing it makes git verify it."""
    repo = world.root / "signed"
    repo.mkdir()
    marker = world.root / "gpg.ran"
    program = world.root / "gpg_program.py"
    program.write_text("import sys\nopen(%r, 'a').write('ran\\n')\nsys.exit(1)\n" % str(marker))
    program.chmod(0o755)
    wrapper = world.root / "gpg_program"
    wrapper.write_text("#!%s\nexec(open(%r).read())\n" % (sys.executable, str(program)))
    wrapper.chmod(0o755)
    git = lambda *args, **kw: subprocess.run(["git", *args], cwd=repo, env=world.env, check=True,  # noqa: E731
                                             capture_output=True, **kw).stdout.decode().strip()
    git("init", "-q", "-b", "main")
    (repo / "tracked.txt").write_text("one\n")
    git("add", ".")
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "one")
    body = ("tree %s\nparent %s\nauthor t <t@t> 1 +0000\ncommitter t <t@t> 1 +0000\n"
            "gpgsig -----BEGIN PGP SIGNATURE-----\n \n x\n -----END PGP SIGNATURE-----\n\nWIP on main\n"
            % (git("write-tree"), git("rev-parse", "HEAD")))
    stash = git("hash-object", "-t", "commit", "-w", "--stdin", input=body.encode())
    git("update-ref", "--create-reflog", "refs/stash", stash)
    git("config", "gpg.program", str(wrapper))
    git("config", "log.showSignature", "true")
    # The trap is real: git itself runs the program when it lists the stash.
    subprocess.run(["git", "stash", "list"], cwd=repo, env=world.env, capture_output=True, timeout=60)
    assert marker.exists(), "git did not run the gpg program: the test would prove nothing"
    marker.unlink()
    return repo, marker


@pytest.mark.parametrize("command", ["git stash clear", "git stash drop", "rm -rf .git"])
def test_judging_runs_no_gpg_program_of_the_repository(tmp_path, command):
    """Issue 38: ``log.showSignature`` in the repository's configuration would make the gate's
    ``git stash list`` start the ``gpg.program`` an agent wrote there."""
    world = World(tmp_path)
    repo, marker = _signed_stash_repo(world)
    judged = world.gate(command, cwd=repo)
    dangers.explain(command, str(repo), world.env)
    assert not marker.exists(), command
    if command.startswith("git"):
        assert "stash" in (denial(judged) or ""), command  # the entry is still seen
