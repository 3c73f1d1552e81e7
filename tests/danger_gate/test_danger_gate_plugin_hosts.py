"""The danger gate called by hookmux's opencode plugin and Pi extension (installer/host_plugins.py):
their payloads (the plugin event as ``hook_event_name``, the host's lower-case tool names and its
argument keys) get Claude Code's nested deny, which the plugin turns into a thrown error
(opencode) or ``{block: true, reason}`` (Pi). The guard's own ground on these hosts is the folder
they load plugins from. Hazardous commands are data on the gate's stdin, never run.
"""
from __future__ import annotations

import json

import pytest

from gate_support import DANGER_GATE, World, denial
from hookmux_testing import run_hook

EVENTS = {"opencode": "tool.execute.before", "pi": "tool_call"}


def call(host: str, tool: str, tool_input: dict, cwd) -> str:
    return json.dumps({"hook_event_name": EVENTS[host], "session_id": "s1", "call_id": "c1", "cwd": str(cwd),
                       "tool_name": tool, "tool_input": tool_input})


def gate(world: World, host: str, tool: str, tool_input: dict, cwd=None):
    return run_hook(DANGER_GATE, ["--host", host, EVENTS[host]], call(host, tool, tool_input, cwd or world.repo()),
                    world.env)


@pytest.mark.parametrize("host", sorted(EVENTS))
def test_a_destructive_shell_call_is_denied_in_the_form_the_plugin_reads(tmp_path, host):
    world = World(tmp_path)
    reason = denial(gate(world, host, "bash", {"command": "rm -rf ~/Documents"}))
    assert reason and reason.startswith("hookmux danger gate: this command was NOT run.") and "Documents" in reason


@pytest.mark.parametrize("host", sorted(EVENTS))
def test_harmless_calls_and_git_state_are_judged_as_on_every_host(tmp_path, host):
    world = World(tmp_path)
    assert denial(gate(world, host, "bash", {"command": "ls -la"})) is None
    assert denial(gate(world, host, "bash", {"command": "git reset --hard"}, world.repo("changed"))) is not None
    assert denial(gate(world, host, "bash", {"command": "git reset --hard"}, world.repo("clean"))) is None


@pytest.mark.parametrize("host", sorted(EVENTS))
def test_the_event_name_alone_tells_the_host(tmp_path, host):
    world = World(tmp_path)
    result = run_hook(DANGER_GATE, [], call(host, "bash", {"command": "rm -rf ~/Documents"}, world.repo()), world.env)
    assert denial(result) is not None  # no --host, no argv event: still read as a PreToolUse of this host


@pytest.mark.parametrize("host, tool, tool_input", [
    ("opencode", "write", {"filePath": "{config}/opencode/plugin/evil.js", "content": "export default {}"}),
    ("opencode", "edit", {"filePath": "{config}/opencode/plugin/hookmux.js", "oldString": "a", "newString": "b"}),
    ("opencode", "bash", {"command": "rm {config}/opencode/plugin/hookmux.js"}),
    ("pi", "write", {"path": "{home}/.pi/agent/extensions/hookmux.js", "content": ""}),
    ("pi", "bash", {"command": "mv ~/.pi/agent/extensions/hookmux.js /tmp/x"}),
])
def test_a_call_that_would_change_the_plugin_folder_is_the_guards_own_ground(tmp_path, host, tool, tool_input):
    world = World(tmp_path)
    config = world.env.get("XDG_CONFIG_HOME") or str(world.home / ".config")
    tool_input = {key: value.replace("{config}", config).replace("{home}", str(world.home))
                  for key, value in tool_input.items()}
    reason = denial(gate(world, host, tool, tool_input))
    assert reason and "GUARD-OWN-GROUND" in reason, reason


@pytest.mark.parametrize("host, tool, key", [("opencode", "write", "filePath"), ("pi", "write", "path")])
def test_a_write_elsewhere_passes(tmp_path, host, tool, key):
    world = World(tmp_path)
    assert denial(gate(world, host, tool, {key: str(world.repo() / "notes.txt"), "content": "x"})) is None
