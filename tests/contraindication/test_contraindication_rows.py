"""Every registry row: one exact positive and one close legitimate non-match through the real
script, plus more variants through the matcher itself."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from hypothesis import given, settings, strategies as st

from hookmux_testing import HOOKS, hermetic_env, one_json_line, run_hook
from contraindication_cases import (
    CHECK, EXAMPLES_CWD, REGISTRY, ROW_CASES, claude_payload, load_check, registry_rows, tool_for,
)
from hookmux.contraindications import check_registry

ROWS = {row["id"]: row for row in registry_rows()}
check = load_check()
LOADED = check.load_rows()


TEXT_ROWS = [row for row in LOADED if "input_pattern" in row]


def matched_ids(command, tool="Bash"):
    return [row["id"] for row in check.matching_call_rows(LOADED, tool, {"command": command, "description": "d"},
                                                          check.EXAMPLES_CWD)]


def test_shipped_registry_is_valid_and_has_enough_rows():
    assert check_registry(REGISTRY) == []
    assert len(ROWS) >= 12
    assert len(LOADED) == len(ROWS)


def test_every_row_has_test_cases():
    assert set(ROW_CASES) == set(ROWS)


@pytest.mark.parametrize("row_id", sorted(ROW_CASES))
def test_exact_positive_emits_id_harm_and_alternative(row_id, tmp_path):
    row = ROWS[row_id]
    command = ROW_CASES[row_id][0]
    result = run_hook(_advisory_alone(tmp_path), ["PreToolUse"], claude_payload(command, tool=tool_for(row_id)),
                      hermetic_env(tmp_path))
    assert result.returncode == 0 and result.stderr == b""
    context = one_json_line(result.stdout)["hookSpecificOutput"]["additionalContext"]
    assert f"- {row_id}: {row['harm']} Safer: {row['safe_alternative']}" in context


def _advisory_alone(tmp_path):
    """The check in a copy of the hooks tree without the danger gate, which would take the calls
    it denies (dd to a disk, mkfs of one) from the advisory (docs/danger-gate.md, one message)."""
    import shutil

    tree = tmp_path / "tree"
    shutil.copytree(CHECK.parents[1], tree, ignore=shutil.ignore_patterns("__pycache__", "danger-gate"))
    return tree / CHECK.parent.name / CHECK.name


@pytest.mark.parametrize("row_id", sorted(ROW_CASES))
def test_close_legitimate_command_is_silent(row_id, tmp_path):
    command = ROW_CASES[row_id][1]
    result = run_hook(CHECK, ["PreToolUse"], claude_payload(command, tool=tool_for(row_id)), hermetic_env(tmp_path))
    assert (result.returncode, result.stdout, result.stderr) == (0, b"", b"")


@pytest.mark.parametrize(
    "row_id,command",
    [(row_id, command) for row_id, case in sorted(ROW_CASES.items()) for command in case[2]],
)
def test_more_positives(row_id, command):
    assert row_id in matched_ids(command, tool_for(row_id))


@pytest.mark.parametrize(
    "row_id,command",
    [(row_id, command) for row_id, case in sorted(ROW_CASES.items()) for command in case[3]],
)
def test_more_non_matches(row_id, command):
    assert row_id not in matched_ids(command, tool_for(row_id))


def test_a_quoted_command_matches_only_when_something_runs_it():
    assert matched_ids('bash -c "git reset --hard"') == ["GIT-RESET-HARD"]
    assert matched_ids('echo "git reset --hard"') == []


def test_the_examples_cwd_is_the_checks():
    assert check.EXAMPLES_CWD == EXAMPLES_CWD


def test_shell_rows_ignore_other_tools():
    for row_id, case in ROW_CASES.items():
        assert matched_ids(case[0], "Write") == [], row_id


@pytest.mark.parametrize(
    "pattern,words",
    [
        (r"\bgit\b\s+push", ["git"]),
        (r"\bGits?x", ["git"]),
        (r"\bgit{0}", ["gi"]),
        (r"\b(?:Docker|podman)\b", ["docker", "podman"]),
        (r"\bx[|]y", ["x"]),
        (r"\bx\|y", ["x"]),
        (r"\bgit(a|b)", ["git"]),
        (r"\bgit|foo", None),
        (r"(?:\bgit|foo)", None),
        (r"\b(?:a|b)?x", None),
        (r"\b(?:a|b(?:c))", None),
        (r"\bgit[^]|]|y", None),
        (r"(?x)\bgit", None),
        (r"\bgit(?x: | foo)", None),
        (r"\b", None),
        (r"git\b", None),
    ],
)
def test_leading_words_are_only_claimed_when_certain(pattern, words):
    assert check.leading_words(pattern) == words


def test_word_gate_never_changes_a_result():
    import re

    commands = [c for case in ROW_CASES.values() for c in (case[0], case[1], *case[2], *case[3])]
    commands += ["ls -la", "GIT RESET --HARD", "echo rm", "Terraform Destroy"]
    for row in TEXT_ROWS:
        for command in commands:
            serialized = json.dumps({"command": command})
            expected = bool(re.search(row["input_pattern"], serialized, re.IGNORECASE | re.ASCII))
            assert bool(check.matching_rows([row], "Bash" if "Bash" in row["tool_pattern"] else "PowerShell", serialized)) == expected, (row["id"], command)


@pytest.mark.parametrize("text", ["A", "GIT-PUSH-FORCE", "RM.RF_1", "0X", "A" * 64, "A" * 65, "", "a", "-A",
                                  "A B", "A\n", "É", "AÉ", "A/B", "git-push"])
def test_an_id_is_checked_as_id_pattern_says(text):
    import re

    assert check._valid_id(text) == bool(re.fullmatch(check.ID_PATTERN, text))


READER_SCRIPT = """
import json, sys
sys.path[:0] = [{folder!r}, {root!r}]
import check, _common
out = check.advise(json.dumps({{"hook_event_name": "PreToolUse", "tool_name": {tool!r}, "session_id": "s",
                                 "tool_input": {{"command": {command!r}, "file_path": "x"}}}}))
