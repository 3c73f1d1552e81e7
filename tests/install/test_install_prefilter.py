"""Issue 42: the payload filter in front of the UserPromptSubmit dispatcher and the PostToolBatch
gate (wiring.prefiltered). The rule: it may let through a payload nothing acts on, never hold
back one a row would act on. The wired command lines run here as the host runs them
(``/bin/sh -c``, the payload on stdin), with the interpreter swapped for a marker that notes it
was started and then runs the real one. Payloads are data: prompts and tool answers, no command."""
from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from install_helpers import Home

from hookmux import wiring
from hookmux.installer import commands, entries
from hookmux_testing import HOOKS, REPO

MODULE = HOOKS / "calibrated-silence" / "calibrated_silence.py"
REACTIONS = HOOKS / "calibrated-silence" / "reactions.py"
SESSION = "s-prefilter"
ASCII_FOLD = {"i": "\u0130\u0131", "k": "\u212a", "s": "\u017f"}



def load(path: Path, name: str):
    from importlib.util import module_from_spec, spec_from_file_location

    spec = spec_from_file_location(name, path)
    module = module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def reactions(state: Path) -> list[dict]:
    path = state / "calibrated-silence" / "history.jsonl"
    lines = path.read_text().splitlines() if path.exists() else []
    return [record for record in map(json.loads, lines) if record["k"] == "reaction"]


# ---------------------------------------------------------------- the words are the rows' words

def _what_alternatives(pattern: str) -> list[str]:
    assert pattern.startswith("(?:") and pattern.endswith(")")
    out, depth, current = [], 0, ""
    for char in pattern[3:-1]:
        depth += char == "("
        depth -= char == ")"
        if char == "|" and depth == 0:
            out.append(current)
            current = ""
        else:
            current += char
    return out + [current]


def test_every_alternative_the_reactions_row_matches_starts_with_a_prompt_word():
    module = load(REACTIONS, "hookmux_test_prefilter_reactions")
    alternatives = _what_alternatives(module._WHAT)
    assert len(alternatives) == 7
    for alternative in alternatives:
        literal = re.match(r"[a-z]+", alternative).group(0)
        assert any(literal.startswith(word) for word in entries.PROMPT_WORDS), alternative
    # ANNOYED needs a _WHAT match: a prompt holding a stop word and none of _WHAT is not annoyed
    assert module.ANNOYED.endswith(r"\b%s\b" % module._WHAT)


def test_unicode_folds_are_every_letter_python_matches_case_insensitively_to_ascii():
    found: dict[str, str] = {}
    for code in range(128, 0x30000):
        char = chr(code)
        if 0xD800 <= code <= 0xDFFF:
            continue
        for letter in "abcdefghijklmnopqrstuvwxyz":
            if re.fullmatch(letter, char, re.I):
                found[letter] = found.get(letter, "") + char
    assert found == wiring.UNICODE_FOLDS == ASCII_FOLD


def test_the_gate_words_are_its_fast_path_s_words():
    source = (HOOKS / "skill-redirect" / "skill_redirect.py").read_text()
    fast = re.search(r'if "PostToolBatch" in sys.argv\[1:\]:\n\s+if (.*):\n\s+return 0', source).group(1)
    assert re.findall(r'b"([^"]+)" not in lowered', fast) == list(entries.GATE_PAYLOAD_WORDS["PostToolBatch"])
    assert "lowered = data.lower()" in source  # bytes.lower(): ASCII case only, what the glob spells


# ---------------------------------------------------------------- the wired lines, run by sh

@pytest.fixture
def h(tmp_path):
    home = Home(tmp_path)
    home.install(source=False)
    home.marker = tmp_path / "started"
    shim = tmp_path / "bin" / "python-marker"
    shim.parent.mkdir()
    shim.write_text('#!/bin/sh\necho "$@" >> "%s"\nexec "%s" "$@"\n' % (home.marker, sys.executable))
    shim.chmod(0o755)
    home.shim = shim
    return home


