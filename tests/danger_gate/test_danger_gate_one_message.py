"""One message per call: the advisory stays silent on a call the danger gate beside it denies."""
from __future__ import annotations

import shutil
import sys

from gate_support import World, denial, payload
from hookmux_testing import HOOKS, run_at_terminal, run_hook

CHECK = HOOKS / "contraindication" / "check.py"
ADVISORY = b"hookmux contraindication advisory"


def advise(world: World, command: str, cwd, check=CHECK, session="s1"):
    data = payload("claude", command, cwd).replace('"s1"', f'"{session}"', 1)
    result = run_hook(check, ["PreToolUse"], data, world.env)
    assert result.returncode == 0 and result.stderr == b""
    return result.stdout


def test_the_advisory_is_silent_where_the_gate_denies(tmp_path):
    world = World(tmp_path)
    assert denial(world.gate("rm -rf ~/Documents")) is not None
    assert advise(world, "rm -rf ~/Documents", world.repo()) == b""
    assert advise(world, "git reset --hard", world.repo("changed")) == b""
    # the gate passes these, so the advisory speaks
    assert ADVISORY in advise(world, "git reset --hard", world.repo("clean"), session="s2")
    assert ADVISORY in advise(world, "git push --force origin main", world.repo(), session="s3")


def test_without_the_gate_in_the_tree_the_advisory_speaks(tmp_path):
    world = World(tmp_path)
    tree = tmp_path / "tree"
    shutil.copytree(HOOKS, tree, ignore=shutil.ignore_patterns("__pycache__", "danger-gate"))
    check = tree / "contraindication" / "check.py"
    assert ADVISORY in advise(world, "rm -rf ~/Documents", world.repo(), check=check)


def test_after_an_allow_the_advisory_speaks_and_the_once_allowance_is_the_gates(tmp_path):
    world = World(tmp_path)
    command = "git reset --hard"
    repo = world.repo("changed")
    code, _, err, _ = run_at_terminal([sys.executable, "-m", "hookmux.cli", "allow", command, "--once"], "allow\n",
                                      world.env, cwd=repo)
    assert code == 0, err
    assert ADVISORY in advise(world, command, repo)  # its --dry-run question used nothing up
    assert denial(world.gate(command, cwd=repo)) is None  # the gate's own run uses the allowance
    assert denial(world.gate(command, cwd=repo)) is not None


def _tree_with_a_marking_gate(tmp_path):
    """A copy of the hooks tree whose danger gate only notes that it was started."""
    tree = tmp_path / "tree"
    shutil.copytree(HOOKS, tree, ignore=shutil.ignore_patterns("__pycache__"))
    marker = tmp_path / "gate-started"
    (tree / "danger-gate" / "danger_gate.py").write_text(
        f"open({str(marker)!r}, 'a').write('x')\n")
    return tree / "contraindication" / "check.py", marker


def test_the_gate_is_asked_only_when_one_of_its_rows_holds(tmp_path):
    world = World(tmp_path)
    check, marker = _tree_with_a_marking_gate(tmp_path)
    assert ADVISORY in advise(world, "git push --force origin main", world.repo(), check=check)
    assert not marker.exists()  # no gate row is about a push: no process is started
    advise(world, "rm -rf ~/Documents", world.repo(), check=check, session="s2")
    assert marker.exists()


def test_the_users_own_gate_rows_and_disabled_ids_decide_whether_the_gate_is_asked(tmp_path):
    import json

    world = World(tmp_path)
    check, marker = _tree_with_a_marking_gate(tmp_path)
    user = tmp_path / "config" / "hookmux" / "dangers.json"
    user.parent.mkdir(parents=True, exist_ok=True)
    user.write_text(json.dumps({"disabled": ["RM-RECURSIVE-UNDOABLE", "RM-EMPTIES-UNDOABLE"], "rows": [
        {"id": "MY-PUSH", "program": "git", "subcommand": "push", "loses": "git-changes",
         "harm": "h", "safe_alternative": "s"}]}))
    assert world.env["XDG_CONFIG_HOME"] == str(tmp_path / "config")
    advise(world, "rm -rf ~/Documents", world.repo(), check=check)
    assert not marker.exists()  # the user turned the gate's rm rows off
    advise(world, "git push --force origin main", world.repo(), check=check, session="s2")
    assert marker.exists()  # the user's own row is about a push


def test_the_advisory_finds_the_gates_user_registry_where_the_gate_does(tmp_path):
    import importlib.util
    import os

    sys.path.insert(0, str(HOOKS))
    try:
        modules = []
        for name, path in (("check_for_test", CHECK), ("gate_rules_for_test", HOOKS / "danger-gate" / "rules.py")):
            spec = importlib.util.spec_from_file_location(name, path)
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
            modules.append(module)
    finally:
        sys.path.remove(str(HOOKS))
    check, rules = modules
    for env in ({"HOME": str(tmp_path)}, {"HOME": str(tmp_path), "XDG_CONFIG_HOME": "/etc/x"},
                {"HOME": str(tmp_path), "XDG_CONFIG_HOME": "relative"}):
        assert check.danger_user_registry(env) == rules.user_registry_path(env)
    assert os.path.isabs(check.danger_user_registry({}))
