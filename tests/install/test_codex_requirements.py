"""hookmux's block in Codex's ``/etc/codex/requirements.toml`` (installer/codex_requirements.py):
only the block is added and taken out, the administrator's keys read the same, and a file the
block cannot join safely is refused. Text only: the install itself is test_install_managed.py."""
from __future__ import annotations

import sys

import pytest

from hookmux.installer import codex_requirements as req

COMMAND = "'/usr/bin/python3' -S -E '/opt/hookmux/hooks/danger-gate/danger_gate.py' --host codex PreToolUse || true"
TREE = "/opt/hookmux/hooks"
ADMIN = """# the administrator's own
allowed_approval_policies = ["never", "on-request"]
allowed_sandbox_modes = ["read-only"]

[features]
web_search = false

[mcp_servers.docs]
identity = { command = "docs-mcp" }
"""
needs_tomllib = pytest.mark.skipif(sys.version_info < (3, 11), reason="tomllib is Python 3.11+")


def add(text: str) -> str:
    return req.with_block(text, COMMAND, "Bash|apply_patch", 10, TREE)


@needs_tomllib
def test_the_block_is_a_managed_pre_tool_use_hook_after_the_admins_keys():
    import tomllib

    new = add(ADMIN)
    assert new.startswith(ADMIN)
    data = tomllib.loads(new)
    assert data["hooks"] == {"managed_dir": TREE, "PreToolUse": [
        {"matcher": "Bash|apply_patch", "hooks": [{"type": "command", "command": COMMAND, "timeout": 10}]}]}
    assert {k: v for k, v in data.items() if k != "hooks"} == tomllib.loads(ADMIN)
    assert req.gate_commands(new, "danger_gate.py") == [COMMAND]


def test_adding_again_changes_nothing_and_taking_out_gives_back_every_byte():
    new = add(ADMIN)
    assert add(new) == new
    assert req.without_block(new) == ADMIN
    assert req.without_block(ADMIN) == ADMIN
    no_newline = ADMIN.rstrip("\n")
    assert req.without_block(add(no_newline)) == no_newline + "\n"  # one newline, so the block starts a line
    assert add("") == req.render(COMMAND, "Bash|apply_patch", 10, TREE)


def test_a_block_that_moved_up_comes_back_at_the_end():
    """A table runs to the next header: the block is always last, whatever was appended after it."""
    moved = add("") + ADMIN
    assert add(moved) == ADMIN + req.render(COMMAND, "Bash|apply_patch", 10, TREE)


@needs_tomllib
def test_the_admins_own_hooks_and_managed_dir_stay_and_are_not_set_twice():
    import tomllib

    admin = ('[hooks]\nmanaged_dir = "/srv/policy"\n\n[[hooks.PreToolUse]]\nmatcher = "Bash"\n\n'
             '[[hooks.PreToolUse.hooks]]\ntype = "command"\ncommand = "/srv/policy/check"\n')
    new = add(admin)
    assert "managed_dir" not in new[len(admin):]
    hooks = tomllib.loads(new)["hooks"]
    assert hooks["managed_dir"] == "/srv/policy"
    assert [h["command"] for g in hooks["PreToolUse"] for h in g["hooks"]] == ["/srv/policy/check", COMMAND]
    assert req.without_block(new) == admin


@pytest.mark.parametrize("admin, said", [
    ('[hooks]\n[[hooks.Stop]]\n[[hooks.Stop.hooks]]\ntype = "command"\ncommand = "/x"\n', "without managed_dir"),
    ("hooks = { }\n", "without managed_dir"),
    ("allowed_approval_policies = [\n", "not valid TOML"),
])
def test_a_file_the_block_cannot_join_is_refused(admin, said):
    if said == "not valid TOML" and req.tomllib is None:
        pytest.skip("without tomllib the text is not parsed")
    with pytest.raises(req.BlockError, match=said):
        add(admin)


@pytest.mark.parametrize("damage", [lambda b: b.replace(req.END, ""), lambda b: b + b])
def test_a_damaged_block_is_named_not_guessed(damage):
    text = ADMIN + damage(req.render(COMMAND, "Bash|apply_patch", 10, TREE))
    with pytest.raises(req.BlockError, match="block is damaged"):
        add(text)
    with pytest.raises(req.BlockError, match="block is damaged"):
        req.without_block(text)


def test_without_tomllib_hookmuxs_own_block_is_read(monkeypatch):
    """Python 3.9/3.10: the block's lines are hookmux's format, so status still finds the gate."""
    monkeypatch.setattr(req, "tomllib", None)
    new = add(ADMIN)
    assert req.gate_commands(new, "danger_gate.py") == [COMMAND]
    assert req.gate_commands(ADMIN, "danger_gate.py") == []
    with pytest.raises(req.BlockError, match="without managed_dir"):
        add("[[hooks.Stop]]\n")
    assert "managed_dir" not in add('[hooks]\nmanaged_dir = "/srv"\n').split(req.BEGIN)[1]
