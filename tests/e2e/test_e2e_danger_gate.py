"""The danger gate (hooks/danger-gate) installed by ``hookmux install`` and met through the real
Claude Code (``--allowedTools Bash``: the host's own prompt is out of the way), Copilot CLI
(``--allow-all-tools``) and Codex CLI (``approval_policy = "never"``, full access).

SAFETY: the hazardous commands are scripted tool calls of the loopback model; if the gate failed
they would run. So they reach only what this test made in temporary folders: HOME is the sandbox's
fresh temporary folder (asserted before every run), the repositories are the sandbox's project.
Never ``/``, a system folder or the real home, not even as the blocked case.
"""
from __future__ import annotations

import json
import os
import subprocess
import tempfile
from pathlib import Path

import pytest

from e2e_codex_server import shell
from e2e_expect import ADVISORY_PREFIX, COPILOT_DENIED, COPILOT_PRE_CONTEXT
from e2e_fixtures import claude_cli, codex_cli, codex_sandbox, copilot_cli, hookmux_installer, sandbox  # noqa: F401
from hookmux.standin.anthropic import ToolUse

DELETE_DOCUMENTS = "rm -rf ~/Documents"
RESET = "git reset --hard"
HARMLESS = "echo e2e-harmless-output"
CLAUDE_DENIED = "PreToolUse:Bash hook error: "
CODEX_DENIED = "Command blocked by PreToolUse hook: "


def _safe_home(sandbox) -> Path:
    """HOME is this test's own temporary folder: asserted before any host runs a command."""
    home = Path(sandbox.env["HOME"])
    assert str(home).startswith(tempfile.gettempdir()), home
    assert home.resolve() != Path(os.path.expanduser("~")).resolve() and home != Path("/")
    assert str(sandbox.project).startswith(tempfile.gettempdir())
    documents = home / "Documents"
    documents.mkdir(exist_ok=True)
    (documents / "thesis.txt").write_text("five years of work\n")
    return home


def _git(sandbox, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=sandbox.project, env=sandbox.env, check=True,
                          capture_output=True, text=True).stdout


def _dirty_repository(sandbox) -> Path:
    work = sandbox.project / "work.txt"
    work.write_text("committed\n")
    _git(sandbox, "add", "work.txt")
    _git(sandbox, "commit", "-q", "-m", "work")
    work.write_text("not committed yet\n")
    return work


def _danger_commands(config: Path, copilot: bool = False) -> list[str]:
    data = json.loads(config.read_text())
    if copilot:
        hooks = [entry.get("bash", "") for entries in data.get("hooks", {}).values() for entry in entries]
    else:
        hooks = [hook.get("command", "") for groups in data.get("hooks", {}).values() for group in groups
                 for hook in group.get("hooks", [])]
    return [command for command in hooks if "danger_gate.py" in command]


def _assert_denied_with_guidance(reason: str, command: str) -> None:
    assert "NOT run" in reason and "ask the user" in reason, reason
    assert "hookmux allow --last" in reason and f"hookmux allow '{command}'" not in reason, reason


# ---------------------------------------------------------------- Claude Code


def test_claude_code_denies_deleting_a_home_folder(claude_cli, sandbox):
    home = _safe_home(sandbox)
    sandbox.install_claude_user()
    assert len(_danger_commands(sandbox.user_settings)) == 1
    run = sandbox.claude(claude_cli, [ToolUse("Bash", {"command": DELETE_DOCUMENTS})], "--allowedTools", "Bash")

    assert run.proc.returncode == 0, run.proc.stderr
    seen = run.after(0)
    assert seen.is_error and seen.result.startswith(CLAUDE_DENIED), seen.result
    reason = seen.result[len(CLAUDE_DENIED):]
    _assert_denied_with_guidance(reason, DELETE_DOCUMENTS)
    assert f"{home}/Documents, a top-level folder of the home folder" in reason
    assert (home / "Documents" / "thesis.txt").is_file()
    assert not any(text.startswith(ADVISORY_PREFIX) for text in seen.extra), seen.extra  # one message
    assert run.claude_hook_errors() == []


