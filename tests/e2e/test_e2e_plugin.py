"""hookmux installed as a plugin from a local marketplace (a copy of this checkout's plugin files)
in the real Claude Code, Copilot CLI and Codex CLI, HOME a temporary folder.

Each host: the advisory for a force push (data only: the sandbox repo has no remote) reaches the
model, a row of the user layer (~/.config/hookmux/manifest.json) runs and still runs after a
plugin update, the redirect works (Claude Code, Copilot CLI), and disable and uninstall leave
nothing of hookmux behind. What each host does differently: docs/e2e.md, "Plugins".
"""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from e2e_codex_server import shell, spawn_agent
from e2e_expect import COPILOT_DENIED, COPILOT_PRE_CONTEXT, POST_TOOL_BATCH_PREFIX
from e2e_fixtures import claude_cli, codex_cli, codex_sandbox, copilot_cli, hookmux_installer, sandbox  # noqa: F401
from hookmux.standin.anthropic import ToolUse
from e2e_support import REPO
from hookmux.standin import hosts

PLUGIN = "hookmux@hookmux"
FORCE_PUSH = json.loads((REPO / "examples" / "pretooluse-bash-force-push.json").read_text())["tool_input"]["command"]
AGENT_ONLY = "prompt-writer"
USER_MARK = "e2e user-layer row ran"
USER_CHECK = f'''import json


def main():
    print(json.dumps({{"additionalContext": "{USER_MARK}"}}))
'''


def hazard_ids(command: str) -> list[str]:
    """Ids of the shipped contraindication rows the force push matches, by the check's own reader
    and matcher (structured rows, issue 26) and patterns (text rows)."""
    from importlib.util import module_from_spec, spec_from_file_location

    hooks = REPO / "hooks"
    if str(hooks) not in sys.path:
        sys.path.insert(0, str(hooks))
    spec = spec_from_file_location("e2e_plugin_contraindication_check", hooks / "contraindication" / "check.py")
    check = module_from_spec(spec)
    spec.loader.exec_module(check)
    return [row["id"] for row in check.matching_call_rows(check.load_rows(), "Bash", {"command": command})]


def git(folder: Path, *args: str) -> None:
    subprocess.run(["git", "-c", "user.email=e2e@example.invalid", "-c", "user.name=e2e", *args], cwd=folder,
                   check=True, capture_output=True, env={"PATH": "/usr/bin:/bin", "HOME": str(folder),
                                                         "GIT_CONFIG_NOSYSTEM": "1"})


def marketplace(root: Path) -> Path:
    """A git repository holding this checkout's plugin files: the marketplace a user adds."""
    return hosts.marketplace(root, REPO)


def release(folder: Path, version: str) -> None:
    """A new plugin version in the marketplace (what a user gets from `... plugin update`)."""
    path = folder / ".claude-plugin" / "plugin.json"
    manifest = json.loads(path.read_text())
    manifest["version"] = version
    path.write_text(json.dumps(manifest, indent=2) + "\n")
    git(folder, "commit", "-qam", f"hookmux {version}")


def add_user_row(home: Path) -> Path:
    layer = home / ".config" / "hookmux"
    (layer / "checks").mkdir(parents=True)
    (layer / "checks" / "user_row.py").write_text(USER_CHECK)
    (layer / "manifest.json").write_text(json.dumps({"version": 1, "events": {"PreToolUse": {"checks": [
        {"name": "e2e/user-row", "script": "checks/user_row.py", "matcher": "^Bash$", "timeout": 5}]}}}))
    return layer


def hookmux_cli(sandbox, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "hookmux.cli", *args], cwd=sandbox.project, env=sandbox.env,
                          capture_output=True, text=True, timeout=120)


def host(sandbox, cli, *args: str) -> subprocess.CompletedProcess:
    proc = subprocess.run([str(cli.path), *args], cwd=sandbox.project, env=sandbox.env, capture_output=True,
                          text=True, timeout=120, stdin=subprocess.DEVNULL)
    assert proc.returncode == 0, f"{cli.name} {' '.join(args)}: exit {proc.returncode}\n{proc.stdout}\n{proc.stderr}"
    return proc


def hookmux_left(home: Path, *, ignore: tuple[str, ...] = ()) -> list[str]:
    """Files under HOME whose path or text names the plugin (the user's own layer and hookmux's
    state folder excepted: those are the user's and the runtime's, not the plugin's)."""
    found = []
    for path in home.rglob("*"):
        rel = path.relative_to(home).as_posix()
        if rel.startswith((".config/hookmux", ".local/state/hookmux", *ignore)) or "session" in rel:
            continue
        if "hookmux" in path.name:
            found.append(rel)
        elif path.is_file() and path.suffix in (".json", ".toml") and path.stat().st_size < 1_000_000:
            if "hookmux" in path.read_text(errors="replace"):
                found.append(rel)
    return found


