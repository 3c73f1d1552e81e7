"""`hookmux agents`: list, write and check a known_agents.py from agent directories."""
from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

from hookmux_testing import GATE, PYTHON, REPO, hermetic_env, one_json_line, run_hook
from hookmux import agents_registry

FIXTURE_AGENTS = Path(__file__).resolve().parent / "fixtures" / "agents"
REGISTRY = GATE.parent / "known_agents.py"


def hookmux(tmp_path, *args, cwd=None, **env_extra):
    env = hermetic_env(tmp_path, **env_extra)
    return subprocess.run([PYTHON, "-m", "hookmux.cli", "agents", *map(str, args)], capture_output=True, text=True,
                          env=env, cwd=cwd or tmp_path, timeout=60)


def touch(path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("---\nname: x\n---\n")


def test_shipped_registry_is_up_to_date(tmp_path):
    result = hookmux(tmp_path, tmp_path / "empty", "--check", REGISTRY)
    assert result.returncode == 0, result
    assert "up to date (0 agent name(s))" in result.stdout


def test_registry_mode_lists_the_hosts_agent_dirs(tmp_path):
    home, project = tmp_path / "home", tmp_path / "project"
    touch(home / ".claude" / "agents" / "user-agent.md")
    touch(project / ".claude" / "agents" / "team" / "project-agent.md")
    touch(home / ".copilot" / "agents" / "copilot-agent.agent.md")
    touch(project / ".github" / "agents" / "repo-agent.agent.md")
    touch(tmp_path / "amp" / "amplifier-bundle" / "agents" / "core" / "amp-agent.md")
    touch(home / ".claude" / "agents" / "bad name.md")
    result = hookmux(tmp_path, "--shipped", cwd=project, AMPLIHACK_HOME=str(tmp_path / "amp"))
    assert result.returncode == 0, result
    assert result.stdout.split() == ["amp-agent", "copilot-agent", "project-agent", "repo-agent", "user-agent"]
    assert "skipped" in result.stderr and "'bad name'" in result.stderr


def agent(path: Path, name: str | None) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(("---\nname: %s\n" % name if name else "---\n") + "description: d\n---\n")


def test_diagnostic_shows_what_the_gate_sees_per_host_and_where_from(tmp_path):
    home, project = tmp_path / "home", tmp_path / "project"
    (project / ".git").mkdir(parents=True)
    (project / "apps").mkdir()
    agent(home / ".claude" / "agents" / "team" / "scribe-file.md", "changelog-scribe")
    agent(project / ".github" / "agents" / "repo-agent.agent.md", None)
    agent(home / ".copilot" / "skills" / "bdd" / "SKILL.md", "gherkin-writer")
    touch(project / ".claude" / "commands" / "release.md")
    result = hookmux(tmp_path, "--cwd", project / "apps")
    assert result.returncode == 0, result
    claude, copilot = result.stdout.split("\n\n")
    assert claude.startswith("claude: ") and copilot.startswith("copilot: ")
    assert "built-in: claude, Explore, general-purpose, Plan, statusline-setup" in claude
    assert "changelog-scribe  ~/.claude/agents/team/scribe-file.md" in claude
    assert f"release  {project}/.claude/commands/release.md" in claude
    assert "repo-agent" not in claude and "gherkin-writer" not in claude
    assert "code-review, research, security-review, rubber-duck" in copilot
    assert f"repo-agent  {project}/.github/agents/repo-agent.agent.md" in copilot
    assert "gherkin-writer  ~/.copilot/skills/bdd/SKILL.md" in copilot
    assert "changelog-scribe" not in copilot and "incomplete" not in result.stdout
    only = hookmux(tmp_path, "--cwd", project, "--host", "copilot")
    assert only.stdout.startswith("copilot: ") and "claude: " not in only.stdout


def test_output_writes_a_registry_the_gate_uses(tmp_path):
    gate_dir = tmp_path / "installed" / "skill-redirect"
    shutil.copytree(GATE.parent, gate_dir, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(GATE.parent.parent / "_common", gate_dir.parent / "_common", ignore=shutil.ignore_patterns("__pycache__"))
    agents = tmp_path / "agents"
    touch(agents / "my-helper.md")
    result = hookmux(tmp_path, agents, "--shipped", "--output", gate_dir / "known_agents.py")
    assert result.returncode == 0, result
    assert "1 agent name(s)" in result.stdout
    assert agents_registry.read_registry(gate_dir / "known_agents.py") == ("my-helper",)

    env = hermetic_env(tmp_path, HOOKMUX_SKILLS_PATH=str(tmp_path / "no-skills"))
    payload = {"toolName": "skill", "toolArgs": {"skill": "my-helper"}}
    redirected = run_hook(gate_dir / GATE.name, ["preToolUse"], json.dumps(payload), env)
    assert 'agent_type "my-helper"' in one_json_line(redirected.stdout)["permissionDecisionReason"]
    assert run_hook(GATE, ["preToolUse"], json.dumps(payload), env).stdout == b""  # unknown to the shipped one


def test_output_dash_prints_the_module(tmp_path):
    result = hookmux(tmp_path, FIXTURE_AGENTS, "--output", "-")
    assert result.returncode == 0
    assert result.stdout == agents_registry.render_module(agents_registry.collect_names([FIXTURE_AGENTS]))


def test_check_reports_drift(tmp_path):
    agents = tmp_path / "agents"
    shutil.copytree(FIXTURE_AGENTS, agents)
    (agents / "amplihack" / "core" / "tester.md").unlink()
    touch(agents / "extra" / "newcomer.md")
    written = tmp_path / "known_agents.py"
    assert hookmux(tmp_path, FIXTURE_AGENTS, "--output", written).returncode == 0
    result = hookmux(tmp_path, agents, "--check", written)
    assert result.returncode == 1
    assert "missing: newcomer" in result.stdout and "extra: tester" in result.stdout
    missing = hookmux(tmp_path, agents, "--check", tmp_path / "nope.py")
    assert missing.returncode == 1 and "cannot read" in missing.stdout


def test_shipped_flag_alone_reproduces_the_shipped_registry(tmp_path):
    result = hookmux(tmp_path, tmp_path / "empty", "--shipped", "--check", REGISTRY)
    assert result.returncode == 0, result


def test_cli_lists_the_subcommand():
    result = subprocess.run([PYTHON, "-m", "hookmux.cli", "--help"], capture_output=True, text=True, cwd=REPO, timeout=60)
    assert "agents" in result.stdout