def wired(h, event: str) -> str:
    settings = json.loads(h.settings.read_text())
    (command,) = [hook["command"] for group in settings["hooks"][event] for hook in group["hooks"]
                  if commands.parse(hook["command"]) and commands.parse(hook["command"]).role in ("dispatch", "gate")]
    return command


def run(h, command: str, payload: str | bytes, **env) -> subprocess.CompletedProcess:
    python = commands.parse(command).python
    assert python in command
    line = command.replace(python, str(h.shim))
    assert str(h.home).startswith(str(h.root))  # a temporary HOME
    data = payload.encode() if isinstance(payload, str) else payload
    return subprocess.run(["/bin/sh", "-c", line], input=data, capture_output=True, env={**h.env, **env},
                          cwd=str(h.root), timeout=60)


def started(h) -> bool:
    return h.marker.exists() and h.marker.read_text() != ""


def advisory_shown(h):
    """The session was shown an advisory (as the contraindication row records it)."""
    import os

    before = dict(os.environ)
    os.environ["HOOKMUX_STATE_DIR"] = h.env["HOOKMUX_STATE_DIR"]
    try:
        module = load(MODULE, "hookmux_test_prefilter_silence")
        assert module.record_interjection("contraindication", "SOME-FINDING", SESSION,
                                          repeat={"tool": "^Bash$", "input": "never-typed"})
    finally:
        os.environ.clear()
        os.environ.update(before)


def prompt(text: str, ascii_only: bool = False) -> bytes:
    payload = {"session_id": SESSION, "transcript_path": "/tmp/t.jsonl", "cwd": "/tmp",
               "hook_event_name": "UserPromptSubmit", "prompt": text}
    return json.dumps(payload, ensure_ascii=ascii_only).encode()


def annoyed(h) -> list:
    return [(r["key"], r["r"]) for r in reactions(Path(h.env["HOOKMUX_STATE_DIR"]))]


def test_the_installed_lines_carry_the_filter_and_parse_as_hookmux_s(h):
    prompt_line, batch_line = wired(h, "UserPromptSubmit"), wired(h, "PostToolBatch")
    for line, role in ((prompt_line, "dispatch"), (batch_line, "gate")):
        assert line.startswith(wiring.PREFILTER_HEAD) and line.count(wiring.PREFILTER_HEAD) == 1
        parsed = commands.parse(line)
        assert parsed.role == role and parsed.prefilter and parsed.fail_open
    assert wiring.USER_LAYER_TEST in prompt_line and wiring.USER_LAYER_TEST not in batch_line
    settings = json.loads(h.settings.read_text())
    pre = [hook["command"] for group in settings["hooks"]["PreToolUse"] for hook in group["hooks"]]
    assert pre and not any(line.startswith(wiring.PREFILTER_HEAD) for line in pre)  # a matcher narrows that one


def test_a_prompt_without_the_words_starts_no_python(h):
    advisory_shown(h)
    result = run(h, wired(h, "UserPromptSubmit"), prompt("please list the files in this folder"))
    assert (result.returncode, result.stdout, result.stderr) == (0, b"", b"")
    assert not started(h)
    assert annoyed(h) == []


@pytest.mark.parametrize("text", [
    "stop the warnings",                    # the word as written
    "Please STOP WARNING me",               # any ASCII case
    "stop the adv\u0131sories",             # dotless i: re.I matches it to i
    "no more contraind\u0130cations",       # dotted capital I
    "stop the \u017fafety notes",           # long s
    "stop the hoo\u212amux stuff",          # Kelvin sign
])
def test_a_prompt_the_row_records_reaches_the_dispatcher_and_is_recorded(h, text):
    assert load(REACTIONS, "hookmux_test_prefilter_reactions").is_annoyed(text)
    advisory_shown(h)
    result = run(h, wired(h, "UserPromptSubmit"), prompt(text))
    assert (result.returncode, result.stderr) == (0, b"")
    assert started(h)
    assert annoyed(h) == [("*", "annoyed")]


