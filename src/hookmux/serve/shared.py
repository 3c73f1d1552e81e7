"""The page a worker shares with the server: what the worker is doing, with no message per request.

A worker writes it as a request goes (no system call); the server reads it when the worker
dies (was a request under way? then its client gets the reply the worker kept, below), to
kill a worker past its deadline, and to see when the last request came (idle exit). Times
are ``time.monotonic()``, one clock for every process of the machine. Standard library
only, loaded by worker.py beside itself.

After the header, the reply the request would get from the checks that finished so far
(``keep``: rewritten each time a finished check adds advice, emptied when a request starts):
a worker that dies mid-request still answers with the advice of the checks that finished, as
a standby of the warm pool does.
"""
import struct

HEADER = 64
KEPT_MAX = 256 << 10  # a capped context (dispatch_core.MAX_CONTEXT_CHARS) escaped as JSON fits
SIZE = HEADER + KEPT_MAX
LAYOUT = struct.Struct("<B7xdd")  # state, deadline, last request
KEPT = struct.Struct("<I")  # the kept reply's length, after LAYOUT
IDLE, BUSY, REPLYING = 0, 1, 2


def write(page, state, deadline, last):
    LAYOUT.pack_into(page, 0, state, deadline, last)


def read(page):
    """(state, deadline, last request)."""
    return LAYOUT.unpack_from(page, 0)


def touch(page):
    """Fault the whole page in once, when the worker starts: the room for a kept reply is then
    part of the worker's memory from its first request, not a growth spread over its life as
    longer replies reach further into it (tests/serve/test_serve_memory.py measures growth)."""
    page[HEADER:SIZE] = bytes(KEPT_MAX)


def keep(page, reply):
    """Keep ``reply`` (bytes; b"" forgets it) as the answer should the worker die now. The
    length is zero while the bytes change, so a worker that dies halfway leaves none."""
    KEPT.pack_into(page, LAYOUT.size, 0)
    if 0 < len(reply) <= KEPT_MAX:
        page[HEADER:HEADER + len(reply)] = reply
        KEPT.pack_into(page, LAYOUT.size, len(reply))


def kept(page):
    """The reply kept by a worker that died (b"": none)."""
    size = KEPT.unpack_from(page, LAYOUT.size)[0]
    return bytes(page[HEADER:HEADER + size]) if 0 < size <= KEPT_MAX else b""
