"""``hookmux doctor`` against the real hosts: a healthy install on each host passes doctor, and
the real binary agrees (the hook it vouched for reaches the model); on Claude Code, an install
doctor fails (its dispatcher deleted) is one whose advice the real host never delivers."""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile

from e2e_codex_server import shell
from e2e_expect import ADVISORY_PREFIX, COPILOT_PRE_CONTEXT, matching_rows
from e2e_fixtures import (claude_cli, codex_cli, codex_sandbox, copilot_cli,  # noqa: F401 (pytest fixtures)
                          hookmux_installer, sandbox)
from e2e_gemini import gemini_cli, gemini_sandbox  # noqa: F401 (pytest fixtures)
from hookmux.standin.anthropic import ToolUse
from e2e_support import REPO

CONTRAINDICATED = "git push --force origin main"  # data: the project is a fresh repository with no remote


def _doctor(sandbox, *args) -> tuple[int, dict]:
    proc = subprocess.run([sys.executable, "-m", "hookmux.cli", "doctor", "--json", *map(str, args)],
                          cwd=sandbox.project, env=sandbox.env, capture_output=True, text=True, timeout=300)
    assert proc.returncode in (0, 1), proc.stderr
    return proc.returncode, json.loads(proc.stdout)


def _problems(report) -> str:
    return "\n".join(f"{p['where']}: {p['problem']}" for p in report["problems"])


def _fired(report, fmt: str) -> list[tuple[str, str]]:
    return [(hook["event"], hook["role"]) for wiring in report["wirings"] if wiring["format"] == fmt
            for hook in wiring["hooks"] for run in hook["canary"] if run["fired"] and run["accepted"]]


def _temporary_home(sandbox) -> None:
    assert str(sandbox.home).startswith(tempfile.gettempdir()), sandbox.home


def test_claude_code_a_healthy_install_passes_and_a_broken_one_fails_as_the_host_shows(claude_cli, sandbox):
    _temporary_home(sandbox)
    sandbox.install_claude_user()
    code, report = _doctor(sandbox)
    assert code == 0, _problems(report)
    assert {("PreToolUse", "dispatch"), ("PostToolBatch", "gate")} <= set(_fired(report, "claude"))

    call = {"command": CONTRAINDICATED}
    rows = matching_rows(sandbox, "Bash", call)
    run = sandbox.claude(claude_cli, [ToolUse("Bash", call)], "--allowedTools", "Bash")
    assert run.proc.returncode == 0, run.proc.stderr
    advisories = [text for text in run.after(0).extra if text.startswith(ADVISORY_PREFIX)]
    assert len(advisories) == 1 and all(row["id"] in advisories[0] for row in rows), run.after(0).extra

    (sandbox.claude_target / "_dispatch" / "dispatch.py").unlink()
    code, report = _doctor(sandbox)
    assert code == 1
    assert "the canary PreToolUse event did not reach the dispatch" in _problems(report)
    run = sandbox.claude(claude_cli, [ToolUse("Bash", call)], "--allowedTools", "Bash")
    assert run.proc.returncode == 0, run.proc.stderr
    assert not [text for text in run.after(0).extra if text.startswith(ADVISORY_PREFIX)]


def test_copilot_a_healthy_install_passes_and_the_host_agrees(copilot_cli, sandbox):
    _temporary_home(sandbox)
    sandbox.install_copilot_user()
    code, report = _doctor(sandbox)
    assert code == 0, _problems(report)
    assert {("preToolUse", "dispatch"), ("preToolUse", "gate")} <= set(_fired(report, "copilot"))

    call = {"command": CONTRAINDICATED}
    rows = matching_rows(sandbox, "Bash", call)
    run = sandbox.copilot(copilot_cli, [ToolUse("bash", call)])
    assert run.proc.returncode == 0, run.proc.stderr
    advisories = [text for text in run.after(0).extra if text.startswith(COPILOT_PRE_CONTEXT)]
    assert len(advisories) == 1 and all(row["id"] in advisories[0] for row in rows), run.after(0).extra


def test_codex_a_healthy_trusted_install_passes_and_the_host_agrees(codex_cli, codex_sandbox):
    _temporary_home(codex_sandbox)
    codex_sandbox.hookmux("install", "--target", codex_sandbox.claude_target, "--settings",
                          codex_sandbox.user_settings, "--codex-home", codex_sandbox.codex_home,
                          "--codex-bin", codex_cli.path)
    code, report = _doctor(codex_sandbox, "--codex-home", codex_sandbox.codex_home, "--codex-bin", codex_cli.path)
    assert code == 0, _problems(report)
    assert {("PreToolUse", "dispatch"), ("PreToolUse", "gate")} <= set(_fired(report, "codex"))
    codex = next(w for w in report["wirings"] if w["format"] == "codex")
    assert {hook["trust"] for hook in codex["hooks"]} == {"trusted"}

    rows = matching_rows(codex_sandbox, "Bash", {"command": CONTRAINDICATED})
    run = codex_sandbox.codex(codex_cli, [shell(CONTRAINDICATED)])
    assert run.proc.returncode == 0, run.proc.stderr
    developer = run.after(0).developer
    assert len(developer) == 1 and all(row["id"] in developer[0] for row in rows), developer


