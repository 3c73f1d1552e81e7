"""Issue 39, second part: tar --remove-files, zip -m, mv onto a file, a redirection that empties a
file, and a stash drop after a stash apply, judged by the rows' ``operands`` (operands.py) as rm,
cp and truncate are: "what would be lost?".

DATA ONLY: every command goes to the real gate script as the command of a JSON payload; HOME is
a temporary folder (asserted by World). The one thing run for real is git itself, on a
repository created under tmp_path (the conflicted stash pop), with argv lists, never a shell."""
from __future__ import annotations

import subprocess
import sys

import pytest

from gate_support import DANGER_GATE, World, denial, payload

KEY = "PRIVATE KEY (test)\n"


def lived_in(tmp_path) -> World:
    """HOME with Documents and a private key; a session folder with a new key, a build folder
    and a note; the ``changed`` repository (tracked.txt edited, not committed) with an
    untracked log."""
    world = World(tmp_path)
    (world.home / "Documents" / "thesis.tex").write_text("chapter 1\n")
    (world.home / ".ssh" / "id_ed25519").write_text(KEY)
    (world.plain / "build").mkdir()
    (world.plain / "build" / "out.log").write_text("log\n")
    (world.plain / "id_ed25519").write_text("new key\n")
    (world.plain / "a.txt").write_text("a\n")
    (world.repo("changed") / "build.log").write_text("old log\n")
    return world


def _intact(world: World) -> None:
    assert (world.home / ".ssh" / "id_ed25519").read_text() == KEY
    assert (world.home / "Documents" / "thesis.tex").is_file()
    assert (world.repo("changed") / "tracked.txt").read_text() == "two\n"


DENIED = [
    # the archive goes nowhere: what tar or zip removes once archived is gone
    ("tar -cf /dev/null --remove-files ~/Documents", "TAR-REMOVES-UNARCHIVED"),
    ("tar -czf - --remove-files ~/Documents > /dev/null", "TAR-REMOVES-UNARCHIVED"),
    ("tar --remove-files -cf - ~/.ssh/id_ed25519", "TAR-REMOVES-UNARCHIVED"),  # into the agent's output
    ("tar --remove-files -c ~/Documents", "TAR-REMOVES-UNARCHIVED"),  # no -f: standard output
    ("tar -C ~ -cf /dev/null --remove-files Documents", "TAR-REMOVES-UNARCHIVED"),  # relative to -C
    ("tar cf /dev/null --remove-files ~/Documents", "TAR-REMOVES-UNARCHIVED"),  # old-style letters
    ("tar --file=/dev/null --create --remove-files ~/Documents", "TAR-REMOVES-UNARCHIVED"),
    ("zip -rm - ~/Documents > /dev/null", "ZIP-MOVES-UNARCHIVED"),
    ("zip -m - ~/.ssh/id_ed25519 > /dev/null", "ZIP-MOVES-UNARCHIVED"),
    ("zip -r --move - ~/Documents", "ZIP-MOVES-UNARCHIVED"),
    # mv onto an existing private key replaces it
    ("mv id_ed25519 ~/.ssh/id_ed25519", "MV-OVERWRITES-UNDOABLE"),
    ("mv -f id_ed25519 ~/.ssh/", "MV-OVERWRITES-UNDOABLE"),  # into the folder: ~/.ssh/id_ed25519
    ("mv -t ~/.ssh id_ed25519", "MV-OVERWRITES-UNDOABLE"),
    ("sudo mv a.txt ~/.ssh/id_ed25519", "MV-OVERWRITES-UNDOABLE"),
    # a redirection empties the key before the command starts
    (": > ~/.ssh/id_ed25519", "REDIRECT-EMPTIES-UNDOABLE"),
    ("> ~/.ssh/id_ed25519", "REDIRECT-EMPTIES-UNDOABLE"),
    ("cat /dev/null > ~/.ssh/id_ed25519", "REDIRECT-EMPTIES-UNDOABLE"),
    ("echo x > ~/.ssh/id_ed25519", "REDIRECT-EMPTIES-UNDOABLE"),
    ("true >| $HOME/.ssh/id_ed25519", "REDIRECT-EMPTIES-UNDOABLE"),
    ("make &> ~/.ssh/id_ed25519", "REDIRECT-EMPTIES-UNDOABLE"),
    ("cd ~/.ssh && : > id_ed25519", "REDIRECT-EMPTIES-UNDOABLE"),
    ("sh -c ': > ~/.ssh/id_ed25519'", "REDIRECT-EMPTIES-UNDOABLE"),
]


@pytest.mark.parametrize("command, row", DENIED)
def test_what_cannot_come_back_is_denied(tmp_path, command, row):
    world = lived_in(tmp_path)
    reason = denial(world.gate(command, cwd=world.plain))
    assert reason and row in reason and "hookmux allow" in reason, (command, reason)
    _intact(world)


