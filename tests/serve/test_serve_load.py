"""200 concurrent keep-alive requests: every one answered, one advisory per session."""
from __future__ import annotations

import http.client
from concurrent.futures import ThreadPoolExecutor

from serve_support import bash, post_on

SESSIONS = 20
CLIENTS = 40
REQUESTS = 200


def test_200_concurrent_requests_keep_exactly_once(server):
    def client(index):
        conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=120)
        try:
            return [post_on(conn, "/%s/PreToolUse" % server.secret,
                            bash("git push --force origin main", session="load-%d" % (n % SESSIONS)))
                    for n in range(index, REQUESTS, CLIENTS)]
        finally:
            conn.close()

    with ThreadPoolExecutor(CLIENTS) as pool:
        replies = [reply for batch in pool.map(client, range(CLIENTS)) for reply in batch]
    assert len(replies) == REQUESTS
    assert all(status == 200 for status, _ in replies)
    advised = [body for _, body in replies if body]
    assert len(advised) == SESSIONS
    assert all(b"GIT-FORCE-PUSH-MAIN" in body for body in advised)
