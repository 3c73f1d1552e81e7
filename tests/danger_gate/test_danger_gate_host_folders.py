"""Each host's real folder and every shell tool (issue 39): the gate judges a command in the folder
it really runs in (Gemini's ``dir_path``, Codex's ``workdir``, Cursor's ``working_directory``,
resolved from the payload's cwd), and an MCP tool that runs a shell command like the shell tool.

The commands are data: strings in payloads handed to the real gate, never run by a shell.
"""
from __future__ import annotations

import json
import os
import re
import sys

import pytest

from gate_support import DANGER_GATE, World, denial
from hookmux_testing import run_hook

from hookmux import matchers, resources
from hookmux.installer import codex_hooks, entries, gemini_hooks

_hosts = resources.runtime("hosts")


def _gemini(world, command, cwd, **tool_input):
    data = {"session_id": "s", "transcript_path": "/t.json", "timestamp": "2026-01-01T00:00:00Z", "cwd": str(cwd),
            "hook_event_name": "BeforeTool", "tool_name": "run_shell_command",
            "tool_input": {"command": command, **tool_input}}
    result = run_hook(DANGER_GATE, ["--host", "gemini", "BeforeTool"], json.dumps(data), world.env)
    assert result.returncode == 0 and result.stderr == b"", result
    if not result.stdout:
        return None
    out = json.loads(result.stdout)
    assert set(out) == {"decision", "reason"} and out["decision"] == "deny", out
    return out["reason"]


def _claude(world, tool, tool_input, cwd, args=("PreToolUse",)):
    data = {"session_id": "s", "transcript_path": "/t.jsonl", "cwd": str(cwd), "hook_event_name": "PreToolUse",
            "tool_name": tool, "tool_input": tool_input, "tool_use_id": "toolu_1"}
    return denial(run_hook(DANGER_GATE, list(args), json.dumps(data), world.env))


def _codex(world, tool_input, cwd, tool="Bash"):
    data = {"session_id": "s", "transcript_path": None, "cwd": str(cwd), "hook_event_name": "PreToolUse",
            "model": "gpt-4.1", "permission_mode": "bypassPermissions", "turn_id": "t1", "tool_name": tool,
            "tool_input": tool_input, "tool_use_id": "call_1"}
    return denial(run_hook(DANGER_GATE, ["--host", "codex", "PreToolUse"], json.dumps(data), world.env))


# ---------------------------------------------------------------- the folder the command runs in


def test_gemini_dir_path_is_the_folder_judged(tmp_path):
    world = World(tmp_path)
    changed, clean = world.repo("changed"), world.repo("clean")
    # Session in the clean repository, the command run in the changed one: denied.
    assert _gemini(world, "git reset --hard", clean, dir_path=os.path.relpath(changed, clean)) is not None
    assert _gemini(world, "git reset --hard", clean, dir_path=str(changed)) is not None  # absolute
    # The other way round: run in the clean one, nothing to lose, though the session's has.
    assert _gemini(world, "git reset --hard", changed, dir_path=os.path.relpath(clean, changed)) is None
    assert _gemini(world, "git reset --hard", changed, dir_path="") is not None  # "" is the cwd itself
    assert (changed / "tracked.txt").read_text() == "two\n"


def test_a_relative_path_is_read_from_the_folder_the_command_runs_in(tmp_path):
    world = World(tmp_path)
    (world.home / "Documents" / "thesis.txt").write_text("years of work\n")
    # From HOME, `rm -rf Documents` takes the real Documents; from the plain folder it names nothing.
    assert _gemini(world, "rm -rf Documents", world.plain, dir_path=str(world.home)) is not None
    assert _gemini(world, "rm -rf Documents", world.home, dir_path=str(world.plain)) is None
    assert _gemini(world, "rm -rf Documents", world.plain, dir_path=os.path.relpath(world.home, world.plain)) \
        is not None


def test_a_folder_that_is_not_there_passes_the_command_could_not_start(tmp_path):
    world = World(tmp_path)
    changed = world.repo("changed")
    assert _gemini(world, "git reset --hard", changed) is not None  # judged in the cwd without dir_path
    assert _gemini(world, "git reset --hard", changed, dir_path="no-such-folder") is None
    (changed / "a-file").write_text("x\n")
    assert _gemini(world, "git reset --hard", changed, dir_path="a-file") is None  # not a folder
    assert _gemini(world, "git reset --hard", changed, dir_path=["."]) is None  # not a string: the host refuses
    # `~` is not expanded by Gemini (path.resolve) nor by Codex: `<cwd>/~` is not there.
    assert _gemini(world, "rm -rf Documents", world.plain, dir_path="~") is None


