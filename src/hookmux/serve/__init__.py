"""``hookmux serve``: a resident loopback server answering Claude Code's HTTP hooks with the
dispatcher core (``hooks/_dispatch/dispatch_core.run``), one forked worker per request.

``files`` says where an install's secret, port and pid live; ``server`` is the server.
"""
