"""hookmux new-check: a working check, a passing test and a valid, reachable row."""
from __future__ import annotations

import difflib
import json
import shutil
import subprocess
import sys

import pytest

from hookmux_testing import HOOKS, REPO, hermetic_env


@pytest.fixture
def tree(tmp_path):
    """A hooks tree like an installed one: the package's, its manifest pointing at it."""
    target = tmp_path / "hooks"
    shutil.copytree(HOOKS, target, ignore=shutil.ignore_patterns("__pycache__"))
    manifest = target / "_dispatch" / "manifest.json"
    manifest.write_text(manifest.read_text().replace('"~/.claude/hooks"', json.dumps(str(target))))
    return target


def new_check(tmp_path, *args):
    return subprocess.run([sys.executable, "-m", "hookmux.cli", "new-check", *map(str, args)], capture_output=True,
                          text=True, env=hermetic_env(tmp_path), cwd=str(REPO), timeout=120)


def rows(tree, event="PreToolUse"):
    return json.loads((tree / "_dispatch" / "manifest.json").read_text())["events"][event]["checks"]


def test_the_scaffold_is_valid_reachable_and_its_test_passes_as_generated(tmp_path, tree):
    before = (tree / "_dispatch" / "manifest.json").read_text()
    result = new_check(tmp_path, "no-force", "--matcher", "^Bash$", "--target", tree)
    assert result.returncode == 0, result.stderr
    assert (tree / "no-force" / "check.py").is_file() and (tree / "no-force" / "test_check.py").is_file()
    assert rows(tree)[-1] == {"name": "no-force", "script": "no-force/check.py", "timeout": 5,
                              "side_effect": "none", "matcher": "^Bash$"}
    after = (tree / "_dispatch" / "manifest.json").read_text()
    # edited in place: every line of the file is still there, in order; only the row was added
    changes = [line for line in difflib.ndiff(before.splitlines(), after.splitlines()) if line[:2] in ("- ", "+ ")]
    assert all(line.startswith("+ ") for line in changes) and any('"no-force"' in line for line in changes), changes
    validate = subprocess.run([sys.executable, "-m", "hookmux.cli", "validate", str(tree / "_dispatch" / "manifest.json")],
                              capture_output=True, text=True, cwd=str(REPO))
    assert validate.returncode == 0, validate.stdout
    tests = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:randomly", "-p", "no:cacheprovider",
                            str(tree / "no-force" / "test_check.py")], capture_output=True, text=True,
                           cwd=str(tmp_path), timeout=300)
    assert tests.returncode == 0 and "4 passed" in tests.stdout, tests.stdout + tests.stderr


def test_a_row_the_settings_matcher_misses_widens_it(tmp_path, tree):
    result = new_check(tmp_path, "edits", "--matcher", "^Edit$", "--target", tree)
    assert result.returncode == 0, result.stderr
    spec = json.loads((tree / "_dispatch" / "manifest.json").read_text())["events"]["PreToolUse"]
    assert spec["settings_matcher"] == "Bash|PowerShell|bash|powershell|Edit|edit"
    assert "run hookmux install to rewire" in result.stdout


def test_a_new_event_is_added_and_its_test_passes(tmp_path, tree):
    result = new_check(tmp_path, "start-notes", "--event", "sessionStart", "--target", tree)
    assert result.returncode == 0, result.stderr
    spec = json.loads((tree / "_dispatch" / "manifest.json").read_text())["events"]["SessionStart"]
    assert spec["checks"][0]["name"] == "start-notes" and "settings_matcher" not in spec
    tests = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:randomly", "-p", "no:cacheprovider",
                            str(tree / "start-notes" / "test_check.py")], capture_output=True, text=True,
                           cwd=str(tmp_path), timeout=300)
    assert tests.returncode == 0, tests.stdout + tests.stderr


@pytest.mark.parametrize("args, message", [
    (["contraindication"], "already exists"),
    (["9lives"], "a check name is a letter"),
    (["x", "--matcher", "(("], "does not compile"),
    (["x", "--event", "Stop", "--matcher", "^Bash$"], "carries no tool name"),
    (["x", "--matcher", "^NoSuchTool$"], "would be invalid"),
])
def test_refusals_write_nothing(tmp_path, tree, args, message):
    before = {p: p.read_bytes() for p in tree.rglob("*") if p.is_file()}
    result = new_check(tmp_path, *args, "--target", tree)
    assert result.returncode == 1 and message in result.stderr and "nothing was written" in result.stderr
    assert {p: p.read_bytes() for p in tree.rglob("*") if p.is_file()} == before


def test_no_manifest_in_the_target(tmp_path):
    result = new_check(tmp_path, "x", "--target", tmp_path / "empty")
    assert result.returncode == 1 and "run hookmux install first" in result.stderr