print(json.dumps(sorted(_common._MODULES)))
"""


@pytest.mark.parametrize("tool, command, loaded", [
    ("Write", "git status", []), ("Read", "git status", []), ("Bash", "ls -la src", []),
    ("Bash", "/usr/bin/make -j4 test", []), ("Bash", "git status", ["shell", "shell_rules"]),
    ("Bash", "ls 'src'", ["shell", "shell_rules"]), ("PowerShell", "git status", ["shell", "shell_rules"])])
def test_the_reader_is_loaded_only_when_it_could_matter(tmp_path, tool, command, loaded):
    script = READER_SCRIPT.format(folder=str(HOOKS / "contraindication"), root=str(HOOKS), tool=tool, command=command)
    env = {**os.environ, "HOOKMUX_STATE_DIR": str(tmp_path), "HOME": str(tmp_path)}
    result = subprocess.run([sys.executable, "-S", "-c", script], capture_output=True, text=True, env=env, timeout=60)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == loaded


IMPORTS_SCRIPT = """
import json, sys
sys.path[:0] = [{folder!r}, {root!r}]
for name in ("json", "json.decoder", "json.scanner", "json.encoder", "re"):
    sys.modules.pop(name, None)
import check
out = check.advise(json.dumps({{"hook_event_name": "PreToolUse", "tool_name": "Bash", "session_id": "s",
                                 "tool_input": {{"command": {command!r}, "timeout": 5}}}}))
print(json.dumps([bool(out), "re" in sys.modules]))
"""


@pytest.mark.parametrize("command, advises, needs_re", [("ls -la src", False, False),
                                                        # "ri", "sh", "dd", "rd" inside words are no hazard's word
                                                        ("cat source.txt | wc -l # add a word", False, False),
                                                        ("git status", False, False),
                                                        ("git push --force origin main", True, True)])
def test_re_is_imported_only_when_a_hazard_word_occurs(tmp_path, command, advises, needs_re):
    script = IMPORTS_SCRIPT.format(folder=str(HOOKS / "contraindication"), root=str(HOOKS), command=command)
    env = {**os.environ, "HOOKMUX_STATE_DIR": str(tmp_path), "HOME": str(tmp_path)}
    result = subprocess.run([sys.executable, "-S", "-c", script], capture_output=True, text=True, env=env, timeout=60)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == [advises, needs_re]


ROW_WORDS = [(row, check.leading_words(row["input_pattern"])) for row in TEXT_ROWS]
PIECES = list("ab-_ ./\"\n") + ["ri", "rm", "git", "dd", "sh", "push", "--force", "-rf", "origin", "main"]
prefilter_text = st.lists(st.sampled_from(PIECES), max_size=40).map("".join)


@settings(max_examples=300, deadline=None)
@given(text=prefilter_text)
def test_a_row_the_word_test_skips_never_matches(text):
    import re

    serialized = json.dumps({"command": text})
    for row, words in ROW_WORDS:
        if words and not any(check._starts_a_word(word, serialized.lower()) for word in words):
            assert re.search(row["input_pattern"], serialized, re.IGNORECASE | re.ASCII) is None, (row["id"], text)


def test_the_word_test_needs_a_word_start():
    assert check._starts_a_word("ri", "source ri") and not check._starts_a_word("ri", "source")
    assert check._starts_a_word("git", '{"command": "git push"}') and not check._starts_a_word("git", "digit")
    assert check._starts_a_word("rm", "x_rm " * 40 + " rm")  # past MAX_ANCHORS places: undecided, so True


def test_the_gate_knows_what_the_reader_looks_through():
    from _common import shell

    assert check._LOOKED_THROUGH == shell.LOOKED_THROUGH


PLAIN = st.lists(st.sampled_from(["ls", "rm", "-rf", "/", "/etc", "git", "push", "-f", "reset", "--hard", "find",
                                  ".", "-delete", "sudo", "python3", "mkfs.ext4", "/dev/sdb", "make", "x", "/bin/rm",
                                  "RM", "Git", "chmod", "-R", "777", "terraform", "destroy", "~", "a.b", "  "]),
                 min_size=1, max_size=8).map(" ".join)


@settings(max_examples=300, deadline=None)
@given(command=PLAIN)
def test_the_plain_command_gate_never_changes_a_result(command):
    with_gate = matched_ids(command)
    saved = check._needs_reader
    check._needs_reader = lambda command, rows: True
    try:
        assert matched_ids(command) == with_gate, command
    finally:
        check._needs_reader = saved
