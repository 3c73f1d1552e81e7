"""The cross-version runs of .ci/run: which interpreters .ci/pythons.py picks, and that the hooks
run under the suite's own interpreter (run_hook starts every hook, dispatcher, gate and
checks, with sys.executable: so the 3.9 run exercises the hooks on 3.9)."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from hookmux_testing import DISPATCH, REPO, hermetic_env, one_json_line, run_hook

PYTHONS = REPO / ".ci" / "pythons.py"


def fake_python(folder: Path, name: str, answer: str) -> str:
    """A script standing in for an interpreter: prints ANSWER to the version probe."""
    path = folder / name
    path.write_text(f"#!/bin/sh\necho '{answer}'\n")
    path.chmod(0o755)
    return str(path)


def pick(*interpreters: str):
    env = dict(os.environ, HOOKMUX_CI_PYTHONS=" ".join(interpreters))
    return subprocess.run([sys.executable, str(PYTHONS)], capture_output=True, text=True, env=env, timeout=60)


@pytest.mark.skipif(os.name != "posix", reason="fake interpreters are shell scripts")
def test_picks_the_oldest_and_the_newest_minor_and_drops_what_is_not_supported(tmp_path):
    result = pick(
        fake_python(tmp_path, "py311", "cpython final 3 11 2"),
        fake_python(tmp_path, "py39", "cpython final 3 9 18"),
        fake_python(tmp_path, "py39b", "cpython final 3 9 7"),  # same minor: the first one found wins
        fake_python(tmp_path, "py38", "cpython final 3 8 18"),  # below requires-python
        fake_python(tmp_path, "py315a", "cpython alpha 3 15 0"),  # not a release
        fake_python(tmp_path, "pypy", "pypy final 3 14 0"),
        fake_python(tmp_path, "shim", "garbage"),
        str(tmp_path / "missing"),
        fake_python(tmp_path, "py313", "cpython final 3 13 0"),
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [f"3.9.18 {tmp_path}/py39", f"3.13.0 {tmp_path}/py313"]


@pytest.mark.skipif(os.name != "posix", reason="fake interpreters are shell scripts")
def test_fewer_than_two_supported_versions_fail_naming_what_was_found(tmp_path):
    result = pick(fake_python(tmp_path, "py312", "cpython final 3 12 1"),
                  fake_python(tmp_path, "py312b", "cpython final 3 12 4"),
                  fake_python(tmp_path, "py38", "cpython final 3 8 18"))
    assert result.returncode == 1 and result.stdout == ""
    assert "need two supported CPython versions (>= 3.9)" in result.stderr
    assert f"{tmp_path}/py312: 3.12.1" in result.stderr
    assert f"{tmp_path}/py38: 3.8.18, below the floor" in result.stderr


def test_a_check_runs_under_the_suites_interpreter(tmp_path):
    """The dispatcher the tests start, and the check it loads, are the suite's Python."""
    root = tmp_path / "hooks"
    (root / "version").mkdir(parents=True)
    (root / "version" / "check.py").write_text(
        "import json, sys\n"
        "def main():\n"
        "    print(json.dumps({'additionalContext': '%d.%d.%d' % sys.version_info[:3]}))\n")
    manifest = tmp_path / "manifest.json"
    manifest.write_text(json.dumps({"version": 1, "hooks_root": str(root), "events": {
        "PreToolUse": {"checks": [{"name": "version", "script": "version/check.py"}]}}}))
    payload = json.dumps({"session_id": "s1", "hook_event_name": "PreToolUse", "tool_name": "Bash",
                          "tool_input": {"command": "ls"}})
    result = run_hook(DISPATCH, ["--manifest", str(manifest), "PreToolUse"], payload, hermetic_env(tmp_path))
    assert result.returncode == 0, result.stderr
    context = one_json_line(result.stdout)["hookSpecificOutput"]["additionalContext"]
    assert context == "%d.%d.%d" % sys.version_info[:3]

