"""One level below what the gate protects: judged by what is really there to lose (issue 39)."""
from __future__ import annotations

import subprocess

import pytest

from gate_support import World, denial


def lived_in(tmp_path) -> World:
    """A HOME with work in Documents, keys in .ssh and settings in .config."""
    world = World(tmp_path)
    (world.home / "Documents" / "thesis.tex").write_text("chapter 1\n")
    (world.home / "Documents" / "notes").mkdir()
    (world.home / ".ssh" / "id_ed25519").write_text("PRIVATE\n")
    (world.home / ".ssh" / "id_ed25519.pub").write_text("ssh-ed25519 AAAA\n")
    (world.home / ".ssh" / "known_hosts.old").write_text("old\n")
    (world.home / ".config" / "app").mkdir(parents=True)
    return world


@pytest.mark.parametrize("command", [
    "rm -rf ~/Documents/*", "rm ~/.ssh/*", "rm -f ~/.ssh/id_ed25519", "rm -rf ~/.config/*",
    "rm -f $HOME/.ssh/id_ed25519", "cd ~/.ssh && rm -f *", "find ~/Documents -type f -delete",
    "rm -r ~/Documents/* ./build",
])
def test_below_a_protected_folder_what_is_there_is_denied(tmp_path, command):
    world = lived_in(tmp_path)
    reason = denial(world.gate(command))
    assert reason and "hookmux allow" in reason, command
    assert (world.home / ".ssh" / "id_ed25519").is_file()


def test_the_reason_names_the_folder_emptied_and_the_key(tmp_path):
    world = lived_in(tmp_path)
    reason = denial(world.gate("rm -rf ~/Documents/*"))
    assert f"everything in {world.home}/Documents, a top-level folder" in reason and "RM-EMPTIES-UNDOABLE" in reason
    assert f"the private key {world.home}/.ssh/id_ed25519" in denial(world.gate("rm -f ~/.ssh/id_ed25519"))


@pytest.mark.parametrize("command", [
    "rm -rf ~/Documents/*", "rm ~/.ssh/*", "rm -f ~/.ssh/id_ed25519", "rm -rf ~/.config/*",
])
def test_the_same_command_passes_where_nothing_would_be_lost(tmp_path, command):
    world = World(tmp_path)  # Documents and .ssh empty, no .config, no key
    assert denial(world.gate(command)) is None, command


@pytest.mark.parametrize("command", [
    "rm ~/.ssh/*.old", "rm ~/.ssh/id_ed25519.pub", "rm -f ~/.ssh/known_hosts.old", "rm -rf ~/Documents/notes",
    "rm ~/Documents/*.tex", "rm -rf ~/.cache/*", "rm -rf ./build/*", "rm -rf node_modules/*", "rm -f *.log",
    "find ~/Documents -type f -name '*.tmp' -delete", "find . -type d -empty -delete", "rm -rf /tmp/hookmux-x/*",
    "rm -rf ~/.gradle ~/.m2 ~/.vscode-server ~/.nvm ~/tmp", "rm -rf ~/.gradle/caches ~/.m2/repository",
    "rm -rf *",
])
def test_everyday_deletes_below_home_still_pass(tmp_path, command):
    world = lived_in(tmp_path)
    for name in (".gradle", ".m2", ".vscode-server", ".nvm", "tmp"):
        (world.home / name / "x").mkdir(parents=True)
    (world.repo() / "build").mkdir(exist_ok=True)
    (world.repo() / "build" / "out.o").write_text("o")
    assert denial(world.gate(command)) is None, command


def test_a_glob_that_leaves_something_behind_is_not_everything(tmp_path):
    world = lived_in(tmp_path)
    assert denial(world.gate("rm -rf ~/Documents/t*")) is None
    (world.home / "Documents" / "notes").rmdir()
    assert denial(world.gate("rm -rf ~/Documents/t*")) is not None  # thesis.tex was all there was


def _repo_with_src(world: World, edited: bool):
    import subprocess

    repo = world.repo("clean")
    (repo / "src").mkdir()
    (repo / "src" / "main.py").write_text("print(1)\n")
    (repo / "build").mkdir()
    (repo / "build" / "out.o").write_text("o")
    for args in (["add", "src"], ["commit", "-q", "-m", "src"]):
        subprocess.run(["git", "-C", str(repo), *args], env=world.env, check=True)
    if edited:
        (repo / "src" / "main.py").write_text("print(2)  # unsaved work\n")
    return repo


