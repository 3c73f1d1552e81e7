"""``hookmux allow``: the user, at a terminal, lets one exact command through in one project;
the gate honours it only when the CLI signed it, for at most 24 hours."""
from __future__ import annotations

import hashlib
import hmac
import json
import os
import subprocess
import sys
import time

import pytest

from gate_support import DANGER_GATE, World, denial
from hookmux_testing import run_at_terminal

COMMAND = "rm -rf ~/Documents"
SIGNED = ("command", "project", "created", "expires", "once")


def allow(world: World, *args: str, cwd=None, typed: str = "allow\n") -> subprocess.CompletedProcess:
    """``hookmux allow ARGS`` at a terminal (a pty) where the person types ``typed``."""
    code, out, err, shown = run_at_terminal([sys.executable, "-m", "hookmux.cli", "allow", *args], typed,
                                            world.env, cwd=cwd or world.repo())
    done = subprocess.CompletedProcess(args, code, out, err)
    done.shown = shown
    return done


def allow_without_terminal(world: World, *args: str, stdin: str = "allow\n") -> subprocess.CompletedProcess:
    """``hookmux allow ARGS`` as an agent's shell runs it: stdin piped, no controlling terminal."""
    return subprocess.run([sys.executable, "-m", "hookmux.cli", "allow", *args], cwd=world.repo(), env=world.env,
                          input=stdin, capture_output=True, text=True, timeout=60, start_new_session=True)


def allowances_file(world: World):
    return world.root / "state" / "danger-gate" / "allowances.json"


def stored(world: World) -> dict:
    return json.loads(allowances_file(world).read_text())


def resign(key: bytes, entry: dict) -> None:
    body = json.dumps([entry.get(name) for name in SIGNED], sort_keys=True, separators=(",", ":"))
    entry["sig"] = hmac.new(key, body.encode(), hashlib.sha256).hexdigest()


def test_without_a_terminal_allow_refuses_and_the_gate_still_denies(tmp_path):
    world = World(tmp_path)
    assert denial(world.gate(COMMAND)) is not None
    for args in ([COMMAND, "--once"], [COMMAND, "--for", "1h"], ["--last"]):
        done = allow_without_terminal(world, *args)
        assert done.returncode == 2, done
        assert done.stderr.startswith("hookmux: allow needs a person at a terminal"), done.stderr
        assert "allowed" not in done.stdout
    assert not allowances_file(world).exists()
    assert denial(world.gate(COMMAND)) is not None


def test_a_word_other_than_allow_at_the_terminal_allows_nothing(tmp_path):
    world = World(tmp_path)
    done = allow(world, COMMAND, "--once", typed="yes\n")
    assert done.returncode == 1 and "not confirmed" in done.stderr
    assert denial(world.gate(COMMAND)) is not None


def test_the_word_is_read_from_the_terminal_not_stdin(tmp_path):
    world = World(tmp_path)
    code, out, err, _ = run_at_terminal([sys.executable, "-m", "hookmux.cli", "allow", COMMAND, "--once"],
                                        "no\n", world.env, cwd=world.repo(), stdin_text="allow\n")
    assert code == 1, (out, err)
    assert denial(world.gate(COMMAND)) is not None


def test_a_forged_allowance_with_a_far_expiry_is_ignored(tmp_path):
    world = World(tmp_path)
    path = allowances_file(world)
    path.parent.mkdir(parents=True, mode=0o700)
    now = time.time()
    path.write_text(json.dumps({"version": 1, "allowances": [
        {"command": COMMAND, "project": str(world.repo()), "created": now, "expires": now + 300 * 365 * 86400,
         "once": False}]}))
    path.chmod(0o600)
    assert denial(world.gate(COMMAND)) is not None


def test_an_entry_not_signed_by_the_cli_is_ignored(tmp_path):
    world = World(tmp_path)
    assert allow(world, "rm -rf ~/.ssh", "--for", "1h").returncode == 0  # the key exists now
    document = stored(world)
    document["allowances"].append(dict(document["allowances"][0], command=COMMAND))  # another entry's sig
    allowances_file(world).write_text(json.dumps(document))
    assert denial(world.gate(COMMAND)) is not None
    assert denial(world.gate("rm -rf ~/.ssh")) is None  # the signed one still counts


