"""Fixtures shared by every test folder; the helpers themselves are in hookmux_testing.py."""
from __future__ import annotations

import pytest
from hookmux_testing import hermetic_env


@pytest.fixture
def env(tmp_path):
    return hermetic_env(tmp_path)
