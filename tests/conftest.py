"""Fixtures shared by every test folder; the helpers themselves are in hookmux_testing.py."""
from __future__ import annotations

import shutil

import pytest
from hookmux_testing import RUNTIME_DIR, hermetic_env


def pytest_sessionfinish(session, exitstatus):
    shutil.rmtree(RUNTIME_DIR, ignore_errors=True)  # the session's warm pools see it gone and leave


@pytest.fixture
def env(tmp_path):
    return hermetic_env(tmp_path)