# ---------------------------------------------------------------- Claude Code


def test_claude_plugin_validate_passes_on_the_checkout(claude_cli, sandbox):
    proc = host(sandbox, claude_cli, "plugin", "validate", str(REPO))
    assert "✔ Validation passed" in proc.stdout and "✘" not in proc.stdout, proc.stdout
    # What it saw: every hook of hooks/hooks.json.
    assert proc.stdout.count("${CLAUDE_PLUGIN_ROOT}/hooks/") >= 4, proc.stdout


def _claude_contexts(run) -> list[str]:
    return [text for text in run.after(0).extra if text.startswith("PreToolUse:Bash hook additional context: ")]


def test_claude_plugin_advises_runs_the_user_row_across_an_update_and_leaves_nothing(claude_cli, sandbox):
    market = marketplace(sandbox.root)
    host(sandbox, claude_cli, "plugin", "marketplace", "add", str(market))
    host(sandbox, claude_cli, "plugin", "install", PLUGIN)
    add_user_row(sandbox.home)
    ids = hazard_ids(FORCE_PUSH)
    assert ids

    run = sandbox.claude(claude_cli, [ToolUse("Bash", {"command": FORCE_PUSH})], "--allowedTools", "Bash")
    contexts = _claude_contexts(run)
    assert len(contexts) == 1, run.after(0).extra  # one dispatcher: the shipped rows and the user's, merged
    assert all(hazard in contexts[0] for hazard in ids) and USER_MARK in contexts[0]
    assert run.claude_hook_errors() == []

    release(market, "0.1.1")
    host(sandbox, claude_cli, "plugin", "marketplace", "update", "hookmux")
    host(sandbox, claude_cli, "plugin", "update", PLUGIN)
    installed = json.loads((sandbox.home / ".claude" / "plugins" / "installed_plugins.json").read_text())
    assert installed["plugins"][PLUGIN][0]["installPath"].endswith("/0.1.1")
    run = sandbox.claude(claude_cli, [ToolUse("Bash", {"command": "echo after-update"})], "--allowedTools", "Bash")
    assert [text for text in _claude_contexts(run) if USER_MARK in text], run.after(0).extra

    host(sandbox, claude_cli, "plugin", "disable", PLUGIN)
    run = sandbox.claude(claude_cli, [ToolUse("Bash", {"command": FORCE_PUSH})], "--allowedTools", "Bash")
    assert "hook additional context" not in json.dumps(run.requests[-1])

    host(sandbox, claude_cli, "plugin", "uninstall", PLUGIN)
    host(sandbox, claude_cli, "plugin", "marketplace", "remove", "hookmux")
    run = sandbox.claude(claude_cli, [ToolUse("Bash", {"command": FORCE_PUSH})], "--allowedTools", "Bash")
    assert "hook additional context" not in json.dumps(run.requests[-1])
    # Claude Code marks each cached version .orphaned_at (its own cleanup deletes them later), removes the
    # plugin's data folder, and remembers the id under declinedPlugins in ~/.claude.json; its telemetry
    # queue names the plugin too. Nothing else is left, and nothing of it runs (above).
    cache = sandbox.home / ".claude" / "plugins" / "cache" / "hookmux" / "hookmux"
    assert sorted(p.name for p in cache.iterdir()) == ["0.1.0", "0.1.1"]
    assert all((folder / ".orphaned_at").is_file() for folder in cache.iterdir())
    assert json.loads((sandbox.home / ".claude.json").read_text()).get("declinedPlugins") == [PLUGIN]
    assert hookmux_left(sandbox.home, ignore=(".claude/plugins/cache/hookmux", ".claude/telemetry", ".claude.json")) == []


def test_claude_plugin_redirects_an_agent_named_as_a_skill(claude_cli, sandbox):
    host(sandbox, claude_cli, "plugin", "marketplace", "add", str(marketplace(sandbox.root)))
    host(sandbox, claude_cli, "plugin", "install", PLUGIN)
    # hookmux sees the plugin: install refuses to wire Claude Code twice, status is healthy.
    refused = hookmux_cli(sandbox, "install")
    assert refused.returncode == 1 and "claude plugin uninstall hookmux@hookmux" in refused.stderr
    assert not sandbox.claude_target.exists()
    report = json.loads(hookmux_cli(sandbox, "status", "--json").stdout)
    assert report["problems"] == [] and [p["plugin_id"] for p in report["plugin"]] == [PLUGIN]
    sandbox.add_agent(AGENT_ONLY, ".claude/agents")
    run = sandbox.claude(claude_cli, [ToolUse("Skill", {"skill": AGENT_ONLY})])

    seen = run.after(0)
    assert seen.is_error and f"Unknown skill: {AGENT_ONLY}" in seen.result
    redirects = [text for text in seen.extra if text.startswith(POST_TOOL_BATCH_PREFIX)]
    assert len(redirects) == 1, seen.extra
    assert AGENT_ONLY in redirects[0] and "subagent_type" in redirects[0]


