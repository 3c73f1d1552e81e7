"""The page a worker shares with the server: what the worker is doing, with no message per request.

A worker writes it as a request goes (no system call); the server reads it when the worker
dies (was a request under way? then its client gets an empty reply), to kill a worker past
its deadline, and to see when the last request came (idle exit). Times are
``time.monotonic()``, one clock for every process of the machine. Standard library only,
loaded by worker.py beside itself.
"""
import struct

SIZE = 64
LAYOUT = struct.Struct("<B7xdd")  # state, deadline, last request
IDLE, BUSY, REPLYING = 0, 1, 2


def write(page, state, deadline, last):
    LAYOUT.pack_into(page, 0, state, deadline, last)


def read(page):
    """(state, deadline, last request)."""
    return LAYOUT.unpack_from(page, 0)
