"""``hookmux serve``'s files (``files``: secret, port, run record) and probe (``probe``); the
server itself is the installed tree's arbiter (hooks/_dispatch/dispatch_arbiter.py)."""
