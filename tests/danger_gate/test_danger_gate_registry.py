"""The registry: the entry point's program list matches the rows; a user can add or turn off a row."""
from __future__ import annotations

import ast
import json

from gate_support import DANGER_GATE, World, denial

from hookmux import dangers


def _entry_point_bytes(name: str = "PROGRAMS") -> set[str]:
    tree = ast.parse((DANGER_GATE.parent / "gate_entry.py").read_text())
    for node in tree.body:
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "") == name:
            return {elt.value.decode() for elt in node.value.elts}
    raise AssertionError(f"no {name} in gate_entry.py")


def test_the_cheap_test_knows_every_shipped_program():
    rows = json.loads(dangers.shipped_registry().read_text())["rows"]
    wanted = set()
    for row in rows:
        if row.get("program") == "*":
            continue  # any program: found by DEVICES and the redirect test
        for alternative in [row] + row.get("any_of", []):
            args = alternative.get("args", {}).get("any", [])
            if args and all(set(entry) == {"equals"} for entry in args):  # `npx prisma`: found by `prisma`
                wanted |= {word for entry in args for word in
                           (entry["equals"] if isinstance(entry["equals"], list) else [entry["equals"]])}
            elif "program" in alternative:
                programs = alternative["program"] if isinstance(alternative["program"], list) \
                    else [alternative["program"]]
                wanted |= {p.split(".")[0] for p in programs}
    assert wanted == _entry_point_bytes()


def test_the_rows_words_are_what_the_runtime_reads_for_user_rows():
    import sys

    sys.path.insert(0, str(DANGER_GATE.parent))
    import rules

    rows = [row for row in json.loads(dangers.shipped_registry().read_text())["rows"] if row.get("program") != "*"]
    assert rules.program_words(rows) == _entry_point_bytes()


def test_the_cheap_test_knows_every_disk_device():
    import sys

    sys.path.insert(0, str(DANGER_GATE.parent))
    sys.path.insert(0, str(DANGER_GATE.parent.parent))
    import judges

    assert {prefix[len("/dev/"):] for prefix in judges._BLOCK_DEVICE_PREFIXES} == _entry_point_bytes("DEVICES")


def test_the_shipped_registry_is_valid_and_its_examples_hold():
    assert dangers.check_registry(dangers.shipped_registry()) == []
    assert dangers.example_problems() == []


def test_a_failing_example_is_named(tmp_path):
    user = tmp_path / "dangers.json"
    user.write_text(json.dumps({"rows": [{"id": "MY-ROW", "program": "terraform", "subcommand": "destroy",
                                          "loses": "always", "harm": "h", "safe_alternative": "s",
                                          "examples": {"block": ["terraform plan"], "pass": []}}]}))
    problems = dangers.example_problems(user=user)
    assert problems == [f"{user} MY-ROW: example 'terraform plan' should be blocked but passes"]


def test_a_bad_user_row_is_named(tmp_path):
    user = tmp_path / "dangers.json"
    user.write_text(json.dumps({"rows": [{"id": "X", "program": "rm", "loses": "nothing-known", "harm": "h"}],
                                "disabled": "RM"}))
    problems = dangers.check_registry(user, user=True)
    assert any("safe_alternative: required" in p for p in problems)
    assert any("loses: 'nothing-known' is not a judge" in p for p in problems)
    assert any("disabled: must be a list" in p for p in problems)


def _user_registry(world: World, document: dict) -> None:
    path = world.home / ".config" / "hookmux" / "dangers.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(document))


def test_a_user_turns_a_row_off(tmp_path):
    world = World(tmp_path)
    world.env.pop("XDG_CONFIG_HOME", None)
    _user_registry(world, {"disabled": ["RM-RECURSIVE-UNDOABLE"]})
    assert denial(world.gate("rm -rf ~/Documents")) is None
    assert denial(world.gate("dd if=/dev/zero of=/dev/sda")) is not None


def test_a_user_adds_a_row_for_a_program_the_gate_does_not_know(tmp_path):
    world = World(tmp_path)
    world.env.pop("XDG_CONFIG_HOME", None)
    _user_registry(world, {"rows": [{"id": "TERRAFORM-DESTROY", "program": "terraform", "subcommand": "destroy",
                                     "loses": "always", "harm": "Destroys the real infrastructure.",
                                     "safe_alternative": "terraform plan -destroy"}]})
    reason = denial(world.gate("terraform destroy -auto-approve"))
    assert reason and "TERRAFORM-DESTROY" in reason and "Destroys the real infrastructure." in reason
    assert denial(world.gate("terraform plan")) is None


def test_xdg_config_home_moves_the_user_registry(tmp_path):
    world = World(tmp_path)
    path = tmp_path / "xdg-config" / "hookmux" / "dangers.json"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps({"disabled": ["DD-WRITES-DEVICE"]}))
    world.env["XDG_CONFIG_HOME"] = str(tmp_path / "xdg-config")
    assert denial(world.gate("dd if=/dev/zero of=/dev/sda")) is None


def test_the_entry_point_looks_for_the_user_registry_where_the_rules_read_it(tmp_path):
    import importlib.util
    import sys

    spec = importlib.util.spec_from_file_location("danger_gate_entry", DANGER_GATE.parent / "gate_entry.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    sys.path.insert(0, str(DANGER_GATE.parent))
    try:
        import rules
    finally:
        sys.path.remove(str(DANGER_GATE.parent))
    for env in ({"HOME": "/h"}, {"HOME": "/h", "XDG_CONFIG_HOME": "/x"}, {"HOME": "/h", "XDG_CONFIG_HOME": "rel"}):
        encoded = {k.encode(): v.encode() for k, v in env.items()}
        assert module.user_registry(encoded).decode() == rules.user_registry_path(env)


def test_hookmux_validate_checks_the_users_registry(tmp_path):
    import subprocess
    import sys

    world = World(tmp_path)
    world.env.pop("XDG_CONFIG_HOME", None)
    _user_registry(world, {"rows": [{"id": "MINE", "program": "terraform", "subcommand": "destroy", "loses": "always",
                                     "harm": "h", "safe_alternative": "s",
                                     "examples": {"block": ["terraform plan"]}}]})
    done = subprocess.run([sys.executable, "-m", "hookmux.cli", "validate"], env=world.env, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 1
    assert "MINE: example 'terraform plan' should be blocked but passes" in done.stdout


def test_the_cheap_test_knows_every_file_tool_and_ground_name():
    import sys

    sys.path.insert(0, str(DANGER_GATE.parent))
    sys.path.insert(0, str(DANGER_GATE.parent.parent))
    import gate_core

    assert {f'"{tool}"' for tool in gate_core.FILE_TOOLS} == _entry_point_bytes("FILE_TOOLS")
    # Every folder name own_ground.py searches code for is one the cheap test lets through.
    assert {".claude", ".copilot", ".codex", ".gemini", "hookmux", "danger-gate"} <= _entry_point_bytes("GROUND")