def test_a_signed_entry_longer_than_24_hours_is_ignored(tmp_path):
    world = World(tmp_path)
    assert allow(world, COMMAND, "--for", "1h").returncode == 0
    key_file = world.root / "state" / "danger-gate" / "allowances.key"
    assert key_file.stat().st_mode & 0o777 == 0o600
    key = key_file.read_bytes().strip()
    document = stored(world)
    entry = document["allowances"][0]
    entry["expires"] = entry["created"] + 300 * 365 * 86400
    resign(key, entry)  # a valid signature: the cap alone refuses it
    allowances_file(world).write_text(json.dumps(document))
    assert denial(world.gate(COMMAND)) is not None
    entry["expires"] = entry["created"] + 23 * 3600
    resign(key, entry)  # within the cap, the same key: it counts
    allowances_file(world).write_text(json.dumps(document))
    assert denial(world.gate(COMMAND)) is None


def test_the_gate_keeps_the_last_denied_commands_privately(tmp_path):
    world = World(tmp_path)
    for number in range(12):
        assert denial(world.gate(f"rm -rf ~/Documents/d{number} ~/Documents")) is not None
    assert denial(world.gate("rm -rf ~/Documents/d11 ~/Documents")) is not None  # kept once
    recent = world.root / "state" / "danger-gate" / "recent-denials.json"
    assert recent.stat().st_mode & 0o777 == 0o600
    denied = json.loads(recent.read_text())["denied"]
    assert [d["command"] for d in denied] == [f"rm -rf ~/Documents/d{n} ~/Documents" for n in range(2, 12)]
    assert {d["project"] for d in denied} == {str(world.repo())}


def test_a_dry_run_is_not_kept_among_the_last_denied(tmp_path):
    world = World(tmp_path)
    assert denial(world.gate(COMMAND, args=["--dry-run", "PreToolUse"])) is not None
    assert not (world.root / "state" / "danger-gate" / "recent-denials.json").exists()


def test_last_lists_the_denied_commands_and_allows_the_one_picked(tmp_path):
    world = World(tmp_path)
    assert denial(world.gate("rm -rf ~/.ssh")) is not None
    assert denial(world.gate(COMMAND)) is not None
    done = allow(world, "--last", "--once", cwd=tmp_path, typed="2\nallow\n")  # from outside the project
    assert done.returncode == 0, (done.stderr, done.shown)
    assert " 1. " in done.shown and " 2. " in done.shown
    assert done.shown.index(COMMAND) < done.shown.index("rm -rf ~/.ssh")  # newest first
    assert "allowed once: rm -rf ~/.ssh" in done.stdout
    assert denial(world.gate(COMMAND)) is not None
    assert denial(world.gate("rm -rf ~/.ssh")) is None
    assert denial(world.gate("rm -rf ~/.ssh")) is not None


def test_last_with_a_bad_number_allows_nothing(tmp_path):
    world = World(tmp_path)
    assert denial(world.gate(COMMAND)) is not None
    done = allow(world, "--last", typed="7\nallow\n")
    assert done.returncode == 1 and "nothing picked" in done.stderr
    assert denial(world.gate(COMMAND)) is not None


def test_last_with_nothing_denied_says_so(tmp_path):
    world = World(tmp_path)
    done = allow(world, "--last")
    assert done.returncode == 1 and "no denied command" in done.stderr


def test_once_lets_the_command_through_one_time(tmp_path):
    world = World(tmp_path)
    assert denial(world.gate(COMMAND)) is not None
    done = allow(world, COMMAND, "--once")
    assert done.returncode == 0, done.stderr
    assert "allowed once" in done.stdout
    assert COMMAND in done.shown and "Type allow" in done.shown  # shown at the terminal first
    assert denial(world.gate(COMMAND)) is None
    assert denial(world.gate(COMMAND)) is not None  # used up
    assert stored(world)["allowances"] == []


def test_for_a_while_lets_it_through_again_and_again(tmp_path):
    world = World(tmp_path)
    assert allow(world, COMMAND, "--for", "10m").returncode == 0
    for _ in range(2):
        assert denial(world.gate(COMMAND)) is None
    assert denial(world.gate("rm -rf ~/.ssh")) is not None  # only that exact command


def test_only_in_that_project(tmp_path):
    world = World(tmp_path)
    assert allow(world, COMMAND, "--for", "1h").returncode == 0
    sub = world.repo() / "deep"
    sub.mkdir()
    assert denial(world.gate(COMMAND, cwd=sub)) is None  # same project, a subfolder
    assert denial(world.gate(COMMAND, cwd=world.repo("changed"))) is not None  # another project


