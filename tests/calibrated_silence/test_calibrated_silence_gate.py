"""should_interject / record_interjection / record_reaction: every invariant at its boundary."""
from __future__ import annotations

import json
import os

import pytest
from silence_support import TYPE, history, load, set_state

KEY = "GIT-RESET-HARD"


@pytest.fixture
def cs(tmp_path, monkeypatch):
    module = load()
    module.state = set_state(monkeypatch, tmp_path)
    return module


def seed(cs, key, reactions, start=0):
    """One past session per reaction: the advisory shown, then the reaction."""
    for index, reaction in enumerate(reactions, start):
        session = "past-%s-%d" % (key, index)
        assert cs.record_interjection(TYPE, key, session)
        if reaction:
            cs.record_reaction(TYPE, key, session, reaction)


def ask(cs, key=KEY, session="now", **context):
    return cs.should_interject(TYPE, {"finding": key, "session_id": session, **context})


def test_a_key_never_shown_is_novel(cs):
    assert ask(cs) == (True, "novel")


def test_cold_start_edge_min_samples_minus_one_then_min_samples(cs):
    seed(cs, KEY, ["ignored", "ignored"])
    assert ask(cs) == (True, "cold-start")  # MIN_SAMPLES - 1 = 2 samples
    seed(cs, KEY, ["ignored"], start=2)
    assert ask(cs) == (False, "fatigued")  # MIN_SAMPLES = 3


def test_annoyed_and_unknown_do_not_count_towards_samples(cs):
    seed(cs, KEY, ["ignored", "ignored"] + ["unknown"] * 5 + [None] * 2)
    for index in range(5):
        cs.record_reaction(TYPE, cs.ANY_KEY, "angry-%d" % index, "annoyed")
    assert ask(cs) == (True, "cold-start")


def test_acted_keeps_the_advisory(cs):
    seed(cs, KEY, ["acted", "ignored", "ignored"])
    assert ask(cs) == (True, "useful")  # 2/3 < 0.75


def test_recent_annoyed_raises_fatigue_out_of_cold_start(cs):
    seed(cs, KEY, ["acted", "ignored", "ignored"])
    cs.record_reaction(TYPE, cs.ANY_KEY, "old-anger", "annoyed", now=cs.time.time() - 8 * 86400)
    assert ask(cs) == (True, "useful")  # older than a week: not recent
    cs.record_reaction(TYPE, cs.ANY_KEY, "anger", "annoyed")
    assert ask(cs) == (False, "fatigued")  # (2 + 1) / (3 + 1) = 0.75


def test_kill_switch_allows(cs, monkeypatch):
    seed(cs, KEY, ["ignored"] * 3)
    for value in ("off", "0", "false", "NO"):
        monkeypatch.setenv("HOOKMUX_SILENCE", value)
        assert ask(cs) == (True, "disabled")
    for value in ("on", "1", ""):
        monkeypatch.setenv("HOOKMUX_SILENCE", value)
        assert ask(cs) == (False, "fatigued")


def test_malformed_ledger_lines_are_skipped_and_the_rest_still_suppresses(cs):
    seed(cs, KEY, ["ignored"] * 3)
    path = cs.history_path()
    lines = open(path).read().splitlines()
    junk = ["{", "not json", "[1, 2]", '{"v": 1, "k": "reaction", "type": "contraindication", "t": "x"}',
            '{"v": 1, "k": "reaction", "type": "contraindication", "key": "GIT-RESET-HARD", "r": "acted"}',
            "\x00\xff", '{"v": 2, "k": "reaction", "type": "contraindication", "key": "GIT-RESET-HARD", "r": "acted", "t": 1}']
    mixed = [junk[i % len(junk)] + "\n" + line for i, line in enumerate(lines)]
    open(path, "w", encoding="utf-8", errors="surrogateescape").write("\n".join(mixed) + "\n")
    assert ask(cs) == (False, "fatigued")


def test_a_ledger_that_cannot_be_read_allows(cs):
    os.makedirs(cs.history_path())  # a folder where the file should be
    assert ask(cs) == (True, "ledger-unreadable")


def test_any_exception_allows(cs, monkeypatch):
    seed(cs, KEY, ["ignored"] * 3)

    def broken(*args):
        raise RuntimeError("boom")

    monkeypatch.setattr(cs, "decide", broken)
    assert ask(cs) == (True, "error")
    assert cs.should_interject(TYPE, None) == (True, "no-finding")


def test_a_distinct_finding_bypasses_a_fatigued_one(cs):
    seed(cs, KEY, ["ignored"] * 3)
    assert ask(cs) == (False, "fatigued")
    assert ask(cs, key="GIT-FORCE-PUSH-MAIN") == (True, "novel")
    assert ask(cs, novel=True) == (True, "novel")
    assert ask(cs, key="") == (True, "no-finding")


def test_suppressed_occurrences_are_counted(cs):
    seed(cs, KEY, ["ignored"] * 3)
    before = cs.counters(TYPE, KEY)
    for index in range(4):
        assert ask(cs, session="s-%d" % index) == (False, "fatigued")
    after = cs.counters(TYPE, KEY)
    assert after["occurrences"] == before["occurrences"] + 4
    assert after["suppressed"] == before["suppressed"] + 4 == 4
    assert after["interjections"] == 3 and after["ignored"] == 3


def test_refresh_every_nth_suppressed_occurrence(cs, monkeypatch):
    monkeypatch.setenv("HOOKMUX_SILENCE_REFRESH", "3")
    seed(cs, KEY, ["ignored"] * 3)
    answers = [ask(cs, session="s-%d" % i)[1] for i in range(6)]
    assert answers == ["fatigued", "fatigued", "refresh", "fatigued", "fatigued", "refresh"]
    monkeypatch.setenv("HOOKMUX_SILENCE_REFRESH", "0")
    assert {ask(cs, session="t-%d" % i)[1] for i in range(12)} == {"fatigued"}


