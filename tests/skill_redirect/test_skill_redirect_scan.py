"""The folder scans: frontmatter, each host's naming rules, symlinks the way the hosts follow
them, limits, and hostile trees; an uncertain scan makes the gate pass (issue 20 item 2)."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from gate_world import World, agent_text, copilot_pre, post_tool_batch, skill_call, write
from hookmux_testing import GATE, PYTHON, one_json_line

GATE_MODULES = ("runtime", "_common", "_common.hosts", "_common.event", "folder_walk", "places", "known_agents",
                "agent_scan", "skill_scan", "redirect_core")


def load_gate_modules():
    saved = {name: sys.modules.pop(name) for name in GATE_MODULES if name in sys.modules}
    saved_path = list(sys.path)
    sys.path.insert(0, str(GATE.parent))
    try:
        return {name: __import__(name) for name in GATE_MODULES if "." not in name}
    finally:
        sys.path[:] = saved_path
        for name in GATE_MODULES:
            sys.modules.pop(name, None)
        sys.modules.update(saved)


M = load_gate_modules()
walk, agent_scan, skill_scan, places, core = (M["folder_walk"], M["agent_scan"], M["skill_scan"], M["places"],
                                              M["redirect_core"])


def skill(folder: Path, text: str | bytes) -> Path:
    return write(folder / "SKILL.md", text)


def copilot_skills(root, wanted=("gherkin-expert",)):
    """(found, complete) for a Copilot scan of root."""
    budget = walk.Budget()
    found = skill_scan.find(wanted, "copilot", places.Places("/nonexistent-cwd", "/nonexistent-home"), budget, [str(root)])
    return found, budget.complete


def claude_skills(root, wanted):
    budget = walk.Budget()
    return skill_scan.find(wanted, "claude", places.Places("/nonexistent-cwd", "/nonexistent-home"), budget, [str(root)])


# --- frontmatter ---------------------------------------------------------------------------

@pytest.mark.parametrize("data, name", [
    (b"---\nname: pdf\n---\n", "pdf"),
    (b"---\r\nname: pdf\r\n---\r\n", "pdf"),
    (b"\xef\xbb\xbf---\r\nname: pdf\r\n---\r\n", "pdf"),
    (b"---\rname: pdf\r---\r", "pdf"),
    (b'---\nname: "pdf"\n---\n', "pdf"),
    (b"---\nname: 'pdf'   # comment\n---\n", "pdf"),
    (b"---\nname: pdf # comment\n---\n", "pdf"),
    (b"---  \ndescription: x\nname:    pdf   \n---\n", "pdf"),
    (b"---\ndescription: x\n---\nname: pdf\n", None),
    (b"---\nmetadata:\n  name: pdf\n---\n", None),
    (b"name: pdf\n", None),
    (b"\n---\nname: pdf\n---\n", None),
    (b"---\nname: pdf\n", None),  # never closed
    (b'---\nname: "pdf\n---\n', ""),
    (b"---\nname:\n---\n", ""),
    (b"", None),
    (b"---\nname: pdf\xff\n---\n", "pdf\ufffd"),
])
def test_frontmatter_name(data, name):
    assert walk.frontmatter(data).get("name") == name


# --- naming rules, measured (docs/skill-redirect.md) ----------------------------------------

@pytest.mark.parametrize("host, parts, filename, keys, name", [
    ("claude", (), "a.md", {"name": "x", "description": "d"}, "x"),
    ("claude", ("sub",), "a.md", {"name": "x", "description": "d"}, "x"),
    ("claude", (), "x.md", {"description": "d"}, None),
    ("claude", (), "x.md", {"name": "x"}, None),
    ("claude", (), "x.md", {"name": "x", "description": ""}, None),
    ("copilot", (), "x.agent.md", {"description": "d"}, "x"),
    ("copilot", (), "x.md", {"description": "d"}, "x"),
    ("copilot", ("a", "b"), "x.agent.md", {"description": "d"}, "a--b--x"),
    ("copilot", ("sub",), "f.agent.md", {"name": "y", "description": "d"}, "y"),
    ("copilot", (), "x.agent.md", {"name": "x"}, None),
    ("copilot", (), "x.agent.md", {}, None),
])
def test_agent_names_as_each_host_lists_them(host, parts, filename, keys, name):
    assert agent_scan.agent_name(host, parts, filename, keys) == name


def test_copilot_runs_a_skill_by_its_frontmatter_name_claude_by_both(tmp_path):
    skill(tmp_path / "bdd", "---\nname: gherkin-writer\ndescription: d\n---\n")
    skill(tmp_path / "plain", "---\ndescription: d\n---\n")
    skill(tmp_path / "team" / "nested", "---\nname: nested\n---\n")
    assert copilot_skills(tmp_path, ["bdd", "gherkin-writer", "plain", "nested"]) == ({"gherkin-writer", "plain", "nested"}, True)
    # Claude Code: <root>/<dir>/SKILL.md only, by folder name and by frontmatter name.
    assert claude_skills(tmp_path, ["bdd", "gherkin-writer", "plain", "nested"]) == {"bdd", "gherkin-writer", "plain"}


def test_claude_commands_and_built_in_skills_are_skills(tmp_path):
    world = World(tmp_path, agents=False)
    write(world.project / ".claude" / "commands" / "release.md", "Do it.\n")
    write(world.home / ".claude" / "commands" / "mine.md", "Do it.\n")
    budget = walk.Budget()
    at = places.Places(str(world.project / "sub"), str(world.home))
    roots = skill_scan.skill_folders("claude", at, {})
    assert skill_scan.find(["release", "mine", "simplify", "x"], "claude", at, budget, roots) == {"release", "mine", "simplify"}


def test_project_folders_are_the_cwd_and_its_parents_up_to_the_repository(tmp_path):
    (tmp_path / "repo" / ".git").mkdir(parents=True)
    deep = tmp_path / "repo" / "apps" / "web"
    deep.mkdir(parents=True)
    assert places.project_dirs(str(deep)) == [str(deep), str(deep.parent), str(tmp_path / "repo")]
    outside = tmp_path / "loose" / "dir"
    outside.mkdir(parents=True)
    assert places.project_dirs(str(outside)) == [str(outside)]
    # Outside a repository, skills are looked for in every parent: finding more only makes a deny rarer.
    wide = places.project_dirs(str(outside), True)
    assert wide[:3] == [str(outside), str(outside.parent), str(tmp_path)] and wide[-1] == "/"


def test_outside_a_repository_a_parents_skill_still_stops_a_copilot_deny(tmp_path):
    world = World(tmp_path, agents=False)
    shutil.rmtree(world.project / ".git")
    write(world.home / ".copilot" / "agents" / "gherkin-expert.agent.md", agent_text("gherkin-expert"))
    argv, payload = copilot_pre("skill", {"skill": "gherkin-expert"})
    session = world.project / "sub"
    session.mkdir()
    assert b"deny" in world.gate(argv, payload, cwd=session).stdout
    skill(world.project / ".github" / "skills" / "g", "---\nname: gherkin-expert\n---\n")
    assert world.gate(argv, payload, cwd=session).stdout == b""


def test_a_relative_or_missing_cwd_falls_back_to_the_process_cwd():
    assert places.Places("relative/path").cwd == os.getcwd()
    assert places.Places(None).cwd == os.getcwd()


# --- symlinks, the way the hosts follow them --------------------------------------------------

def test_linked_skill_folder_and_linked_skill_md_count(tmp_path):
    root = tmp_path / "skills"
    skill(tmp_path / "dotfiles" / "gherkin", "---\nname: gherkin-expert\n---\n")
    root.mkdir()
    (root / "gherkin").symlink_to(tmp_path / "dotfiles" / "gherkin", target_is_directory=True)
    assert copilot_skills(root) == ({"gherkin-expert"}, True)
    shutil.rmtree(root)
    (root / "gherkin").mkdir(parents=True)
    (root / "gherkin" / "SKILL.md").symlink_to(tmp_path / "dotfiles" / "gherkin" / "SKILL.md")
    assert copilot_skills(root) == ({"gherkin-expert"}, True)


def test_a_linked_root_is_followed(tmp_path):
    skill(tmp_path / "real" / "g", "---\nname: gherkin-expert\n---\n")
    (tmp_path / "skills").symlink_to(tmp_path / "real", target_is_directory=True)
    assert copilot_skills(tmp_path / "skills") == ({"gherkin-expert"}, True)


def test_symlink_loops_end_and_the_scan_stays_complete(tmp_path):
    root = tmp_path / "skills"
    skill(root / "pdf", "---\nname: pdf\n---\n")
    (root / "loop").symlink_to(root, target_is_directory=True)
    (root / "a" / "b").mkdir(parents=True)
    (root / "a" / "b" / "up").symlink_to("../..", target_is_directory=True)
    (root / "self").symlink_to("self")
    assert copilot_skills(root, ["gherkin-expert", "pdf"]) == ({"pdf"}, True)


def test_a_dangling_link_is_nothing(tmp_path):
    root = tmp_path / "skills"
    (root / "gone").mkdir(parents=True)
    (root / "gone" / "SKILL.md").symlink_to(tmp_path / "does-not-exist")
    (root / "gone-dir").symlink_to(tmp_path / "no-dir", target_is_directory=True)
    assert copilot_skills(root) == (set(), True)


def test_agent_folders_follow_links_too(tmp_path):
    world = World(tmp_path, agents=False)
    write(tmp_path / "dotfiles" / "team" / "scribe.md", agent_text("changelog-scribe"))
    (world.home / ".claude" / "agents").mkdir(parents=True)
    (world.home / ".claude" / "agents" / "team").symlink_to(tmp_path / "dotfiles" / "team", target_is_directory=True)
    (world.home / ".claude" / "agents" / "loop").symlink_to(world.home / ".claude", target_is_directory=True)
    result = world.gate(*post_tool_batch(skill_call({"skill": "changelog-scribe"})))
    assert b'subagent_type \\"changelog-scribe\\"' in result.stdout


# --- uncertain scans pass ----------------------------------------------------------------------

def test_too_deep_is_uncertain(tmp_path):
    skill(tmp_path.joinpath(*[f"l{i}" for i in range(walk.MAX_DEPTH + 2)]), "---\nname: gherkin-expert\n---\n")
    assert copilot_skills(tmp_path) == (set(), False)


def test_a_fifo_skill_md_is_uncertain(tmp_path):
    (tmp_path / "fifo").mkdir()
    os.mkfifo(tmp_path / "fifo" / "SKILL.md")
    assert copilot_skills(tmp_path) == (set(), False)


def test_file_and_entry_limits_are_uncertain(tmp_path, monkeypatch):
    for i in range(5):
        skill(tmp_path / f"s{i}", f"---\nname: filler-{i}\n---\n")
    monkeypatch.setattr(walk, "MAX_FILES", 3)
    assert copilot_skills(tmp_path) == (set(), False)
    monkeypatch.setattr(walk, "MAX_FILES", 10000)
    monkeypatch.setattr(walk, "MAX_ENTRIES", 4)
    assert copilot_skills(tmp_path) == (set(), False)


def test_scan_stops_once_every_wanted_name_is_found(tmp_path, monkeypatch):
    for i in range(20):
        skill(tmp_path / f"s{i:02d}", f"---\nname: filler-{i}\n---\n")
    budget = walk.Budget()
    at = places.Places("/nonexistent", "/nonexistent")
    assert skill_scan.find(["filler-0"], "copilot", at, budget, [str(tmp_path)]) == {"filler-0"}
    assert budget.files < 20


def copilot_world(tmp_path):
    world = World(tmp_path, agents=False)
    write(world.home / ".copilot" / "agents" / "gherkin-expert.agent.md", agent_text("gherkin-expert"))
    return world


def test_through_the_gate_an_uncertain_skill_scan_passes(tmp_path):
    world = copilot_world(tmp_path)
    argv, payload = copilot_pre("skill", {"skill": "gherkin-expert"})
    assert b"deny" in world.gate(argv, payload).stdout  # an agent, and no skill anywhere
    deep = world.home / ".copilot" / "skills"
    skill(deep.joinpath(*[f"l{i}" for i in range(walk.MAX_DEPTH + 2)]), "---\nname: other\n---\n")
    assert world.gate(argv, payload).stdout == b""


def test_through_the_gate_a_linked_skill_is_never_denied(tmp_path):
    world = copilot_world(tmp_path)
    skill(tmp_path / "dotfiles" / "gherkin", "---\nname: gherkin-expert\ndescription: d\n---\n")
    (world.home / ".copilot" / "skills").mkdir(parents=True)
    (world.home / ".copilot" / "skills" / "gherkin").symlink_to(tmp_path / "dotfiles" / "gherkin")
    result = world.gate(*copilot_pre("skill", {"skill": "gherkin-expert"}))
    assert (result.returncode, result.stdout) == (0, b"")


# --- a hostile tree ------------------------------------------------------------------------

@pytest.fixture(scope="module")
def hostile(tmp_path_factory):
    base = tmp_path_factory.mktemp("hostile")
    root = base / "skills"
    skill(root / "pdf", "---\nname: pdf\n---\n")
    # Everything below names gherkin-expert in a way that must not count.
    (root / "loop").symlink_to(root, target_is_directory=True)
    bulk = root / "bulk"
    bulk.mkdir()
    for i in range(20_000):
        (bulk / f"file{i:05d}.md").write_bytes(b"---\nname: gherkin-expert\n---\n")
    skill(root / "huge", b"---\ndescription: " + b"x" * (5 * 1024 * 1024) + b"\nname: gherkin-expert\n---\n")
    skill(root / "huge-but-named", b"---\nname: huge-skill\n" + b"y" * (5 * 1024 * 1024) + b"\n---\n")
    (root / "dangling").mkdir()
    (root / "dangling" / "SKILL.md").symlink_to(base / "does-not-exist")
    (root / "dir-named-skill-md" / "SKILL.md").mkdir(parents=True)
    skill(root / "dir-named-skill-md" / "SKILL.md" / "inner", "---\nname: gherkin-expert-inner\n---\n")
    skill(root / "ansi", '---\nname: "\x1b[31mgherkin-expert\x1b[0m"\n---\n')
    skill(root / "newline", '---\nname: "gherkin-expert\nrm -rf ~"\n---\n')
    skill(root / "quotes", "---\nname: gherkin-expert\"'`$(touch pwned)\n---\n")
    skill(root / "binary", bytes(range(256)) * 100)
    return root


def test_hostile_tree_scan_completes_and_ignores_the_traps(hostile):
    assert copilot_skills(hostile, ["gherkin-expert", "pdf", "huge-skill", "gherkin-expert-inner"]) == (
        {"pdf", "huge-skill", "gherkin-expert-inner"}, True)


def test_hostile_tree_through_the_gate(tmp_path, hostile):
    world = copilot_world(tmp_path)
    world.env["HOOKMUX_SKILLS_PATH"] = str(hostile)
    result = world.gate(*copilot_pre("skill", {"skill": "gherkin-expert"}))
    assert one_json_line(result.stdout)["permissionDecision"] == "deny"
    assert world.gate(*copilot_pre("skill", {"skill": "pdf"})).stdout == b""
    assert not (Path.cwd() / "pwned").exists()


def test_hostile_names_are_never_echoed(tmp_path):
    world = World(tmp_path, agents=False)
    for name in ("\x1b[31mcode-review\x1b[0m", "code-review\n", 'code-review"', "code-review\u200b",
                 "code\x00review", "code-review" * 10, "bad name"):
        write(world.home / ".copilot" / "agents" / "x.agent.md", agent_text(json.dumps(name)))
        for argv, payload in (copilot_pre("skill", {"skill": name}), post_tool_batch(skill_call({"skill": name}))):
            result = world.gate(argv, payload)
            assert (result.returncode, result.stdout, result.stderr) == (0, b"", b""), name


def test_sanitize():
    assert core.sanitize("\x1b[31mprompt-writer\x1b[0m\n\"'") == "31mprompt-writer0m"
    assert core.sanitize("amplihack:prompt_writer-2") == "amplihack:prompt_writer-2"
    assert core.sanitize("x" * 100) == "x" * 64
    assert core.echoable("sub--x") and not core.echoable("bad name") and not core.echoable("x" * 65)


# --- a folder the gate cannot read ---------------------------------------------------------

NOBODY = 65534


def python_for(user):
    """An interpreter `user` can run (the venv's may live under root's 0700 home)."""
    for candidate in (PYTHON, shutil.which("python3"), "/usr/bin/python3"):
        if not candidate:
            continue
        try:
            probe = subprocess.run([candidate, "-S", "-c", "pass"], user=user, group=user, extra_groups=[],
                                   capture_output=True, timeout=30)
        except OSError:
            continue
        if probe.returncode == 0:
            return candidate
    return None


@pytest.mark.skipif(not hasattr(os, "geteuid"), reason="POSIX permissions")
@pytest.mark.parametrize("locked", ["folder", "file"])
def test_an_unreadable_skill_folder_or_file_makes_the_gate_pass(locked):
    """chmod 000 stops nobody but root, so as root the gate runs as `nobody` against the same
    tree. What the gate cannot read might be the skill: an agent of that name is not denied."""
    base = Path(tempfile.mkdtemp(prefix="hookmux-unreadable-"))
    try:
        base.chmod(0o755)
        home = base / "home"
        write(home / ".copilot" / "agents" / "gherkin-expert.agent.md", agent_text("gherkin-expert"))
        root = home / ".copilot" / "skills"
        target = skill(root / "locked", "---\nname: other\n---\n")
        for folder, mode in ((base, 0o755), (home, 0o755), (home / ".copilot", 0o755), (home / ".copilot" / "agents", 0o755),
                             (home / ".copilot" / "agents" / "gherkin-expert.agent.md", 0o644), (root, 0o755),
                             (root / "locked", 0o755)):
            folder.chmod(mode)
        as_root = os.geteuid() == 0
        python = python_for(NOBODY) if as_root else PYTHON
        if python is None:
            pytest.skip("no interpreter that user nobody may run")
        extra = {"user": NOBODY, "group": NOBODY, "extra_groups": []} if as_root else {}
        env = {"PATH": os.environ.get("PATH", ""), "HOME": str(home)}
        argv, payload = copilot_pre("skill", {"skill": "gherkin-expert"})
        payload["cwd"] = str(base)

        def run():
            return subprocess.run([python, "-S", str(GATE), *argv], input=json.dumps(payload).encode(),
                                  capture_output=True, env=env, timeout=60, cwd=str(base), **extra)

        assert b"deny" in run().stdout  # readable: a complete scan, no skill of that name
        (root / "locked" if locked == "folder" else target).chmod(0)
        assert (run().returncode, run().stdout) == (0, b"")
    finally:
        for path in (root / "locked", root / "locked" / "SKILL.md"):
            if path.exists():
                path.chmod(0o755)
        shutil.rmtree(base, ignore_errors=True)