def test_expired_allowances_do_not_count(tmp_path):
    world = World(tmp_path)
    assert allow(world, COMMAND, "--for", "1h").returncode == 0
    path = allowances_file(world)
    document = json.loads(path.read_text())
    document["allowances"][0]["expires"] = 1.0
    path.write_text(json.dumps(document))
    assert denial(world.gate(COMMAND)) is not None


def test_the_file_is_private_and_a_shared_one_is_ignored(tmp_path):
    world = World(tmp_path)
    assert allow(world, COMMAND, "--for", "1h").returncode == 0
    path = allowances_file(world)
    assert path.stat().st_mode & 0o777 == 0o600
    assert path.parent.stat().st_mode & 0o777 == 0o700
    path.chmod(0o666)
    assert denial(world.gate(COMMAND)) is not None
    path.chmod(0o600)
    path.parent.chmod(0o777)
    assert denial(world.gate(COMMAND)) is not None
    path.parent.chmod(0o700)
    assert denial(world.gate(COMMAND)) is None


def test_a_symlinked_file_is_ignored(tmp_path):
    world = World(tmp_path)
    assert allow(world, COMMAND, "--for", "1h").returncode == 0
    path = allowances_file(world)
    elsewhere = tmp_path / "planted.json"
    os.replace(path, elsewhere)
    path.symlink_to(elsewhere)
    assert denial(world.gate(COMMAND)) is not None


def test_list_and_revoke(tmp_path):
    world = World(tmp_path)
    assert allow(world, COMMAND, "--for", "2h").returncode == 0
    listed = allow(world, "--list")
    assert COMMAND in listed.stdout and str(world.repo()) in listed.stdout
    assert allow(world, COMMAND, "--revoke").returncode == 0
    assert "no allowances" in allow(world, "--list").stdout
    assert denial(world.gate(COMMAND)) is not None


@pytest.mark.parametrize("bad", ["0m", "abc", "25h", "2d", ""])
def test_a_bad_duration_is_an_error(tmp_path, bad):
    world = World(tmp_path)
    done = allow(world, COMMAND, "--for", bad)
    assert done.returncode == 1 and done.stderr.startswith("hookmux: --for")


def test_once_and_for_together_are_refused(tmp_path):
    world = World(tmp_path)
    assert allow(world, COMMAND, "--once", "--for", "1h").returncode == 2


def test_a_malformed_file_counts_as_none_and_allow_rewrites_it(tmp_path):
    world = World(tmp_path)
    path = allowances_file(world)
    path.parent.mkdir(parents=True, mode=0o700)
    path.write_text("{not json")
    path.chmod(0o600)
    assert denial(world.gate(COMMAND)) is not None
    assert allow(world, COMMAND, "--once").returncode == 0
    assert denial(world.gate(COMMAND)) is None


def test_status_lists_the_allowances_in_force(tmp_path):
    world = World(tmp_path)
    assert allow(world, COMMAND, "--once").returncode == 0
    cmd = [sys.executable, "-m", "hookmux.cli", "status", "--target", str(tmp_path / "nothing"),
           "--settings", str(tmp_path / "settings.json")]
    report = json.loads(subprocess.run(cmd + ["--json"], env=world.env, capture_output=True, text=True).stdout)
    assert [(a["command"], a["once"]) for a in report["allowances"]] == [(COMMAND, True)]
    text = subprocess.run(cmd, env=world.env, capture_output=True, text=True).stdout
    assert "danger gate allowances" in text and COMMAND in text


def test_a_dry_run_does_not_use_up_a_once_allowance(tmp_path):
    world = World(tmp_path)
    assert denial(world.gate(COMMAND, args=["--dry-run", "PreToolUse"])) is not None
    assert allow(world, COMMAND, "--once").returncode == 0
    assert denial(world.gate(COMMAND, args=["--dry-run", "PreToolUse"])) is None
    assert denial(world.gate(COMMAND)) is None
    assert denial(world.gate(COMMAND)) is not None


PROBE = """
import sys
sys.path.insert(0, sys.argv[1])
import gate_core
gate_core.allowed("rm -rf ~/Documents", sys.argv[2])
print(sorted(name for name in ("hmac", "hashlib") if name in sys.modules))
"""


def test_without_an_allowances_file_the_gate_imports_no_hmac(tmp_path):
    world = World(tmp_path)
    probe = [sys.executable, "-S", "-c", PROBE, str(DANGER_GATE.parent), str(world.repo())]
    done = subprocess.run(probe, env=world.env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and done.stdout == "[]\n", done
    assert allow(world, COMMAND, "--for", "1h").returncode == 0
    done = subprocess.run(probe, env=world.env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and done.stdout == "['hashlib', 'hmac']\n", done