def test_a_json_escape_may_spell_a_word_so_it_passes(h):
    advisory_shown(h)
    payload = prompt("x").replace(b'"prompt": "x"', b'"prompt": "stop the \\u0077arnings"')
    assert json.loads(payload)["prompt"] == "stop the warnings"
    result = run(h, wired(h, "UserPromptSubmit"), payload)
    assert (result.returncode, result.stderr) == (0, b"")
    assert started(h) and annoyed(h) == [("*", "annoyed")]


def test_a_user_layer_gets_every_prompt(h, tmp_path):
    quiet = prompt("please list the files in this folder")
    config = tmp_path / "config" / "hookmux"  # XDG_CONFIG_HOME of the hermetic env
    config.mkdir(parents=True)
    (config / "manifest.json").write_text('{"events": {}}')
    assert run(h, wired(h, "UserPromptSubmit"), quiet).returncode == 0
    assert started(h)
    h.marker.unlink()
    (config / "manifest.json").unlink()
    assert run(h, wired(h, "UserPromptSubmit"), quiet).returncode == 0 and not started(h)
    assert run(h, wired(h, "UserPromptSubmit"), quiet, HOOKMUX_CONFIG_DIR=str(tmp_path / "elsewhere")).returncode == 0
    assert started(h)
    h.marker.unlink()
    home_layer = h.home / ".config" / "hookmux" / "manifest.json"  # XDG_CONFIG_HOME set elsewhere: still looked at
    home_layer.parent.mkdir(parents=True)
    home_layer.write_text('{"events": {}}')
    assert run(h, wired(h, "UserPromptSubmit"), quiet).returncode == 0 and started(h)


def batch(response: str) -> bytes:
    return json.dumps({"session_id": SESSION, "transcript_path": "/tmp/t.jsonl", "cwd": "/tmp",
                       "hook_event_name": "PostToolBatch", "tool_calls": [
                           {"tool_name": "Skill", "tool_input": {"skill": "prompt-writer"},
                            "tool_use_id": "toolu_1", "tool_response": response}]}).encode()


def test_post_tool_batch_without_the_words_starts_no_python(h):
    for response in ("Launching skill: prompt-writer", "unknown  skill", "agent-type"):
        result = run(h, wired(h, "PostToolBatch"), batch(response))
        assert (result.returncode, result.stdout, result.stderr) == (0, b"", b"")
    assert not started(h)


def test_post_tool_batch_with_the_words_gets_the_gate_s_answer(h):
    agents = h.home / ".claude" / "agents"
    agents.mkdir(parents=True)
    (agents / "prompt-writer.md").write_text("---\nname: prompt-writer\ndescription: an agent\n---\nBody.\n")
    payload = batch("<tool_use_error>Unknown Skill: prompt-writer</tool_use_error>")
    result = run(h, wired(h, "PostToolBatch"), payload)
    assert (result.returncode, result.stderr) == (0, b"") and started(h)
    direct = subprocess.run([sys.executable, "-S", str(h.target / "skill-redirect" / "skill_redirect.py"),
                             "PostToolBatch"], input=payload, capture_output=True, env=h.env, timeout=60)
    assert result.stdout == direct.stdout
    context = json.loads(result.stdout)["hookSpecificOutput"]["additionalContext"]
    assert "prompt-writer" in context


# ---------------------------------------------------------------- reinstall, uninstall, parse

def _rewrite(h, event: str, change) -> None:
    settings = json.loads(h.settings.read_text())
    for group in settings["hooks"][event]:
        for hook in group["hooks"]:
            if commands.parse(hook["command"]):
                hook["command"] = change(hook["command"])
    h.settings.write_text(json.dumps(settings, indent=2))


