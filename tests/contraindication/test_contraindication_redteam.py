"""The red team's corpus through the advisory's matcher (contraindication_redteam_corpus.py):
hazards reached through wrappers, pipes and session variables advise; text, build output, temp
folders, variables the command set and look-alikes stay quiet. The commands are data."""
from __future__ import annotations

import json
from collections import Counter

import pytest

from contraindication_cases import CHECK, EXAMPLES_CWD, load_check
from contraindication_redteam_corpus import CASES, KNOWN_FALSE
from hookmux_testing import hermetic_env, run_hook

check = load_check()
ROWS = check.load_rows()


def advised(tool, command):
    return [row["id"] for row in check.matching_call_rows(ROWS, tool, {"command": command}, EXAMPLES_CWD)]


def test_the_corpus_covers_misses_and_false_advisories():
    assert len({(tool, command) for _, tool, command, _ in CASES}) == len(CASES)
    labels = Counter("advise" if row_id else "quiet" for _, _, _, row_id in CASES)
    assert labels["advise"] >= 60 and labels["quiet"] >= 100, labels
    assert {category for category, _, _, _ in CASES} >= {"bypass", "text", "paths", "look-alikes"}


@pytest.mark.parametrize("category, tool, command, row_id", CASES,
                         ids=["%s-%d" % (case[0], index) for index, case in enumerate(CASES)])
def test_redteam_case(category, tool, command, row_id):
    ids = advised(tool, command)
    if row_id:
        assert row_id in ids, (command, ids)
    else:
        assert ids == [], (command, ids)


@pytest.mark.parametrize("category, tool, command, row_id", KNOWN_FALSE)
@pytest.mark.xfail(strict=True, reason="a text row reads text (docs/contraindication.md)")
def test_known_false_advisory(category, tool, command, row_id):
    assert advised(tool, command) == []


@pytest.mark.parametrize("command", [
    "echo 'git push -f origin topic' | sh",
    "export OUT=dist; rm -rf \"$OUT\"/*",
    "D=\"$HOME/.ssh\"; rm -rf \"$D\"",
])
def test_through_the_real_script(tmp_path, command):
    """A few of the fixed cases as a host runs the check: the script, a JSON payload, a fresh session."""
    env = hermetic_env(tmp_path)
    payload = json.dumps({"session_id": "rt-" + str(abs(hash(command))), "hook_event_name": "PreToolUse",
                          "tool_name": "Bash", "cwd": EXAMPLES_CWD, "tool_input": {"command": command}})
    result = run_hook(CHECK, ["PreToolUse"], payload, env)
    assert result.returncode == 0 and result.stderr == b""
    advises = b"hookmux contraindication advisory" in result.stdout
    assert advises == ("OUT=dist" not in command), (command, result.stdout)