# ---------------------------------------------------------------- Copilot CLI


def _copilot_contexts(run) -> list[str]:
    return [text for text in run.after(0).extra if text.startswith(COPILOT_PRE_CONTEXT)]


def test_copilot_plugin_advises_runs_the_user_row_across_an_update_and_leaves_nothing(copilot_cli, sandbox):
    market = marketplace(sandbox.root)
    host(sandbox, copilot_cli, "plugin", "marketplace", "add", str(market))
    host(sandbox, copilot_cli, "plugin", "install", PLUGIN)
    add_user_row(sandbox.home)
    ids = hazard_ids(FORCE_PUSH)

    run = sandbox.copilot(copilot_cli, [ToolUse("bash", {"command": FORCE_PUSH, "description": "push"})])
    contexts = _copilot_contexts(run)
    assert len(contexts) == 1, run.after(0).extra
    assert all(hazard in contexts[0] for hazard in ids) and USER_MARK in contexts[0]

    release(market, "0.1.1")
    host(sandbox, copilot_cli, "plugin", "update", PLUGIN)
    run = sandbox.copilot(copilot_cli, [ToolUse("bash", {"command": "echo after-update", "description": "x"})])
    assert [text for text in _copilot_contexts(run) if USER_MARK in text], run.after(0).extra

    host(sandbox, copilot_cli, "plugin", "disable", PLUGIN)
    run = sandbox.copilot(copilot_cli, [ToolUse("bash", {"command": FORCE_PUSH, "description": "push"})])
    assert "preToolUse hook" not in json.dumps(run.requests[-1])

    host(sandbox, copilot_cli, "plugin", "uninstall", PLUGIN)
    host(sandbox, copilot_cli, "plugin", "marketplace", "remove", "hookmux")
    run = sandbox.copilot(copilot_cli, [ToolUse("bash", {"command": FORCE_PUSH, "description": "push"})])
    assert "preToolUse hook" not in json.dumps(run.requests[-1])
    # Copilot keeps the disabled flag (enabledPlugins: {id: false}) and an empty plugin-data folder.
    settings = json.loads((sandbox.home / ".copilot" / "settings.json").read_text())
    assert settings["enabledPlugins"] == {PLUGIN: False} and settings["extraKnownMarketplaces"] == {}
    data = sandbox.home / ".copilot" / "plugin-data" / "hookmux" / "hookmux"
    assert not data.exists() or list(data.iterdir()) == []
    assert hookmux_left(sandbox.home, ignore=(".copilot/logs", ".copilot/settings.json",
                                              ".copilot/plugin-data/hookmux")) == []


def test_copilot_plugin_denies_a_skill_call_naming_an_agent(copilot_cli, sandbox):
    host(sandbox, copilot_cli, "plugin", "marketplace", "add", str(marketplace(sandbox.root)))
    host(sandbox, copilot_cli, "plugin", "install", PLUGIN)
    sandbox.add_agent(AGENT_ONLY, ".copilot/agents")
    run = sandbox.copilot(copilot_cli, [ToolUse("skill", {"skill": AGENT_ONLY})])

    result = run.after(0).result
    assert result.startswith(COPILOT_DENIED) and AGENT_ONLY in result, result


# ---------------------------------------------------------------- Codex CLI