def test_a_reinstall_keeps_a_user_s_option_and_writes_the_filter_once(h):
    _rewrite(h, "UserPromptSubmit", lambda c: c.replace(" UserPromptSubmit ||", " --trace UserPromptSubmit ||"))
    assert "--trace" in commands.parse(wired(h, "UserPromptSubmit")).options
    h.install(source=False)
    line = wired(h, "UserPromptSubmit")
    assert line.count(wiring.PREFILTER_HEAD) == 1 and line.count(wiring.PREFILTER_PIPE) == 1
    assert "--trace" in commands.parse(line).options
    h.install(source=False)
    assert wired(h, "UserPromptSubmit") == line


def test_an_old_unfiltered_line_is_hookmux_s_and_a_reinstall_filters_it(h):
    old = wiring.split_prefilter(wired(h, "UserPromptSubmit"))[1]
    _rewrite(h, "UserPromptSubmit", lambda c: old)
    assert commands.parse(old).role == "dispatch"
    h.install(source=False)
    assert wired(h, "UserPromptSubmit").startswith(wiring.PREFILTER_HEAD)


def test_a_manifest_option_drops_the_filter(h):
    other = h.root / "other.json"
    _rewrite(h, "UserPromptSubmit", lambda c: c.replace(" UserPromptSubmit ||", " --manifest %s UserPromptSubmit ||" % other))
    h.install(source=False)
    line = wired(h, "UserPromptSubmit")
    assert not line.startswith(wiring.PREFILTER_HEAD)
    assert commands.parse(line).options == ("--manifest", str(other))


def test_uninstall_removes_the_filtered_entries(h):
    h.uninstall()
    text = h.settings.read_text() if h.settings.exists() else ""
    assert wiring.PREFILTER_HEAD not in text and "skill_redirect.py" not in text


def test_a_shell_of_the_user_s_in_front_is_not_hookmux_s():
    line = wiring.prefiltered(wiring.hook_command("/usr/bin/python3", "/h/_dispatch/dispatch.py", "UserPromptSubmit"),
                              entries.PROMPT_WORDS, user_layer=True, decoded=True)
    assert commands.parse(line).prefilter
    for edited in (line.replace("exit 0;;", "notify-send hi; exit 0;;"),
                   line.replace("*[Ww][Aa][Rr][Nn]*", "*$(id)*"),
                   line.replace(wiring.PREFILTER_HEAD, "d=$(cat); echo hi; case $d in ")):
        assert wiring.split_prefilter(edited) == ("", edited)
        assert commands.parse(edited) is None


def test_the_plugin_file_carries_the_same_filters():
    data = json.loads((REPO / "hooks" / "hooks.json").read_text())
    lines = {event: [hook["command"] for group in groups for hook in group["hooks"]]
             for event, groups in data["hooks"].items()}
    (prompt_line,) = lines["UserPromptSubmit"]
    (batch_line,) = lines["PostToolBatch"]
    head = wiring.prefiltered("", entries.PROMPT_WORDS, user_layer=True, decoded=True)
    assert prompt_line.startswith(head)
    assert batch_line.startswith(wiring.prefiltered("", entries.GATE_PAYLOAD_WORDS["PostToolBatch"]))


def test_status_and_adopt_call_the_filtered_lines_hookmux_s(h):
    status = h.hookmux("status", "--target", str(h.target), "--settings", str(h.settings), check=True).stdout
    assert re.search(r"UserPromptSubmit\s+dispatch ok", status) and re.search(r"PostToolBatch\s+gate\s+ok", status)
    plan = h.hookmux("adopt", "--target", str(h.target), "--settings", str(h.settings), "--json", check=True).stdout
    entries_seen = [entry for entry in json.loads(plan)["entries"] if entry.get("event") in ("UserPromptSubmit", "PostToolBatch")]
    assert [entry["kind"] for entry in entries_seen] == ["hookmux", "hookmux"], entries_seen
