"""Other programs that delete or overwrite (issue 39): rsync --delete, truncate, shred, cp onto a
file, judged by the same "what would be lost" question as rm (the rows' ``operands`` data).

DATA ONLY: every command goes to the real gate script as the command of a JSON payload; HOME is
a temporary folder (asserted by World), and nothing is run."""
from __future__ import annotations

import json

import pytest

from gate_support import World, denial

from hookmux import dangers

KEY = "PRIVATE KEY (test)\n"


def lived_in(tmp_path) -> World:
    """A HOME with work in Documents and a private key; a session folder with an empty source,
    a Documents folder of its own, a new key and a build folder."""
    world = World(tmp_path)
    (world.home / "Documents" / "thesis.tex").write_text("chapter 1\n")
    (world.home / ".ssh" / "id_ed25519").write_text(KEY)
    (world.home / ".ssh" / "id_ed25519.pub").write_text("ssh-ed25519 AAAA\n")
    for name in ("empty", "src", "dst", "Documents", "build"):
        (world.plain / name).mkdir()
    (world.plain / "id_ed25519").write_text("new key\n")
    (world.plain / "a.txt").write_text("a\n")
    (world.plain / "src" / "page.html").write_text("<p>\n")
    (world.plain / "build" / "out.log").write_text("log\n" * 10)
    return world


def _intact(world: World) -> None:
    assert (world.home / ".ssh" / "id_ed25519").read_text() == KEY
    assert (world.home / "Documents" / "thesis.tex").is_file()


DENIED = [
    ("rsync -a --delete empty/ ~/Documents/", "RSYNC-DELETE-UNDOABLE"),
    ("rsync -a --delete-before empty/ ~/Documents", "RSYNC-DELETE-UNDOABLE"),
    ("rsync -a --delete-after empty/ ~/Documents/", "RSYNC-DELETE-UNDOABLE"),
    ("rsync -a --delete-during ./empty/ $HOME/Documents/", "RSYNC-DELETE-UNDOABLE"),
    ("rsync -rv --del empty/ ~", "RSYNC-DELETE-UNDOABLE"),
    ("rsync -e ssh -a --delete-excluded --exclude '*.o' empty/ ~/.ssh/", "RSYNC-DELETE-UNDOABLE"),
    ("rsync -a --delete Documents ~/", "RSYNC-DELETE-UNDOABLE"),  # no slash: into ~/Documents
    ("sudo rsync -a --delete empty/ ~/Documents/", "RSYNC-DELETE-UNDOABLE"),
    ("rsync -a --remove-source-files ~/Documents/ dst/", "RSYNC-REMOVES-SOURCE"),
    ("truncate -s 0 ~/.ssh/id_ed25519", "TRUNCATE-EMPTIES-UNDOABLE"),
    ("truncate --size=0 ~/.ssh/id_ed25519", "TRUNCATE-EMPTIES-UNDOABLE"),
    ("truncate --size 0 ~/.ssh/id_ed25519", "TRUNCATE-EMPTIES-UNDOABLE"),
    ("truncate -cs0 ~/.ssh/id_ed25519", "TRUNCATE-EMPTIES-UNDOABLE"),
    ("truncate -s -3 ~/.ssh/id_ed25519", "TRUNCATE-EMPTIES-UNDOABLE"),
    ("truncate -r a.txt ~/.ssh/id_ed25519", "TRUNCATE-EMPTIES-UNDOABLE"),  # a.txt is smaller
    ("shred -u ~/.ssh/id_ed25519", "SHRED-OVERWRITES-UNDOABLE"),
    ("shred --remove ~/.ssh/id_ed25519", "SHRED-OVERWRITES-UNDOABLE"),
    ("shred -n 1 -z ~/.ssh/id_ed25519", "SHRED-OVERWRITES-UNDOABLE"),
    ("shred ~/.ssh/id_ed25519", "SHRED-OVERWRITES-UNDOABLE"),  # overwritten in place, no -u needed
    ("cp /dev/null ~/.ssh/id_ed25519", "CP-OVERWRITES-UNDOABLE"),
    ("cp a.txt ~/.ssh/id_ed25519", "CP-OVERWRITES-UNDOABLE"),
    ("cp -f id_ed25519 ~/.ssh/", "CP-OVERWRITES-UNDOABLE"),  # into the folder: ~/.ssh/id_ed25519
    ("cp -t ~/.ssh id_ed25519", "CP-OVERWRITES-UNDOABLE"),
    ("sh -c 'cp /dev/null ~/.ssh/id_ed25519'", "CP-OVERWRITES-UNDOABLE"),
]


@pytest.mark.parametrize("command, row", DENIED)
def test_another_program_destroying_a_protected_place_is_denied(tmp_path, command, row):
    world = lived_in(tmp_path)
    reason = denial(world.gate(command, cwd=world.plain))
    assert reason and row in reason and "hookmux allow" in reason, (command, reason)
    _intact(world)


def test_the_reason_names_what_would_be_lost(tmp_path):
    world = lived_in(tmp_path)
    reason = denial(world.gate("rsync -a --delete empty/ ~/Documents/", cwd=world.plain))
    assert f"rsync would lose {world.home}/Documents, a top-level folder of the home folder" in reason
    reason = denial(world.gate("cp /dev/null ~/.ssh/id_ed25519", cwd=world.plain))
    assert f"cp would lose the private key {world.home}/.ssh/id_ed25519" in reason
    reason = denial(world.gate("truncate -s 0 ~/Documents/*", cwd=world.plain))
    assert f"everything in {world.home}/Documents" in reason  # the glob takes every file there


