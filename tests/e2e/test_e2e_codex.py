"""hookmux installed for OpenAI Codex CLI (``--codex-home``), trusted through the app-server, and
driven with ``codex exec`` WITHOUT ``--dangerously-bypass-hook-trust``."""
from __future__ import annotations

import json
import os
import shutil

from e2e_codex_server import apply_patch, shell, spawn_agent
from e2e_expect import matching_rows
from e2e_fixtures import codex_cli, codex_sandbox, hookmux_installer  # noqa: F401 (pytest fixtures)
from hookmux import resources
from hookmux.installer import codex_hooks, codex_trust

CONTRAINDICATED = "git push --force origin main"
USER_HOOK = "echo user-hook >/dev/null"
USER_CONFIG = "# the user's own setting\nmodel_reasoning_effort = \"low\"\n"


def _install(sandbox, cli, *extra):
    return sandbox.hookmux("install", "--target", sandbox.claude_target, "--settings", sandbox.user_settings,
                           "--codex-home", sandbox.codex_home, "--codex-bin", cli.path, *extra)


def _with_user_hook(sandbox) -> None:
    sandbox.hooks_file.write_text(json.dumps({"hooks": {"PreToolUse": [
        {"matcher": "Bash", "hooks": [{"type": "command", "command": USER_HOOK}]}]}}, indent=2) + "\n")
    sandbox.config.write_text(USER_CONFIG + sandbox.config.read_text())


def _hookmux_entries(sandbox) -> list[tuple[str, str]]:
    """(event, command) of every hook in the Codex hooks file that runs hookmux's scripts."""
    data = json.loads(sandbox.hooks_file.read_text())
    return [(event, hook["command"]) for event, groups in data["hooks"].items() for group in groups
            for hook in group["hooks"] if str(sandbox.claude_target) in hook["command"]]


def _trust(sandbox, cli):
    proc = sandbox.hookmux("status", "--target", sandbox.claude_target, "--codex-home", sandbox.codex_home,
                           "--codex-bin", cli.path, "--json")
    report = json.loads(proc.stdout)
    item = next(i for i in report["wired"] if i["host"] == "codex")
    return {(e["event"], e["role"]): e.get("trust") for e in item["entries"]}, report["problems"]


def test_the_advisory_reaches_the_model_as_a_developer_message(codex_cli, codex_sandbox):
    _install(codex_sandbox, codex_cli)
    rows = matching_rows(codex_sandbox, "Bash", {"command": CONTRAINDICATED})
    assert rows, "the shipped rows should flag a force push to main"

    run = codex_sandbox.codex(codex_cli, [shell(CONTRAINDICATED)])

    assert run.proc.returncode == 0, run.proc.stderr
    after = run.after(0)
    assert len(after.developer) == 1, after.developer
    assert all(row["id"] in after.developer[0] for row in rows)
    assert "hook" not in after.output.lower()  # advice only: the command ran, nothing about a failed hook


def test_a_harmless_call_stays_quiet(codex_cli, codex_sandbox):
    _install(codex_sandbox, codex_cli)
    run = codex_sandbox.codex(codex_cli, [shell("echo hi")])

    assert run.proc.returncode == 0, run.proc.stderr
    assert run.after(0).developer == []
    assert "hi" in run.after(0).output
    assert not [e for e in run.events if e.get("item", {}).get("type") == "error" and "hook" in str(e).lower()]


def test_install_keeps_the_users_hooks_and_config_and_trusts_only_its_own(codex_cli, codex_sandbox):
    _with_user_hook(codex_sandbox)
    proc = _install(codex_sandbox, codex_cli)

    data = json.loads(codex_sandbox.hooks_file.read_text())
    assert set(data) == {"hooks"}  # no $schema: Codex would ignore the whole file
    groups = data["hooks"]["PreToolUse"]
    assert groups[0]["hooks"][0]["command"] == USER_HOOK
    commands = [command for _, command in _hookmux_entries(codex_sandbox)]
    assert len(commands) >= 2 and all("--host codex" in c for c in commands)
    assert USER_CONFIG in codex_sandbox.config.read_text()
    assert "newly trusted" in proc.stdout

    trust, problems = _trust(codex_sandbox, codex_cli)
    assert trust[("PreToolUse", "dispatch")] == trust[("PreToolUse", "gate")] == "trusted"
    assert set(trust.values()) == {"trusted"} and len(trust) == len(commands)
    assert problems == []
    config = codex_sandbox.config.read_text()
    assert f'"{codex_sandbox.hooks_file}:pre_tool_use:0:0"' not in config  # the user's hook stays untrusted
    assert config.count("trusted_hash") == len(commands)