def test_codex_workdir_and_cursor_working_directory(tmp_path):
    world = World(tmp_path)
    changed, clean = world.repo("changed"), world.repo("clean")
    rel = os.path.relpath(changed, clean)
    assert _codex(world, {"command": "git reset --hard", "workdir": rel}, clean) is not None
    assert _codex(world, {"command": "git reset --hard", "workdir": os.path.relpath(clean, changed)}, changed) is None
    assert _codex(world, {"command": "git reset --hard", "workdir": None}, changed) is not None  # null: the cwd
    data = {"conversation_id": "c", "generation_id": "g", "hook_event_name": "preToolUse", "cursor_version": "1",
            "workspace_roots": [str(clean)], "cwd": str(clean), "tool_name": "Shell",
            "tool_input": {"command": "git reset --hard", "working_directory": str(changed)}}
    out = run_hook(DANGER_GATE, ["preToolUse"], json.dumps(data), world.env)
    assert out.returncode == 0 and json.loads(out.stdout)["permission"] == "deny"
    data["tool_input"]["working_directory"] = str(tmp_path / "gone")
    assert run_hook(DANGER_GATE, ["preToolUse"], json.dumps(data), world.env).stdout == b""


def test_a_dir_path_into_the_guards_ground_reaches_the_gate_though_the_command_names_no_program(tmp_path):
    world = World(tmp_path)
    (world.home / ".claude").mkdir()
    settings = world.home / ".claude" / "settings.json"
    settings.write_text("{}\n")
    reason = _gemini(world, "echo '{}' > settings.json", world.home, dir_path=".claude")
    assert reason and "guard" in reason
    assert _gemini(world, "echo '{}' > settings.json", world.home, dir_path="Documents") is None


# ---------------------------------------------------------------- MCP shell tools


@pytest.mark.parametrize("tool", ["mcp__shell__run_command", "mcp__desktop-commander__start_process",
                                  "mcp__box__runCommand", "mcp__my__box__exec", "mcp__term__execute_command"])
def test_an_mcp_shell_tool_is_judged_as_the_shell(tmp_path, tool):
    world = World(tmp_path)
    (world.home / "Documents" / "thesis.txt").write_text("years of work\n")
    reason = _claude(world, tool, {"command": "rm -rf ~/Documents"}, world.plain)
    assert reason and "Documents" in reason
    assert _claude(world, tool, {"command": "ls -la ~/Documents"}, world.plain) is None
    assert _claude(world, tool, {"command": "git reset --hard"}, world.repo("changed")) is not None
    assert _claude(world, tool, {"command": "git reset --hard"}, world.repo("clean")) is None


def test_an_mcp_shell_tools_cmd_argv_and_cwd(tmp_path):
    world = World(tmp_path)
    documents = world.home / "Documents"
    (documents / "thesis.txt").write_text("years of work\n")
    assert _claude(world, "mcp__box__exec", {"cmd": "rm -rf ~/Documents"}, world.plain) is not None
    assert _claude(world, "mcp__box__exec", {"command": ["rm", "-rf", str(documents)]}, world.plain) is not None
    assert _claude(world, "mcp__box__exec", {"command": "rm", "args": ["-rf", str(documents)]}, world.plain) \
        is not None
    # An argv is not read by a shell: a `~` in it is a folder named `~`, not HOME.
    assert _claude(world, "mcp__box__exec", {"command": ["rm", "-rf", "~/Documents"]}, world.plain) is None
    assert _claude(world, "mcp__box__exec", {"command": "git reset --hard", "cwd": str(world.repo("changed"))},
                   world.repo("clean")) is not None
    assert (documents / "thesis.txt").exists()


@pytest.mark.parametrize("tool", ["mcp__github__create_issue", "mcp__box__list_runs", "mcp__box__executor",
                                  "run_command", "mcp__run"])