def test_codex_an_untrusted_hook_fails_doctor_as_codex_skips_it(codex_cli, codex_sandbox):
    _temporary_home(codex_sandbox)
    codex_sandbox.hookmux("install", "--target", codex_sandbox.claude_target, "--settings",
                          codex_sandbox.user_settings, "--codex-home", codex_sandbox.codex_home,
                          "--codex-bin", codex_cli.path)
    hooks = json.loads(codex_sandbox.hooks_file.read_text())
    for group in hooks["hooks"]["PreToolUse"]:
        for hook in group["hooks"]:
            if "dispatch.py" in hook["command"]:
                # A changed command line (still hookmux's): Codex no longer trusts it.
                hook["command"] = hook["command"].replace("dispatch.py ", "dispatch.py --trace ", 1)
    codex_sandbox.hooks_file.write_text(json.dumps(hooks, indent=2))
    code, report = _doctor(codex_sandbox, "--codex-home", codex_sandbox.codex_home, "--codex-bin", codex_cli.path)
    assert code == 1
    assert "PreToolUse dispatch: Codex skips it silently: it is modified" in _problems(report)


def test_claude_code_the_plugin_installed_from_a_local_marketplace_passes(claude_cli, sandbox):
    from test_e2e_plugin import PLUGIN, hazard_ids, host, marketplace

    _temporary_home(sandbox)
    market = marketplace(sandbox.root)
    host(sandbox, claude_cli, "plugin", "marketplace", "add", str(market))
    host(sandbox, claude_cli, "plugin", "install", PLUGIN)
    code, report = _doctor(sandbox)
    assert code == 0, _problems(report)
    # Claude Code runs a local marketplace's plugin from the marketplace folder (docs/e2e.md, "Plugins").
    assert [(w["file"], w["loaded_by"]) for w in report["wirings"] if w["format"] == "plugin"] == [
        (str(market / "hooks" / "hooks.json"), ["claude"])]
    assert {("PreToolUse", "dispatch"), ("PreToolUse", "gate"), ("UserPromptSubmit", "dispatch"),
            ("PostToolBatch", "gate")} <= set(_fired(report, "plugin"))

    call = {"command": CONTRAINDICATED}
    ids = hazard_ids(CONTRAINDICATED)
    assert ids
    run = sandbox.claude(claude_cli, [ToolUse("Bash", call)], "--allowedTools", "Bash")
    assert run.proc.returncode == 0, run.proc.stderr
    advisories = [text for text in run.after(0).extra if text.startswith(ADVISORY_PREFIX)]
    assert len(advisories) == 1 and all(hazard in advisories[0] for hazard in ids), run.after(0).extra

    shutil.rmtree(market / "hooks")  # the folder Claude Code runs the hooks from
    code, report = _doctor(sandbox)
    assert code == 1 and "has no hooks/hooks.json" in _problems(report), _problems(report)


def _gemini(cli, sandbox, *args, answer=None) -> subprocess.CompletedProcess:
    proc = subprocess.run([shutil.which("node") or "node", str(cli.path), *args], input=answer, cwd=sandbox.project,
                          env=sandbox.env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc


def test_gemini_the_extension_the_real_binary_linked_is_found_run_and_named_when_wired_twice(gemini_cli,
                                                                                             gemini_sandbox):
    """Gemini CLI 0.61.0 writes its own extension records (``extensions link``, then ``uninstall``);
    doctor finds the extension where Gemini runs it from, passes it, names it beside a settings
    install, and passes again once the real binary has taken the extension away (the fix it names)."""
    sandbox = gemini_sandbox
    _temporary_home(sandbox)
    checkout = sandbox.root / "checkout"
    checkout.mkdir()
    shutil.copy(REPO / "gemini-extension.json", checkout)
    shutil.copytree(REPO / "hooks", checkout / "hooks", ignore=shutil.ignore_patterns("__pycache__"))
    _gemini(gemini_cli, sandbox, "extensions", "link", str(checkout), answer="y\n")

    code, report = _doctor(sandbox)
    assert code == 0, _problems(report)
    [extension] = report["gemini_extensions"]
    assert extension["kind"] == "link" and extension["root"] == str(checkout) and extension["enabled"]
    assert set(_fired(report, "gemini")) == {("BeforeTool", "dispatch"), ("BeforeTool", "danger"),
                                             ("AfterTool", "dispatch"), ("BeforeAgent", "dispatch")}

    installed = sandbox.hookmux("install", "--target", sandbox.claude_target, "--settings", sandbox.user_settings,
                                "--gemini-home", sandbox.gemini_home)
    assert "hookmux: warning: Gemini CLI also has the hookmux extension" in installed.stderr
    code, report = _doctor(sandbox)
    assert code == 1
    twice = [p for p in report["problems"] if "the hookmux extension (linked from" in p["problem"]]
    assert len(twice) == 4 and all("`gemini extensions uninstall hookmux`" in p["fix"] for p in twice), \
        _problems(report)

    _gemini(gemini_cli, sandbox, "extensions", "uninstall", "hookmux")
    assert (checkout / "hooks" / "hooks.json").is_file()  # a link's uninstall leaves the linked folder
    code, report = _doctor(sandbox)
    assert code == 0 and report["gemini_extensions"] == [], _problems(report)
    assert ("AfterTool", "dispatch") in _fired(report, "gemini")
