"""Row cases for the contraindication registry, shared by the row and dispatch tests.

ROW_CASES[id] = (exact positive command, close legitimate non-match, more positives, more non-matches),
taken from each row's ``examples`` (one home: the registry). The commands are data: they go to the
check as JSON payloads, never to a shell.
"""
from __future__ import annotations

import json
import sys
from importlib.util import module_from_spec, spec_from_file_location

from hookmux import testing
from hookmux_testing import HOOKS

CHECK = HOOKS / "contraindication" / "check.py"
REGISTRY = HOOKS / "contraindication" / "contraindications.json"
POWERSHELL_ONLY = {"PS-REMOVE-ITEM-RECURSE-ROOT"}
EXAMPLES_CWD = "/home/user/project"  # check.EXAMPLES_CWD


def load_check():
    """check.py as a module under a private name (its folder is not a package)."""
    sys.path.insert(0, str(HOOKS))
    spec = spec_from_file_location("hookmux_test_contraindication_check", CHECK)
    module = module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def registry_rows():
    return json.loads(REGISTRY.read_text())["rows"]


def tool_for(row_id):
    return "PowerShell" if row_id in POWERSHELL_ONLY else "Bash"


def claude_payload(command, session="session-1", tool="Bash", event="PreToolUse", cwd=EXAMPLES_CWD):
    call = testing.pre_tool_use(tool, {"command": command, "description": "Run a command"}, session_id=session,
                                cwd=cwd, hook_event_name=event)
    return call.stdin


def copilot_payload(command, session="session-1", tool="bash", args_as_string=False):
    call = testing.pre_tool_use(tool, {"command": command, "description": "Run a command"}, host="copilot",
                                session_id=session, cwd=EXAMPLES_CWD, tool_args_as_string=args_as_string)
    return call.stdin


def _row_cases():
    """ROW_CASES from the registry's own examples: (first advise, first quiet, the other
    advise examples, the other quiet examples) per row id."""
    cases = {}
    for row in registry_rows():
        examples = row["examples"]
        cases[row["id"]] = (examples["advise"][0], examples["quiet"][0], examples["advise"][1:], examples["quiet"][1:])
    return cases


ROW_CASES = _row_cases()