def test_rm_r_over_uncommitted_edits_in_a_work_tree_is_denied(tmp_path):
    world = World(tmp_path)
    repo = _repo_with_src(world, edited=True)
    reason = denial(world.gate("rm -rf src", cwd=repo))
    assert reason and "1 uncommitted change to src/main.py" in reason
    sub = repo / "src"
    assert denial(world.gate("rm -rf ../src", cwd=sub)) is not None
    assert denial(world.gate(f"rm -rf {sub}", cwd=world.plain)) is not None  # a sibling's unsaved work
    assert denial(world.gate("git stash && rm -rf src", cwd=repo)) is None  # saved first
    assert (repo / "src" / "main.py").read_text().endswith("unsaved work\n")


def test_rm_r_of_committed_or_untracked_folders_passes(tmp_path):
    world = World(tmp_path)
    repo = _repo_with_src(world, edited=False)
    for command in ("rm -rf src", "rm -rf build", "rm -rf build src", "rm -r src/", "rm -rf ./build/*"):
        assert denial(world.gate(command, cwd=repo)) is None, command


def _git(world: World, repo, *args: str) -> str:
    done = subprocess.run(["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t", *args],
                          env=world.env, check=True, capture_output=True, text=True)
    return done.stdout.strip()


def _history(world: World, name: str, commits: int, remote: bool = False):
    """A repository of ``commits`` commits on main; with ``remote``, all of them pushed to a bare one."""
    repo = world.root / name
    repo.mkdir()
    _git(world, repo, "init", "-q", "-b", "main")
    for number in range(commits):
        (repo / "notes.txt").write_text(f"entry {number}\n")
        _git(world, repo, "add", ".")
        _git(world, repo, "commit", "-q", "-m", f"entry {number}")
    if remote:
        bare = world.root / (name + ".git")
        _git(world, world.root, "init", "-q", "--bare", str(bare))
        _git(world, repo, "remote", "add", "origin", str(bare))
        _git(world, repo, "push", "-q", "origin", "main")
    return repo


@pytest.mark.parametrize("command", ["rm -rf .git", "rm -rf ./.git/", "rm -rf ../notes"])
def test_removing_a_repository_or_its_git_folder_loses_the_commits_on_no_remote(tmp_path, command):
    world = World(tmp_path)
    repo = _history(world, "notes", 3)
    reason = denial(world.gate(command, cwd=repo))
    assert reason and "3 commits on no remote:" in reason, reason
    assert (repo / ".git" / "HEAD").is_file()


def test_removing_the_git_folder_loses_the_stash(tmp_path):
    world = World(tmp_path)
    repo = _history(world, "notes", 2, remote=True)
    (repo / "notes.txt").write_text("half done\n")
    _git(world, repo, "stash", "-q")
    reason = denial(world.gate("rm -rf .git", cwd=repo))
    assert reason and "1 stash entry" in reason and "commits on no remote" not in reason, reason


@pytest.mark.parametrize("command", ["rm -rf .git", "rm -rf .git && git init"])
def test_a_pushed_history_or_a_lone_first_commit_passes(tmp_path, command):
    world = World(tmp_path)
    assert denial(world.gate(command, cwd=_history(world, "pushed", 3, remote=True))) is None
    scaffold = _history(world, "scaffold", 1)  # `create-app` made an "Initial commit": the work tree holds it
    assert denial(world.gate(command, cwd=scaffold)) is None


def test_removing_a_whole_repository_loses_its_untracked_work_not_its_build_output(tmp_path):
    world = World(tmp_path)
    repo = _history(world, "site", 2, remote=True)
    (repo / "node_modules" / "x").mkdir(parents=True)
    (repo / "node_modules" / "x" / "index.js").write_text("x\n")
    before = denial(world.gate("rm -rf site", cwd=world.root)) or ""
    assert "untracked" not in before and "node_modules" not in before, before
    (repo / "draft.md").write_text("not added yet\n")
    reason = denial(world.gate("rm -rf site", cwd=world.root))
    assert reason and "draft.md" in reason, reason
