"""Is this install's ``hookmux serve`` up? Asked by ``hookmux serve --check``/``--ensure`` and
by ``hookmux status``."""
from __future__ import annotations

import json
import os
import urllib.request

from hookmux.serve import files


def squatter(port) -> int | None:
    """The uid of another user's process listening on ``port`` (hooks/_common/loopback.py), or None."""
    from hookmux import resources

    try:
        others = sorted(uid for uid in resources.runtime("loopback").listener_uids(int(port)) if uid != os.getuid())
    except (TypeError, ValueError):
        return None
    return others[0] if others else None


def probe(hooks: str, timeout: float = 1.0) -> dict | None:
    """The running server's record when its process lives and it answers the health check."""
    record = files.read_record(hooks)
    secret = files.secret(hooks, create=False)
    if not record or not secret or not files.pid_alive(record.get("pid")):
        return None
    if squatter(record.get("port")) is not None:
        return None  # never send the secret to another user's listener
    url = "http://127.0.0.1:%d/%s/health" % (record.get("port", 0), secret)
    try:
        with urllib.request.build_opener(urllib.request.ProxyHandler({})).open(url, timeout=timeout) as reply:
            if json.loads(reply.read()).get("pid") != record.get("pid"):
                return None
    except Exception:
        return None
    return record


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
