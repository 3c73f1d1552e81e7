"""The state folder against another local user (hooks/_common/state.py, ledger.py): a folder
the user does not own, or one others can write or move, is refused — no state, the advice
still comes, nothing written there — and state files are never opened through a link."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

from hookmux_testing import DISPATCH, HOOKS, PYTHON, hermetic_env
from security_support import OTHER, as_other_user, needs_root, tree_snapshot

pytestmark = needs_root

FORCE_PUSH = "git push --force origin main"


def _payload(session="victim-1"):
    return json.dumps({"session_id": session, "hook_event_name": "PreToolUse", "tool_name": "Bash",
                       "tool_input": {"command": FORCE_PUSH}, "cwd": "/"}).encode()


def _dispatch(env, session="victim-1"):
    result = subprocess.run([PYTHON, "-S", str(DISPATCH), "--hooks-root", str(HOOKS), "PreToolUse"],
                            input=_payload(session), capture_output=True, env=env, timeout=60)
    assert result.returncode == 0 and b"Traceback" not in result.stderr, result.stderr
    return result.stdout


def _advised(stdout: bytes) -> bool:
    return bool(stdout) and "GIT-FORCE-PUSH" in json.loads(stdout)["hookSpecificOutput"]["additionalContext"]


@pytest.fixture
def shared(tmp_path):
    """A folder every user can write (not sticky), as a shared project or scratch folder."""
    folder = Path(tempfile.mkdtemp(prefix="hmx-shared-", dir="/tmp"))
    folder.chmod(0o777)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def _forge_state(state: str):
    """The other user's prepared state folder: a forged history that calls every advisory fatigued."""
    history = os.path.join(state, "calibrated-silence")
    os.makedirs(history, mode=0o777)
    os.chmod(state, 0o777)
    os.chmod(history, 0o777)
    os.makedirs(os.path.join(state, "ledger"), mode=0o777)
    os.chmod(os.path.join(state, "ledger"), 0o777)
    lines = [json.dumps({"v": 1, "kind": "reaction", "type": "contraindication", "key": "GIT-FORCE-PUSH-MAIN",
                         "r": "ignored", "t": 1}) for _ in range(50)]
    with open(os.path.join(history, "history.jsonl"), "w") as handle:
        handle.write("\n".join(lines) + "\n")
    return sorted(os.listdir(state))


def test_a_state_folder_another_user_made_is_refused_and_the_advice_still_comes(tmp_path, shared):
    state = str(shared / "state")
    as_other_user(_forge_state, state)
    assert os.stat(state).st_uid == OTHER
    before = tree_snapshot(shared)
    env = hermetic_env(tmp_path, HOOKMUX_STATE_DIR=state, HOOKMUX_WARM="0")
    # no state: every call advises (nothing the other user wrote made it quiet), nothing is written
    assert _advised(_dispatch(env)) and _advised(_dispatch(env))
    assert tree_snapshot(shared) == before


def test_the_users_own_folder_inside_a_folder_others_can_write_is_refused(tmp_path, shared):
    state = shared / "mine" / "state"
    state.mkdir(parents=True, mode=0o700)  # ours, but another user can move it away and put theirs there
    env = hermetic_env(tmp_path, HOOKMUX_STATE_DIR=str(state), HOOKMUX_WARM="0")
    assert _advised(_dispatch(env)) and _advised(_dispatch(env))
    assert list(state.iterdir()) == []


def test_a_state_folder_others_can_write_is_refused(tmp_path):
    state = tmp_path / "state"
    state.mkdir(mode=0o700)
    state.chmod(0o777)
    env = hermetic_env(tmp_path, HOOKMUX_STATE_DIR=str(state), HOOKMUX_WARM="0")
    assert _advised(_dispatch(env)) and _advised(_dispatch(env))
    assert list(state.iterdir()) == []


def test_the_users_folder_in_a_sticky_shared_folder_keeps_its_state(tmp_path):
    """The control: /tmp-like (sticky, everyone writes) holding a folder of the user's own."""
    sticky = Path(tempfile.mkdtemp(prefix="hmx-sticky-", dir="/tmp"))
    try:
        sticky.chmod(0o1777)
        env = hermetic_env(tmp_path, HOOKMUX_STATE_DIR=str(sticky / "state"), HOOKMUX_WARM="0")
        assert _advised(_dispatch(env))
        assert _dispatch(env) == b""  # seen: state works
        assert (sticky / "state" / "ledger" / "dispatch.jsonl").is_file()
    finally:
        shutil.rmtree(sticky, ignore_errors=True)


def test_a_state_folder_another_user_makes_first_in_a_sticky_folder_is_refused(tmp_path):
    sticky = Path(tempfile.mkdtemp(prefix="hmx-sticky-", dir="/tmp"))
    try:
        sticky.chmod(0o1777)
        state = str(sticky / "state")
        as_other_user(_forge_state, state)
        before = tree_snapshot(sticky)
        env = hermetic_env(tmp_path, HOOKMUX_STATE_DIR=state, HOOKMUX_WARM="0")
        assert _advised(_dispatch(env)) and _advised(_dispatch(env))
        assert tree_snapshot(sticky) == before
    finally:
        shutil.rmtree(sticky, ignore_errors=True)


def test_state_files_are_never_opened_through_a_link(tmp_path):
    """Defence in depth inside the user's own folder: the ledger, a lock, a seen-map planted as
    links to a file of another user's are not followed (the call still advises)."""
    state = tmp_path / "state"
    (state / "ledger").mkdir(parents=True, mode=0o700)
    (state / "contraindication").mkdir(mode=0o700)
    elsewhere = tmp_path / "theirs.txt"
    elsewhere.write_text("theirs\n")
    os.chown(elsewhere, OTHER, OTHER)
    (state / "ledger" / "dispatch.jsonl").symlink_to(elsewhere)
    (state / "ledger" / ".lock").symlink_to(elsewhere)
    (state / "contraindication" / ".lock").symlink_to(elsewhere)
    env = hermetic_env(tmp_path, HOOKMUX_STATE_DIR=str(state), HOOKMUX_WARM="0")
    assert _advised(_dispatch(env))
    assert elsewhere.read_text() == "theirs\n"
    assert (state / "ledger" / "dispatch.jsonl").is_symlink()


def test_the_state_module_says_why(tmp_path, shared):
    import importlib.util

    spec = importlib.util.spec_from_file_location("hmx_state_probe", HOOKS / "_common" / "state.py")
    state = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(state)
    assert "writable by other users" in state.untrusted(str(shared / "x"))
    assert state.untrusted(str(tmp_path / "new" / "state")) is None
    shared.chmod(0o1777)
    theirs = shared / "theirs"
    as_other_user(os.mkdir, str(theirs), 0o755)
    assert "belongs to uid %d" % OTHER in state.untrusted(str(theirs))
    assert state.untrusted(str(shared / "not-yet")) is None  # made later: _make_dir checks it again