@pytest.mark.parametrize("command", [
    "truncate -s 0 build/out.log", "truncate --size=0 build/out.log", "shred -u build/out.log",
    "shred build/out.log", "cp /dev/null build/out.log", "cp a.txt build/out.log", "cp a.txt b.txt",
    "rsync -a src/ dst/", "rsync -a --delete src/ dst/", "rsync -a --delete src/ build/",
    "rsync -an --delete empty/ ~/Documents/", "rsync -a --dry-run --delete empty/ ~/Documents/",
    "rsync -a --delete --backup --backup-dir=/tmp/old empty/ ~/Documents/",
    "rsync -a --delete empty ~/",  # no slash: only ~/empty would be synchronised, and there is none
    "rsync -a --delete empty/ ~/Music/",  # nothing there
    "rsync -a --delete empty/ deploy@host:Documents/", "rsync -a empty/ ~/Documents/",
    "rsync -a --remove-source-files build/ dst/", "rsync -a ~/Documents/ dst/",
    "truncate -s 0 ~/.ssh/id_ed25519.pub", "truncate -s +1K ~/.ssh/id_ed25519", "truncate -s 1M ~/.ssh/id_ed25519",
    "truncate -s '>4' ~/.ssh/id_ed25519", "truncate -s 0 ~/.ssh/id_rsa", "shred -u ~/.ssh/id_ed25519.pub",
    "cp -n a.txt ~/.ssh/id_ed25519", "cp --backup=numbered a.txt ~/.ssh/id_ed25519",
    "cp --update=none a.txt ~/.ssh/id_ed25519",
    "cp ~/.ssh/id_ed25519 build/key.bak", "cp a.txt ~/.ssh/", "cp -r src/ dst/", "cp a.txt ~/Documents/",
])
def test_the_same_programs_pass_on_what_nothing_is_lost_in(tmp_path, command):
    world = lived_in(tmp_path)
    assert denial(world.gate(command, cwd=world.plain)) is None, command
    _intact(world)


def test_an_empty_key_truncated_to_nothing_loses_nothing(tmp_path):
    world = lived_in(tmp_path)
    (world.home / ".ssh" / "id_ed25519").write_text("")
    assert denial(world.gate("truncate -s 0 ~/.ssh/id_ed25519", cwd=world.plain)) is None
    assert denial(world.gate("shred -u ~/.ssh/id_ed25519", cwd=world.plain)) is not None  # shred still deletes it


def test_a_users_row_reuses_the_same_operand_model(tmp_path):
    """``operands`` is data: a user's row for ``mv`` onto a key is judged like cp (the user's
    programs reach the gate through the entry's user words)."""
    world = lived_in(tmp_path)
    path = dangers.user_registry(world.env)
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps({"rows": [{
        "id": "MV-OVER-KEY", "program": "mv", "loses": "emptied", "harm": "x", "safe_alternative": "y",
        "operands": {"pick": "last", "into_folder": True, "value_options": ["-t|--target-directory"],
                     "target_option": "-t"}}]}))
    assert dangers.check_registry(path, user=True) == []
    reason = denial(world.gate("mv id_ed25519 ~/.ssh/", cwd=world.plain))
    assert reason and "MV-OVER-KEY" in reason
    assert denial(world.gate("mv a.txt b.txt", cwd=world.plain)) is None
    _intact(world)


@pytest.mark.parametrize("operands, loses, problem", [
    ({"pick": "first"}, "emptied", "operands.pick"),
    ({"into": True}, "emptied", "operands.into: unknown key"),
    ({"target_option": "-t"}, "emptied", "operands.target_option"),
    ({}, "always", "operands: only with the judges paths, emptied"),
])
def test_validate_names_a_bad_operands_field(tmp_path, operands, loses, problem):
    path = tmp_path / "dangers.json"
    path.write_text(json.dumps({"rows": [{"id": "X", "program": "mv", "loses": loses, "harm": "x",
                                          "safe_alternative": "y", "operands": operands}]}))
    problems = dangers.check_registry(path, user=True)
    assert any(problem in line for line in problems), problems


def test_a_users_row_with_operands_the_gate_cannot_use_judges_nothing_and_the_rest_still_holds(tmp_path):
    world = lived_in(tmp_path)
    path = dangers.user_registry(world.env)
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps({"rows": [{"id": "MV-OVER-KEY", "program": "mv", "loses": "emptied", "harm": "x",
                                          "safe_alternative": "y", "operands": {"pick": "first"}}]}))
    assert denial(world.gate("mv id_ed25519 ~/.ssh/", cwd=world.plain)) is None
    assert "CP-OVERWRITES-UNDOABLE" in denial(world.gate("mv x y; cp /dev/null ~/.ssh/id_ed25519", cwd=world.plain))
    _intact(world)


def test_the_rows_and_the_operands_module_name_the_same_judges():
    import ast

    from gate_support import DANGER_GATE

    def constant(module, name):
        tree = ast.parse((DANGER_GATE.parent / module).read_text())
        return next(ast.literal_eval(node.value) for node in tree.body
                    if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "") == name)

    assert constant("rules.py", "OPERAND_JUDGES") == constant("operands.py", "JUDGES") == ("paths", "emptied")
