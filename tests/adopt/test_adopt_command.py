"""Every common spelling of a Python command hook resolves to its script; the rest says why not."""
from __future__ import annotations

from pathlib import Path

import pytest

from hookmux.adopt.command import parse

PROJECT = Path("/work/proj")


@pytest.fixture
def script(tmp_path):
    path = tmp_path / "hook.py"
    path.write_text("#!/usr/bin/env python3\nprint()\n")
    path.chmod(0o755)
    return path


@pytest.mark.parametrize("command, runner, args", [
    ("python3 {s}", "python", []),
    ("python {s} --strict x", "python", ["--strict", "x"]),
    ("/usr/local/bin/python3.12 -u {s}", "python", []),
    ("'/opt/py 3/bin/python3' -S -E '{s}'", "python", []),
    ('python3 "{s}" || true', "python", []),
    ("python3 {s} 2>/dev/null", "python", []),
    ("uv run {s}", "uv", []),
    ("uv run --script {s} pre", "uv", ["pre"]),
    ("uv run --python 3.12 python {s}", "uv", []),
    ("{s}", "shebang", []),
    ("{s} PreToolUse", "shebang", ["PreToolUse"]),
])
def test_python_spellings(script, command, runner, args):
    launch = parse(command.format(s=script), None, None)
    assert launch.ok, launch.reason
    assert launch.script == script and launch.runner == runner and launch.args == args


@pytest.mark.parametrize("command", [
    'python3 "$CLAUDE_PROJECT_DIR"/.claude/hooks/x.py',
    "python3 ${CLAUDE_PROJECT_DIR}/.claude/hooks/x.py",
    "python3 $CLAUDE_PROJECT_DIR/.claude/hooks/x.py",
    "python3 .claude/hooks/x.py",
])
def test_project_relative_paths(command):
    launch = parse(command, PROJECT, PROJECT)
    assert launch.ok and launch.script == PROJECT / ".claude/hooks/x.py"


def test_home_relative_path():
    launch = parse("python3 ~/.claude/hooks/x.py", None, None)
    assert launch.ok and launch.script == Path.home() / ".claude/hooks/x.py"


@pytest.mark.parametrize("command, base, project, word", [
    ('python3 "$CLAUDE_PROJECT_DIR"/x.py', None, None, "each project"),
    ("python3 $HOOKS/x.py", None, None, "$HOOKS"),
    ("python3 x.py", None, None, "working directory"),
    ("python3 -m mypkg.hook", None, None, "-m"),
    ("python3 -c 'print(1)'", None, None, "-c"),
    ("python3 -X importtime /a/x.py", None, None, "-X"),
    ("cd /a && python3 x.py", None, None, "shell"),
    ("python3 /a/x.py | tee log", None, None, "shell"),
    ("FOO=1 python3 /a/x.py", None, None, "environment"),
    ("node /a/hook.js", None, None, "not Python"),
    ("sh /a/hook.sh", None, None, "not Python"),
    ("python3 /a/hook", None, None, ".py"),
    ("uv run --with requests /a/x.py", None, None, "--with"),
    ("python3 'unbalanced", None, None, "parse"),
])
def test_refused(command, base, project, word):
    launch = parse(command, base, project)
    assert not launch.ok and word in launch.reason, launch


def test_executable_without_python_shebang(tmp_path):
    path = tmp_path / "hook.py"
    path.write_text("#!/bin/sh\necho hi\n")
    launch = parse(str(path), None, None)
    assert not launch.ok and "shebang" in launch.reason


def test_uv_script_shebang(tmp_path):
    path = tmp_path / "hook.py"
    path.write_text("#!/usr/bin/env -S uv run --script\nprint()\n")
    assert parse(str(path), None, None).ok