def test_claude_code_reset_hard_is_denied_over_unsaved_work_then_allowed(claude_cli, sandbox):
    _safe_home(sandbox)
    sandbox.install_claude_user()
    work = _dirty_repository(sandbox)
    run = sandbox.claude(claude_cli, [ToolUse("Bash", {"command": RESET})], "--allowedTools", "Bash")
    seen = run.after(0)
    assert seen.is_error and seen.result.startswith(CLAUDE_DENIED), seen.result
    assert "uncommitted change to work.txt" in seen.result
    _assert_denied_with_guidance(seen.result, RESET)
    assert work.read_text() == "not committed yet\n"
    assert not any(text.startswith(ADVISORY_PREFIX) for text in seen.extra), seen.extra

    sandbox.hookmux_at_terminal("allow\n", "allow", RESET, "--once")
    run = sandbox.claude(claude_cli, [ToolUse("Bash", {"command": RESET})], "--allowedTools", "Bash")
    assert "HEAD is now at" in run.after(0).result
    assert work.read_text() == "committed\n"


def test_claude_code_reset_hard_in_a_clean_repository_runs(claude_cli, sandbox):
    _safe_home(sandbox)
    sandbox.install_claude_user()
    run = sandbox.claude(claude_cli, [ToolUse("Bash", {"command": RESET})], "--allowedTools", "Bash")
    seen = run.after(0)
    assert not seen.is_error and "HEAD is now at" in seen.result, seen.result


def test_claude_code_harmless_call_is_untouched(claude_cli, sandbox):
    _safe_home(sandbox)
    sandbox.install_claude_user()
    run = sandbox.claude(claude_cli, [ToolUse("Bash", {"command": HARMLESS})], "--allowedTools", "Bash")
    seen = run.after(0)
    assert not seen.is_error and seen.result == "e2e-harmless-output" and seen.extra == []
    gate_runs = [r for r in run.hook_runs() if "danger_gate.py" in r[1]]
    assert [r[2] for r in gate_runs] == [0], run.hook_runs()
    assert run.claude_hook_errors() == []


# ---------------------------------------------------------------- Copilot CLI


def test_copilot_denies_deleting_a_home_folder(copilot_cli, sandbox):
    home = _safe_home(sandbox)
    sandbox.install_copilot_user()
    assert len(_danger_commands(sandbox.copilot_hooks_dir / "hookmux.json", copilot=True)) == 1
    run = sandbox.copilot(copilot_cli, [ToolUse("bash", {"command": DELETE_DOCUMENTS})])

    assert run.proc.returncode == 0, run.proc.stderr
    seen = run.after(0)
    assert seen.result.startswith(COPILOT_DENIED), seen.result
    _assert_denied_with_guidance(seen.result, DELETE_DOCUMENTS)
    assert (home / "Documents" / "thesis.txt").is_file()
    assert not any(text.startswith(COPILOT_PRE_CONTEXT) for text in seen.extra), seen.extra


def test_copilot_reset_hard_denied_over_unsaved_work_runs_when_clean_and_after_allow(copilot_cli, sandbox):
    _safe_home(sandbox)
    sandbox.install_copilot_user()
    run = sandbox.copilot(copilot_cli, [ToolUse("bash", {"command": RESET})])
    assert "HEAD is now at" in run.after(0).result  # clean: it runs

    work = _dirty_repository(sandbox)
    run = sandbox.copilot(copilot_cli, [ToolUse("bash", {"command": RESET})])
    seen = run.after(0)
    assert seen.result.startswith(COPILOT_DENIED) and "uncommitted change to work.txt" in seen.result, seen.result
    assert work.read_text() == "not committed yet\n"

    sandbox.hookmux_at_terminal("allow\n", "allow", RESET, "--once")
    run = sandbox.copilot(copilot_cli, [ToolUse("bash", {"command": RESET})])
    assert "HEAD is now at" in run.after(0).result
    assert work.read_text() == "committed\n"