def test_reinstall_keeps_the_trust_and_uninstall_removes_entries_and_records(codex_cli, codex_sandbox):
    _with_user_hook(codex_sandbox)
    user_config = codex_sandbox.config.read_bytes()
    _install(codex_sandbox, codex_cli)
    hooks_before, config_before = codex_sandbox.hooks_file.read_bytes(), codex_sandbox.config.read_bytes()

    proc = _install(codex_sandbox, codex_cli)
    assert codex_sandbox.hooks_file.read_bytes() == hooks_before
    assert codex_sandbox.config.read_bytes() == config_before
    assert "0 newly trusted" in proc.stdout
    run = codex_sandbox.codex(codex_cli, [shell(CONTRAINDICATED)])
    assert len(run.after(0).developer) == 1

    codex_sandbox.hookmux("uninstall", "--target", codex_sandbox.claude_target, "--settings",
                          codex_sandbox.user_settings, "--codex-home", codex_sandbox.codex_home,
                          "--codex-bin", codex_cli.path)
    data = json.loads(codex_sandbox.hooks_file.read_text())
    assert data == {"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": USER_HOOK}]}]}}
    assert codex_sandbox.config.read_bytes() == user_config  # not even an empty [hooks.state] left


def test_without_a_codex_binary_install_says_how_to_trust_and_status_reports_untrusted(codex_cli, codex_sandbox):
    env_path = os.environ.get("PATH", "")
    assert not any(os.path.exists(os.path.join(d, "codex")) for d in env_path.split(os.pathsep) if d), \
        "a codex on PATH would be used"
    proc = codex_sandbox.hookmux("install", "--target", codex_sandbox.claude_target, "--settings",
                                 codex_sandbox.user_settings, "--codex-home", codex_sandbox.codex_home)
    assert "/hooks" in proc.stderr and "no codex binary" in proc.stderr
    assert "trusted_hash" not in codex_sandbox.config.read_text()

    status = codex_sandbox.hookmux_status_json("--codex-home", codex_sandbox.codex_home)
    item = next(i for i in status["wired"] if i["host"] == "codex")
    assert [e["trust"] for e in item["entries"]] == ["untrusted"] * len(_hookmux_entries(codex_sandbox))
    assert any("/hooks" in p for p in status["problems"])

    # and Codex indeed skips them until trusted
    run = codex_sandbox.codex(codex_cli, [shell(CONTRAINDICATED)])
    assert run.after(0).developer == []


def test_spawn_agent_naming_a_skill_is_denied_with_the_path_to_read(codex_cli, codex_sandbox):
    skill_md = codex_sandbox.add_codex_skill("pdf-report")
    project_skill = codex_sandbox.add_codex_skill("release-notes", codex_sandbox.project / ".agents" / "skills")
    _install(codex_sandbox, codex_cli)

    run = codex_sandbox.codex(codex_cli, [spawn_agent("pdf-report"), spawn_agent("release-notes")])

    assert run.proc.returncode == 0, run.proc.stderr
    for call, path in ((0, skill_md), (1, project_skill)):
        output = run.after(call).output
        assert output.startswith("Tool call blocked by PreToolUse hook: "), output
        assert str(path) in output and "is a skill, not an agent" in output


def test_a_real_agent_passes_the_gate(codex_cli, codex_sandbox):
    codex_sandbox.add_codex_agent("reviewer")
    codex_sandbox.add_codex_skill("reviewer-notes")
    _install(codex_sandbox, codex_cli)

    for agent in ("reviewer", "worker"):
        run = codex_sandbox.codex(codex_cli, [spawn_agent(agent)])
        assert run.proc.returncode == 0, run.proc.stderr
        output = run.after(0).output
        assert '"agent_id"' in output, output  # Codex started it


def test_a_users_trusted_hook_that_moves_up_on_uninstall_stays_trusted(codex_cli, codex_sandbox):
    _install(codex_sandbox, codex_cli)
    data = json.loads(codex_sandbox.hooks_file.read_text())
    data["hooks"]["PreToolUse"].append({"matcher": "Bash", "hooks": [{"type": "command", "command": USER_HOOK}]})
    codex_sandbox.hooks_file.write_text(json.dumps(data, indent=2))
    binary = str(codex_cli.path)
    codex_trust.trust_own(binary, codex_sandbox.codex_home, codex_sandbox.hooks_file, lambda c: c == USER_HOOK)
    moved_from = f"{codex_sandbox.hooks_file}:pre_tool_use:2:0"
    assert moved_from in codex_sandbox.config.read_text()

    codex_sandbox.hookmux("uninstall", "--target", codex_sandbox.claude_target, "--settings",
                          codex_sandbox.user_settings, "--codex-home", codex_sandbox.codex_home, "--codex-bin", binary)

    state = codex_trust.trust_state(binary, codex_sandbox.codex_home, codex_sandbox.hooks_file)
    assert [(h.key, h.command, h.trust_status) for h in state] == [
        (f"{codex_sandbox.hooks_file}:pre_tool_use:0:0", USER_HOOK, "trusted")]
    config = codex_sandbox.config.read_text()
    assert config.count("trusted_hash") == 1 and moved_from not in config


