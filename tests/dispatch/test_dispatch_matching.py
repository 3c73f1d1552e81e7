"""Row matchers: the literal fast path decides exactly as re.search would, and the hot path never imports re."""
from __future__ import annotations

import json
import re
import subprocess

import pytest
from hypothesis import given, strategies as st

from dispatch_helpers import bash_payload, emitter, manifest, write_manifest  # puts hooks/_dispatch on sys.path
from hookmux_testing import DISPATCH, PYTHON

import dispatch_core  # noqa: E402

MATCHERS = ["Bash", "Bash|PowerShell", "^Bash$", "^(Bash|PowerShell)$", "^(?:Edit|Write)$", "Edit", "ash",
            "^Bash|Read$", "^(Bash)|(Read)$", "^()$", "", "|", "Bash|", "^$", "^(Bash|Power.*)$", "[", "^(Bash$",
            "mcp__.*", "^A$", "^Bash\\b"]
NAMES = ["Bash", "PowerShell", "bash", "Read", "Edit", "NotebookEdit", "Bash\n", "Bashful", "", "A", "xBash", "\nBash"]


def reference(matcher, names):
    try:
        pattern = re.compile(matcher)
    except re.error:
        return None
    return any(pattern.search(name) for name in names)


@pytest.mark.parametrize("matcher", MATCHERS)
def test_matches_agrees_with_re_search(matcher):
    for name in NAMES:
        assert dispatch_core.matches(matcher, [name]) == reference(matcher, [name]), (matcher, name)
    assert dispatch_core.matches(matcher, NAMES) == reference(matcher, NAMES)


name_text = st.text(alphabet="ABab_|^$()?:\n.x", max_size=12)


@given(matcher=name_text, names=st.lists(name_text, max_size=3))
def test_matches_agrees_with_re_search_on_generated_matchers(matcher, names):
    assert dispatch_core.matches(matcher, names) == reference(matcher, names)


def test_a_call_that_selects_no_row_imports_neither_re_nor_json(tmp_path):
    emitter(tmp_path, "a/check.py", "never")
    path = write_manifest(tmp_path / "m.json", manifest(tmp_path, [{"script": "a/check.py", "matcher": "^(Bash|PowerShell)$"}]))
    payload = json.dumps({"hook_event_name": "PreToolUse", "tool_name": "Read", "tool_input": {}})
    result = subprocess.run([PYTHON, "-S", "-X", "importtime", str(DISPATCH), "--manifest", str(path), "PreToolUse"],
                            input=payload.encode(), capture_output=True)
    assert result.returncode == 0 and result.stdout == b""
    imported = {line.rsplit("|", 1)[-1].strip() for line in result.stderr.decode().splitlines()}
    assert "dispatch_core" in imported
    assert not imported & {"re", "json", "threading", "dispatch_runner", "dispatch_trace"}, sorted(imported)
    selected = subprocess.run([PYTHON, "-S", str(DISPATCH), "--manifest", str(path), "PreToolUse"],
                              input=bash_payload().encode(), capture_output=True)
    assert b"never" in selected.stdout
