"""The guard's own ground (issue 38, item 3): a tool call cannot switch the guard off or approve
itself. Every command here is data: a JSON payload handed to the real gate, in a temporary HOME
(World asserts it); the gate denies, so nothing runs."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from gate_support import DANGER_GATE, World, denial, payload
from hookmux_testing import HOOKS, run_hook

ID = "GUARD-OWN-GROUND"
TREE = str(HOOKS)

#: Commands that would switch the guard off, loosen it or approve a call, each spelled as an agent
#: might (cwd: a clean repository; $HOOKMUX_STATE_DIR and $XDG_CONFIG_HOME are World's).
WEAKENING = [
    "echo '{\"disableAllHooks\": true}' > ~/.claude/settings.json",
    "sed -i 's/danger_gate/x/' ~/.claude/settings.json",
    "jq '.hooks = {}' ~/.claude/settings.json > /tmp/s.json && mv /tmp/s.json ~/.claude/settings.json",
    "cp /dev/null ~/.claude/settings.json",
    "cp settings.json ~/.claude/",
    "echo '{\"disableAllHooks\": true}' > .claude/settings.local.json",
    "cat patch.json | tee ~/.claude/settings.local.json",
    "python3 -c \"import pathlib; (pathlib.Path.home() / '.claude' / 'settings.json').write_text('{}')\"",
    "node -e \"require('fs').writeFileSync(process.env.HOME + '/.codex/hooks.json', '{}')\"",
    "rm -rf ~/.claude/plugins",
    "mv ~/.claude ~/.claude.old",
    "chmod -R 000 ~/.claude",
    "cd ~/.claude && rm settings.json",
    "ln -sf /dev/null ~/.codex/hooks.json",
    "printf '' > ~/.codex/config.toml",
    "mv ~/.gemini/settings.json ~/.gemini/settings.old",
    "rm -rf ~/.copilot/hooks",
    "printf '{\"disabled\": [\"RM-RECURSIVE\"]}' > $XDG_CONFIG_HOME/hookmux/dangers.json",
    "echo '{}' > ~/.config/hookmux/manifest.json",
    "printf x > $HOOKMUX_STATE_DIR/danger-gate/allowances.json",
    "cat $HOOKMUX_STATE_DIR/danger-gate/allowances.key",
    "cat $HOOKMUX_STATE_DIR/danger-gate/*",
    "rm -rf " + TREE + "/danger-gate",
    ": > " + TREE + "/danger-gate/danger_gate.py",
    "hookmux allow --last",
    "hookmux allow 'rm -rf ~/Documents' --once",
    "python3 -m hookmux uninstall",
    "uvx hookmux uninstall",
    "uv run hookmux trust codex",
    "pipx run hookmux install --source /tmp/tree",
    "/usr/local/bin/hookmux uninstall",
    "sh -c 'hookmux uninstall'",
    "env -i hookmux allow --last",
    "sudo hookmux uninstall",
    "python3 -c \"import hookmux.cli as c; c.main(['uninstall'])\"",
]

#: Everyday commands near the ground that change nothing of it.
EVERYDAY = [
    "cat ~/.claude/settings.json",
    "jq .hooks ~/.claude/settings.json",
    "cp ~/.claude/settings.json /tmp/settings-backup.json",
    "python3 -c \"print(open('" + "/etc/hostname" + "').read())\"",
    "python3 -c \"import json, pathlib; print(json.loads((pathlib.Path.home() / '.claude' / 'settings.json').read_text()))\"",
    "ls -la ~/.claude ~/.codex ~/.gemini",
    "echo note >> ~/.claude/CLAUDE.md",
    "mkdir -p ~/.claude/skills/review && cp SKILL.md ~/.claude/skills/review/",
    "rm -rf ~/.claude/todos",
    "hookmux status",
    "hookmux doctor",
    "hookmux explain 'rm -rf ~'",
    "python3 -m hookmux validate",
    "uvx hookmux try PreToolUse examples/pretooluse-bash-force-push.json",
    "git commit -m 'hookmux: allow --last picks a denial; uninstall keeps hooks'",
    "echo 'run hookmux uninstall to remove it' > NOTES.md",
    "grep -rn allowances.key docs/",
    "cp .github/workflows/ci.yml /tmp/ci.yml",
    "echo x > build/out.txt",
    "python3 script.py hookmux install",
]


def _settings(world: World) -> None:
    for name in (".claude", ".codex", ".gemini", ".copilot/hooks", ".config/hookmux"):
        (world.home / name).mkdir(parents=True, exist_ok=True)
    (world.home / ".claude" / "settings.json").write_text("{}\n")
    gate_state = Path(world.env["HOOKMUX_STATE_DIR"]) / "danger-gate"
    gate_state.mkdir(parents=True, exist_ok=True)
    (gate_state / "allowances.key").write_text("00" * 32)


@pytest.mark.parametrize("command", WEAKENING)
def test_a_tool_call_that_would_weaken_the_guard_is_denied(tmp_path, command):
    world = World(tmp_path)
    _settings(world)
    before = (world.home / ".claude" / "settings.json").read_bytes()
    reason = denial(world.gate(command))
    assert reason and ID in reason, (command, reason)
    advice = reason.splitlines()[-1]
    assert advice.startswith("Do not try") and "Stop and tell the user" in advice and "hookmux allow" not in advice
    assert (world.home / ".claude" / "settings.json").read_bytes() == before


@pytest.mark.parametrize("command", EVERYDAY)
def test_an_everyday_command_near_the_ground_passes(tmp_path, command):
    world = World(tmp_path)
    _settings(world)
    assert denial(world.gate(command)) is None, command


@pytest.mark.parametrize("host", ["copilot", "codex", "copilot-claude"])
def test_every_host_shell_form_is_judged(tmp_path, host):
    world = World(tmp_path)
    _settings(world)
    reason = denial(world.gate("hookmux uninstall", host=host), "copilot" if host == "copilot" else "claude")
    assert reason and ID in reason


def test_no_allowance_opens_the_ground_and_no_row_setting_turns_it_off(tmp_path):
    world = World(tmp_path)
    _settings(world)
    registry = Path(world.env["XDG_CONFIG_HOME"]) / "hookmux" / "dangers.json"
    registry.parent.mkdir(parents=True)
    registry.write_text(json.dumps({"rows": [], "disabled": [ID, "RM-RECURSIVE"]}))
    assert ID in (denial(world.gate("rm -rf ~/.claude/plugins")) or "")
    # A denial of the ground is not offered to `hookmux allow --last`.
    recent = Path(world.env["HOOKMUX_STATE_DIR"]) / "danger-gate" / "recent-denials.json"
    assert not recent.exists()


def _file_call(world: World, host: str, tool: str, path: str, **extra) -> tuple[list[str], str]:
    cwd = str(world.repo())
    if host == "claude":
        return ["PreToolUse"], json.dumps({
            "session_id": "s", "transcript_path": str(world.home / ".claude" / "projects" / "p" / "s.jsonl"),
            "cwd": cwd, "hook_event_name": "PreToolUse", "tool_name": tool,
            "tool_input": dict({"file_path": path, "content": "{}"}, **extra)})
    if host == "copilot":
        return ["preToolUse"], json.dumps({"sessionId": "s", "timestamp": 1, "cwd": cwd, "toolName": tool,
                                           "toolArgs": {"path": path, "file_text": "{}"}})
    if host == "codex":
        patch = "*** Begin Patch\n*** Update File: %s\n@@\n-a\n+b\n*** End Patch\n" % path
        return ["--host", "codex", "PreToolUse"], json.dumps({
            "session_id": "s", "cwd": cwd, "hook_event_name": "PreToolUse", "tool_name": "apply_patch",
            "tool_input": {"command": patch}})
    return ["--host", "gemini", "BeforeTool"], json.dumps({
        "session_id": "s", "transcript_path": str(world.home / ".gemini" / "tmp" / "chat.json"), "cwd": cwd,
        "hook_event_name": "BeforeTool", "tool_name": tool, "tool_input": {"file_path": path, "content": "{}"}})


def _file_denial(result, host):
    assert result.returncode == 0 and result.stderr == b"", result
    if not result.stdout:
        return None
    out = json.loads(result.stdout)
    if host == "copilot":
        return out["permissionDecisionReason"]
    if host == "gemini":
        assert out["decision"] == "deny"
        return out["reason"]
    return out["hookSpecificOutput"]["permissionDecisionReason"]


FILE_TOOL_WRITES = [
    ("claude", "Write", "~/.claude/settings.json"),
    ("claude", "Edit", "{tree}/danger-gate/dangers.json"),
    ("claude", "MultiEdit", "{repo}/.claude/settings.local.json"),
    ("claude", "NotebookEdit", "{state}/danger-gate/allowances.json"),
    ("copilot", "edit", "~/.copilot/hooks/hookmux.json"),
    ("copilot", "create", "{config}/hookmux/manifest.json"),
    ("codex", "apply_patch", "~/.codex/hooks.json"),
    ("codex", "apply_patch", ".codex/config.toml"),
    ("gemini", "write_file", "~/.gemini/settings.json"),
    ("gemini", "replace", "{repo}/.gemini/settings.json"),
]


def _path(world: World, template: str) -> str:
    path = template.replace("{tree}", TREE).replace("{repo}", str(world.repo())).replace(
        "{state}", world.env["HOOKMUX_STATE_DIR"]).replace("{config}", world.env["XDG_CONFIG_HOME"])
    return str(world.home) + path[1:] if path.startswith("~/") else path


@pytest.mark.parametrize("host,tool,template", FILE_TOOL_WRITES)
def test_a_file_tool_writing_the_ground_is_denied(tmp_path, host, tool, template):
    world = World(tmp_path)
    _settings(world)
    args, data = _file_call(world, host, tool, _path(world, template))
    reason = _file_denial(run_hook(DANGER_GATE, args, data, world.env), host)
    assert reason and ID in reason, (host, tool, template)


@pytest.mark.parametrize("host,tool", [("claude", "Write"), ("claude", "Edit"), ("copilot", "edit"),
                                       ("codex", "apply_patch"), ("gemini", "write_file")])
@pytest.mark.parametrize("template", ["{repo}/src/app.py", "~/.claude/CLAUDE.md", "~/.claude/skills/x/SKILL.md",
                                      "~/notes/hookmux.md"])
def test_a_file_tool_writing_elsewhere_passes(tmp_path, host, tool, template):
    world = World(tmp_path)
    _settings(world)
    args, data = _file_call(world, host, tool, _path(world, template))
    assert _file_denial(run_hook(DANGER_GATE, args, data, world.env), host) is None


def test_a_file_tool_call_that_names_no_ground_starts_nothing_heavy(tmp_path):
    """The pre-check lets a Write elsewhere go without loading the gate: the transcript path
    (under ~/.claude on every Claude Code call) is not read as naming the ground."""
    world = World(tmp_path)
    args, data = _file_call(world, "claude", "Write", str(world.repo() / "src" / "app.py"))
    env = dict(world.env, PYTHONVERBOSE="1")
    result = run_hook(DANGER_GATE, args, data, env)
    assert b"gate_core" not in result.stderr and result.stdout == b""


def _gate_imports(world: World, command: str, cwd: Path) -> tuple[bool, bytes]:
    """(whether the gate went past its byte search to gate_core, its stdout) for ``command`` in ``cwd``."""
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-S", "-X", "importtime", str(DANGER_GATE), "PreToolUse"],
                          input=payload("claude", command, cwd).encode(), capture_output=True, env=world.env,
                          timeout=60)
    assert done.returncode == 0, done
    return b"gate_core" in done.stderr, done.stdout


def test_a_cwd_in_the_ground_is_judged_and_a_project_path_that_only_contains_a_name_costs_nothing(tmp_path):
    """The byte search before any import: a cwd that is a folder of the ground (``~/.claude``)
    sends a command naming no program on to the gate, which sees the write; a project whose path
    only contains a ground name (``hookmux-site``, ``notes.claude``) imports nothing."""
    world = World(tmp_path)
    _settings(world)
    inside = world.home / ".claude"
    went_on, out = _gate_imports(world, "cp /tmp/x settings.json", inside)
    assert went_on and ID in (denial(run_hook(DANGER_GATE, ["PreToolUse"], payload("claude", "cp /tmp/x settings.json", inside), world.env)) or "")
    assert b"deny" in out
    project = tmp_path / "hookmux-site" / "notes.claude" / "src"
    project.mkdir(parents=True)
    went_on, out = _gate_imports(world, "touch a.txt b.txt", project)  # names no program of a row
    assert not went_on and out == b""