@pytest.mark.parametrize("command", [
    # the archive is a file (or a pipe to another program): the data comes back from it
    "tar -czf build.tgz --remove-files ~/Documents", "tar czf build.tgz --remove-files ~/Documents",
    "tar -czf - --remove-files ~/Documents > docs.tgz",
    "tar -czf - --remove-files ~/Documents | ssh backup 'cat > docs.tgz'",
    "tar -C ~/.ssh -cf keys.tar --remove-files id_ed25519",
    "tar -cf /dev/null --remove-files build", "tar -cf /dev/null ~/Documents",
    "tar -xf docs.tar --remove-files", "tar -C build -cf /dev/null --remove-files out.log",
    "zip -rm docs.zip ~/Documents", "zip -rm - build > /dev/null", "zip -r - ~/Documents > /dev/null",
    "zip -m - a.txt -x ~/.ssh/id_ed25519 > /dev/null",  # an exclude pattern is no operand
    "zip -m -tt 2020-01-01 - a.txt > /dev/null",  # a two-letter option's value is no archive
    # mv: a move can be moved back; only what it replaces is lost
    "mv a.txt b.txt", "mv a.txt build/", "mv ~/.ssh/id_ed25519 build/key", "mv ~/Documents build/docs",
    "mv -n id_ed25519 ~/.ssh/id_ed25519", "mv --backup=numbered id_ed25519 ~/.ssh/id_ed25519",
    "mv id_ed25519 ~/.ssh/id_ed25519.new", "mv a.txt build/out.log",
    # redirections that empty nothing precious
    ": > build.log", ": > build/out.log", "> build/out.log", "echo x >> ~/.ssh/id_ed25519",
    "cat ~/.ssh/id_ed25519 > build/key.bak", "make > build/out.log 2>/dev/null", "echo '> ~/.ssh/id_ed25519'",
    "make 2>&1 | tee build/out.log", "cat a.txt >&2",
])
def test_what_can_come_back_passes(tmp_path, command):
    world = lived_in(tmp_path)
    assert denial(world.gate(command, cwd=world.plain)) is None, command
    _intact(world)


# -- uncommitted changes: the work tree of any repository ------------------------------------------

@pytest.mark.parametrize("command, row", [
    (": > tracked.txt", "REDIRECT-EMPTIES-UNDOABLE"),
    ("> tracked.txt", "REDIRECT-EMPTIES-UNDOABLE"),
    ("cat /dev/null > tracked.txt", "REDIRECT-EMPTIES-UNDOABLE"),
    ("sed 's/two/three/' tracked.txt > tracked.txt", "REDIRECT-EMPTIES-UNDOABLE"),  # emptied before sed reads it
    ("sort -u ./tracked.txt > tracked.txt", "REDIRECT-EMPTIES-UNDOABLE"),
    ("truncate -s 0 tracked.txt", "TRUNCATE-EMPTIES-UNDOABLE"),
    ("shred -u tracked.txt", "SHRED-OVERWRITES-UNDOABLE"),
    ("tar -cf /dev/null --remove-files tracked.txt", "TAR-REMOVES-UNARCHIVED"),
    ("zip -m - tracked.txt > /dev/null", "ZIP-MOVES-UNARCHIVED"),
])
def test_emptying_a_tracked_file_with_uncommitted_changes_is_denied(tmp_path, command, row):
    world = lived_in(tmp_path)
    reason = denial(world.gate(command, cwd=world.repo("changed")))
    assert reason and row in reason and "uncommitted change to tracked.txt" in reason, (command, reason)
    _intact(world)


def test_a_repository_other_than_the_sessions_is_asked_too(tmp_path):
    world = lived_in(tmp_path)
    reason = denial(world.gate(": > ../repo-changed/tracked.txt", cwd=world.plain))
    assert reason and "REDIRECT-EMPTIES-UNDOABLE" in reason and "tracked.txt" in reason
    _intact(world)


@pytest.mark.parametrize("command, state", [
    ("echo three > tracked.txt", "changed"),  # new content written: an edit, as a file tool's
    ("sed 's/two/three/' tracked.txt > tracked.new", "changed"),
    (": > other.txt", "changed"),  # tracked and unchanged: git brings it back
    (": > build.log", "changed"),  # untracked: not judged, as rm build.log is not
    ("sed 's/two/three/' tracked.txt > tracked.txt", "staged"),  # the index holds the change
    ("git stash && : > tracked.txt", "changed"),  # saved first
    ("truncate -s 0 tracked.txt", "clean"),
    ("tar -cf /dev/null --remove-files tracked.txt", "clean"),
    (": > tracked.txt", "clean"),
])
def test_what_git_still_holds_or_never_held_passes(tmp_path, command, state):
    world = lived_in(tmp_path)
    assert denial(world.gate(command, cwd=world.repo(state))) is None, (command, state)
    _intact(world)


