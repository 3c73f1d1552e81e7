"""Host matchers become row matchers (re.search over the dispatcher's Claude-style tool names),
and the dispatcher's settings matcher widens to let them through."""
from __future__ import annotations

import re

import pytest

from hookmux.matchers import host_catches as host_matches, row_matcher, settings_names as _settings_names, widen_to as widen
from hookmux.installer.wiring_files import CLAUDE, COPILOT

TOOLS = ["Bash", "Edit", "NotebookEdit", "Write", "Read", "mcp__github__create_issue", "PowerShell"]


@pytest.mark.parametrize("host, matcher", [
    (CLAUDE, "Bash"), (CLAUDE, "Edit|Write"), (CLAUDE, "Edit"), (CLAUDE, "mcp__.*"), (CLAUDE, "Notebook.*|Bash"),
    (CLAUDE, "*"), (CLAUDE, ""), (CLAUDE, None),
])
def test_claude_row_matcher_selects_exactly_what_the_host_did(host, matcher):
    translated = row_matcher(host, matcher)
    for tool in TOOLS:
        selected = translated is None or re.search(translated, tool) is not None
        assert selected == host_matches(host, matcher, tool), (matcher, tool)


@pytest.mark.parametrize("matcher, raw, canonical", [
    ("bash", "bash", "Bash"), ("edit|create", "create", "Write"), ("view", "view", "Read"),
    ("mcp_.*", "mcp_jira_get", "mcp_jira_get"),
])
def test_copilot_row_matcher_follows_the_name_map(matcher, raw, canonical):
    translated = row_matcher(COPILOT, matcher)
    assert host_matches(COPILOT, matcher, raw)
    assert re.search(translated, canonical)
    assert not re.search(translated, "Grep")


def test_an_invalid_regex_raises():
    with pytest.raises(re.error):
        row_matcher(CLAUDE, "Bash(")


def test_widen_keeps_exact_names_exact():
    wanted = [_settings_names(CLAUDE, "Edit|Write")]
    assert widen("Bash|PowerShell|bash|powershell", True, wanted) == \
        "Bash|PowerShell|bash|powershell|Edit|Write|create|edit"


def test_widen_with_a_regex_and_with_everything():
    widened = widen("Bash|bash", True, [_settings_names(CLAUDE, "mcp__.*")])
    for tool in ("Bash", "bash", "mcp__x__y"):
        assert host_matches(CLAUDE, widened, tool)
    assert not host_matches(CLAUDE, widened, "Read")
    assert widen("Bash", True, [None]) == "*"
    assert widen("*", True, [_settings_names(CLAUDE, "Edit")]) == "*"
    assert widen(None, False, [_settings_names(CLAUDE, "Edit")]) == "Edit|edit"
