"""``hookmux allow`` needs a person at a terminal: without one it exits 2 and writes nothing."""
from __future__ import annotations

import subprocess
import sys

from hookmux_testing import hermetic_env, run_at_terminal


def hookmux(tmp_path, *args: str, stdin: str = "allow\n"):
    """As an agent's shell runs it: stdin piped, no controlling terminal (a new session)."""
    return subprocess.run([sys.executable, "-m", "hookmux.cli", "allow", *args], input=stdin, capture_output=True,
                          text=True, cwd=tmp_path, env=hermetic_env(tmp_path), timeout=60, start_new_session=True)


def test_allow_without_a_terminal_exits_2_with_a_clear_message_and_writes_nothing(tmp_path):
    for args in (["git reset --hard", "--once"], ["git reset --hard", "--for", "2h"], ["--last"]):
        done = hookmux(tmp_path, *args)
        assert done.returncode == 2, done
        assert done.stdout == ""
        assert done.stderr == ("hookmux: allow needs a person at a terminal (it reads the confirmation from /dev/tty, "
                               "not stdin), and there is none: run it in your own terminal\n")
    assert not (tmp_path / "state" / "danger-gate" / "allowances.json").exists()
    assert not (tmp_path / "state" / "danger-gate" / "allowances.key").exists()


def test_list_and_revoke_need_no_terminal(tmp_path):
    assert hookmux(tmp_path, "--list").returncode == 0
    assert hookmux(tmp_path, "git reset --hard", "--revoke").returncode == 0


def test_at_a_terminal_the_typed_word_allows(tmp_path):
    code, out, err, shown = run_at_terminal([sys.executable, "-m", "hookmux.cli", "allow", "git reset --hard"],
                                            "allow\n", hermetic_env(tmp_path), cwd=tmp_path)
    assert code == 0, (err, shown)
    assert out.startswith("allowed for 1h: git reset --hard")
    assert "git reset --hard" in shown and "Type allow" in shown
    key = tmp_path / "state" / "danger-gate" / "allowances.key"
    assert key.stat().st_mode & 0o777 == 0o600


def test_last_names_no_command(tmp_path):
    done = hookmux(tmp_path, "git reset --hard", "--last")
    assert done.returncode == 1 and done.stderr.startswith("hookmux: --last")