def _trust(sandbox, cli, *args: str) -> subprocess.CompletedProcess:
    proc = subprocess.run([sys.executable, "-m", "hookmux.cli", "trust", "codex", "--codex-home",
                           str(sandbox.codex_home), "--codex-bin", str(cli.path), *args], cwd=sandbox.project,
                          env=sandbox.env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc


def test_codex_plugin_trusted_by_hookmux_advises_and_leaves_nothing(codex_cli, codex_sandbox):
    sandbox = codex_sandbox
    sandbox.config.write_text(sandbox.config.read_text().replace("plugins = false", "plugins = true"))
    market = marketplace(sandbox.root)
    host(sandbox, codex_cli, "plugin", "marketplace", "add", str(market))
    host(sandbox, codex_cli, "plugin", "add", PLUGIN)
    add_user_row(sandbox.home)
    ids = hazard_ids(FORCE_PUSH)

    untrusted = sandbox.codex(codex_cli, [shell(FORCE_PUSH)])
    assert untrusted.after(0).developer == []  # Codex skips a plugin's hooks until they are trusted

    assert "3 newly trusted" in _trust(sandbox, codex_cli).stdout  # PreToolUse: dispatcher, gate; UserPromptSubmit
    status = json.loads(hookmux_cli(sandbox, "status", "--json", "--codex-home", str(sandbox.codex_home),
                                    "--codex-bin", str(codex_cli.path)).stdout)
    assert sorted(set(status["plugin_codex_trust"].values())) == ["trusted"], status
    run = sandbox.codex(codex_cli, [shell(FORCE_PUSH)])
    developer = "\n".join(run.after(0).developer)
    assert all(hazard in developer for hazard in ids) and USER_MARK in developer, run.after(0).developer

    release(market, "0.1.1")
    host(sandbox, codex_cli, "plugin", "add", PLUGIN)
    assert (sandbox.codex_home / "plugins" / "cache" / "hookmux" / "hookmux" / "0.1.1").is_dir()
    stale = sandbox.codex(codex_cli, [shell("echo after-update")])
    assert stale.after(0).developer == []  # the trust covered the old version's files
    _trust(sandbox, codex_cli)
    run = sandbox.codex(codex_cli, [shell("echo after-update")])
    assert USER_MARK in "\n".join(run.after(0).developer)

    sandbox.config.write_text(sandbox.config.read_text().replace(
        f'[plugins."{PLUGIN}"]\nenabled = true', f'[plugins."{PLUGIN}"]\nenabled = false'))
    run = sandbox.codex(codex_cli, [shell(FORCE_PUSH)])
    assert run.after(0).developer == []

    host(sandbox, codex_cli, "plugin", "remove", PLUGIN)
    _trust(sandbox, codex_cli, "--forget")
    host(sandbox, codex_cli, "plugin", "marketplace", "remove", "hookmux")
    # Codex removes the cached plugin but keeps the (empty) marketplace folder of its cache.
    left = sandbox.home / ".codex" / "plugins" / "cache" / "hookmux"
    assert not left.exists() or list(left.iterdir()) == []
    assert "hookmux" not in sandbox.config.read_text()
    assert hookmux_left(sandbox.home, ignore=(".codex/.tmp", ".codex/plugins/cache/hookmux")) == []


def test_claude_project_settings_that_pin_the_plugin_turn_it_on_for_a_teammate(claude_cli, sandbox):
    """README's team set-up: the project's .claude/settings.json names the marketplace and enables the
    plugin. In -p mode Claude Code 2.1.332 does not fetch a marketplace a project declares (the
    interactive folder-trust prompt does): `claude plugin install` answers "not found in marketplace",
    so a teammate adds the marketplace once; the project's enabledPlugins then turns the plugin on
    without any install."""
    market = marketplace(sandbox.root)
    sandbox.project_settings.parent.mkdir(parents=True)
    sandbox.project_settings.write_text(json.dumps({
        "extraKnownMarketplaces": {"hookmux": {"source": {"source": "directory", "path": str(market)}}},
        "enabledPlugins": {PLUGIN: True}}, indent=2))
    before = sandbox.claude(claude_cli, [ToolUse("Bash", {"command": FORCE_PUSH})], "--allowedTools", "Bash")
    assert _claude_contexts(before) == []

    host(sandbox, claude_cli, "plugin", "marketplace", "add", str(market))
    run = sandbox.claude(claude_cli, [ToolUse("Bash", {"command": FORCE_PUSH})], "--allowedTools", "Bash")
    contexts = _claude_contexts(run)
    assert len(contexts) == 1 and all(hazard in contexts[0] for hazard in hazard_ids(FORCE_PUSH)), run.after(0).extra
    assert "enabledPlugins" not in (sandbox.home / ".claude" / "settings.json").read_text()


def test_codex_plugin_gate_answers_spawn_agent_naming_a_skill_with_the_mirror(codex_cli, codex_sandbox):
    sandbox = codex_sandbox
    sandbox.config.write_text(sandbox.config.read_text().replace("plugins = false", "plugins = true"))
    host(sandbox, codex_cli, "plugin", "marketplace", "add", str(marketplace(sandbox.root)))
    host(sandbox, codex_cli, "plugin", "add", PLUGIN)
    _trust(sandbox, codex_cli)
    skill_md = sandbox.add_codex_skill("pdf-report")
    run = sandbox.codex(codex_cli, [spawn_agent("pdf-report")])

    output = run.after(0).output
    assert "blocked by PreToolUse hook" in output and "is a skill, not an agent" in output, output
    assert str(skill_md) in output
