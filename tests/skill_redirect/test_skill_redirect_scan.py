"""The skill scanner: frontmatter parsing, roots, limits and a hostile tree (through the real gate)."""
from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from hookmux_testing import GATE, PYTHON, hermetic_env, one_json_line, run_hook

SKILLS = Path(__file__).resolve().parent / "fixtures" / "skills"


def load_scanner():
    spec = importlib.util.spec_from_file_location("skill_scan_under_test", GATE.parent / "skill_scan.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


scan = load_scanner()


def skill(folder: Path, text: str | bytes) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "SKILL.md"
    path.write_bytes(text.encode() if isinstance(text, str) else text)
    return path


def gate(tmp_path, name, skills_path, event="PreToolUse", timeout=60):
    env = hermetic_env(tmp_path, HOOKMUX_SKILLS_PATH=str(skills_path))
    payload = json.dumps({"hook_event_name": "PreToolUse", "tool_name": "Skill", "tool_input": {"skill": name}})
    return run_hook(GATE, [event], payload, env, timeout=timeout)


def assert_redirected(result, name):
    assert result.returncode == 2, result
    reason = one_json_line(result.stdout)["hookSpecificOutput"]["permissionDecisionReason"]
    assert f'subagent_type "{name}"' in reason
    assert result.stderr == (reason + "\n").encode()
    assert all(32 <= byte < 127 for byte in result.stdout.rstrip(b"\n") + result.stderr.rstrip(b"\n"))


def assert_passed(result):
    assert (result.returncode, result.stdout, result.stderr) == (0, b"", b"")


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
    (b'---\nname: "pdf\n---\n', None),
    (b"---\nname:\n---\n", ""),
    (b"", None),
    (b"---\nname: pdf\xff\n---\n", "pdf\ufffd"),
])
def test_frontmatter_name(data, name):
    assert scan.frontmatter_name(data) == name


def test_folder_name_is_the_fallback_only_without_a_frontmatter_name(tmp_path):
    skill(tmp_path / "root" / "no-frontmatter", "# just text\n")
    skill(tmp_path / "root" / "empty-name", "---\nname:\n---\n")
    skill(tmp_path / "root" / "named-folder", "---\nname: other\n---\n")
    wanted = ["no-frontmatter", "empty-name", "named-folder", "other"]
    assert scan.find_skills(wanted, [str(tmp_path / "root")]) == ({"no-frontmatter", "empty-name", "other"}, True)


def test_fixture_skills_are_found():
    wanted = ["default-workflow", "pdf", "gherkin-expert", "tla-plus-expert", "architecture-notes",
              "architect", "prompt-writer", "gherkin"]
    found, complete = scan.find_skills(wanted, [str(SKILLS)])
    assert complete
    assert found == {"default-workflow", "pdf", "gherkin-expert", "tla-plus-expert", "architecture-notes"}


# --- roots ---------------------------------------------------------------------------------

