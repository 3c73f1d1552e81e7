import pytest

from serve_support import Running, install_tree


@pytest.fixture
def server(tmp_path):
    running = Running(tmp_path, install_tree(tmp_path))
    yield running
    running.stop()