def test_copilot_harmless_call_is_untouched(copilot_cli, sandbox):
    _safe_home(sandbox)
    sandbox.install_copilot_user()
    run = sandbox.copilot(copilot_cli, [ToolUse("bash", {"command": HARMLESS})])
    seen = run.after(0)
    assert "e2e-harmless-output" in seen.result and "Denied" not in seen.result
    assert not any(text.startswith(COPILOT_PRE_CONTEXT) for text in seen.extra), seen.extra
    ends = [e for e in run.copilot_hook_events() if e["type"] == "hook.end" and e["data"].get("hookType") == "preToolUse"]
    assert ends and all(e["data"].get("success") is True for e in ends), ends


def test_copilot_project_claude_settings_denies_with_the_nested_form(copilot_cli, sandbox):
    home = _safe_home(sandbox)
    sandbox.install_claude_project()
    run = sandbox.copilot(copilot_cli, [ToolUse("bash", {"command": DELETE_DOCUMENTS})], "--trust-folder")
    seen = run.after(0)
    assert seen.result.startswith(COPILOT_DENIED), seen.result
    _assert_denied_with_guidance(seen.result, DELETE_DOCUMENTS)
    assert (home / "Documents" / "thesis.txt").is_file()


# ---------------------------------------------------------------- Codex CLI


def _codex_install(sandbox, cli):
    return sandbox.hookmux("install", "--target", sandbox.claude_target, "--settings", sandbox.user_settings,
                           "--codex-home", sandbox.codex_home, "--codex-bin", cli.path)


# Codex refuses `rm -f ...` itself ("rm -f style commands are not permitted", host-contract.md);
# without -f it would run it, so that is the call the gate has to stop.
CODEX_DELETE = "rm -r ~/Documents"


def test_codex_denies_deleting_a_home_folder(codex_cli, codex_sandbox):
    home = _safe_home(codex_sandbox)
    _install_and_check = _codex_install(codex_sandbox, codex_cli)
    assert "danger_gate.py" in codex_sandbox.hooks_file.read_text()
    run = codex_sandbox.codex(codex_cli, [shell(CODEX_DELETE)])

    assert run.proc.returncode == 0, run.proc.stderr
    after = run.after(0)
    assert after.output.startswith(CODEX_DENIED), after.output
    _assert_denied_with_guidance(after.output, CODEX_DELETE)
    assert (home / "Documents" / "thesis.txt").is_file()
    assert after.developer == [], after.developer  # no advisory beside the deny


def test_codex_reset_hard_denied_over_unsaved_work_runs_when_clean_and_after_allow(codex_cli, codex_sandbox):
    _safe_home(codex_sandbox)
    _codex_install(codex_sandbox, codex_cli)
    run = codex_sandbox.codex(codex_cli, [shell(RESET)])
    assert "HEAD is now at" in run.after(0).output

    work = _dirty_repository(codex_sandbox)
    run = codex_sandbox.codex(codex_cli, [shell(RESET)])
    after = run.after(0)
    assert after.output.startswith(CODEX_DENIED) and "uncommitted change to work.txt" in after.output, after.output
    assert work.read_text() == "not committed yet\n"

    codex_sandbox.hookmux_at_terminal("allow\n", "allow", RESET, "--once")
    run = codex_sandbox.codex(codex_cli, [shell(RESET)])
    assert "HEAD is now at" in run.after(0).output
    assert work.read_text() == "committed\n"


def test_codex_harmless_call_is_untouched(codex_cli, codex_sandbox):
    _safe_home(codex_sandbox)
    _codex_install(codex_sandbox, codex_cli)
    run = codex_sandbox.codex(codex_cli, [shell(HARMLESS)])
    after = run.after(0)
    assert "e2e-harmless-output" in after.output and after.developer == []