def test_thresholds_come_from_the_environment(cs, monkeypatch):
    seed(cs, KEY, ["ignored"] * 3)
    monkeypatch.setenv("HOOKMUX_SILENCE_MIN_SAMPLES", "4")
    assert ask(cs) == (True, "cold-start")
    seed(cs, KEY, ["ignored"], start=3)
    assert ask(cs) == (False, "fatigued")
    monkeypatch.setenv("HOOKMUX_SILENCE_THRESHOLD", "1.01")
    assert ask(cs) == (True, "useful")
    for bad in ("", "many", "nan"):
        monkeypatch.setenv("HOOKMUX_SILENCE_MIN_SAMPLES", bad)
        monkeypatch.setenv("HOOKMUX_SILENCE_THRESHOLD", bad)
        assert cs.settings()["min_samples"] == 3 and cs.settings()["threshold"] == 0.75
    monkeypatch.setenv("HOOKMUX_SILENCE_MIN_SAMPLES", "-5")
    assert cs.settings()["min_samples"] == 1


def test_window_keeps_the_newest_reactions(cs, monkeypatch):
    seed(cs, KEY, ["ignored"] * 3 + ["acted"] * 3)
    assert ask(cs) == (True, "useful")
    monkeypatch.setenv("HOOKMUX_SILENCE_WINDOW", "3")
    assert cs.counters(TYPE, KEY)["acted"] == 3 and cs.counters(TYPE, KEY)["ignored"] == 0


def test_replayed_records_count_once(cs):
    for _ in range(3):
        cs.record_interjection(TYPE, KEY, "one-session")
        cs.record_reaction(TYPE, KEY, "one-session", "ignored")
        ask(cs, event="same-event")
    counts = cs.counters(TYPE, KEY)
    assert (counts["interjections"], counts["ignored"], counts["occurrences"]) == (1, 1, 1)
    cs.record_reaction(TYPE, KEY, "one-session", "acted")  # the first reaction of a session stands
    assert cs.counters(TYPE, KEY)["acted"] == 0


def test_only_digests_and_codes_are_stored(cs):
    secret_session = "session-ghp_" + "A" * 36
    cs.record_interjection(TYPE, "weird key with spaces ghp_" + "B" * 36, secret_session)
    cs.should_interject(TYPE, {"finding": KEY, "session_id": secret_session, "event": "tool_use_id-secret"})
    text = open(cs.history_path()).read()
    assert "ghp_" not in text and "secret" not in text and "weird" not in text
    assert {tuple(sorted(r)) for r in history(cs.state)} <= {
        ("k", "key", "s", "t", "type", "v"), ("allow", "event", "k", "key", "s", "t", "type", "v", "why")}


def test_record_interjection_never_raises(cs, tmp_path, monkeypatch):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    monkeypatch.setenv("HOOKMUX_STATE_DIR", str(blocker))
    assert cs.record_interjection(TYPE, KEY, "s") is False
    assert ask(cs) == (True, "ledger-unreadable")
    assert blocker.read_text() == "x"


def test_the_ledger_stays_bounded(cs, monkeypatch):
    monkeypatch.setenv("HOOKMUX_SILENCE_MAX_BYTES", "8192")
    for index in range(300):
        cs.record_reaction(TYPE, KEY, "s-%d" % index, "ignored")
    size = os.path.getsize(cs.history_path())
    assert size <= 8192
    records = history(cs.state)
    assert records[-1]["s"] == cs.session_digest("s-299")
    assert all(json.dumps(r) for r in records)


def test_importing_the_module_imports_nothing_the_dispatcher_has_not():
    import subprocess
    import sys

    from silence_support import MODULE
    code = ("import os, sys, time; from importlib._bootstrap_external import spec_from_file_location;"
            "from importlib._bootstrap import module_from_spec; before = set(sys.modules);"
            "s = spec_from_file_location('cs', %r); m = module_from_spec(s); s.loader.exec_module(m);"
            "print(sorted(set(sys.modules) - before))" % str(MODULE))
    out = subprocess.run([sys.executable, "-S", "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_a_session_awaits_a_reaction_while_one_of_its_advisories_has_none(cs):
    assert not cs.awaits_reaction("s")  # no session file
    cs.record_interjection(TYPE, "K1", "s", repeat={"tool": "^Bash$", "input": "rm"})
    cs.record_interjection(TYPE, "K2", "s", repeat={"tool": "^Bash$", "input": "dd"})
    assert cs.awaits_reaction("s")

    def react(entries, keys):
        for entry in entries.values():
            if entry["key"] in keys:
                entry["r"] = "acted"
        return []

    cs.update_session("s", lambda entries: react(entries, {"K1"}))
    assert cs.awaits_reaction("s")
    cs.update_session("s", lambda entries: react(entries, {"K2"}))
    assert not cs.awaits_reaction("s")
    assert not cs.awaits_reaction("other")


def test_the_event_that_showed_an_advisory_does_not_await_its_reaction(cs):
    cs.record_interjection(TYPE, "K1", "s", repeat={"tool": "^Bash$", "input": "rm"}, origin="o-1")
    assert cs.awaits_reaction("s", "o-2")
    assert not cs.awaits_reaction("s", "o-1")  # the very event that showed it, or its replay
    expired = cs.time.time() + cs.settings()["pending_seconds"] + 1
    assert cs.awaits_reaction("s", "o-1", now=expired)  # an expired advisory is judged unknown by any call
