"""Is this install's ``hookmux serve`` up? Asked by ``hookmux serve --check``/``--ensure`` and
by ``hookmux status``."""
from __future__ import annotations

import json
import urllib.request

from hookmux.serve import files


def probe(hooks: str, timeout: float = 1.0) -> dict | None:
    """The running server's record when its process lives and it answers the health check."""
    record = files.read_record(hooks)
    secret = files.secret(hooks, create=False)
    if not record or not secret or not files.pid_alive(record.get("pid")):
        return None
    url = "http://127.0.0.1:%d/%s/health" % (record.get("port", 0), secret)
    try:
        with urllib.request.build_opener(urllib.request.ProxyHandler({})).open(url, timeout=timeout) as reply:
            if json.loads(reply.read()).get("pid") != record.get("pid"):
                return None
    except Exception:
        return None
    return record
