"""known_agents.py (the shipped registry) and the generator in hookmux.agents_registry."""
from __future__ import annotations

import importlib.util
import os
from pathlib import Path

import pytest

from hookmux_testing import GATE
from hookmux import agents_registry

REGISTRY = GATE.parent / "known_agents.py"
FIXTURE_AGENTS = Path(__file__).resolve().parent / "fixtures" / "agents"

ISSUE_NAMES = """
ambiguity amplifier-cli-architect amplihack-improvement-workflow analyzer api-designer
architect azure-kubernetes-expert builder ci-diagnostic-workflow cleanup
concept-extractor database documentation-writer fallback-cascade fix-agent
gherkin-expert guide iac-planner insight-synthesizer integration
knowledge-archaeologist mcp-server-builder multi-agent-debate n-version-validator
openapi-scaffolder optimizer patterns philosophy-guardian pre-commit-diagnostic
preference-reviewer prompt-review-workflow prompt-writer reviewer
rust-programming-expert security socratic-reviewer tester tla-plus-expert
visualization-architect worktree-manager xpia-defense
""".split()


def load(path: Path, name: str = "known_agents_under_test"):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def load_text(tmp_path: Path, text: str):
    path = tmp_path / "known_agents.py"
    path.write_text(text)
    return load(path, f"rendered_{abs(hash(text))}")


known_agents = load(REGISTRY)


# --- the shipped registry ------------------------------------------------------------------

def test_shipped_registry_is_empty():
    """Issue 11: the gate reads each host's agents itself; the 41 amplihack names are no default truth."""
    assert known_agents.AGENTS == ()
    assert REGISTRY.read_bytes() == agents_registry.render_module([]).encode()
    assert agents_registry.shipped_names() == ()
    assert agents_registry.shipped_registry_path() == REGISTRY


def test_the_fixture_agents_tree_gives_the_41_names():
    """The fixture mirrors an amplifier-bundle/agents tree: 42 files, guide.md twice, a README.txt."""
    files = sorted(FIXTURE_AGENTS.rglob("*.md"))
    assert len(files) == 42
    assert sum(1 for path in files if path.name == "guide.md") == 2
    assert agents_registry.collect_names([FIXTURE_AGENTS]) == set(ISSUE_NAMES)


# --- render_module -------------------------------------------------------------------------

def test_render_is_sorted_deduplicated_and_deterministic():
    shuffled = list(reversed(ISSUE_NAMES)) + ["guide", "architect"]
    assert agents_registry.render_module(shuffled) == agents_registry.render_module(ISSUE_NAMES)
    assert agents_registry.render_module(iter(ISSUE_NAMES)) == agents_registry.render_module(set(ISSUE_NAMES))


def test_rendered_registry_loads(tmp_path):
    assert load_text(tmp_path, agents_registry.render_module([])).AGENTS == ()
    assert load_text(tmp_path, agents_registry.render_module(["b", "a"])).AGENTS == ("a", "b")


@pytest.mark.parametrize("bad", ["", "a b", 'quo"te', "new\nline", "\x1b[31mred", "dot.ted", "x" * 65, "slash/ed", "ü"])
def test_render_refuses_names_the_gate_could_not_echo(bad):
    with pytest.raises(ValueError):
        agents_registry.render_module(["ok", bad])


# --- collect_names -------------------------------------------------------------------------

def touch(path: Path, text: str = "x") -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def test_collect_names_rules(tmp_path):
    claude = tmp_path / "claude-agents"
    copilot = tmp_path / "copilot-agents"
    touch(claude / "builder.md")
    touch(claude / "deep" / "er" / "still" / "tester.md")
    touch(claude / "notes.txt")
    touch(claude / "README")
    touch(claude / ".md")
    touch(claude / "bad name.md")
    touch(claude / "dot.ted.md")
    touch(copilot / "reviewer.agent.md")
    touch(copilot / "builder.agent.md")
    touch(copilot / ".agent.md")
    outside = tmp_path / "outside"
    touch(outside / "hidden-behind-symlink.md")
    (claude / "linked").symlink_to(outside, target_is_directory=True)
    (claude / "loop").symlink_to(claude, target_is_directory=True)
    (claude / "file-link.md").symlink_to(outside / "hidden-behind-symlink.md")
    names = agents_registry.collect_names([claude, copilot, tmp_path / "missing"])
    assert names == {"builder", "tester", "reviewer", "file-link"}
    raw = agents_registry.agent_basenames([claude])
    assert {"bad name", "dot.ted"} <= raw and "bad name" not in names


def test_name_from_filename():
    assert agents_registry.name_from_filename("x.agent.md") == "x"
    assert agents_registry.name_from_filename("x.md") == "x"
    assert agents_registry.name_from_filename("x.agent") is None
    assert agents_registry.name_from_filename(".md") is None
    assert agents_registry.name_from_filename("x.MD") is None


# --- write_registry ------------------------------------------------------------------------

def test_write_registry_is_atomic_and_drops_stale_bytecode(tmp_path):
    target = tmp_path / "gate" / "known_agents.py"
    agents_registry.write_registry(target, ["b", "a", "a"])
    assert target.read_text() == agents_registry.render_module(["a", "b"])
    assert oct(target.stat().st_mode & 0o777) == oct(0o644)
    cache = target.parent / "__pycache__"
    cache.mkdir()
    stale = cache / "known_agents.cpython-311.pyc"
    stale.write_bytes(b"stale")
    other = cache / "skill_scan.cpython-311.pyc"
    other.write_bytes(b"keep")
    agents_registry.write_registry(target, ["c"])
    assert load(target, "written_registry").AGENTS == ("c",)
    assert not stale.exists() and other.exists()
    assert sorted(os.listdir(target.parent)) == ["__pycache__", "known_agents.py"]


def test_write_registry_leaves_the_old_file_on_a_bad_name(tmp_path):
    target = tmp_path / "known_agents.py"
    agents_registry.write_registry(target, ["a"])
    before = target.read_text()
    with pytest.raises(ValueError):
        agents_registry.write_registry(target, ["a", "bad name"])
    assert target.read_text() == before
    assert os.listdir(tmp_path) == ["known_agents.py"]


def test_read_registry_rejects_a_file_without_agents(tmp_path):
    path = tmp_path / "known_agents.py"
    path.write_text("AGENTS = ['a']\n")
    with pytest.raises(ValueError):
        agents_registry.read_registry(path)
    path.write_text("NAMES = ('a',)\n")
    with pytest.raises(ValueError):
        agents_registry.read_registry(path)
    path.write_text("AGENTS = ('a', 'b')\n")
    assert agents_registry.read_registry(path) == ("a", "b")


def test_default_agent_dirs(tmp_path, monkeypatch):
    monkeypatch.setenv("AMPLIHACK_HOME", "/amp")
    assert agents_registry.default_agent_dirs(home=Path("/h"), project=Path("/p")) == [
        Path("/h/.claude/agents"), Path("/p/.claude/agents"), Path("/h/.copilot/agents"),
        Path("/p/.github/agents"), Path("/amp/amplifier-bundle/agents"),
    ]
    monkeypatch.delenv("AMPLIHACK_HOME")
    monkeypatch.setenv("CLAUDE_PROJECT_DIR", str(tmp_path))
    assert agents_registry.default_agent_dirs(home=Path("/h"))[1] == tmp_path / ".claude" / "agents"
