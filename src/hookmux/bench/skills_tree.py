"""A generated skills tree for the gate's worst realistic case (B4).

Three roots like a user's machine: a plugin bundle (nested by category), the
user's ``~/.claude/skills`` and a project's ``.claude/skills``. Each skill is a
folder with SKILL.md (frontmatter + a body of ordinary size), a reference file
and a script, so the scanner walks more than just SKILL.md files. No skill is
named like a known agent, so an agent name is a miss after a full scan.
"""
from __future__ import annotations

from pathlib import Path

BODY = (
    "Use this skill when the task needs the steps below. Read the reference\n"
    "file before running the helper script, and report what changed.\n\n"
    "## Steps\n" + "".join(f"{n}. Do step {n} carefully and check its result.\n" for n in range(1, 31))
)


def skill_name(index: int) -> str:
    return f"bench-skill-{index:03d}"


def _write_skill(folder: Path, name: str) -> None:
    (folder / "scripts").mkdir(parents=True)
    (folder / "SKILL.md").write_text(
        f'---\nname: {name}\ndescription: "Bench skill {name}: a generated skill of ordinary size."\n'
        f"allowed-tools: Bash, Read\n---\n\n# {name}\n\n{BODY}",
        encoding="utf-8",
    )
    (folder / "reference.md").write_text(f"# {name} reference\n\n" + "Details.\n" * 40, encoding="utf-8")
    (folder / "scripts" / "helper.py").write_text("print('helper')\n", encoding="utf-8")


def make_skills_tree(base: Path, count: int = 130) -> list[Path]:
    """Write ``count`` skills under three roots in ``base``; return the roots."""
    bundle = base / "amplifier-bundle" / "skills"
    user = base / "home-claude-skills"
    project = base / "project-claude-skills"
    roots = [bundle, user, project]
    for root in roots:
        root.mkdir(parents=True)
    bundle_count = count * 3 // 4
    user_count = (count - bundle_count) * 4 // 5
    for index in range(count):
        name = skill_name(index)
        if index < bundle_count:
            folder = bundle / f"category-{index % 6}" / name
        elif index < bundle_count + user_count:
            folder = user / name
        else:
            folder = project / name
        _write_skill(folder, name)
    return roots


def make_agents_tree(home: Path, count: int = 60, hit: str = "prompt-writer") -> list[Path]:
    """``count`` agents in both hosts' user folders (some in subfolders, the way a bundle is
    installed), ``hit`` among them; return the files. The gate reads them when it decides."""
    files = []
    for index in range(count):
        name = hit if index == count // 2 else f"bench-agent-{index:03d}"
        claude = home / ".claude" / "agents" / (f"team-{index % 4}" if index % 3 else "") / f"{name}.md"
        copilot = home / ".copilot" / "agents" / f"{name}.agent.md"
        for path in (claude, copilot):
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(f"---\nname: {name}\ndescription: Bench agent {name}, a generated agent.\n"
                            f"tools: Read, Grep\n---\n\nYou are {name}.\n\n{BODY}", encoding="utf-8")
            files.append(path)
    return files
