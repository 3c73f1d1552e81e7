"""One state_dir() for both layers: the hooks and the installer agree on where state lives."""
from __future__ import annotations

import os
import subprocess

import pytest

from hookmux.installer import record
from hookmux_testing import HOOKS, PYTHON


def hook_state_dir(env: dict[str, str]) -> str:
    """state_dir() as a hook sees it: in a `python -S` process with the hooks tree on its path."""
    code = "import sys; sys.path.insert(0, sys.argv[1]); import _common; print(_common.state_dir())"
    result = subprocess.run([PYTHON, "-S", "-c", code, str(HOOKS)], env=env, capture_output=True, text=True,
                            check=True, cwd=env["HOME"])
    return result.stdout.strip()


def installer_state_dir(env: dict[str, str], monkeypatch) -> str:
    for key in ("HOOKMUX_STATE_DIR", "XDG_STATE_HOME"):
        monkeypatch.delenv(key, raising=False)
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    monkeypatch.chdir(env["HOME"])
    return str(record.state_dir())


@pytest.fixture
def env(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    base = {k: v for k, v in os.environ.items() if k not in ("HOOKMUX_STATE_DIR", "XDG_STATE_HOME")}
    return {**base, "HOME": str(home)}


def test_tilde_in_hookmux_state_dir_is_the_home_folder_in_both_layers(env, monkeypatch):
    env["HOOKMUX_STATE_DIR"] = "~/hm"
    expected = os.path.join(env["HOME"], "hm")
    assert hook_state_dir(env) == expected
    assert installer_state_dir(env, monkeypatch) == expected


def test_relative_xdg_state_home_is_ignored_in_both_layers(env, monkeypatch):
    env["XDG_STATE_HOME"] = "relative/state"
    expected = os.path.join(env["HOME"], ".local", "state", "hookmux")
    assert hook_state_dir(env) == expected
    assert installer_state_dir(env, monkeypatch) == expected


def test_absolute_xdg_state_home_is_used_in_both_layers(env, monkeypatch, tmp_path):
    env["XDG_STATE_HOME"] = str(tmp_path / "xdg")
    expected = str(tmp_path / "xdg" / "hookmux")
    assert hook_state_dir(env) == expected
    assert installer_state_dir(env, monkeypatch) == expected
