"""What hookmux wires into Codex's hooks.json, from a manifest (installer/codex_hooks.py)."""
from __future__ import annotations

import json
import shlex

import pytest

from hookmux import matchers, resources
from hookmux.installer import codex_hooks, commands


@pytest.mark.parametrize("settings_matcher, event, expected", [
    ("Bash|PowerShell|bash|powershell", "PreToolUse", "Bash"),
    ("^(Edit|Write)$", "PreToolUse", "apply_patch"),
    ("Bash|Edit", "PostToolUse", "Bash|apply_patch"),
    ("Agent", "PreToolUse", "spawn_agent"),
    (None, "PreToolUse", None),
    ("*", "PreToolUse", None),
    ("Read|Grep", "PreToolUse", False),  # no Codex tool: the entry is left out
    ("startup", "SessionStart", "startup"),  # SessionStart matches the source
    ("anything", "Stop", None),  # Codex ignores matchers there
])
def test_matcher(settings_matcher, event, expected):
    assert matchers.codex_matcher(settings_matcher, event) == expected


def test_shipped_manifest_gives_the_dispatcher_on_bash_and_the_gate_on_spawn_agent(tmp_path):
    manifest = json.loads(resources.shipped_manifest().read_text())
    target = str(tmp_path / "hooks dir")
    entries = codex_hooks.entries(manifest, target, "/usr/bin/python3")
    dispatch = [(e.event, e.matcher) for e in entries if e.role == "dispatch"]
    assert dispatch[0] == ("PreToolUse", "Bash")  # the shell rows, under Codex's name for the shell
    assert [e for e, _ in dispatch] == [e for e in manifest["events"] if e in codex_hooks.EVENTS]
    assert [(e.event, e.role, e.matcher) for e in entries if e.role == "gate"] == [("PreToolUse", "gate", "spawn_agent")]
    for entry in entries:
        words = shlex.split(entry.command)
        assert words[words.index("--host") + 1] == "codex" and words[-3:] == [entry.event, "||", "true"]
        parsed = commands.ours(entry.command, target)
        assert parsed and parsed.role == entry.role and parsed.event == entry.event
        assert entry.command_with(parsed.options) == entry.command  # re-install: byte-identical
        traced = entry.command_with(("--trace", "--host", "claude"))
        assert "--trace" in traced and "--host codex" in traced and "claude" not in traced


def test_events_codex_does_not_have_are_left_out(tmp_path):
    row = {"name": "x", "script": "x.py"}
    manifest = {"events": {"PostToolBatch": {"checks": [row]}, "Notification": {"checks": [row]},
                           "Stop": {"checks": [row], "settings_timeout": 3}}}
    entries = codex_hooks.entries(manifest, str(tmp_path), "/usr/bin/python3")
    assert [(e.event, e.role, e.matcher, e.timeout) for e in entries if e.role == "dispatch"] == [
        ("Stop", "dispatch", None, 3)]
