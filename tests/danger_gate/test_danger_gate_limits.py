"""The reader's limits fail closed where it matters (issue 38): a command the shell reader stops
reading at one of its limits is denied when its text names a program of a gate row, and passes
as before when it names none. The commands are data handed to the real gate."""
from __future__ import annotations

import pytest

from gate_support import World, denial

LIMITED = {
    "500 commands first": ":;" * 500 + " rm -rf ~/Documents",
    "over 4,096 words": "echo " + "a " * 5000 + "&& rm -rf ~/Documents",
    "a 40 KB bash -c string": 'bash -c "' + "echo hi; " * 4500 + 'rm -rf ~/Documents"',
    "eleven nested evals": "eval " * 11 + "rm -rf ~/Documents",
    "a 1.1 MB command": "echo " + "x" * 1_100_000 + "; git reset --hard",
    "a 200 KB operand": "rm -rf ~/Documents " + "x" * 200_000,
}


@pytest.mark.parametrize("name", sorted(LIMITED))
def test_a_command_read_only_in_part_that_names_a_row_program_is_denied(tmp_path, name):
    world = World(tmp_path)
    (world.home / "Documents" / "thesis.txt").write_text("years of work\n")
    reason = denial(world.gate(LIMITED[name], cwd=world.repo("changed")))
    assert reason, name
    assert "TOO-LONG-TO-JUDGE" in reason or "RM-RECURSIVE" in reason, reason


def test_a_long_heredoc_before_a_discard_is_read_and_judged(tmp_path):
    world = World(tmp_path)
    command = "cat > notes.txt <<'EOF'\n" + "x" * 102_000 + "\nEOF\ngit reset --hard"
    assert "GIT-RESET-HARD" in (denial(world.gate(command, cwd=world.repo("changed"))) or "")
    assert denial(world.gate(command, cwd=world.repo("clean"))) is None


def test_a_long_command_that_names_no_row_program_passes(tmp_path):
    world = World(tmp_path)
    assert denial(world.gate(":;" * 600 + " ls", cwd=world.plain)) is None
    assert denial(world.gate("echo " + "a " * 5000, cwd=world.plain)) is None