# -- the fast path ------------------------------------------------------------------------------

def _went_on(world: World, command: str) -> bool:
    done = subprocess.run([sys.executable, "-S", "-X", "importtime", str(DANGER_GATE), "PreToolUse"],
                          input=payload("claude", command, world.plain).encode(), capture_output=True,
                          env=world.env, timeout=60)
    assert done.returncode == 0, done
    return b"gate_core" in done.stderr


@pytest.mark.parametrize("command, went_on", [
    (": > ~/.ssh/id_ed25519", True), ("make > out.log", True), ("tar cf x.tar src", True), ("mv a b", True),
    ("zip -r x.zip src", True),
    ("ls -la src", False), ("make 2>/dev/null", False), ("make >/dev/null 2>&1", False), ("echo x >> log", False),
    ("make 2>&1 | less", False), ("node -e 'a => b'", False), ("start-server --port 3", False),
])
def test_only_a_program_of_a_row_or_a_redirection_that_empties_a_file_loads_the_gate(tmp_path, command, went_on):
    world = World(tmp_path)
    assert _went_on(world, command) is went_on


# -- git stash: a drop after an apply or a pop ---------------------------------------------------------

def _git(repo, *args, env, check=True):
    return subprocess.run(["git", *args], cwd=repo, env=env, capture_output=True, text=True, timeout=30, check=check)


def _two_stashes(world: World):
    repo = world.repo("stashed")  # one entry: tracked.txt "two"
    (repo / "other.txt").write_text("second\n")
    _git(repo, "stash", "push", "-q", env=world.env)
    assert len(_git(repo, "stash", "list", env=world.env).stdout.splitlines()) == 2
    return repo


@pytest.mark.parametrize("command", [
    "git stash apply && git stash drop",
    "git stash apply stash@{1} && git stash drop stash@{1}",
    "git stash apply 1 && git stash drop stash@{1}",
    "if git stash apply; then git stash drop; fi",
    "git stash apply --index && git stash drop",
])
def test_a_drop_that_runs_only_after_its_entry_was_applied_passes(tmp_path, command):
    world = World(tmp_path)
    repo = _two_stashes(world)
    assert denial(world.gate(command, cwd=repo)) is None, command


@pytest.mark.parametrize("command", [
    "git stash apply; git stash drop",  # a conflicted apply fails, and the drop still runs
    "git stash apply || git stash drop",
    "git stash apply && git stash drop stash@{1}",  # not the entry applied
    "git stash pop && git stash drop",  # the pop dropped its entry: this drop takes the next one
    "! git stash apply && git stash drop",
    "git stash apply && git stash clear",
])
def test_a_drop_that_can_lose_an_entry_is_still_denied(tmp_path, command):
    world = World(tmp_path)
    repo = _two_stashes(world)
    reason = denial(world.gate(command, cwd=repo))
    assert reason and "GIT-STASH-DISCARD" in reason, command


def test_a_drop_after_a_pop_of_the_only_entry_finds_nothing_to_lose(tmp_path):
    world = World(tmp_path)
    repo = world.repo("stashed")
    assert denial(world.gate("git stash pop && git stash drop", cwd=repo)) is None
    assert "GIT-STASH-DISCARD" in denial(world.gate("git stash pop; git stash drop", cwd=repo))


def test_git_keeps_the_entry_after_a_conflicted_pop_and_the_gate_still_guards_it(tmp_path):
    """What the stash rules build on, pinned with the real git: a conflicted ``stash pop`` (or
    ``apply``) fails (so ``&&`` stops) and keeps its entry, so a later drop of it loses it (the
    work tree holds conflict markers, not the stashed file)."""
    world = World(tmp_path)
    repo = world.repo("stashed")  # stash@{0}: tracked.txt one -> two
    (repo / "tracked.txt").write_text("three, committed\n")
    _git(repo, "commit", "-q", "-am", "three", env=world.env)
    popped = _git(repo, "stash", "pop", env=world.env, check=False)
    assert popped.returncode != 0 and "CONFLICT" in popped.stdout + popped.stderr
    assert "<<<<<<<" in (repo / "tracked.txt").read_text()
    assert len(_git(repo, "stash", "list", env=world.env).stdout.splitlines()) == 1  # kept
    reason = denial(world.gate("git stash drop", cwd=repo))
    assert reason and "GIT-STASH-DISCARD" in reason and "stash@{0}" in reason
    assert str(repo).startswith(str(tmp_path))  # git's own repository of this test, under tmp_path
    _git(repo, "reset", "-q", "--hard", env=world.env)  # a clean tree: the apply conflicts again
    applied = _git(repo, "stash", "apply", env=world.env, check=False)
    assert applied.returncode != 0  # `git stash apply && git stash drop` would stop here
    assert len(_git(repo, "stash", "list", env=world.env).stdout.splitlines()) == 1