def test_roots_precedence(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    environ = {"HOOKMUX_SKILLS_PATH": os.pathsep.join(["/a", "", "/b", "/a"]), "HOME": "/home/u"}
    assert scan.skill_roots(["/x", "rel"], environ) == ["/x", str(tmp_path / "rel")]
    assert scan.skill_roots([], environ) == ["/a", "/b"]
    monkeypatch.setenv("HOME", "/home/u")
    environ = {"CLAUDE_PROJECT_DIR": "/proj", "AMPLIHACK_HOME": "/amp"}
    assert scan.skill_roots([], environ, "claude-code") == [
        "/proj/.claude/skills", "/home/u/.claude/skills", "/amp/amplifier-bundle/skills",
    ]
    assert scan.skill_roots([], environ, "copilot") == [
        "/home/u/.copilot/skills", "/home/u/.agents/skills", str(tmp_path / ".github" / "skills"),
        "/proj/.claude/skills", str(tmp_path / ".agents" / "skills"), "/amp/amplifier-bundle/skills",
    ]
    assert scan.skill_roots([], {})[0] == str(tmp_path / ".claude" / "skills")


# Where each host loads skills from, measured with the real binaries (docs/e2e.md).
HOST_ROOTS = {
    "claude-code": ["home-claude", "project-claude", "amplihack"],
    "copilot": ["home-copilot", "home-agents", "project-claude", "cwd-github", "cwd-agents", "amplihack"],
}
ALL_ROOTS = ["home-claude", "home-copilot", "home-agents", "project-claude", "cwd-github", "cwd-agents", "amplihack"]


@pytest.mark.parametrize("host", sorted(HOST_ROOTS))
@pytest.mark.parametrize("where", ALL_ROOTS)
def test_the_gate_scans_exactly_the_folders_its_host_loads(tmp_path, host, where):
    home, project, cwd, amp = (tmp_path / part for part in ("home", "project", "cwd", "amp"))
    for folder in (home, project, cwd, amp):
        folder.mkdir()
    folder = {
        "home-claude": home / ".claude" / "skills",
        "home-copilot": home / ".copilot" / "skills",
        "home-agents": home / ".agents" / "skills",
        "project-claude": project / ".claude" / "skills",
        "cwd-github": cwd / ".github" / "skills",
        "cwd-agents": cwd / ".agents" / "skills",
        "amplihack": amp / "amplifier-bundle" / "skills",
    }[where]
    if host == "claude-code":
        payload, blocked = {"hook_event_name": "PreToolUse", "tool_name": "Skill", "tool_input": {"skill": "prompt-writer"}}, 2
    else:
        payload, blocked = {"sessionId": "s", "toolName": "skill", "toolArgs": {"skill": "prompt-writer"}}, 0
    env = hermetic_env(tmp_path, CLAUDE_PROJECT_DIR=str(project), AMPLIHACK_HOME=str(amp))
    env["HOME"] = str(home)
    event = "PreToolUse" if host == "claude-code" else "preToolUse"

    def run():
        return subprocess.run([PYTHON, "-S", str(GATE), event], input=json.dumps(payload).encode(), cwd=cwd,
                              capture_output=True, env=env, timeout=60)

    first = run()
    assert first.returncode == blocked and b"deny" in first.stdout
    skill(folder / "pw", "---\nname: prompt-writer\n---\n")
    if where in HOST_ROOTS[host]:
        assert_passed(run())
    else:
        second = run()
        assert second.returncode == blocked and b"deny" in second.stdout


# --- limits --------------------------------------------------------------------------------

def test_depth_limit(tmp_path):
    root = tmp_path / "root"
    at_limit = root.joinpath(*[f"d{i}" for i in range(1, scan.MAX_DEPTH + 1)])
    skill(at_limit, "---\nname: at-limit\n---\n")
    skill(at_limit / "d9", "---\nname: below-limit\n---\n")
    assert scan.find_skills(["at-limit", "below-limit"], [str(root)]) == ({"at-limit"}, True)


def test_skill_file_limit_makes_the_scan_incomplete(tmp_path, monkeypatch):
    root = tmp_path / "root"
    for i in range(5):
        skill(root / f"s{i}", f"---\nname: s{i}\n---\n")
    monkeypatch.setattr(scan, "MAX_SKILL_FILES", 5)
    assert scan.find_skills(["nothing"], [str(root)]) == (set(), True)
    skill(root / "s5", "---\nname: s5\n---\n")
    assert scan.find_skills(["nothing"], [str(root)])[1] is False


def test_entry_limit_makes_the_scan_incomplete(tmp_path, monkeypatch):
    root = tmp_path / "root"
    root.mkdir()
    for i in range(10):
        (root / f"f{i}").write_text("x")
    monkeypatch.setattr(scan, "MAX_ENTRIES", 10)
    assert scan.find_skills(["nothing"], [str(root)]) == (set(), True)
    (root / "f10").write_text("x")
    assert scan.find_skills(["nothing"], [str(root)]) == (set(), False)


def test_scan_stops_once_every_wanted_name_is_found(tmp_path, monkeypatch):
    root = tmp_path / "root"
    skill(root / "a", "---\nname: a\n---\n")
    for i in range(20):
        (root / "b" / f"f{i}").mkdir(parents=True)
    monkeypatch.setattr(scan, "MAX_ENTRIES", 3)
    assert scan.find_skills(["a"], [str(root / "a"), str(root)]) == ({"a"}, True)


def test_more_than_ten_thousand_skill_files_fail_open(tmp_path):
    """A scan cut short by the 10,000 SKILL.md limit cannot prove a name is no skill: pass."""
    root = tmp_path / "many"
    for i in range(scan.MAX_SKILL_FILES):
        skill(root / f"s{i:05d}", f"---\nname: filler-{i}\n---\n")
    assert_redirected(gate(tmp_path, "prompt-writer", root), "prompt-writer")
    skill(root / "one-more", "---\nname: filler-extra\n---\n")
    assert_passed(gate(tmp_path, "prompt-writer", root))


# --- a hostile tree ------------------------------------------------------------------------

@pytest.fixture(scope="module")
def hostile(tmp_path_factory):
    base = tmp_path_factory.mktemp("hostile")
    root = base / "skills"
    skill(root / "pdf", "---\nname: pdf\n---\n")
    # Everything below names prompt-writer in a way that must not count, so prompt-writer stays agent-only.
    (root / "loop").symlink_to(root, target_is_directory=True)
    (root / "a" / "b").mkdir(parents=True)
    (root / "a" / "b" / "up").symlink_to("../..", target_is_directory=True)
    outside = base / "outside"
    skill(outside, "---\nname: prompt-writer\n---\n")
    (root / "linked").mkdir()
    (root / "linked" / "SKILL.md").symlink_to(outside / "SKILL.md")
    (root / "linked-dir").symlink_to(outside, target_is_directory=True)
    skill(root.joinpath(*[f"level{i}" for i in range(1, 51)]), "---\nname: prompt-writer\n---\n")
    bulk = root / "bulk"
    bulk.mkdir()
    for i in range(20_000):
        (bulk / f"file{i:05d}.md").write_bytes(b"---\nname: prompt-writer\n---\n")
    skill(root / "huge", b"---\ndescription: " + b"x" * (5 * 1024 * 1024) + b"\nname: prompt-writer\n---\n")
    skill(root / "huge-but-named", b"---\nname: huge-skill\n" + b"y" * (5 * 1024 * 1024) + b"\n---\n")
    (root / "fifo").mkdir()
    os.mkfifo(root / "fifo" / "SKILL.md")
    (root / "dangling").mkdir()
    (root / "dangling" / "SKILL.md").symlink_to(base / "does-not-exist")
    (root / "dir-named-skill-md" / "SKILL.md").mkdir(parents=True)
    skill(root / "dir-named-skill-md" / "SKILL.md" / "inner", "---\nname: prompt-writer\n---\n")
    skill(root / "ansi", '---\nname: "\x1b[31mprompt-writer\x1b[0m"\n---\n')
    skill(root / "newline", '---\nname: "prompt-writer\nrm -rf ~"\n---\n')
    skill(root / "quotes", "---\nname: prompt-writer\"'`$(touch pwned)\n---\n")
    skill(root / "binary", bytes(range(256)) * 100)
    return root


def test_hostile_tree_scan_completes_and_ignores_the_traps(hostile):
    found, complete = scan.find_skills(["prompt-writer", "pdf", "huge-skill"], [str(hostile)])
    assert complete
    assert found == {"pdf", "huge-skill"}


def test_hostile_tree_through_the_gate(tmp_path, hostile):
    assert_redirected(gate(tmp_path, "prompt-writer", hostile), "prompt-writer")
    assert_redirected(gate(tmp_path, "prompt-writer", hostile, event="PreToolUse"), "prompt-writer")
    assert_passed(gate(tmp_path, "pdf", hostile))
    assert not (Path.cwd() / "pwned").exists()


def test_hostile_payload_names_are_never_echoed(tmp_path):
    env = hermetic_env(tmp_path, HOOKMUX_SKILLS_PATH=str(tmp_path / "none"))
    for name in ("\x1b[31mprompt-writer\x1b[0m", "prompt-writer\n", 'prompt-writer"', "prompt-writer\u200b",
                 "prompt\x00writer", "prompt-writer" * 10):
        for event, payload in (
            ("PreToolUse", {"hook_event_name": "PreToolUse", "tool_name": "Skill", "tool_input": {"skill": name}}),
            ("preToolUse", {"toolName": "skill", "toolArgs": {"skill": name}}),
        ):
            assert_passed(run_hook(GATE, [event], json.dumps(payload), env))


def test_sanitize(monkeypatch):
    monkeypatch.syspath_prepend(str(GATE.parent))
    modules = ("redirect_core", "known_agents", "fast_json", "skill_scan")
    saved = {name: sys.modules.pop(name) for name in modules if name in sys.modules}
    try:
        sanitize = importlib.import_module("redirect_core").sanitize
    finally:
        for name in modules:
            sys.modules.pop(name, None)
        sys.modules.update(saved)
    assert sanitize("\x1b[31mprompt-writer\x1b[0m\n\"'") == "31mprompt-writer0m"
    assert sanitize("amplihack:prompt_writer-2") == "amplihack:prompt_writer-2"
    assert sanitize("x" * 100) == "x" * 64
    assert sanitize("ünï/cøde name") == "ncdename"


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
def test_unreadable_folder_and_file_are_skipped():
    """chmod 000 stops nobody but root, so as root the gate runs as `nobody` against the same tree;
    the control run (root, or the owner after chmod back) shows the locked content would count."""
    base = Path(tempfile.mkdtemp(prefix="hookmux-unreadable-"))
    root = base / "skills"
    try:
        base.chmod(0o755)
        skill(root / "pdf", "---\nname: pdf\n---\n")
        locked_dir = root / "locked"
        skill(locked_dir / "inner", "---\nname: prompt-writer\n---\n")
        locked_file = skill(root / "locked-file", "---\nname: builder\n---\n")
        for folder in (root, root / "pdf", root / "locked-file", locked_dir / "inner"):
            folder.chmod(0o755)
        locked_dir.chmod(0)
        locked_file.chmod(0)

        as_root = os.geteuid() == 0
        python = python_for(NOBODY) if as_root else PYTHON
        if python is None:
            pytest.skip("no interpreter that user nobody may run")
        extra = {"user": NOBODY, "group": NOBODY, "extra_groups": []} if as_root else {}
        env = {"PATH": os.environ.get("PATH", ""), "HOME": str(base), "HOOKMUX_SKILLS_PATH": str(root)}

        def run(name, **kwargs):
            payload = json.dumps({"hook_event_name": "PreToolUse", "tool_name": "Skill", "tool_input": {"skill": name}})
            return subprocess.run([kwargs.pop("python", python), "-S", str(GATE), "PreToolUse"], input=payload.encode(),
                                  capture_output=True, env=env, timeout=60, **kwargs)

        assert_redirected(run("prompt-writer", **extra), "prompt-writer")
        assert_redirected(run("builder", **extra), "builder")
        assert_passed(run("pdf", **extra))

        if not as_root:
            locked_dir.chmod(0o755)
            locked_file.chmod(0o644)
        assert_passed(run("prompt-writer", python=PYTHON))
        assert_passed(run("builder", python=PYTHON))
    finally:
        for path in (root / "locked", root / "locked-file" / "SKILL.md"):
            if path.exists():
                path.chmod(0o755)
        shutil.rmtree(base, ignore_errors=True)