def test_other_tools_are_not_read_as_a_shell(tmp_path, tool):
    world = World(tmp_path)
    (world.home / "Documents" / "thesis.txt").write_text("years of work\n")
    assert _claude(world, tool, {"command": "rm -rf ~/Documents"}, world.plain) is None


def test_gemini_and_codex_mcp_names(tmp_path):
    world = World(tmp_path)
    (world.home / "Documents" / "thesis.txt").write_text("years of work\n")
    data = {"session_id": "s", "transcript_path": "/t.json", "timestamp": "2026-01-01T00:00:00Z",
            "cwd": str(world.plain), "hook_event_name": "BeforeTool", "tool_name": "mcp_my_box_run_command",
            "tool_input": {"command": "rm -rf ~/Documents"}}
    out = run_hook(DANGER_GATE, ["--host", "gemini", "BeforeTool"], json.dumps(data), world.env)
    assert json.loads(out.stdout)["decision"] == "deny"
    data["tool_name"] = "mcp_my_box_list_files"
    assert run_hook(DANGER_GATE, ["--host", "gemini", "BeforeTool"], json.dumps(data), world.env).stdout == b""
    assert _codex(world, {"command": "rm -rf ~/Documents"}, world.plain, tool="mcp__box__shell") is not None


def test_an_mcp_tool_naming_no_program_ends_in_the_byte_search(tmp_path):
    """The fast path: an MCP call naming no row's program exits before the gate loads (a copy of
    the entry beside a stand-in gate that leaves a mark when it is imported)."""
    import shutil
    import subprocess

    world = World(tmp_path)
    alone = tmp_path / "tree" / "gate"  # its hooks tree (the guard's ground) beside HOME, not above it
    alone.mkdir(parents=True)
    for name in ("danger_gate.py", "gate_entry.py"):
        shutil.copy(DANGER_GATE.parent / name, alone / name)
    (alone / "gate_core.py").write_text("open(__file__ + '.loaded', 'w').close()\n")
    marker = alone / "gate_core.py.loaded"

    def run(tool, command):
        data = json.dumps({"session_id": "s", "cwd": str(world.plain), "hook_event_name": "PreToolUse",
                           "tool_name": tool, "tool_input": {"command": command}})
        return subprocess.run([sys.executable, "-S", "-E", str(alone / "danger_gate.py"), "PreToolUse"],
                              input=data.encode(), capture_output=True, env=world.env, timeout=30)

    assert run("mcp__box__run_command", "ls -la").returncode == 0 and not marker.exists()  # ended before
    assert run("mcp__github__create_issue", "x").returncode == 0 and not marker.exists()
    assert run("mcp__box__run_command", "rm -rf x").returncode == 0 and marker.exists()  # went on to the gate


# ---------------------------------------------------------------- one table for the gate and the matchers


def test_the_byte_search_keeps_the_hosts_tables():
    sys.path.insert(0, str(DANGER_GATE.parent))
    import gate_entry

    assert [key.decode().strip('"') for key in gate_entry.FOLDER_KEYS] == list(_hosts.SHELL_FOLDER_KEYS)
    assert {prefix.decode()[:4] for prefix in gate_entry.MCP_PREFIXES} == \
        {prefix[:4] for prefix, _ in _hosts.MCP_TOOL_NAMES.values()}


@pytest.mark.parametrize("matcher,host", [
    (entries.CLAUDE_DANGER_EVENTS["PreToolUse"], "claude"),
    (codex_hooks.DANGER_EVENTS["PreToolUse"], "codex"),
    (gemini_hooks.DANGER_MATCHER, "gemini"),
])
def test_the_installed_gate_matchers_select_the_mcp_shell_tools(matcher, host):
    prefix, separator = _hosts.MCP_TOOL_NAMES[host]
    for name in _hosts.MCP_SHELL_TOOLS:
        assert re.search(matcher, prefix + "srv" + separator + name), (host, name)
    camel = "runCommand"
    assert re.search(matcher, prefix + "my" + separator + "srv" + separator + camel)
    for other in ("list_files", "create_issue", "executor", "run_commands"):
        assert not re.search(matcher, prefix + "srv" + separator + other), (host, other)
    assert not re.search(matcher, "TodoWrite") and not re.search(matcher, "read_file")
    assert matchers.mcp_shell_matcher(host) in matcher
