"""Is this install's ``hookmux serve`` up? Asked by ``hookmux serve --check``/``--ensure`` and
by ``hookmux status``: the one probe the SessionStart hook uses too (hooks/_common/warm.py)."""
from __future__ import annotations

from hookmux.serve import files


def squatter(port) -> int | None:
    """The uid of another user's process listening on ``port`` (hooks/_common/loopback.py), or None."""
    return files.warm_module().squatter(port)


def probe(hooks: str, timeout: float = 1.0) -> dict | None:
    """The running server's record when its process lives, it listens on the install's port and
    it answers the health check (``warm.answering``)."""
    return files.warm_module().answering(files.folder(hooks), timeout)


def warnings(hooks: str, settings) -> list[str]:
    """What ``hookmux status`` warns of for this install's server (issue 32): a settings file that
    gives its secret away, another user's process on its port."""
    found = []
    exposed = files.exposed(settings)
    if exposed:
        found.append(exposed)
    held = squatter(files.port(hooks, create=False))
    if held is not None:
        found.append(f"its port is held by another user's process (uid {held}): sessions are stopped at start; "
                     "hookmux install --serve moves to a new port")
    return found