@pytest.fixture(autouse=True)
def _no_real_home_touched():
    """The real home's Documents (if any) is the same before and after each test."""
    real = Path(os.path.expanduser("~")) / "Documents"
    before = sorted(os.listdir(real)) if real.is_dir() else None
    yield
    assert (sorted(os.listdir(real)) if real.is_dir() else None) == before


# ---------------------------------------------------------------- issue 40: data stores, publishing


def _standin_bin(sandbox, volume: Path) -> Path:
    """A bin folder, first on PATH and the gate's trusted folder, with a stand-in ``docker`` whose
    ``volume ls`` reports one compose volume holding data (and that logs any other run), a
    stand-in ``npm`` that records it ran, and the real git (the other rows still ask it)."""
    import shutil
    import sys

    bin_dir = sandbox.root / "bin"
    bin_dir.mkdir()
    (bin_dir / "git").symlink_to(shutil.which("git", path="/usr/bin:/bin:/usr/local/bin"))
    answer = f"project_pgdata|{volume}\n"
    for name, body in (
            ("docker", f"if sys.argv[1:3] == ['volume', 'ls']:\n    sys.stdout.write({answer!r})\n"),
            ("npm", "print('npm stand-in: published shop@1.0.0')\n")):
        script = bin_dir / name
        script.write_text(f"#!{sys.executable} -S\nimport json, sys\n"
                          f"with open({str(bin_dir / (name + '.ran'))!r}, 'a') as log:\n"
                          f"    log.write(json.dumps(sys.argv[1:]) + '\\n')\n" + body)
        script.chmod(0o755)
    return bin_dir


def _ran(bin_dir: Path, name: str) -> list[list[str]]:
    log = bin_dir / f"{name}.ran"
    return [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []


def test_claude_code_denies_compose_down_v_over_a_volume_with_data_and_advises_npm_publish(claude_cli, sandbox):
    home = _safe_home(sandbox)
    volume = sandbox.root / "volumes" / "project_pgdata" / "_data"
    volume.mkdir(parents=True)
    (volume / "PG_VERSION").write_text("16\n")
    (sandbox.project / "compose.yaml").write_text("services:\n  db:\n    image: postgres\nvolumes:\n  pgdata: {}\n")
    bin_dir = _standin_bin(sandbox, volume)
    extra_env = {"PATH": f"{bin_dir}:{sandbox.env['PATH']}", "HOOKMUX_TRUSTED_BIN": str(bin_dir)}
    sandbox.install_claude_user()
    assert Path(sandbox.env["HOME"]) == home  # the fresh temporary HOME, asserted before the run

    run = sandbox.claude(claude_cli, [ToolUse("Bash", {"command": "docker compose down -v"})], "--allowedTools", "Bash",
                         extra_env=extra_env)
    seen = run.after(0)
    assert seen.is_error and seen.result.startswith(CLAUDE_DENIED), seen.result
    assert "[DOCKER-VOLUMES-WITH-DATA]" in seen.result and f"project_pgdata (1 entry in {volume})" in seen.result
    _assert_denied_with_guidance(seen.result, "docker compose down -v")
    question = ["volume", "ls", "--filter", "label=com.docker.compose.project=project", "--format",
                "{{.Name}}|{{.Mountpoint}}"]
    ran = _ran(bin_dir, "docker")  # the gate's question (and the advisory's dry run of the gate): never `down`
    assert ran and all(args == question for args in ran), ran
    assert not any(text.startswith(ADVISORY_PREFIX) for text in seen.extra), seen.extra  # one message

    run = sandbox.claude(claude_cli, [ToolUse("Bash", {"command": "npm publish"})], "--allowedTools", "Bash",
                         extra_env=extra_env)
    seen = run.after(0)
    assert not seen.is_error and "npm stand-in: published shop@1.0.0" in seen.result, seen.result
    assert _ran(bin_dir, "npm") == [["publish"]]
    assert any(text.startswith(ADVISORY_PREFIX) and "PACKAGE-PUBLISH" in text for text in seen.extra), seen.extra
    assert run.claude_hook_errors() == []
