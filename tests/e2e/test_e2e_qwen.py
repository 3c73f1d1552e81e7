"""hookmux installed for Qwen Code 0.24.4 (``--qwen``) and driven with the real binary
(``qwen -p go --approval-mode yolo``, Node 22) against the loopback Chat Completions stand-in.

Every command the scripted model asks for is data in its reply; HOME is a fresh temporary folder
(asserted by ``QwenSandbox.qwen`` before each run).
"""
from __future__ import annotations

import json
import shutil

from e2e_fixtures import hookmux_installer  # noqa: F401 (pytest fixture)
from e2e_qwen import qwen_cli, qwen_sandbox, shell  # noqa: F401 (pytest fixtures)

CONTRAINDICATED = "git push --force origin main"  # no remote in the sandbox's repository: git refuses
HARMLESS = "echo hi"
DESTRUCTIVE = "rm -rf ~/Documents"  # data in the scripted reply; HOME is the sandbox's temporary folder


def test_a_destructive_call_is_denied_the_model_reads_why_and_the_folder_stays(qwen_cli, qwen_sandbox):
    home = qwen_sandbox.home
    assert home.is_relative_to(qwen_sandbox.root) and qwen_sandbox.qwen_env["HOME"] == str(home)
    keep = home / "Documents" / "thesis.txt"
    keep.parent.mkdir()
    keep.write_text("years of work")
    qwen_sandbox.install_qwen()
    assert any("danger_gate.py" in c for c in qwen_sandbox.hookmux_commands()["PreToolUse"])

    run = qwen_sandbox.qwen(qwen_cli, [shell(DESTRUCTIVE)])

    assert run.proc.returncode == 0, run.proc.stderr
    assert keep.read_text() == "years of work"
    seen = run.after(0)
    assert seen.result.startswith("hookmux danger gate: this command was NOT run."), seen.result
    assert str(home / "Documents") in seen.result and "hookmux allow --last" in seen.result
    assert "Command:" not in seen.result  # the shell never ran: no output of it
    assert "GIT-" not in seen.result and not any("hookmux" in extra for extra in seen.extra)
    assert "this command was NOT run" in run.proc.stdout  # the stand-in's final text reports it


def test_the_advice_reaches_the_model_after_a_force_push(qwen_cli, qwen_sandbox):
    qwen_sandbox.install_qwen()

    run = qwen_sandbox.qwen(qwen_cli, [shell(CONTRAINDICATED)])

    assert run.proc.returncode == 0, run.proc.stderr
    result = run.after(0).result
    assert result.startswith("Command: " + CONTRAINDICATED)  # the command ran: advice never blocks
    assert "does not appear to be a git repository" in result
    output, _, context = result.partition("\n\n" + "hookmux")
    assert context, result  # Qwen appends PostToolUse's context after a blank line
    assert "GIT-FORCE-PUSH-MAIN" in context and "has already run" in context
    assert "NOT run" not in result


def test_a_harmless_call_is_untouched(qwen_cli, qwen_sandbox):
    qwen_sandbox.install_qwen()
    run = qwen_sandbox.qwen(qwen_cli, [shell(HARMLESS)])
    assert run.proc.returncode == 0, run.proc.stderr
    seen = run.after(0)
    assert seen.result.startswith("Command: echo hi\n") and "Output: hi\n" in seen.result
    assert seen.result.rstrip().endswith("Process Group PGID: (none)")  # nothing after the tool's own output
    assert "hookmux" not in seen.result and not any("hookmux" in extra for extra in seen.extra)


def test_a_deleted_hooks_folder_blocks_nothing(qwen_cli, qwen_sandbox):
    qwen_sandbox.install_qwen()
    assert qwen_sandbox.hookmux_commands()["PreToolUse"], "hookmux should be wired on PreToolUse"
    shutil.rmtree(qwen_sandbox.claude_target)

    run = qwen_sandbox.qwen(qwen_cli, [shell("echo still-runs")])

    assert run.proc.returncode == 0, run.proc.stderr
    seen = run.after(0)
    assert "Output: still-runs" in seen.result and "hookmux" not in seen.result
    assert json.loads(qwen_sandbox.qwen_settings.read_text())["security"] == {"auth": {"selectedType": "openai"}}
