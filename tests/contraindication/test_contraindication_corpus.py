"""Issue 26's corpus through the check's matcher: every ``advise`` command fires its row,
every ``quiet`` command fires none. The commands are data (contraindication_corpus.py)."""
from __future__ import annotations

from collections import Counter

import pytest

from contraindication_cases import EXAMPLES_CWD, load_check
from contraindication_corpus import CORPUS, ISSUE_TABLE_ADVISE, ISSUE_TABLE_QUIET

check = load_check()
ROWS = check.load_rows()


def advised(command):
    return [row["id"] for row in check.matching_call_rows(ROWS, "Bash", {"command": command}, EXAMPLES_CWD)]


def test_the_corpus_is_large_and_covers_every_category():
    assert len(CORPUS) >= 400
    assert len({command for _, command, _, _ in CORPUS}) == len(CORPUS)
    categories = Counter(category for category, _, _, _ in CORPUS)
    for category in ("wrappers", "quoting", "substitutions", "heredocs", "interpreters", "segments", "paths",
                     "xargs-find", "temp-folders", "unicode", "sizes", "git"):
        assert categories[category] >= 5, category


@pytest.mark.parametrize("category, command, label, row_id", CORPUS,
                         ids=["%s-%d" % (case[0], index) for index, case in enumerate(CORPUS)])
def test_corpus(category, command, label, row_id):
    ids = advised(command)
    if label == "advise":
        assert row_id in ids, (command[:200], ids)
    else:
        assert ids == [], (command[:200], ids)


def _advise(command, session):
    import json

    payload = {"session_id": session, "hook_event_name": "PreToolUse", "tool_name": "Bash", "cwd": EXAMPLES_CWD,
               "tool_input": {"command": command, "description": "run it"}}
    return check.advise(json.dumps(payload))


@pytest.mark.parametrize("index, command", list(enumerate(ISSUE_TABLE_ADVISE)))
def test_issue_table_advises(index, command, tmp_path, monkeypatch):
    monkeypatch.setenv("HOOKMUX_STATE_DIR", str(tmp_path))
    # The advisory alone: beside the danger gate it leaves the calls the gate denies to the gate
    # (tests/danger_gate/test_danger_gate_one_message.py).
    monkeypatch.setattr(check, "DANGER_GATE", str(tmp_path / "no-danger-gate.py"))
    assert "hookmux contraindication advisory" in _advise(command, "fresh-%d" % index)


@pytest.mark.parametrize("index, command", list(enumerate(ISSUE_TABLE_QUIET)))
def test_issue_table_stays_quiet(index, command, tmp_path, monkeypatch):
    monkeypatch.setenv("HOOKMUX_STATE_DIR", str(tmp_path))
    assert _advise(command, "fresh-%d" % index) == ""
