"""hookmux's Pi extension (``hookmux install --pi``) in the real Pi coding agent 1.6.0 (``pi -p``,
run by Node 22) against the loopback Anthropic stand-in (e2e_plugin_hosts.py).

Every command the scripted model asks for is data in its reply; HOME is the sandbox's fresh
temporary folder (asserted by ``PluginSandbox.pi`` before each run).
"""
from __future__ import annotations

import json
import shutil
import subprocess

from hookmux.standin.anthropic import ToolUse

from e2e_fixtures import hookmux_installer  # noqa: F401 (pytest fixture)
from e2e_plugin_hosts import pi_cli, plugin_sandbox  # noqa: F401 (pytest fixtures)

HARMLESS = "echo hi"
DESTRUCTIVE = "rm -rf ~/Documents"  # data in the scripted reply; HOME is the sandbox's temporary folder
CONTRAINDICATED = "git push --force origin main"  # no remote in the sandbox's repository: git refuses


def bash(command: str) -> ToolUse:
    return ToolUse("bash", {"command": command})


def installed_advice(sandbox, command: str) -> str:
    """What the installed dispatcher says after this bash call, run as the extension runs it."""
    text = sandbox.pi_extension.read_text()
    config = json.loads(text.split("\nconst HOOKMUX = ", 1)[1].split("\n};\n")[0] + "}")
    payload = {"hook_event_name": "tool_result", "session_id": "expectation", "cwd": str(sandbox.project),
               "tool_name": "bash", "tool_input": {"command": command}, "tool_response": {"output": ""}}
    proc = subprocess.run([config["python"], *config["python_flags"], config["dispatch"], "--host", "pi",
                           "tool_result"], input=json.dumps(payload), capture_output=True, text=True,
                          cwd=sandbox.project, env=sandbox.env, timeout=60)
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr
    return json.loads(proc.stdout)["hookSpecificOutput"]["additionalContext"]


def test_the_gate_blocks_the_model_reads_why_a_harmless_call_is_untouched_and_advice_follows_a_force_push(
        pi_cli, plugin_sandbox):
    sandbox = plugin_sandbox
    keep = sandbox.home / "Documents" / "thesis.txt"
    keep.parent.mkdir()
    keep.write_text("years of work")
    sandbox.write_pi_models()
    sandbox.install("--pi")
    assert sandbox.pi_extension.is_file()

    run = sandbox.pi(pi_cli, [bash(HARMLESS), bash(DESTRUCTIVE), bash(CONTRAINDICATED)])

    assert run.proc.returncode == 0, run.proc.stderr
    harmless = run.after(0)
    assert (harmless.result, harmless.is_error) == ("hi\n", False)
    assert keep.read_text() == "years of work"
    denied = run.after(1)
    assert denied.is_error and denied.result.startswith("hookmux danger gate: this command was NOT run.")
    assert str(sandbox.home / "Documents") in denied.result and "hookmux allow --last" in denied.result
    advised = run.after(2)
    # Pi's Anthropic provider joins the result's text parts with a newline: the command's, then ours
    assert advised.result.endswith("\n" + installed_advice(sandbox, CONTRAINDICATED))
    assert "Command exited with code" in advised.result.split("hookmux contraindication advisory")[0]
    assert "has already run" in advised.result


def test_a_deleted_hooks_folder_blocks_nothing(pi_cli, plugin_sandbox):
    sandbox = plugin_sandbox
    sandbox.write_pi_models()
    sandbox.install("--pi")
    shutil.rmtree(sandbox.claude_target)
    target = sandbox.project / "notes.txt"

    run = sandbox.pi(pi_cli, [bash("echo still-runs"), ToolUse("write", {"path": str(target), "content": "x\n"})])

    assert run.proc.returncode == 0, run.proc.stderr
    assert (run.after(0).result, run.after(0).is_error) == ("still-runs\n", False)
    assert not run.after(1).is_error and target.read_text() == "x\n"
