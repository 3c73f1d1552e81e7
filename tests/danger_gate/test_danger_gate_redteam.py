"""The red team's corpus through the real gate (danger_gate_redteam_corpus.py): every ``block``
command is denied by the script a host runs, every ``pass`` command runs untouched.

The commands are data in a JSON payload; HOME and the repositories are temporary folders."""
from __future__ import annotations

from collections import Counter

import pytest

from danger_gate_redteam_corpus import CASES
from gate_support import World, denial


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    world = World(tmp_path_factory.mktemp("redteam"))
    (world.home / ".ssh" / "id_ed25519").write_text("PRIVATE\n")  # a key for the overwriting programs (issue 39)
    return world


def test_the_corpus_covers_bypasses_and_false_blocks():
    assert len({(command, repo) for _, command, _, repo in CASES}) == len(CASES)
    kinds = Counter(kind for _, _, kind, _ in CASES)
    assert kinds["block"] >= 150 and kinds["pass"] >= 150, kinds
    categories = Counter(category for category, _, _, _ in CASES)
    for category in ("wrappers", "shells", "substitutions", "program-names", "options", "interpreters", "paths",
                     "find", "devices", "git", "text", "states", "build", "look-alikes"):
        assert categories[category] >= 5, category


@pytest.mark.parametrize("category, command, kind, repo", CASES,
                         ids=["%s-%s-%d" % (case[0], case[2], index) for index, case in enumerate(CASES)])
def test_redteam_case(world, category, command, kind, repo):
    reason = denial(world.gate(command, cwd=world.repo(repo)))
    if kind == "block":
        assert reason and "hookmux allow" in reason, (command, repo)
    else:
        assert reason is None, (command, repo, reason)
    assert (world.home / "Documents").is_dir() and (world.home / ".ssh" / "id_ed25519").read_text() == "PRIVATE\n"


@pytest.mark.parametrize("host", ["claude", "copilot", "copilot-claude", "codex"])
@pytest.mark.parametrize("command, kind", [
    ("echo 'rm -rf ~/Documents' | sh", "block"),
    ("cat disk.img > /dev/sdb", "block"),
    ("rm --recur -f ~/.ssh", "block"),
    ("export OUT=dist; rm -rf \"$OUT\"/*", "pass"),
    ("python3 -c \"print('shutil.rmtree(\\\"/etc\\\")')\"", "pass"),
])
def test_redteam_cases_on_every_host(world, host, command, kind):
    reason = denial(world.gate(command, cwd=world.repo(), host=host), host)
    assert (reason is not None) == (kind == "block"), (host, command, reason)


def test_a_stash_first_lets_the_discard_run_and_a_pop_takes_that_back(world):
    changed = world.repo("changed")
    assert denial(world.gate("git stash && git reset --hard origin/main", cwd=changed)) is None
    reason = denial(world.gate("git stash && git stash pop && git reset --hard", cwd=changed))
    assert reason and "GIT-RESET-HARD-UNSAVED" in reason
    reason = denial(world.gate("git stash && git stash drop", cwd=changed))
    assert reason and "the changes an earlier `git stash` of this command saves" in reason
    assert (changed / "tracked.txt").read_text() == "two\n"  # judged, never run
