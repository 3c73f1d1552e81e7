"""The repository as a plugin: its manifests, hooks/hooks.json, and commands that fail open."""
from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from hookmux import plugin, wiring
from hookmux_testing import REPO, hermetic_env

FORCE_PUSH = json.loads((REPO / "examples" / "pretooluse-bash-force-push.json").read_text())
BASH = shutil.which("bash") or "/bin/bash"


GEMINI_EVENTS = ("BeforeTool", "AfterTool", "BeforeAgent")


def committed() -> dict:
    """The file with the Claude-format events only (Claude Code, Copilot CLI, Codex CLI)."""
    data = json.loads((REPO / "hooks" / "hooks.json").read_text())
    data["hooks"] = {event: groups for event, groups in data["hooks"].items() if event not in GEMINI_EVENTS}
    return data


def gemini_hooks() -> dict:
    return {event: groups for event, groups in json.loads((REPO / "hooks" / "hooks.json").read_text())["hooks"].items()
            if event in GEMINI_EVENTS}


def test_hooks_json_is_what_install_wires_for_the_shipped_manifest():
    assert (REPO / "hooks" / "hooks.json").read_text() == plugin.render(plugin.shipped_hooks_json())
    assert set(committed()) == {"description", "hooks"}  # Codex ignores a file with any other top-level key


def test_every_command_uses_python3_the_plugin_root_and_fails_open():
    commands = [hook["command"] for groups in committed()["hooks"].values() for group in groups
                for hook in group["hooks"]]
    assert commands
    for command in commands:
        command = wiring.split_prefilter(command)[1]  # the every-turn entries' payload filter (issue 42)
        assert command.startswith('python3 -S -E "${CLAUDE_PLUGIN_ROOT}/hooks/') and command.endswith(" || true")
    assert sum(1 for command in commands if wiring.split_prefilter(command)[0]) == 2  # UserPromptSubmit, PostToolBatch


def test_manifests_agree_with_the_package():
    manifest = json.loads((REPO / ".claude-plugin" / "plugin.json").read_text())
    extension = json.loads((REPO / "gemini-extension.json").read_text())
    market = json.loads((REPO / ".claude-plugin" / "marketplace.json").read_text())
    version = re.search(r'^version = "([^"]+)"', (REPO / "pyproject.toml").read_text(), re.M).group(1)
    assert (manifest["name"], manifest["version"]) == (plugin.NAME, version)
    assert (extension["name"], extension["version"]) == (plugin.NAME, version)
    assert market["name"] == plugin.MARKETPLACE
    assert [(p["name"], p["source"]) for p in market["plugins"]] == [(plugin.NAME, "./")]


def plugin_root(tmp_path: Path) -> Path:
    root = tmp_path / "cache" / "hookmux" / "0.1.0"
    shutil.copytree(REPO / "hooks", root / "hooks", ignore=shutil.ignore_patterns("__pycache__"))
    return root


def run_command(command: str, env: dict, payload: dict) -> subprocess.CompletedProcess:
    return subprocess.run([BASH, "-c", command], input=json.dumps(payload), capture_output=True, text=True,
                          env=env, timeout=60)


def dispatcher_command() -> str:
    return committed()["hooks"]["PreToolUse"][0]["hooks"][0]["command"]


def test_the_dispatcher_entry_advises_from_the_plugin_root(tmp_path):
    env = hermetic_env(tmp_path, CLAUDE_PLUGIN_ROOT=str(plugin_root(tmp_path)))
    proc = run_command(dispatcher_command(), env, dict(FORCE_PUSH, cwd=str(tmp_path)))
    assert proc.returncode == 0, proc.stderr
    assert "GIT-FORCE-PUSH" in json.loads(proc.stdout)["hookSpecificOutput"]["additionalContext"]


def test_without_python3_on_path_every_entry_exits_0_and_says_nothing(tmp_path):
    bin_dir = tmp_path / "bin"  # a PATH with a shell's usual tools but no python3
    bin_dir.mkdir()
    (bin_dir / "cat").symlink_to(shutil.which("cat"))  # the payload filter's (issue 42)
    env = hermetic_env(tmp_path, CLAUDE_PLUGIN_ROOT=str(plugin_root(tmp_path)), PATH=str(bin_dir))
    # A payload each entry acts on: the filtered ones pass only one holding their words.
    payloads = {"UserPromptSubmit": {"session_id": "s", "hook_event_name": "UserPromptSubmit", "prompt": "stop the warnings"},
                "PostToolBatch": {"session_id": "s", "hook_event_name": "PostToolBatch", "tool_calls": [
                    {"tool_name": "Skill", "tool_input": {"skill": "x"}, "tool_response": "Unknown skill: x"}]}}
    for event, groups in committed()["hooks"].items():
        for group in groups:
            proc = run_command(group["hooks"][0]["command"], env, payloads.get(event, FORCE_PUSH))
            assert (proc.returncode, proc.stdout) == (0, "")
            assert "python3" in proc.stderr and "not found" in proc.stderr