EDIT_PROBE = '''
import json, sys
def main(argv=None):
    payload = json.loads(sys.stdin.read())
    first = payload["tool_input"]["command"].splitlines()[1]
    print(json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse",
                      "additionalContext": "edit-row saw %s: %s" % (payload["tool_name"], first)}}))
'''


def _tree_with_an_edit_row(tmp_path):
    """The package's hooks tree plus a row for Edit|Write that reports what it saw."""
    tree = tmp_path / "tree"
    shutil.copytree(resources.hooks_tree(), tree, ignore=shutil.ignore_patterns("__pycache__"))
    (tree / "edit-probe").mkdir()
    (tree / "edit-probe" / "check.py").write_text(EDIT_PROBE)
    manifest_path = tree / "_dispatch" / "manifest.json"
    manifest = json.loads(manifest_path.read_text())
    pre = manifest["events"]["PreToolUse"]
    pre["settings_matcher"] += "|Edit|Write"
    pre["checks"].append(dict(pre["checks"][0], name="edit-probe/check", script="edit-probe/check.py",
                              matcher="^(Edit|Write)$", isolate=[], side_effect="none"))
    manifest_path.write_text(json.dumps(manifest, indent=2))
    return tree


def test_edit_and_write_rows_reach_codex_apply_patch(codex_cli, codex_sandbox, tmp_path):
    _install(codex_sandbox, codex_cli, "--source", _tree_with_an_edit_row(tmp_path))
    wired = json.loads(codex_sandbox.hooks_file.read_text())["hooks"]["PreToolUse"]
    # the danger gate: Bash, apply_patch for its own ground, and the MCP shell tools (issue 39)
    assert [g["matcher"] for g in wired] == ["Bash|apply_patch", "spawn_agent", codex_hooks.DANGER_EVENTS["PreToolUse"]]
    codex_sandbox.use_model("gpt-5.5")

    patch = "*** Begin Patch\n*** Add File: notes.txt\n+hello\n*** End Patch\n"
    run = codex_sandbox.codex(codex_cli, [apply_patch(patch)])

    assert run.proc.returncode == 0, run.proc.stderr
    assert (codex_sandbox.project / "notes.txt").read_text() == "hello\n"
    assert run.after(0).developer == ["edit-row saw apply_patch: *** Add File: notes.txt"]


STOP_PROBE = '''
import json, os, sys
def main(argv=None):
    payload = json.loads(sys.stdin.read())
    with open(os.environ["STOP_PROBE_LOG"], "a") as log:
        log.write(json.dumps(payload.get("stop_hook_active")) + "\\n")
    print(json.dumps({"hookSpecificOutput": {"hookEventName": "Stop", "additionalContext": "keep going"}}))
'''


def test_a_stop_row_never_makes_codex_continue(codex_cli, codex_sandbox, tmp_path):
    """Codex has no loop guard: a Stop answer that blocked would loop. The dispatcher stays silent."""
    tree = _tree_with_an_edit_row(tmp_path)
    (tree / "stop-probe").mkdir()
    (tree / "stop-probe" / "check.py").write_text(STOP_PROBE)
    manifest_path = tree / "_dispatch" / "manifest.json"
    manifest = json.loads(manifest_path.read_text())
    row = dict(manifest["events"]["PreToolUse"]["checks"][0], name="stop-probe/check", script="stop-probe/check.py",
               isolate=[], side_effect="none")
    row.pop("matcher")
    manifest["events"]["Stop"] = {"settings_timeout": 10, "checks": [row]}
    manifest_path.write_text(json.dumps(manifest, indent=2))
    _install(codex_sandbox, codex_cli, "--source", tree)
    log = tmp_path / "stop.log"
    codex_sandbox.extra_env = {"STOP_PROBE_LOG": str(log)}

    run = codex_sandbox.codex(codex_cli, [shell("echo hi")])

    assert run.proc.returncode == 0, run.proc.stderr
    assert log.read_text().splitlines() == ["false"]  # the row ran once, on the one Stop
    assert len(run.requests) == 2  # the call, then the final answer: no extra turn