@pytest.mark.parametrize("root", ["gone", ""])
def test_with_the_plugin_folder_gone_every_entry_exits_0_and_says_nothing(tmp_path, root):
    env = hermetic_env(tmp_path, CLAUDE_PLUGIN_ROOT=str(tmp_path / root) if root else "")
    for groups in committed()["hooks"].values():
        for group in groups:
            proc = run_command(group["hooks"][0]["command"], env, FORCE_PUSH)
            assert (proc.returncode, proc.stdout) == (0, "")


def test_a_settings_install_does_not_copy_the_plugin_wiring(tmp_path):
    from hookmux.installer import tree

    assert "hooks.json" not in tree.wanted_files(str(tmp_path), [])


def test_the_gate_entry_gives_codex_the_mirror_redirect_without_host_option(tmp_path):
    group = committed()["hooks"]["PreToolUse"][1]
    assert group["matcher"].split("|")[-1] == "spawn_agent" and "--host" not in group["hooks"][0]["command"]
    codex_home = tmp_path / "codex-home"
    (codex_home / "skills" / "pdf-report").mkdir(parents=True)
    (codex_home / "skills" / "pdf-report" / "SKILL.md").write_text("---\nname: pdf-report\ndescription: d\n---\n")
    env = hermetic_env(tmp_path, CLAUDE_PLUGIN_ROOT=str(plugin_root(tmp_path)), CODEX_HOME=str(codex_home))
    payload = {"session_id": "s", "turn_id": "t", "cwd": str(tmp_path), "hook_event_name": "PreToolUse",
               "model": "gpt-4.1", "tool_name": "spawn_agent", "tool_input": {"agent_type": "pdf-report"},
               "tool_use_id": "c"}
    proc = subprocess.run([BASH, "-c", group["hooks"][0]["command"]], input=json.dumps(payload, separators=(",", ":")),
                          capture_output=True, text=True, env=env, timeout=60, cwd=str(tmp_path))
    decision = json.loads(proc.stdout)["hookSpecificOutput"]
    assert decision["permissionDecision"] == "deny" and "is a skill, not an agent" in decision["permissionDecisionReason"]


def test_the_gemini_extension_events_are_what_install_gemini_wires_with_the_extension_root():
    manifest = json.loads((REPO / "hooks" / "_dispatch" / "manifest.json").read_text())
    assert gemini_hooks() == plugin.gemini_groups(manifest)
    assert set(gemini_hooks()) == set(GEMINI_EVENTS)  # no Gemini event shares a key with a Claude one
    assert [group["hooks"][0]["command"].split()[3] for group in gemini_hooks()["BeforeTool"]] == [
        "'${extensionPath}/hooks/_dispatch/dispatch.py'", "'${extensionPath}/hooks/danger-gate/danger_gate.py'"]
    for groups in gemini_hooks().values():
        for group in groups:
            command = group["hooks"][0]["command"]
            assert "--host gemini" in command and command.endswith(" 2>/dev/null || true")
            assert group["hooks"][0]["timeout"] == 10000  # milliseconds


def gemini_command(event: str, index: int, root: str) -> str:
    return gemini_hooks()[event][index]["hooks"][0]["command"].replace("${extensionPath}", root)  # as Gemini hydrates


def test_the_gemini_after_tool_entry_advises_after_a_force_push_and_is_silent_when_the_folder_is_gone(tmp_path):
    root = plugin_root(tmp_path)
    payload = {"session_id": "s", "transcript_path": str(tmp_path / "t.json"), "cwd": str(tmp_path),
               "hook_event_name": "AfterTool", "timestamp": "2026-12-01T10:00:00.000Z",
               "tool_name": "run_shell_command", "tool_input": FORCE_PUSH["tool_input"],
               "tool_response": {"llmContent": "fatal: no remote", "returnDisplay": "fatal: no remote"}}
    proc = run_command(gemini_command("AfterTool", 0, str(root)), hermetic_env(tmp_path), payload)
    assert proc.returncode == 0 and "GIT-FORCE-PUSH" in proc.stdout, proc.stderr
    proc = run_command(gemini_command("AfterTool", 0, str(tmp_path / "gone")), hermetic_env(tmp_path), payload)
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, "", "")


def test_doctor_reads_the_plugin_hosts_entries_and_leaves_the_gemini_ones_out():
    from hookmux.doctor import wirings

    wiring = wirings.read(REPO / "hooks" / "hooks.json", wirings.PLUGIN, ("claude",), wirings.plugin_resolver(str(REPO)))
    assert wiring.unrecognised == []
    assert [hook.event for hook in wiring.hooks] == [event for event, groups in committed()["hooks"].items()
                                                     for _ in groups]
